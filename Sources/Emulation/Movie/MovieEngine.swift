import CZlib
import Support
import Foundation
import Libretro

/// Records and plays a movie around the script host's frame loop: input in, input out, commands,
/// verification hashes, rerecords, and what savestates loaded during a movie mean for it.
///
/// Modes follow BizHawk and FCEUX: `record` logs the player's (and scripts') input each frame;
/// `play` feeds the log to the core; in read-only mode a state load must stay on the movie's
/// timeline, in read-write mode it replaces the input from that frame on and records from there.
public final class MovieEngine {
    public enum Mode: String, Sendable { case idle, record, play, finished }
    public enum Start: Sendable { case power, now }

    public struct Desync: Sendable, Equatable {
        public let frame: Int
        public let expected: UInt32
        public let actual: UInt32
        public let what: String
    }

    unowned let emulator: Emulator
    var session: Session { emulator.session }
    public internal(set) var movie: Movie?
    /// Where the movie is saved (recordings: written at stop and exit; played movies: only by `save`).
    public private(set) var path: String?
    public internal(set) var mode: Mode = .idle
    public private(set) var readOnly = true
    public var countsRerecords = true
    /// Frame count (`emu.framecount()`) at movie frame 0.
    var startFrame = 0
    /// The first frame whose RAM (or lag) differed from the movie's verification log.
    public private(set) var firstDesync: Desync?
    public internal(set) var hasUnsavedChanges = false
    /// What this movie's verification hashes cover (chosen from the core when recording, read from the movie when playing).
    public internal(set) var cover: VerificationCover = .systemRAM
    /// Why a played movie's verification log cannot be checked here (its cover is not on this core), if so.
    public private(set) var verificationProblem: String?
    /// Frames checked against the log where the cover held something (a frame check needs a picture).
    public private(set) var coveredChecks = 0
    /// While recording a log of memory: the picture's hash of each frame (MovieVerification.swift).
    var pictureLog: [UInt32]?
    /// A recording made by `record` is saved to its path when stopped; a played movie only when asked.
    public private(set) var savesOnStop = false
    private var pendingCommands: MovieFrameFlags = []
    /// A recording's journal beside its file (nil for played movies).
    var journal: MovieJournal?
    /// What the movie announces (`movie_start`, `movie_end`, `movie_desync`); the emulator sends them on
    /// after each operation and frame, with the messages for the player that go with them first.
    enum Event { case started, ended, desync }
    var pendingEvents: [Event] = []
    var pendingMessages: [String] = []

    /// The TAS editor's side of the movie (MovieEngine+Greenzone.swift, MovieEngine+TAS.swift): states to
    /// seek from, the lag each frame turned out to have, the undo history, markers' selection.
    public let greenzone = Greenzone()
    public var greenzoneEnabled = true
    /// Per frame: 0 not run since its input last changed, 1 ran without lag, 2 lagged.
    var observedLag: [UInt8] = []
    /// The current state is on the movie's timeline (false after an edit of a frame already run).
    var stateOnTimeline = true
    var history = MovieEditHistory()
    /// Frames selected in the editor (shared by every script).
    public var selection = Set<Int>()
    /// A script shows the editor (`tastudio.engaged`).
    public var editorEngaged = false {
        didSet { if editorEngaged { editorOpened = true } }
    }
    /// The editor was shown over this movie: its changes are saved to the movie's file at exit (with a backup).
    public internal(set) var editorOpened = false
    /// Files written or backed up since the movie started: the backup keeps a file as it was when the movie was
    /// opened (or before a recording first wrote over it), whatever the saves after.
    private var backedUp: Set<String> = []
    var captureScratch: [UInt8] = []
    var seekTarget: Int?

    /// Cheats change the game without being input: a movie made or played with them replays only with them.
    private func warnAboutCheats() {
        let count = emulator.cheats.cheats.filter(\.enabled).count
        if count > 0 {
            pendingMessages.append(
                "movie: \(count) cheat\(count == 1 ? " is" : "s are") on; the movie replays only with the same cheats")
        }
    }

    init(emulator: Emulator) { self.emulator = emulator }

    public var isActive: Bool { mode != .idle }

    /// The movie frame about to run (0 = the first frame of the movie).
    public var frame: Int { mode == .idle ? 0 : session.frameCount - startFrame }

    // MARK: Starting and stopping

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

    /// Whether new frames get verification hashes while recording.
    var verifyWhileRecording = false
    /// Frames run past the end in read-only mode (MovieEngine+Overrun.swift), and their commands.
    var overrun = Overrun()
    var overrunCommands: MovieFrameFlags = []
    /// Where the verification log was cut short this session (it covers frames before this), if it was.
    public internal(set) var verificationTruncated: Int?

    public struct PlayOptions: Sendable {
        public var readOnly = true
        /// Play against another core or content anyway (the problems become warnings).
        public var force = false
        public init() {}
    }

