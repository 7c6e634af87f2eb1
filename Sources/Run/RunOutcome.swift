import Emulation
import Foundation
import Libretro

/// What a run came to: its exit status, the frames it ran, the scripts' results, the last frame.
public struct RunOutcome {
    /// 0, 1 when something failed, or the scripts' `emu.exit` code.
    public var status: Int32 = 0
    public var report: RunReport
    /// `emu.result` values, after the scripts' `exit` callbacks.
    public var results: [String: any Sendable] = [:]
    /// The movie's part of `--json` (path, length, rerecords, mode, frame, desync).
    public var movie: [String: Any]?
    /// What a replay (`RunPlan.replay`) found.
    public var replay: ReplayOutcome?
    /// The core and content that ran, for the summary.
    public let core: CoreIdentity
    public let content: Content?

    public var frames: Int { report.frames }
    public var frameHash: String? { report.frameHash }

    init(report: RunReport, session: Session) {
        self.report = report
        core = CoreIdentity(session)
        content = session.content
    }
}

/// The core as the summary names it.
public struct CoreIdentity: Sendable {
    public let name: String
    public let library: String
    public let version: String
    /// The core's frame rate (60 when it gives none).
    public let fps: Double

    init(_ session: Session) {
        let info = session.core.systemInfo
        name = session.coreName
        library = info.libraryName
        version = info.libraryVersion.trimmingCharacters(in: .whitespaces)
        fps = session.core.avInfo?.fps ?? 60
    }
}

/// A replay's verdict: the first desync (verification) or the RAM hash after each frame.
public struct ReplayOutcome: Sendable {
    public var desync: MovieEngine.Desync?
    public var ramHashes: [UInt32] = []
    /// What the hashes cover, in the header's word and in words; why they cannot be checked, if so.
    public var cover: VerificationCover = .systemRAM
    public var covers = ""
    public var problem: String?
    /// Frames checked where the cover held something.
    public var coveredChecks = 0
    /// The movie's length in frames.
    public var length: Int
}

/// Why a run could not be assembled: what the CLI prints after `retrolua: ` before exiting with 1.
public struct RunFailure: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Where a run's own lines go: the report and movie lines to stdout, problems to stderr.
public struct RunConsole: Sendable {
    /// One line of standard output (buffered, as `print` is).
    public var print: @Sendable (String) -> Void
    /// One problem or warning, printed as `retrolua: …` on standard error.
    public var problem: @Sendable (String) -> Void

    public init(print: @escaping @Sendable (String) -> Void, problem: @escaping @Sendable (String) -> Void) {
        self.print = print
        self.problem = problem
    }

    public static let standard = RunConsole(
        print: { Swift.print($0) },
        problem: { FileHandle.standardError.write(Data("retrolua: \($0)\n".utf8)) })
}
