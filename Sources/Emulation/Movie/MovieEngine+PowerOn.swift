import Libretro

/// Where a movie from power-on starts: the core at power-on (now, when nothing has run, or by a power
/// cycle); for cores that cannot save their power-on state once frames have run, the first state they
/// could give, carried in the movie as its start state and noted in the header (`anchor FRAMES`).
extension MovieEngine {
    func startAtPowerOn(_ movie: inout Movie) throws(MovieError) {
        do {
            try session.startAtPowerOn()
            return
        } catch {
            guard let first = session.firstState else {
                throw MovieError(
                    "cannot record from power-on: \(error) (start the recording before the first frame)")
            }
            do {
                try session.core.unserialize(first.state, protecting: false)
            } catch {
                throw MovieError("cannot record from power-on: the core's first state did not load: \(error)")
            }
            session.restoreCounters(frame: first.frame, lag: 0)
            do { movie.startState = try emulator.encodeState() } catch {
                throw MovieError("cannot record from power-on: \(error)")
            }
            movie.anchorFrame = first.frame
            pendingMessages.append(
                """
                movie: \(session.core.systemInfo.libraryName) cannot save its power-on state; the movie starts from \
                the first state it gave, \(first.frame) frame\(first.frame == 1 ? "" : "s") after power-on (noted in \
                the header)
                """)
        }
    }
}