    /// Starts playing `movie` (read from `path`, which `save` writes back to). Returns warnings.
    @discardableResult
    public func play(_ movie: Movie, path: String?, options: PlayOptions) throws(MovieError) -> [String] {
        var problems: [String] = []
        let core = session.core
        if !movie.coreLibrary.isEmpty && movie.coreLibrary != core.systemInfo.libraryName {
            problems.append("the movie was recorded with \(movie.coreLibrary), this is \(core.systemInfo.libraryName)")
        }
        // Another checksum is refused (unless forced); only another name, a warning (imported movies name a
        // title, and a ROM may be renamed).
        var nameWarning: String?
        if let content = session.content, let mismatch = Self.contentMismatch(movie, content) {
            if mismatch.byChecksum { problems.append(mismatch.problem) } else { nameWarning = mismatch.problem }
        }
        // Errors name the movie file, so a run given several files says which one is wrong.
        let named = path.map { "\($0): " } ?? ""
        if !problems.isEmpty && !options.force {
            throw MovieError(named + problems.joined(separator: "; ") + " (force to try anyway)")
        }
        var warnings = problems
        if let nameWarning { warnings.append(nameWarning + ": it may desync") }
        let version = core.systemInfo.libraryVersion.trimmingCharacters(in: .whitespaces)
        if !movie.coreVersion.isEmpty && movie.coreLibrary == core.systemInfo.libraryName
            && movie.coreVersion != version
        {
            warnings.append(
                """
                the movie was recorded with \(movie.coreLibrary) \(movie.coreVersion), this is \(version): it may \
                desync
                """
            )
        }
        for (key, value) in movie.options where core.options.value(key) != value {
            if let problem = core.options.set(key, value) {
                warnings.append(problem)
            } else {
                warnings.append("core option \(key) set to the movie's '\(value)'")
            }
        }
        try stop()
        if let state = movie.startState {
            do {
                try emulator.restore(state, trusted: false, checkMovie: false)
            } catch {
                throw MovieError("\(named)the movie's start state: \(error)")
            }
        } else {
            do { try session.startAtPowerOn() } catch { throw MovieError("\(error)") }
            emulator.emit(.timeJumped)
        }
        session.detachSaveRAM(because: "a movie was played, which replaced the game's save RAM")
        startFrame = session.frameCount
        self.movie = movie
        self.path = path
        backedUp = []
        readOnly = options.readOnly
        verifyWhileRecording = movie.hasVerification
        cover = movie.hasVerification ? movie.verifyCovers ?? .systemRAM : VerificationCover.best(for: self)
        verificationProblem = nil
        coveredChecks = 0
        if movie.hasVerification && cover != .frame && blocks(cover).isEmpty {
            verificationProblem =
                movie.verifyCovers == nil
                ? """
                the movie's verification log predates 'verify-covers' and hashed system RAM, which \
                \(core.systemInfo.libraryName) does not expose: it covers nothing (add a new log: retrolua movie \
                convert IN OUT --rom ROM --add-verify)
                """
                : "the movie's verification log hashes \(cover.rawValue), which \(core.systemInfo.libraryName) does not expose"
            warnings.append(verificationProblem!)
        }
        pictureLog = nil
        if movie.hasVerification && verificationProblem == nil, let problem = constantLogProblem(movie) {
            verificationProblem = problem
            warnings.append(problem)
        }
        mode = movie.length > 0 ? .play : (readOnly ? .finished : .record)
        savesOnStop = false
        hasUnsavedChanges = false
        firstDesync = nil
        pendingCommands = []
        overrun = Overrun()
        verificationTruncated =
            movie.hasVerification && movie.ramHashes.count < movie.length ? movie.ramHashes.count : nil
        resetEditor()
        pendingEvents.append(.started)
        warnAboutCheats()
        return warnings
    }

    /// Ends the movie; a recording is saved to its path first. The game runs on from where it is.
    public func stop() throws(MovieError) {
        guard mode != .idle else { return }
        if savesOnStop && hasUnsavedChanges, let path { try save(to: path) }
        // Saved (or nothing to save): the journal has done its work.
        journal?.remove()
        journal = nil
        mode = .idle
        movie = nil
        path = nil
        resetEditor(capture: false)
        pendingEvents.append(.ended)
    }

    /// Writes the movie durably (to `path`, or where it came from); the file becomes the movie's path.
    /// A file already there that has not been written since the movie started is kept first as `FILE.bak`
    /// (durably): the backup holds the file as it was when the movie was opened. Returns the backup's path
    /// when one was written.
    @discardableResult
    public func save(to target: String? = nil) throws(MovieError) -> String? {
        guard var movie else { throw MovieError("no movie is active") }
        guard let destination = target ?? path else { throw MovieError("the movie has no file yet: give a path") }
        movie.buttons = movie.coveredButtons()
        fallBackToThePicture(&movie)
        let key = URL(fileURLWithPath: destination).standardizedFileURL.path
        var backup: String?
        if !backedUp.contains(key), FileManager.default.fileExists(atPath: destination) {
            backup = try Self.backUp(destination)
        }
        try MovieText.write(movie, to: destination)
        backedUp.insert(key)
        self.movie = movie
        path = destination
        hasUnsavedChanges = false
        return backup
    }

