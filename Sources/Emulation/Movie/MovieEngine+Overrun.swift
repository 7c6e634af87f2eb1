import Libretro

/// What runs past a movie's end in read-only mode, and a verification log that cannot go on.
///
/// Read-only playback that reaches the end goes on with the player's input (`finished`). Those frames
/// are kept — input, lag, and RAM hashes when the movie verifies — so that switching to read-write
/// appends exactly what ran; savestates made meanwhile carry them, so loading one puts the overrun
/// back as it was at that frame. A verification log that can no longer cover new frames is truncated
/// at its last trusted frame (never dropped) and the user is told.
extension MovieEngine {
    /// Finished mode, after a frame: the frame joins the overrun.
    func recordOverrun(_ index: Int, input: InputState, lagged: Bool) {
        guard let movie else { return }
        let position = index - movie.length
        if overrun.log == nil { overrun.log = InputLog(ports: movie.log.ports, analog: movie.log.analog) }
        guard position >= 0, position <= overrun.log!.count else { return }
        // Changed in place: a copy of the log each frame would make a long overrun quadratic.
        overrun.log!.truncate(to: position)
        if overrun.hashes.count > position { overrun.hashes.removeSubrange(position...) }
        var flags = overrunCommands
        overrunCommands = []
        if lagged { flags.insert(.lag) }
        overrun.log!.set(position, input: input, flags: flags)
        if movie.hasVerification && movie.ramHashes.count == movie.length && overrun.hashes.count == position {
            overrun.hashes.append(ramHash())
        }
    }

    /// Read-write from finished: the overrun up to the frame about to run becomes the movie's own.
    func appendOverrun() {
        guard movie != nil, let log = overrun.log else { return }
        let count = min(log.count, max(0, frame - movie!.length))
        let verified = movie!.hasVerification && movie!.ramHashes.count == movie!.length
        for position in 0..<count {
            movie!.log.set(movie!.length, input: log.input(at: position), flags: log.flags(at: position))
        }
        if verified { movie!.ramHashes += overrun.hashes.prefix(count) }
        overrun = Overrun()
        guard count > 0 else { return }
        hasUnsavedChanges = true
        journal?.record(movie!)
        if verified && movie!.ramHashes.count < movie!.length { truncateVerification(reason: "frames past the end") }
    }

    /// The overrun a savestate carries after the movie's own frames (its block's log runs on past the end).
    func overrunBlockLog(_ movieLog: InputLog) -> (log: InputLog, hashes: [UInt32]) {
        guard mode == .finished, let extra = overrun.log, extra.count > 0, let movie else {
            return (movieLog, movie?.ramHashes ?? [])
        }
        var log = movieLog
        for position in 0..<extra.count {
            log.set(log.count, input: extra.input(at: position), flags: extra.flags(at: position))
        }
        let hashes = movie.ramHashes.count == movie.length ? movie.ramHashes + overrun.hashes : movie.ramHashes
        return (log, hashes)
    }

    /// A read-only load: the state's frames past the movie's end become the overrun again.
    func restoreOverrun(from block: MovieStateBlock) {
        guard let movie else { return }
        overrun = Overrun()
        guard block.log.count > movie.length, block.frame > movie.length else { return }
        var log = InputLog(ports: movie.log.ports, analog: movie.log.analog)
        for index in movie.length..<min(block.frame, block.log.count) {
            log.set(log.count, input: block.log.input(at: index), flags: block.log.flags(at: index))
        }
        overrun.log = log
        if block.ramHashes.count > movie.length {
            overrun.hashes = Array(block.ramHashes[movie.length..<min(block.ramHashes.count, block.frame)])
        }
    }

    /// Stops adding RAM hashes: the log keeps the frames it covers (0 ..< count), the user is told on
    /// stderr and on screen, the exit summary and `movie info` say how far it reaches, and the saved
    /// movie records it (`verify-frames`).
    func truncateVerification(reason: String) {
        guard let movie, verifyWhileRecording || movie.ramHashes.count < movie.length else { return }
        verifyWhileRecording = false
        let covered = movie.ramHashes.count
        verificationTruncated = covered
        let message =
            "movie: the verification log now ends at frame \(covered) (\(reason) have no RAM hashes); "
            + "the frames before it are still verified"
        emulator.show(message: message, from: "movie")
    }
}

/// Frames run past the end of a read-only movie (see `MovieEngine.recordOverrun`).
struct Overrun {
    var log: InputLog?
    var hashes: [UInt32] = []
}
