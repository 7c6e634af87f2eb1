import Foundation
import Libretro

/// Starting playback: checking the movie fits this core and content, its start, its verification log.
extension MovieEngine {
    public struct PlayOptions: Sendable {
        public var readOnly = true
        /// Play against another core or content anyway (the problems become warnings).
        public var force = false
        public init() {}
    }

    /// Starts playing `movie` (read from `path`, which `save` writes back to). Returns warnings.
    @discardableResult
    public func play(_ movie: Movie, path: String?, options: PlayOptions) throws(MovieError) -> [String] {
        // Errors name the movie file, so a run given several files says which one is wrong.
        let named = path.map { "\($0): " } ?? ""
        var warnings = try compatibilityWarnings(movie, named: named, options: options)
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
        warnings += checkVerifiability(movie)
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

    /// Another core or content is refused unless forced; another core version or name is a warning; the
    /// movie's core options are set. Returns the warnings.
    private func compatibilityWarnings(
        _ movie: Movie, named: String, options: PlayOptions
    ) throws(MovieError) -> [String] {
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
        return warnings
    }

    /// Whether this core exposes what the movie's verification log hashed; a warning for each problem.
    private func checkVerifiability(_ movie: Movie) -> [String] {
        let core = session.core
        var warnings: [String] = []
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
        return warnings
    }
}
