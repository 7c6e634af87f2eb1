import Libretro
import Support

/// The greenzone: states taken as the movie runs, so that seeking is "load the nearest state at or
/// before the frame, then replay the movie's input to it"; and the lag each frame turned out to have.
/// Changing a frame's input drops the states after it (they are on another timeline).
extension MovieEngine {
    /// Without the editor shown, a state every this many frames.
    static let sparseStep = 64

    /// Clears what belonged to the previous movie; a new one starts with a state of its frame 0.
    func resetEditor(capture: Bool = true) {
        greenzone.clear()
        observedLag = []
        stateOnTimeline = true
        history = MovieEditHistory()
        selection = []
        if capture { captureState() }
    }

    /// After a frame ran (or at a movie's start): the state of the frame about to run joins the greenzone —
    /// every frame while the editor is shown (or a seek is replaying), every `sparseStep`-th otherwise, so a
    /// movie merely played pays almost nothing and can still be seeked.
    func captureState() {
        guard greenzoneEnabled, let movie, mode != .idle, stateOnTimeline else { return }
        let index = frame
        guard index >= 0, index <= movie.length else { return }
        if let target = seekTarget {
            // Replaying toward a seek's target: only the states its spacing keeps are worth making.
            if !greenzone.keeps(index, around: target) { return }
        } else if !editorEngaged && index % Self.sparseStep != 0 {
            return
        }
        let size = session.core.serializeSize
        guard size > 0 else { return }
        if captureScratch.count != size { captureScratch = [UInt8](repeating: 0, count: size) }
        let saved = captureScratch.withUnsafeMutableBytes { raw -> Bool in
            (try? session.core.serialize(into: raw)) != nil
        }
        guard saved else { return }
        captureScratch.withUnsafeBytes {
            greenzone.insert(frame: index, frameCount: session.frameCount, lagCount: session.lagCount, state: $0)
        }
        // Thinning costs a pass over the states: once every `nearFrames` frames is enough.
        if index % max(1, greenzone.settings.nearFrames) == 0 { greenzone.thin(around: index) }
    }

    func noteLag(_ index: Int, _ lagged: Bool) {
        guard let movie, index < movie.length &+ 1 else { return }
        if observedLag.count <= index {
            guard index < observedLag.count &+ 1 << 20 else { return }
            observedLag += repeatElement(0, count: index + 1 - observedLag.count)
        }
        observedLag[index] = lagged ? 2 : 1
    }

    /// The input of `frame` changed (or frames moved from it on): states after it and the lag from it on
    /// no longer describe the movie.
    func invalidate(after frame: Int) {
        greenzone.invalidate(after: frame)
        if observedLag.count > frame &+ 1 { observedLag.removeSubrange(max(0, frame &+ 1)...) }
    }

    /// An edit from `frame` on: the greenzone after it goes, and so does the current state's claim to be on
    /// the timeline when that frame already ran.
    func edited(from frame: Int) {
        invalidate(after: frame)
        if observedLag.count > frame { observedLag.removeSubrange(max(0, frame)...) }
        if frame < self.frame { stateOnTimeline = false }
    }

    /// Whether frame `frame` lagged: true, false, or nil when it has not run since its input changed (then
    /// the flag recorded in the movie, if any).
    public func lagged(_ frame: Int) -> Bool? {
        guard let movie, frame >= 0, frame < movie.length else { return nil }
        if frame < observedLag.count, observedLag[frame] != 0 { return observedLag[frame] == 2 }
        return movie.log.flags(at: frame).contains(.lag) ? true : nil
    }

    /// Whether seeking to `frame` needs no replay past an invalidated point: a state at or before it on the
    /// current timeline, at most the greenzone's last frame away.
    public func inGreenzone(_ frame: Int) -> Bool {
        guard let movie, frame >= 0, frame <= movie.length, let last = greenzone.lastFrame else { return false }
        return frame <= last
    }

    /// Moves the movie to `target`: the nearest state before it (the current one when it is on the way),
    /// then the movie's frames up to it, run unseen by `runHidden` (told when it runs the last one, whose
    /// picture is the one to show).
    func seek(to target: Int, runHidden: (_ last: Bool) -> Void) throws(MovieError) {
        guard let movie, mode != .idle else { throw MovieError("no movie is active") }
        guard target >= 0, target <= movie.length else {
            throw MovieError("frame \(target) is outside the movie (0…\(movie.length))")
        }
        let here = frame
        var position: Int
        if stateOnTimeline && here <= target && (here == target || here >= greenzoneStart(before: target)) {
            position = here  // running on from here is cheaper than a load
        } else if let start = loadState(before: target) {
            position = start
        } else {
            try restart(movie)
            position = 0
        }
        stateOnTimeline = true
        overrun = Overrun()
        setModeAt(position)
        seekTarget = target
        defer { seekTarget = nil }
        while position < target {
            runHidden(position + 1 == target)
            guard mode != .idle, frame > position else { break }
            position = frame
        }
        greenzone.thin(around: target)
    }

    /// The frame of the state a seek to `target` would load (−1: none; replay from the start).
    private func greenzoneStart(before target: Int) -> Int {
        greenzone.nearest(atOrBefore: max(0, target - 1)) { entry, _ in entry.frame } ?? -1
    }

    /// Loads the greenzone's state nearest before `target` (at it for frame 0, whose picture cannot be
    /// made); returns its frame, nil when there is none.
    private func loadState(before target: Int) -> Int? {
        let loaded = greenzone.nearest(atOrBefore: max(0, target - 1)) { entry, state -> Int? in
            guard (try? session.core.unserialize(state, protecting: false)) != nil else { return nil }
            session.restoreCounters(frame: entry.frameCount, lag: entry.lagCount)
            startFrame = entry.frameCount - entry.frame
            return entry.frame
        }
        return loaded ?? nil
    }

    /// Back to the movie's first frame without a greenzone state: its start state or power-on.
    private func restart(_ movie: Movie) throws(MovieError) {
        if let state = movie.startState {
            let data = emulator.scriptData
            defer { emulator.scriptData = data }
            do { try emulator.restore(state, trusted: true, checkMovie: false) } catch {
                throw MovieError("the movie's start state: \(error)")
            }
        } else {
            do { try session.startAtPowerOn() } catch { throw MovieError("\(error)") }
        }
        startFrame = session.frameCount
    }

    /// The mode for standing at `position`: the movie plays up to its end, then records or is finished.
    func setModeAt(_ position: Int) {
        guard let movie, mode != .idle else { return }
        mode = position < movie.length ? .play : readOnly ? .finished : .record
    }
}
