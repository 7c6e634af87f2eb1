import Libretro

/// The TAS editor's operations with their rules: seeking is a state load (refused inside the input poll
/// and in hardcore mode); edits announce `movieChanged` with their first changed frame.
extension Emulator {
    /// Moves the playing (or recording) movie to `frame`: the greenzone's nearest state at or before it,
    /// then the movie's frames up to it, unseen and unheard, with the movie's counters moving as in play.
    public func seekMovie(to frame: Int) throws(Refusal) {
        try refuseDuringInputPoll()
        if hardcore { throw .hardcore("state loads are") }
        defer { flushMovieEvents() }
        do { try movie.seek(to: frame) { last in runHiddenFrame(picture: last) } } catch {
            throw Refusal(.movie, error.description)
        }
        emit(.timeJumped)
    }

    /// One movie frame run without presenting it: no script callbacks, no sound, no picture (unless it is
    /// wanted, or the movie verifies the picture), events dropped — but the movie's input, counters, lag
    /// and greenzone move as in a frame the player sees.
    func runHiddenFrame(picture: Bool) {
        let core = session.core
        let (wasVideo, wasAudio) = (core.videoEnabled, core.audioEnabled)
        core.videoEnabled = picture || movie.cover == .frame && movie.movie?.hasVerification == true
        core.audioEnabled = false
        runCoreHalf(inputCallbacks: false)
        heldEvents.removeAll()
        holdingEvents = false
        core.videoEnabled = wasVideo
        core.audioEnabled = wasAudio
    }

    /// Runs one frame unseen on `input` (every port's buttons and axes, in place of the player's): the
    /// hidden-frame path of a seek — counters, lag and cheats move as in a shown frame; no callbacks, no
    /// sound, events dropped — for a script that rolls back and replays (netplay). Between frames only, and
    /// not while a movie plays or records (its input would take the place of `input`).
    public func runReplayFrame(input: InputState, picture: Bool) throws(Refusal) {
        try refuseOutsideBetweenFrames()
        if movie.isActive { throw Refusal(.movie, "not while a movie plays or records") }
        replayInput = input
        defer { replayInput = nil }
        runHiddenFrame(picture: picture)
    }

    /// Runs a movie edit (one undo step, or part of an open group) and announces what it changed.
    @discardableResult
    public func editMovie(_ body: (MovieEngine) throws(MovieError) -> Int?) throws(Refusal) -> Int? {
        let first: Int?
        do { first = try body(movie) } catch { throw Refusal(.movie, error.description) }
        if let first { emit(.movieChanged(frame: first)) }
        return first
    }
}
