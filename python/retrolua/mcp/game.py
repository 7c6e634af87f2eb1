"""The emulator of one MCP session (launched, or a running game attached to), without any MCP in it."""

import base64
import os
import re
import threading
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from .._binary import find_binary, shipped_file
from ..control import Retrolua
from ..errors import RetroluaError
from .finding import attached_pid
from .parsing import (MAX_BYTES, MAX_FRAMES, MAX_LUA, MAX_SCALE, MAX_STATES, Address, core_name, core_options,
                      parse_address, parse_bytes, state_name)
from .pictures import encode_png, scaled


class GameSession:
    """The emulator of one MCP session and the states kept for it, without any MCP in it: every method
    is blocking (the server runs them in a worker thread, one at a time) and raises ValueError for a
    bad argument and RetroluaError for what the emulator refused, each with a message for the agent."""

    def __init__(self, rom: Optional[str] = None, core: Optional[str] = None,
                 options: Optional[Dict[str, str]] = None, binary: Optional[str] = None,
                 attach: Optional[str] = None) -> None:
        # The defaults of open_game, from the command line: only the person starting the server names a
        # core by path (a core is a shared library: an agent's open_game takes names only).
        self.default_rom = rom
        self.default_core = core
        self.default_options = dict(options or {})
        self.binary = binary
        # The control socket (unix:PATH) of a running game this session drives instead of launching one.
        self.attach = attach
        self.emulator: Optional[Retrolua] = None
        self.rom: Optional[str] = None
        self.states: Dict[str, Tuple[bytes, int]] = {}
        self._info: Dict[str, Any] = {}
        self._server_png: Optional[bool] = None  # None: not asked yet (an older retrolua has no PNG frames)
        self._closing = threading.Lock()
        self.lock: Any = None  # the server's: one call at a time
        # What the current tool call does ("step 60 frames (right)"), sent with its first request when attached.
        self.activity: Optional[str] = None
        # What other modules keep per session (memory snapshots, the reporter, …), by their names.
        self.extras: Dict[str, Any] = {}

    # -- the game ------------------------------------------------------------------------------------------

    def open(self, rom: Optional[str] = None, core: Optional[str] = None,
             options: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """Launches ROM (closing the game open before, its states forgotten) and describes it."""
        if self.attach is not None:
            raise RetroluaError("open_game is not available while attached to a running game (%s): the game is "
                                "the person's; describe_game describes it" % self.attach)
        if core is not None:
            core = core_name(core)
        if rom is None and self.default_rom is None:
            path = shipped_file("dodge.nes", self.binary)
            core = core or self.default_core or "nestopia"
        else:
            # A bundled ROM by its bare name (`demo.nes`) as `retrolua run` finds it, else a path of its own.
            given = os.path.expanduser(rom if rom is not None else self.default_rom)  # type: ignore
            try:
                path = shipped_file(given, self.binary)
            except FileNotFoundError as error:
                raise ValueError('"rom": %s' % error) from None
            if not os.path.isfile(path):
                raise ValueError('"rom": no such file: %s' % path)
            core = core or (self.default_core if rom is None else None)
        merged = dict(self.default_options)
        merged.update(core_options(options))
        arguments: List[str] = []
        for key, value in merged.items():
            arguments += ["--option", "%s=%s" % (key, value)]
        self.close()
        self.emulator = Retrolua.launch(path, core=core, binary=self.binary, extra_args=arguments,
                                        keep_alive=False)
        self.rom = path
        return self.describe()

    def describe(self) -> Dict[str, Any]:
        """What the agent needs to know about the open game."""
        info = self._request("info")
        self._info = info
        width, height = info.get("width", 0), info.get("height", 0)
        description = {
            "core": info.get("core"), "core_name": info.get("core_library"), "core_version": info.get("core_version"),
            "content": info.get("content"), "rom": self.rom,
            "size": {"width": width, "height": height} if width and height else None,
            "fps": info.get("fps"), "frame": info.get("frame"), "lag_frames": info.get("lag"),
            "buttons": info.get("buttons", []), "memory_domains": info.get("domains", []),
            "default_domain": info.get("default_domain"), "states": sorted(self.states),
            "process_id": self.emulator.pid if self.emulator else None,
        }
        if self.attach is not None:
            description["attached"] = self.attach
            description["process_id"] = attached_pid(self.attach)
            description["paused"] = bool(info.get("paused"))
        if not width:
            description["note"] = "no frame drawn yet: step at least one frame before a screenshot"
        return description

    def domains(self) -> Dict[str, Any]:
        self._need()
        return {"domains": self._info.get("domains", []), "default": self._info.get("default_domain")}

    def step(self, frames: int = 1, buttons: Union[Sequence[str], str, None] = None) -> Dict[str, Any]:
        """Runs `frames` frames with `buttons` held on the first controller."""
        self._need()
        if isinstance(frames, bool) or not isinstance(frames, int) or not 1 <= frames <= MAX_FRAMES:
            raise ValueError('"frames" must be an integer in 1..%d, got %r' % (MAX_FRAMES, frames))
        return self.run_frames(frames, self._buttons(buttons))

    def run_frames(self, frames: int, held: List[str], **conditions: Any) -> Dict[str, Any]:
        """One `step` request: `frames` frames with `held` buttons, stopping early on the step's `conditions`
        (until, until_lua, watch); attached, a person's pause is answered rather than run through."""
        fields: Dict[str, Any] = dict(conditions, frames=frames, input={name: True for name in held})
        if self.attach is not None:
            fields["unless_paused"] = True  # the person's pause (or a script's) holds: the emulator refuses
        try:
            reply = self._request("step", **fields)
        except RetroluaError as error:
            if "paused by the user" not in str(error):
                raise
            return {"paused": True, "frames_run": 0, "message": "the game is paused by the user: not stepped; "
                    "try again once they resume it"}
        result = {"frame": reply.get("frame"), "frames_run": reply.get("frames"), "lag_frames": reply.get("lag"),
                  "buttons_held": held}
        for key in ("reward", "done", "info", "stopped", "until_index", "watch_hit"):
            if key in reply:
                result[key] = reply[key]
        return result

    def buttons(self, buttons: Union[Sequence[str], str, None]) -> List[str]:
        """The RetroPad buttons named (a list, or "right+a"), checked against the core's."""
        self._need()
        return self._buttons(buttons)

    def _buttons(self, buttons: Union[Sequence[str], str, None]) -> List[str]:
        if buttons is None:
            return []
        if isinstance(buttons, str):  # "right", "right+a" or "right, a" from an agent that flattened the list
            buttons = [part for part in re.split(r"[\s,+]+", buttons) if part]
        known = list(self._info.get("buttons", []))
        held = []
        for name in buttons:
            if not isinstance(name, str) or name.strip().lower() not in known:
                raise ValueError('"buttons": unknown button %r (the buttons are: %s)' % (name, ", ".join(known)))
            if name.strip().lower() not in held:
                held.append(name.strip().lower())
        return held

    def reset(self) -> Dict[str, Any]:
        self._need()
        self._request("reset")
        return {"frame": self._request("info").get("frame")}

    def screenshot(self, scale: int = 1) -> Tuple[int, int, bytes]:
        """(width, height, PNG bytes) of the current frame, each pixel `scale`×`scale`."""
        self._need()
        if isinstance(scale, bool) or not isinstance(scale, int) or not 1 <= scale <= MAX_SCALE:
            raise ValueError('"scale" must be an integer in 1..%d, got %r' % (MAX_SCALE, scale))
        if self._server_png is not False:
            try:
                picture = self._call(lambda emulator: emulator.png(scale))
                self._server_png = True
                return picture
            except RetroluaError as error:
                if "not drawn a frame" in str(error):
                    raise RetroluaError("%s: step at least one frame first" % error) from None
                if self._server_png or not ("format" in str(error) or "PNG" in str(error)):
                    raise
                self._server_png = False  # a retrolua without PNG frames: encode here
        width, height, rgb = self.rgb()
        if scale > 1:
            rgb, width, height = scaled(rgb, width, height, scale), width * scale, height * scale
        return width, height, encode_png(width, height, rgb)

    def rgb(self) -> Tuple[int, int, bytes]:
        """(width, height, RGB bytes) of the current frame, as the player sees it (overlays included)."""
        self._need()
        try:
            reply = self._request("frame", format="rgb")
        except RetroluaError as error:
            if "not drawn a frame" in str(error):
                raise RetroluaError("%s: step at least one frame first" % error) from None
            raise
        return reply["width"], reply["height"], base64.b64decode(reply["data"])

    # -- memory --------------------------------------------------------------------------------------------

    def read(self, address: Address, length: int = 1, domain: Optional[str] = None,
             format: str = "hex") -> Dict[str, Any]:
        self._need()
        start = parse_address(address, "address")
        if isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= MAX_BYTES:
            raise ValueError('"length" must be an integer in 1..%d, got %r' % (MAX_BYTES, length))
        if format not in ("hex", "integers"):
            raise ValueError('"format" must be "hex" or "integers", got %r' % (format,))
        name = self._domain(domain)
        data = base64.b64decode(self._request("read", address=start, length=length, domain=name)["data"])
        result: Dict[str, Any] = {"domain": name, "address": "0x%X" % start, "length": len(data)}
        if format == "hex":
            result["hex"] = data.hex(" ")
        else:
            result["values"] = list(data)
        return result

    def write(self, address: Address, data: Union[str, Sequence[int]], domain: Optional[str] = None
              ) -> Dict[str, Any]:
        self._need()
        start = parse_address(address, "address")
        payload = parse_bytes(data)
        name = self._domain(domain)
        self._request("write", address=start, data=base64.b64encode(payload).decode(), domain=name)
        return {"domain": name, "address": "0x%X" % start, "written": len(payload)}

    def domain(self, domain: Optional[str]) -> str:
        """A domain the agent named (default: the core's main RAM), checked."""
        self._need()
        return self._domain(domain)

    def domain_size(self, domain: str) -> int:
        sizes = {entry.get("name"): entry.get("size", 0) for entry in self._info.get("domains", [])}
        return int(sizes.get(domain, 0))

    def read_all(self, domain: str, size: int) -> bytes:
        """`size` bytes from address 0 of `domain`, in one request."""
        return base64.b64decode(self._request("read", address=0, length=size, domain=domain)["data"])

    def lua_value(self, code: str) -> Any:
        """The first value a console chunk returns, as JSON data (a table becomes a dict or a list); a Lua
        error raises RetroluaError."""
        reply = self._console(lambda emulator: emulator.request("console", lua=code, json=True))
        if reply.get("status", "done") != "done":
            raise RetroluaError("Lua error: %s" % reply.get("error", "the chunk is unfinished"))
        values = reply.get("json", [])
        return values[0] if values else None

    def _domain(self, domain: Optional[str]) -> str:
        names = [entry.get("name") for entry in self._info.get("domains", [])]
        if domain is None or domain == "":
            return self._info.get("default_domain") or (names[0] if names else "")
        if domain not in names:
            raise ValueError('"domain": unknown memory domain %r (this core has: %s)' % (domain, ", ".join(names)))
        return domain

    # -- states --------------------------------------------------------------------------------------------

    def save_state(self, name: str) -> Dict[str, Any]:
        self._need()
        name = state_name(name)
        if name not in self.states and len(self.states) >= MAX_STATES:
            raise ValueError('"name": %d states are kept already (overwrite one: %s)'
                             % (MAX_STATES, ", ".join(sorted(self.states))))
        state = base64.b64decode(self._request("save_state")["state"])
        frame = self._request("info").get("frame", 0)
        self.states[name] = (state, frame)
        return {"name": name, "frame": frame, "bytes": len(state), "states": sorted(self.states)}

    def load_state(self, name: str) -> Dict[str, Any]:
        self._need()
        if name not in self.states:
            raise ValueError('"name": no state %r (saved states: %s)'
                             % (name, ", ".join(sorted(self.states)) or "none yet; save_state makes one"))
        state, frame = self.states[name]
        reply = self._request("load_state", state=base64.b64encode(state).decode())
        return {"name": name, "frame": reply.get("frame", frame)}

    def list_states(self) -> Dict[str, Any]:
        return {"states": [{"name": name, "frame": frame, "bytes": len(state)}
                           for name, (state, frame) in sorted(self.states.items())]}

    # -- Lua -----------------------------------------------------------------------------------------------

    def run_lua(self, code: str) -> Dict[str, Any]:
        """Runs `code` in the console evaluator. A Lua error or an unfinished chunk raises RetroluaError
        (what the chunk printed before is in the message)."""
        self._need()
        if not isinstance(code, str) or not code.strip():
            raise ValueError('"code" must be Lua source, got %r' % (code,))
        if len(code) > MAX_LUA:
            raise ValueError('"code" is %d characters; at most %d' % (len(code), MAX_LUA))
        reply = self._console(lambda emulator: emulator.console(code))
        output = [entry.get("text", "") if entry.get("stream", "out") == "out"
                  else "[%s] %s" % (entry.get("stream"), entry.get("text", "")) for entry in reply.get("output", [])]
        status = reply.get("status", "done")
        if status == "done":
            return {"values": reply.get("values", []), "output": output}
        printed = ("; it printed: " + " | ".join(output)) if output else ""
        if status == "incomplete":
            raise RetroluaError("the Lua chunk is unfinished (a block or string is not closed): send it whole"
                                + printed)
        raise RetroluaError("Lua error: %s%s" % (reply.get("error", "unknown error"), printed))

    def complete(self, text: str) -> Dict[str, Any]:
        self._need()
        if not isinstance(text, str) or len(text) > 256:
            raise ValueError('"text" must be a string of at most 256 characters')
        return {"matches": self._console(lambda emulator: emulator.complete(text))}

    def _console(self, ask: Callable[[Retrolua], Any]) -> Any:
        try:
            return self._call(ask)
        except RetroluaError as error:
            if "unknown command" in str(error):
                raise RetroluaError("this retrolua (%s) has no Lua console request: update retrolua"
                                    % find_binary(self.binary)) from None
            raise

    # -- plumbing ------------------------------------------------------------------------------------------

    def _need(self) -> None:
        if self.emulator is None and self.attach is not None:
            try:
                self.emulator = Retrolua.connect(self.attach)
            except OSError as error:
                raise RetroluaError("cannot attach to %s: %s" % (self.attach, error)) from None
            self._info = self._request("info")
        if self.emulator is None:
            raise ValueError("no game is open: call open_game first (with no arguments it opens the Dodge demo)")

    def _request(self, cmd: str, **fields: Any) -> Dict[str, Any]:
        if self.attach is not None and self.activity is not None:
            fields["activity"] = self.activity  # the window's OSD line: what the agent last did
            self.activity = None
        return self._call(lambda emulator: emulator.request(cmd, **fields))

    def request(self, cmd: str, **fields: Any) -> Dict[str, Any]:
        """A control request to the game (the tools of other modules use this)."""
        self._need()
        return self._request(cmd, **fields)

    def info(self) -> Dict[str, Any]:
        """The game's `info` as last read (read once a session; describe_game reads it again)."""
        self._need()
        return self._info

    def _call(self, ask: Callable[[Retrolua], Any]) -> Any:
        """`ask(emulator)`; an emulator that is gone is closed, and the message says open_game starts another."""
        self._need()
        emulator = self.emulator
        assert emulator is not None
        try:
            return ask(emulator)
        except (OSError, ValueError) as error:
            raise self._gone(emulator, "its connection broke: %s" % error) from None
        except RetroluaError as error:
            message = str(error)
            if any(gone in message for gone in ("closed the connection", "this client is closed", "no reply from")):
                raise self._gone(emulator, message) from None
            raise

    def _gone(self, emulator: Retrolua, why: str) -> RetroluaError:
        """Lets go of an emulator that died or stopped answering (closing it never raises again) and says
        what happened and what to do."""
        try:
            self.close()
        except (OSError, ValueError, RetroluaError):
            pass  # the emulator is already let go of: the message below is what the agent needs
        if self.attach is not None:
            return RetroluaError("the attached game (%s) is gone or stopped answering — %s; the next call "
                                 "attaches again" % (self.attach, why))
        return RetroluaError("the emulator (process %s) is gone — %s; its game and saved states are lost: "
                             "open_game starts a new one" % (emulator.pid, why))

    def close(self) -> None:
        """Ends the emulator (safe to call twice, from any thread); the states are forgotten."""
        with self._closing:
            emulator, self.emulator = self.emulator, None
            self.states.clear()
            self.extras.clear()
            self._info = {}
            self._server_png = None
        if emulator is not None:
            if self.attach is not None:
                emulator.disconnect()  # the person's game goes on
            else:
                emulator.close()
