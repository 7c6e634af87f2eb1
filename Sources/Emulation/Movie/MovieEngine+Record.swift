import Foundation
import Libretro

/// Starting a recording: the new movie's facts, where it starts, its verification log and its journal.
extension MovieEngine {
    public struct RecordOptions: Sendable {
        public var start: Start = .power
        public var author = ""
        public var verify = false
        public var overwrite = false
        public var ports = 2
        public init() {}
    }

    /// The end of the refusal to record over a file; each door puts its own spelling of the option there.
    public static let overwriteHint = "choose another name, or allow overwriting"

    /// Starts recording a new movie to `path` (never over an existing file unless `overwrite`).
    public func record(to path: String, options: RecordOptions) throws(MovieError) {
        try MovieJournal.checkTarget(path)  // a regular file (or none) in a folder that can be written
        if !options.overwrite && FileManager.default.fileExists(atPath: path) {
            throw MovieError("\(path) exists; movies are never overwritten (\(Self.overwriteHint))")
        }
        guard (1...InputState.maxPorts).contains(options.ports) else {
            throw MovieError("ports must be 1…\(InputState.maxPorts)")
        }
        // Before anything changes: a recording that could not be saved is refused now, not at its end.
        try stop()
        var movie = Movie(ports: options.ports, analog: false)
        let core = session.core
        movie.coreName = session.coreName
        movie.coreLibrary = core.systemInfo.libraryName
        movie.coreVersion = core.systemInfo.libraryVersion.trimmingCharacters(in: .whitespaces)
        movie.system = session.systemName ?? ""
        movie.contentName = session.content?.fileName ?? ""
        movie.contentSHA1 = session.content?.sha1 ?? ""
        movie.contentIdentity = session.content?.identity ?? ""
        movie.contentMD5 = session.content?.identityMD5 ?? ""
        movie.options = core.options.definitions.compactMap { definition in
            core.options.value(definition.key).map { (definition.key, $0) }
        }
        movie.author = options.author
        movie.buttons = loggedButtons()
        switch options.start {
        case .power:
            try startAtPowerOn(&movie)
            session.detachSaveRAM(because: "a movie started from power-on replaced the game's save RAM")
            emulator.emit(.timeJumped)
        case .now:
            do { movie.startState = try emulator.encodeState() } catch {
                throw MovieError("cannot record from now: \(error)")
            }
        }
        startFrame = session.frameCount
        cover = VerificationCover.best(for: self)
        if options.verify {
            movie.ramHashes.reserveCapacity(4096)
            movie.verifyCovers = cover
            pendingMessages.append("movie: the verification log hashes \(describe(cover)) after every frame")
        }
        verificationProblem = nil
        coveredChecks = 0
        pictureLog = options.verify && cover != .frame ? [] : nil
        journal = try MovieJournal(target: path, movie: movie, framesPerSecond: core.avInfo?.fps ?? 60)
        self.movie = movie
        self.path = path
        backedUp = []
        verifyWhileRecording = options.verify
        mode = .record
        readOnly = false
        toldOfMemoryWrite = false
        savesOnStop = true
        hasUnsavedChanges = true
        firstDesync = nil
        pendingCommands = []
        overrun = Overrun()
        verificationTruncated = nil
        resetEditor()
        pendingEvents.append(.started)
        warnAboutCheats()
    }

    /// The buttons the game declares for port 1 (input descriptors), in movie column order.
    private func loggedButtons() -> [RetroPadButton] {
        let declared = Set(
            session.core.inputDescriptors.filter { $0.device == 1 && $0.index == 0 }.compactMap {
                RetroPadButton(rawValue: $0.id)
            })
        let ordered = RetroPadButton.standardOrder.filter(declared.contains)
        return ordered.count >= 4 ? ordered : RetroPadButton.standardOrder
    }
}
