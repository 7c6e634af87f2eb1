import Foundation
import Libretro

/// A TAS movie: who made it on what, where it starts, and the input of every frame.
public struct Movie: Sendable {
    /// The core's file name without `_libretro.so` (`nestopia`), its library name and version.
    public var coreName = ""
    public var coreLibrary = ""
    public var coreVersion = ""
    public var system = ""
    /// The content's file name and SHA-1 (hex).
    public var contentName = ""
    public var contentSHA1 = ""
    /// SHA-1 and MD5 of the content without its header (`Content.identity`), as BizHawk's `.bk2` and
    /// FCEUX's `.fm2` identify a ROM; empty for movies made before they were recorded.
    public var contentIdentity = ""
    public var contentMD5 = ""
    /// Core options in effect when recording started.
    public var options: [(key: String, value: String)] = []
    /// The savestate the movie starts from (a Retrolua state container); nil: from power-on, with
    /// the game's save RAM as the core creates it (the player's battery save is not used).
    public var startState: [UInt8]?
    /// A movie from power-on whose core could not save its power-on state: the start state is the first
    /// one it gave, this many frames after power-on (`anchor` in the header).
    public var anchorFrame: Int?
    public var rerecords = 0
    public var author = ""
    public var comments: [String] = []
    /// Identifies the recording (savestates made during it carry it).
    public var guid = UUID().uuidString
    /// The RetroPad buttons logged per port, in column order.
    public var buttons: [RetroPadButton] = RetroPadButton.standardOrder
    public var log: InputLog
    /// CRC-32 of the game's RAM after each frame (`verify` replays against these); empty when off.
    public var ramHashes: [UInt32] = []
    /// What the hashes cover (`verify-covers` in the header); nil in movies made before it existed,
    /// whose hashes covered system RAM.
    public var verifyCovers: VerificationCover?
    /// Header fields of an imported movie that Retrolua does not use, kept for exporting it back.
    public var extras: [(key: String, value: String)] = []
    /// TAS editor markers: frame → note (`marker FRAME NOTE` in the header).
    public var markers: [Int: String] = [:]

    public init(ports: Int = 2, analog: Bool = false) {
        log = InputLog(ports: ports, analog: analog)
    }

    public var length: Int { log.count }
    public var hasVerification: Bool { !ramHashes.isEmpty }

    public func extra(_ key: String) -> String? { extras.last { $0.key == key }?.value }

    /// Drops every frame from `frame` on (and their verification hashes).
    public mutating func truncate(to frame: Int) {
        log.truncate(to: frame)
        if ramHashes.count > frame { ramHashes.removeSubrange(frame...) }
    }

    /// Lag frames in the log.
    public var lagFrames: Int { (0..<log.count).reduce(0) { $0 + (log.flags(at: $1).contains(.lag) ? 1 : 0) } }
}

extension RetroPadButton {
    /// Column order in movie files: d-pad, start, select, then face and shoulder buttons.
    public static let standardOrder: [RetroPadButton] = [
        .up, .down, .left, .right, .start, .select, .y, .b, .x, .a,
        .l, .r, .l2, .r2, .l3, .r3,
    ]

    /// The letter shown for a pressed button in Retrolua movies (any other character but `.` also reads as pressed).
    public var mnemonic: Character {
        switch self {
        case .up: "U"
        case .down: "D"
        case .left: "L"
        case .right: "R"
        case .start: "S"
        case .select: "s"
        case .y: "Y"
        case .b: "B"
        case .x: "X"
        case .a: "A"
        case .l: "l"
        case .r: "r"
        case .l2: "<"
        case .r2: ">"
        case .l3: "["
        case .r3: "]"
        }
    }
}

/// A movie file that cannot be used, with where and why.
public struct MovieError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
