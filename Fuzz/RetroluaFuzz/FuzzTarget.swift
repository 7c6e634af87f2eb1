@testable import Emulation
import Foundation

/// Every parser of untrusted bytes, each fed through the entry point the host uses.
enum FuzzTarget: String, CaseIterable {
    case state, movieblock, rlm, journal, fm2, bk2, fcm, fmv, vmv, cht, control, binary, content, netaddress

    /// Work done once per process (the control and content targets load a real core).
    func prepare() {
        switch self {
        case .control: ControlFuzz.prepare()
        case .binary: BinaryControlFuzz.prepare()
        case .content: ContentFuzz.prepare()
        default: break
        }
    }

    func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .state: Self.state(bytes)
        case .movieblock: _ = MovieStateBlock.decode(bytes)
        case .rlm: Self.rlm([UInt8](bytes))
        case .journal: _ = try? MovieJournal.recover(bytes: [UInt8](bytes), name: "fuzz.rlm.journal")
        case .fm2: _ = try? FM2.decode([UInt8](bytes), name: "fuzz.fm2")
        case .bk2: _ = try? BK2.decode(zip: [UInt8](bytes), name: "fuzz.bk2")
        case .fcm: _ = try? LegacyMovies.decodeFCM([UInt8](bytes), name: "fuzz.fcm", frameLimit: 100_000)
        case .fmv: _ = try? LegacyMovies.decodeFMV([UInt8](bytes), name: "fuzz.fmv")
        case .vmv: _ = try? LegacyMovies.decodeVMV([UInt8](bytes), name: "fuzz.vmv")
        case .cht: _ = try? CheatFile.parse(String(decoding: bytes, as: UTF8.self), name: "fuzz.cht")
        case .control: ControlFuzz.run(bytes)
        case .binary: BinaryControlFuzz.run(bytes)
        case .content: ContentFuzz.run(bytes)
        case .netaddress: NetAddressFuzz.run(bytes)
        }
    }

    /// A savestate as the host reads it: the container, then what it points at (names, movie block).
    private static func state(_ bytes: UnsafeRawBufferPointer) {
        guard let container = try? StateContainer.decode(bytes) else { return }
        _ = StateContainer.frame(of: bytes)
        guard !container.isBare else { return }
        _ = container.coreName(in: bytes)
        _ = container.contentSHA1(in: bytes)
        if let block = container.movieBlock {
            _ = MovieStateBlock.decode(UnsafeRawBufferPointer(rebasing: bytes[block]))
        }
    }

    /// A movie as `MovieText.read` takes it (the start state inflated), its start state as a container,
    /// and the movie written back.
    private static func rlm(_ bytes: [UInt8]) {
        guard let movie = try? MovieText.decode(bytes, name: "fuzz.rlm") else { return }
        if let state = movie.startState { _ = state.withUnsafeBytes { try? StateContainer.decode($0) } }
        _ = MovieText.encode(movie)
    }
}
