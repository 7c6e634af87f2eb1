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
    public internal(set) var path: String?
    public internal(set) var mode: Mode = .idle
    public internal(set) var readOnly = true
    public var countsRerecords = true
    /// Frame count (`emu.framecount()`) at movie frame 0.
    var startFrame = 0
    /// The first frame whose RAM (or lag) differed from the movie's verification log.
    public internal(set) var firstDesync: Desync?
    public internal(set) var hasUnsavedChanges = false
    /// What this movie's verification hashes cover (chosen from the core when recording, read from the movie when playing).
    public internal(set) var cover: VerificationCover = .systemRAM
    /// Why a played movie's verification log cannot be checked here (its cover is not on this core), if so.
    public internal(set) var verificationProblem: String?
    /// Frames checked against the log where the cover held something (a frame check needs a picture).
    public internal(set) var coveredChecks = 0
    /// While recording a log of memory: the picture's hash of each frame (MovieVerification.swift).
    var pictureLog: [UInt32]?
    /// A recording made by `record` is saved to its path when stopped; a played movie only when asked.
    public internal(set) var savesOnStop = false
    var pendingCommands: MovieFrameFlags = []
    /// A recording's journal beside its file (nil for played movies).
    var journal: MovieJournal?
    /// What the movie announces (`movie_start`, `movie_end`, `movie_desync`); the emulator sends them on
    /// after each operation and frame, with the messages for the player that go with them first.
    enum Event { case started, ended, desync }
    var pendingEvents: [Event] = []
    var pendingMessages: [String] = []
    /// A memory write while recording was announced (once a recording: the movie holds input, not writes).
    var toldOfMemoryWrite = false

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
    var backedUp: Set<String> = []
    var captureScratch: [UInt8] = []
    var seekTarget: Int?

    /// Cheats change the game without being input: a movie made or played with them replays only with them.
    func warnAboutCheats() {
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

    /// Whether new frames get verification hashes while recording.
    var verifyWhileRecording = false
    /// Frames run past the end in read-only mode (MovieEngine+Overrun.swift), and their commands.
    var overrun = Overrun()
    var overrunCommands: MovieFrameFlags = []
    /// Where the verification log was cut short this session (it covers frames before this), if it was.
    public internal(set) var verificationTruncated: Int?

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
        if actual != expected, index == 0, cover != .frame, movie.startState == nil {
            // No input has had a frame to act yet: the core powered on with other memory than when recorded.
            verificationProblem =
                "the memory differs already at frame 0, as the core powers on: this core does not start with the "
                + "same memory each run, so the log cannot be checked on it (not a desync of the movie's input)"
            emulator.show(message: "movie: \(verificationProblem!)", from: "movie")
            return
        } else if actual != expected {
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
}
