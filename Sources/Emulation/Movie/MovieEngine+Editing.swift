import Libretro

/// Editing a movie's input, and what savestates carry of a movie and mean for it on loading.
extension MovieEngine {
    // MARK: Editing

    public func input(at frame: Int) -> (InputState, MovieFrameFlags)? {
        guard let movie, frame >= 0, frame < movie.length else { return nil }
        return (movie.log.input(at: frame), movie.log.flags(at: frame))
    }

    /// Changes one frame's input (one past the end appends). Frames from there on lose their
    /// verification hashes, which no longer describe them.
    public func setInput(_ frame: Int, _ input: InputState, flags: MovieFrameFlags) throws(MovieError) {
        guard movie != nil else { throw MovieError("no movie is active") }
        guard frame >= 0, frame <= movie!.length else {
            throw MovieError("frame \(frame) is outside the movie (0…\(movie!.length))")
        }
        let lag = frame < movie!.length ? movie!.log.flags(at: frame).intersection(.lag) : []
        movie!.log.set(frame, input: input, flags: flags.intersection(.commands).union(lag))
        if movie!.ramHashes.count > frame { movie!.ramHashes.removeSubrange(frame...) }
        hasUnsavedChanges = true
        edited(from: frame)
        if mode == .finished && frame >= self.frame - 1 { mode = .play }
    }

    public func setRerecords(_ count: Int) {
        movie?.rerecords = count
        hasUnsavedChanges = true
    }

    // MARK: Savestates

    /// The movie block for a savestate made now (nil without a movie).
    func stateBlock() -> [UInt8]? {
        guard let movie, mode != .idle else { return nil }
        let (log, hashes) = overrunBlockLog(movie.log)  // past the end: the overrun rides along
        return MovieStateBlock.encode(guid: movie.guid, frame: max(0, frame), log: log, ramHashes: hashes)
    }

    /// Whether a state may be loaded now; a message when the movie forbids it.
    func checkLoad(_ block: MovieStateBlock?) -> String? {
        guard let movie, mode != .idle else { return nil }
        guard let block else {
            return "the state was not made during this movie (it carries no movie input); stop the movie to load it"
        }
        guard block.guid == movie.guid else { return "the state belongs to another movie" }
        // One log must begin with the other (a state made past the end carries the overrun after it).
        let onTimeline =
            block.log.count <= movie.length
            ? movie.log.hasPrefix(block.log.bytes[...]) : block.log.hasPrefix(movie.log.bytes[...])
        if readOnly, !onTimeline {
            let differs =
                (0..<block.log.count).first { $0 >= movie.length || !movie.log.sameInput($0, as: block.log, $0) } ?? 0
            return
                """
                read-only: the state is on another timeline (its input differs from the movie's at frame \
                \(differs)); switch to read-write to load it and record from there
                """
        }
        return nil
    }

    /// After a state passed `checkLoad` and the core took it.
    func didLoad(_ block: MovieStateBlock?) {
        guard let block, let movie, mode != .idle else { return }
        stateOnTimeline = true
        if readOnly {
            startFrame = session.frameCount - block.frame
            mode = block.frame < movie.length ? .play : .finished
            restoreOverrun(from: block)
        } else {
            adopt(block)
        }
    }

    /// Takes a state's (or branch's) input as the movie's own: a rerecord.
    func adopt(_ block: MovieStateBlock) {
        guard movie != nil else { return }
        startFrame = session.frameCount - block.frame
        // The greenzone holds up to where the two timelines part; the undo steps described the old one.
        let parted = MovieEditHistory.difference(movie!.log, block.log).map { $0.0 / block.log.stride }
        if let parted { invalidate(after: parted) }
        history = MovieEditHistory()
        stateOnTimeline = true
        movie!.log = block.log
        movie!.ramHashes = block.ramHashes
        // Verification goes on when the state's hashes cover its input (a state of frame 0 has none);
        // else the log is cut at the last frame they cover, never dropped.
        if verifyWhileRecording && block.ramHashes.count < block.log.count {
            truncateVerification(reason: "the loaded state's frames from \(block.ramHashes.count) on")
        }
        if countsRerecords { movie!.rerecords += 1 }
        mode = !readOnly ? .record : block.frame < movie!.length ? .play : .finished
        hasUnsavedChanges = true
        // A rerecord truncates the movie: journaled at once, so a crash keeps the new timeline.
        journal?.record(movie!)
    }
}