    /// The backup of a movie file about to be written over: `FILE.bak`, written durably; the save is
    /// refused when it cannot be made (nothing is lost).
    static func backUp(_ path: String) throws(MovieError) -> String {
        let backup = path + ".bak"
        let bytes: [UInt8]
        do { bytes = try BoundedFile.read(path, limit: MovieText.maxFileSize) } catch {
            throw MovieError("\(path): not saved: its backup could not be made (\(error.reason))")
        }
        do { try DurableFile.write(bytes, to: backup) } catch {
            throw MovieError("\(path): not saved: its backup \(backup) could not be written (\(error))")
        }
        return backup
    }

    /// Read-only: playback stays on the movie; read-write: state loads and the movie's end record.
    public func setReadOnly(_ on: Bool) {
        readOnly = on
        guard let movie else { return }
        if on && mode == .record { mode = frame < movie.length ? .play : .finished }
        if !on && mode == .finished {
            appendOverrun()  // what ran past the end joins the movie, as it ran
            mode = .record
        }
    }

    // MARK: Frames

    /// Before the core runs a frame: the movie's input for it (nil: the player's), after its commands.
    @inline(__always)
    func beginFrame() -> InputState? {
        guard mode == .play, let movie else { return nil }
        let index = frame
        guard index >= 0, index < movie.length else { return nil }
        let flags = movie.log.flags(at: index)
        if !flags.intersection(.commands).isEmpty { perform(flags) }
        return movie.log.input(at: index)
    }

    private func perform(_ flags: MovieFrameFlags) {
        if flags.contains(.power) {
            try? session.powerCycle()
        } else if flags.contains(.reset) {
            session.core.reset()
        }
    }

    /// After the frame: log it (recording), or check it against the verification log (playing).
    @inline(__always)
    func endFrame(seen input: InputState, lagged: Bool) {
        guard mode != .idle else { return }
        let index = session.frameCount - 1 - startFrame
        guard index >= 0 else { return }
        noteLag(index, lagged)
        if mode == .finished {
            recordOverrun(index, input: input, lagged: lagged)
        } else if mode == .record {
            recordFrame(index, input: input, lagged: lagged)
        } else if let movie {
            if index < movie.ramHashes.count { check(index, lagged: lagged, movie: movie) }
            if index + 1 >= movie.length {
                mode = readOnly ? .finished : .record
                pendingEvents.append(.ended)
            }
        }
    }

    private func recordFrame(_ index: Int, input: InputState, lagged: Bool) {
        guard movie != nil else { return }
        var flags = pendingCommands
        pendingCommands = []
        if lagged { flags.insert(.lag) }
        if index < movie!.length {
            invalidate(after: index)
            history = MovieEditHistory()
        }
        movie!.truncate(to: index)
        while movie!.log.count < index { movie!.log.set(movie!.log.count, input: InputState(), flags: []) }
        movie!.log.set(index, input: input, flags: flags)
        if verifyWhileRecording {
            if movie!.ramHashes.count == index {
                movie!.ramHashes.append(loggedHash(index))
            } else {
                truncateVerification(reason: "frames from \(movie!.ramHashes.count) on")
            }
        }
        hasUnsavedChanges = true
        journal?.frameRecorded(movie!)
    }

    private func check(_ index: Int, lagged: Bool, movie: Movie) {
        guard firstDesync == nil else { return }
        guard verificationProblem == nil else { return }
        if cover != .frame || session.core.lastFrameBuffer != nil { coveredChecks += 1 }
        let actual = ramHash(), expected = movie.ramHashes[index]
        let wasLag = movie.log.flags(at: index).contains(.lag)
        if actual != expected {
            let what = cover == .frame ? "the picture differs" : cover == .memory ? "memory differs" : "RAM differs"
            firstDesync = Desync(frame: index, expected: expected, actual: actual, what: what)
        } else if wasLag != lagged {
            firstDesync = Desync(
                frame: index, expected: expected, actual: actual,
                what: wasLag
                    ? "the recording lagged here, the replay did not" : "the replay lagged here, the recording did not")
        } else {
            return
        }
        emulator.show(message: "movie desync at frame \(index): \(firstDesync!.what)", from: "movie")
        pendingEvents.append(.desync)
    }

    /// CRC-32 of what the verification covers (system RAM, else RAM-like memory, else the picture).
    public func ramHash() -> UInt32 { hash(cover) }

    /// A reset or power cycle while recording: logged on the next frame.
    func noteCommand(_ command: MovieFrameFlags) {
        if mode == .record { pendingCommands.formUnion(command) }
        if mode == .finished { overrunCommands.formUnion(command) }
    }

    // MARK: Helpers

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
