/// The events a script can subscribe to with `event.on`, in the order they happen in a frame.
public enum ScriptEvent: String, CaseIterable, Sendable {
    /// Before the core runs the frame.
    case frameStart = "frame_start"
    /// Inside the core's input poll: set the joypad here for this very frame.
    case input
    /// After the core ran the frame (after memory watches fired).
    case frameEnd = "frame_end"
    /// After coroutine scripts resumed: draw overlays here.
    case draw
    case stateSaved = "state_saved"
    case stateLoaded = "state_loaded"
    case reset
    /// When the run ends, for whatever reason.
    case exit
    /// Host devices, delivered before `frame_start` of the frame in which they happened:
    /// `key_down(name, repeat, mods)`, `key_up(name, mods)`, `mouse_down(button, x, y)`, `mouse_up(button, x, y)`,
    /// `gamepad(name, connected)`.
    case keyDown = "key_down"
    case keyUp = "key_up"
    case mouseDown = "mouse_down"
    case mouseUp = "mouse_up"
    case gamepad
    /// `message(text)`: a script or the core asked to show a message (`emu.message`); an on-screen
    /// display shows it. With no script listening, messages are printed.
    case message
    /// A movie started recording or playing: `movie_start(mode)` (`"record"` or `"play"`).
    case movieStart = "movie_start"
    /// A movie's playback reached its end, or the movie was stopped: `movie_end()`.
    case movieEnd = "movie_end"
    /// Playback's RAM (or lag) differed from the movie's verification log: `movie_desync(frame)`, once.
    case movieDesync = "movie_desync"
    /// The movie was edited (TAS editor, `tastudio`): `movie_changed(frame)`, its first changed frame.
    case movieChanged = "movie_changed"
    /// Another script failed and was unloaded: `script_failed(name, message, watched)`; `watched` when
    /// `--watch` loads it again once its file is saved.
    case scriptFailed = "script_failed"
    /// A script was loaded or reloaded (its main chunk started): `script_loaded(name)`.
    case scriptLoaded = "script_loaded"
    /// A control client said what it is doing (a request's `activity`): `agent(text)`; `agent(nil)` when a
    /// client that had said so left.
    case agent
}
