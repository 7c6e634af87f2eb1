"""`retrolua mcp` (or `python -m retrolua.mcp`): a Model Context Protocol server over stdio, so that an
LLM agent (Claude Desktop, Claude Code, any MCP client) can play a game: open it, step frames with
buttons held, look at the screen, read and write memory, keep named states and run Lua in the
emulator's console. Built on the official `mcp` SDK (`pip install 'retrolua[mcp]'`); see
docs/guides/mcp.md for the clients' configuration.

    retrolua mcp [--rom ROM] [--core CORE] [--option KEY=VALUE]…
    retrolua mcp --attach [PID|unix:PATH]

One emulator per MCP session (a stdio server serves one client): `open_game` launches it (the ROM and
core given on the command line are its defaults, else the bundled Dodge demo), and it ends with the
session — when the client closes the pipe, or when this process dies (the emulator quits when its
connection closes and, with --die-with-parent, when its parent is gone).

With --attach the session drives a game already running instead (windowed or headless), through its
control socket: the one this user's runs open in the runtime folder ($XDG_RUNTIME_DIR/retrolua/PID.sock, as
`retrolua attach` finds them; the run checks the peer's uid) or the unix:PATH given. The game is the
person's: closing the session only disconnects (no quit is sent), open_game refuses, and step refuses while
the game is paused (by the person, or a script's emu.pause()) rather than stepping it.

It drives the emulator with `retrolua.control.Retrolua`, the JSON client, rather than the binary door of
`retrolua.Emulator`: an agent makes a few calls a second, so shared memory buys nothing, while the JSON
socket alone has the requests this server needs (`info`, the console evaluator, completions, PNG frames).

The `mcp` package is imported only when the server is made (`create_server`), so the rest of `retrolua`
never needs it.
"""

import argparse
import base64
import contextlib
import os
import re
import struct
import subprocess
import sys
import threading
import zlib
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ._binary import find_binary, launch_environment, shipped_file
from .control import Retrolua
from .errors import RetroluaError

#: What `retrolua mcp` says when the SDK is missing.
MISSING_SDK = ("the MCP server needs the `mcp` package (the official Model Context Protocol SDK, Python 3.10+): "
               "pip install 'retrolua[mcp]'")

MAX_FRAMES = 3600  # one step: a minute of a 60 fps game
MAX_BYTES = 4096  # one read or write
MAX_SCALE = 4
MAX_STATES = 64
MAX_NAME = 64
MAX_LUA = 65536

#: A number the agent may give as an integer or as text ("0x1F", "$1F", "31").
Address = Union[int, str]


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

    # -- the game ------------------------------------------------------------------------------------------

    def open(self, rom: Optional[str] = None, core: Optional[str] = None,
             options: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """Launches ROM (closing the game open before, its states forgotten) and describes it."""
        if self.attach is not None:
            raise RetroluaError("open_game is not available while attached to a running game (%s): the game is "
                                "the person's; describe_game describes it" % self.attach)
        if core is not None:
            core = _core_name(core)
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
        merged.update(_core_options(options))
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
        held = self._buttons(buttons)
        fields: Dict[str, Any] = {"frames": frames, "input": {name: True for name in held}}
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
        for key in ("reward", "done", "info"):
            if key in reply:
                result[key] = reply[key]
        return result

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
        try:
            reply = self._request("frame", format="rgb")
        except RetroluaError as error:
            if "not drawn a frame" in str(error):
                raise RetroluaError("%s: step at least one frame first" % error) from None
            raise
        width, height, rgb = reply["width"], reply["height"], base64.b64decode(reply["data"])
        if scale > 1:
            rgb, width, height = _scaled(rgb, width, height, scale), width * scale, height * scale
        return width, height, encode_png(width, height, rgb)

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
        name = _state_name(name)
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
        return self._call(lambda emulator: emulator.request(cmd, **fields))

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
            self._info = {}
            self._server_png = None
        if emulator is not None:
            if self.attach is not None:
                emulator.disconnect()  # the person's game goes on
            else:
                emulator.close()


def attached_pid(address: str) -> Optional[int]:
    """The process id in a runtime-folder socket's name (PID.sock), else None."""
    name = os.path.basename(address)
    return int(name[:-5]) if name.endswith(".sock") and name[:-5].isdigit() else None


def runtime_folder() -> str:
    """Where this user's runs listen (as `retrolua attach` looks): $XDG_RUNTIME_DIR/retrolua, else
    /tmp/retrolua-UID."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    return os.path.join(runtime, "retrolua") if runtime.startswith("/") else "/tmp/retrolua-%d" % os.getuid()


def find_game(target: str = "") -> str:
    """The control address (unix:PATH) of a running game: `target` is unix:PATH, a process id, or empty for
    the one game this user runs (ValueError listing them when there are several, or saying where it looked)."""
    if target.startswith("unix:"):
        return target
    folder = runtime_folder()
    if target:
        if not target.isdigit():
            raise ValueError("--attach: %r is neither a process id nor unix:PATH" % target)
        path = os.path.join(folder, "%s.sock" % int(target))
        if not os.path.exists(path):
            raise ValueError("--attach: no game of this user with process id %s (no %s)" % (target, path))
        return "unix:" + path
    live = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        names = []
    for name in names:
        if attached_pid(name) is None:
            continue
        address = "unix:" + os.path.join(folder, name)
        try:
            client = Retrolua.connect(address, call_timeout=5.0)
        except OSError:
            continue  # a socket a run that ended left behind
        try:
            info = client.info()
        except (RetroluaError, OSError, ValueError):
            continue
        finally:
            client.disconnect()
        live.append((address, "  %s\t%s on %s, frame %s" % (attached_pid(name), info.get("content", "?"),
                                                          info.get("core", "?"), info.get("frame", 0))))
    if len(live) == 1:
        return live[0][0]
    if not live:
        raise ValueError("--attach: no running game found in %s (every windowed run listens there; headless: "
                         "run --console, or --control unix:PATH and --attach unix:PATH)" % folder)
    raise ValueError("--attach: several games are running; name one by its process id:\n"
                     + "\n".join(summary for _, summary in live))


def installed_cores(binary: Optional[str] = None) -> List[Dict[str, Any]]:
    """The cores `retrolua cores` finds: name (for open_game's `core`), display name, systems, extensions."""
    executable = find_binary(binary)
    try:
        result = subprocess.run([executable, "cores"], stdin=subprocess.DEVNULL, capture_output=True,
                                env=launch_environment(), timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RetroluaError("cannot run %s cores: %s" % (executable, error)) from None
    if result.returncode != 0:
        raise RetroluaError("%s cores failed: %s" % (executable, result.stderr.decode(errors="replace").strip()))
    cores: List[Dict[str, Any]] = []
    for line in result.stdout.decode(errors="replace").splitlines():
        if line and not line[0].isspace():
            name, _, display = line.partition(" ")
            cores.append({"name": name, "display_name": display.strip()})
        elif cores and ":" in line:
            key, _, value = line.strip().partition(":")
            value = value.strip()
            cores[-1][key] = value.split() if key == "extensions" else value
    return cores


def parse_address(value: Address, argument: str) -> int:
    """An address from an integer or text: "0x1F", "$1F" (hexadecimal) or "31"."""
    if isinstance(value, bool):
        raise ValueError('"%s" must be an integer or a string such as "0x1F", got %r' % (argument, value))
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        text = value.strip().replace("_", "")
        try:
            if text[:2].lower() == "0x":
                number = int(text[2:], 16)
            elif text.startswith("$"):
                number = int(text[1:], 16)
            else:
                number = int(text, 10)
        except ValueError:
            raise ValueError('"%s": %r is not a number (write 0x1F, $1F or 31)' % (argument, value)) from None
    else:
        raise ValueError('"%s" must be an integer or a string such as "0x1F", got %r' % (argument, value))
    if number < 0 or number > 0xFFFFFFFFFFFF:
        raise ValueError('"%s" must be in 0..0xFFFFFFFFFFFF, got %s' % (argument, value))
    return number


def parse_bytes(data: Union[str, Sequence[int]]) -> bytes:
    """Bytes from a hex string ("0a ff", "0aff", "0x0a 0xff") or a list of integers 0..255."""
    if isinstance(data, str):
        tokens = [token for token in re.split(r"[\s,]+", data.strip()) if token]
        try:
            if len(tokens) == 1:
                text = tokens[0][2:] if tokens[0][:2].lower() == "0x" else tokens[0]
                payload = bytes.fromhex(text)
            else:
                payload = bytes(int(token[2:] if token[:2].lower() == "0x" else token, 16) for token in tokens)
        except ValueError:
            raise ValueError('"data": %r is not hex bytes (write "0a ff 10" or a list of integers)' % data[:80]
                             ) from None
    elif isinstance(data, (list, tuple)):
        if not all(isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 255 for value in data):
            raise ValueError('"data": every value must be an integer in 0..255')
        payload = bytes(data)
    else:
        raise ValueError('"data" must be a hex string or a list of integers, got %r' % (data,))
    if not 1 <= len(payload) <= MAX_BYTES:
        raise ValueError('"data" must hold 1..%d bytes, got %d' % (MAX_BYTES, len(payload)))
    return payload


def encode_png(width: int, height: int, rgb: bytes) -> bytes:
    """A PNG file of 8-bit RGB pixels (rows top to bottom): screenshots from a retrolua without PNG frames."""
    stride = width * 3
    if len(rgb) != stride * height:
        raise ValueError("encode_png: %d bytes are not %dx%d RGB" % (len(rgb), width, height))
    rows = b"".join(b"\x00" + rgb[row * stride:(row + 1) * stride] for row in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b"")


def _scaled(rgb: bytes, width: int, height: int, scale: int) -> bytes:
    """Nearest-neighbour: each pixel becomes scale×scale."""
    import numpy as np

    pixels = np.frombuffer(rgb, dtype=np.uint8).reshape(height, width, 3)
    return pixels.repeat(scale, axis=0).repeat(scale, axis=1).tobytes()


def _core_name(core: str) -> str:
    if not isinstance(core, str) or not re.fullmatch(r"[A-Za-z0-9_.+-]{1,64}", core) or core.startswith("-"):
        raise ValueError('"core" must be a core name from list_cores (such as "nestopia"), got %r' % (core,))
    return core


def _core_options(options: Optional[Dict[str, Any]]) -> Dict[str, str]:
    """Core options as the command line's --option KEY=VALUE pairs, checked (never an option of retrolua's)."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError('"options" must be an object of core option names to values, got %r' % (options,))
    checked = {}
    for key, value in options.items():
        if not isinstance(key, str) or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}", key):
            raise ValueError('"options": %r is not a core option name' % (key,))
        if isinstance(value, bool):
            value = "enabled" if value else "disabled"
        if not isinstance(value, (str, int, float)) or "\n" in str(value) or len(str(value)) > 256:
            raise ValueError('"options": the value of %s must be a short string, got %r' % (key, value))
        checked[key] = str(value)
    return checked


def _state_name(name: str) -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise ValueError('"name" must be a non-empty string of at most %d characters, got %r' % (MAX_NAME, name))
    return name.strip()


def create_server(rom: Optional[str] = None, core: Optional[str] = None, options: Optional[Dict[str, str]] = None,
                  binary: Optional[str] = None, attach: Optional[str] = None) -> Any:
    """The MCP server (the SDK's FastMCP, MCPServer in mcp 2) with its tools; `run()` serves stdio.
    ROM, core and options are open_game's defaults; `attach` (unix:PATH) drives that running game instead.
    Raises ImportError with MISSING_SDK without the SDK."""
    try:
        import anyio

        try:  # mcp 2 renamed FastMCP to MCPServer (same decorators, lifespan and Context)
            from mcp.server.mcpserver import Context, Image, MCPServer as Server
            from mcp.server.mcpserver.exceptions import ToolError
        except ImportError:
            from mcp.server.fastmcp import Context, FastMCP as Server, Image
            from mcp.server.fastmcp.exceptions import ToolError
    except ImportError as error:
        raise ImportError(MISSING_SDK) from error

    @contextlib.asynccontextmanager
    async def lifespan(_server: Any) -> Any:
        """One GameSession per MCP session; its emulator ends with it."""
        session = GameSession(rom, core, options, binary, attach)
        session.lock = anyio.Lock()
        try:
            yield session
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(session.close)

    server = Server("retrolua", lifespan=lifespan, instructions=ATTACHED if attach else INSTRUCTIONS,
                    log_level="WARNING")

    async def call(ctx: Any, method: Callable[..., Any], *arguments: Any) -> Any:
        """Runs a blocking GameSession method in a worker thread, one at a time per session; a bad
        argument or a refusal is the tool's error result (the server goes on)."""
        session: GameSession = ctx.request_context.lifespan_context
        async with session.lock:
            try:
                return await anyio.to_thread.run_sync(method, session, *arguments)
            except (ValueError, TypeError, RetroluaError, FileNotFoundError) as error:
                raise ToolError(str(error)) from None

    @server.tool()
    async def open_game(ctx: Context, rom: Optional[str] = None, core: Optional[str] = None,
                        options: Optional[Dict[str, Union[str, int, float, bool]]] = None) -> Dict[str, Any]:
        """Start a game (closing the one open, and forgetting its saved states). With no arguments it opens
        the server's default game: the bundled Dodge demo (NES) unless the server was started with --rom.
        `rom`: a bundled ROM by its name (demo.nes, dodge.nes, demo.gb, demo.sfc, …) or the path of a ROM
        file; `core`: a core name from list_cores (default: chosen from the ROM's extension); `options`: core options {"name": "value"}. Returns the core, content, screen size,
        fps, the buttons step accepts and the memory domains."""
        return await call(ctx, GameSession.open, rom, core, options)

    @server.tool()
    async def step(ctx: Context, frames: int = 1, buttons: Optional[Union[List[str], str]] = None) -> Dict[str, Any]:
        """Run the game for `frames` frames (1..3600; 60 is one second of most games) with `buttons` held
        on controller 1 the whole time (RetroPad names such as "right", "a", "start"; describe_game lists
        them; none: no button). To press and release, step a few frames with the button, then without.
        Returns the frame counter afterwards. Attached to a game a person plays: while they have it paused,
        nothing runs and the result says so ("paused": true)."""
        return await call(ctx, GameSession.step, frames, buttons)

    @server.tool(structured_output=False)
    async def screenshot(ctx: Context, scale: int = 1) -> Any:
        """A PNG image of the current screen (what a player would see), each pixel enlarged `scale`×`scale`
        (1..4, nearest neighbour) for a closer look. Step at least one frame after open_game first."""
        width, height, png = await call(ctx, GameSession.screenshot, scale)
        return [Image(data=png, format="png"), "%dx%d screenshot" % (width, height)]

    @server.tool()
    async def read_memory(ctx: Context, address: Union[int, str], length: int = 1, domain: Optional[str] = None,
                          format: str = "hex") -> Dict[str, Any]:
        """Read `length` bytes (1..4096) at `address` (an integer or "0x1F") of a memory domain (default:
        the core's main RAM; list_domains names them). `format`: "hex" (space-separated bytes) or
        "integers" (a list of 0..255)."""
        return await call(ctx, GameSession.read, address, length, domain, format)

    @server.tool()
    async def write_memory(ctx: Context, address: Union[int, str], data: Union[str, List[int]],
                           domain: Optional[str] = None) -> Dict[str, Any]:
        """Write bytes at `address` (an integer or "0x1F") of a memory domain (default: main RAM). `data`:
        a hex string ("0a ff 03") or a list of integers 0..255; at most 4096 bytes."""
        return await call(ctx, GameSession.write, address, data, domain)

    @server.tool()
    async def save_state(ctx: Context, name: str) -> Dict[str, Any]:
        """Save the whole emulator state under `name` (kept by this server until the game is closed; the
        same name again overwrites it). load_state goes back to it."""
        return await call(ctx, GameSession.save_state, name)

    @server.tool()
    async def load_state(ctx: Context, name: str) -> Dict[str, Any]:
        """Go back to the state saved under `name` with save_state."""
        return await call(ctx, GameSession.load_state, name)

    @server.tool()
    async def list_states(ctx: Context) -> Dict[str, Any]:
        """The states saved with save_state: name, frame and size."""
        return await call(ctx, GameSession.list_states)

    @server.tool()
    async def run_lua(ctx: Context, code: str) -> Dict[str, Any]:
        """Run Lua 5.4 in the emulator's console, between frames, with Retrolua's API (memory.read_u8(a),
        emu.framecount(), joypad, gui, …; complete_lua lists names). An expression returns its value
        (`memory.read_u8(6)`); statements run as typed and globals persist between calls;
        `emu.frameadvance()` runs one frame. Returns the values and what print() wrote. Sandboxed: no
        os.execute or file access beyond Retrolua's own folders."""
        return await call(ctx, GameSession.run_lua, code)

    @server.tool()
    async def complete_lua(ctx: Context, text: str) -> Dict[str, Any]:
        """Lua names that complete `text` in the console: API functions and module fields ("memory." lists
        the memory functions, "emu.fr" gives emu.frameadvance and emu.framecount)."""
        return await call(ctx, GameSession.complete, text)

    @server.tool()
    async def reset_game(ctx: Context) -> Dict[str, Any]:
        """Press the console's reset button (the saved states are kept)."""
        return await call(ctx, GameSession.reset)

    @server.tool()
    async def describe_game(ctx: Context) -> Dict[str, Any]:
        """The open game: core, content, screen size, fps, frame counter, buttons, memory domains, states."""
        return await call(ctx, GameSession.describe)

    @server.tool()
    async def list_domains(ctx: Context) -> Dict[str, Any]:
        """The open game's memory domains (name and size in bytes) and which is the default."""
        return await call(ctx, GameSession.domains)

    @server.tool()
    async def list_cores(ctx: Context) -> Dict[str, Any]:
        """The libretro cores installed on this machine: name (for open_game's `core`), systems and the
        ROM file extensions each opens."""
        return {"cores": await call(ctx, lambda session: installed_cores(session.binary))}

    return server


INSTRUCTIONS = """Plays games in Retrolua, a libretro emulator frontend. Call open_game first (no arguments: the
Dodge demo, where you move a face with the d-pad to collect coins and dodge falling blocks). Then step frames
with buttons held, look with screenshot, and inspect or poke memory (read_memory, write_memory, run_lua).
The game only advances when you step it. save_state/load_state let you try something and go back."""

ATTACHED = """Plays a game already running in Retrolua (a libretro emulator frontend), shared with the person who
started it: describe_game says what it is; step frames with buttons held, look with screenshot, inspect or
poke memory (read_memory, write_memory, run_lua). open_game is not available. While the person has the game
paused, step runs nothing and says so: wait and try again."""


def main(argv: Optional[Sequence[str]] = None) -> None:
    """`retrolua mcp …` / `python -m retrolua.mcp …`: serves MCP on stdin and stdout until the client leaves."""
    parser = argparse.ArgumentParser(
        prog="retrolua mcp", description="A Model Context Protocol server over stdio: an agent plays games in "
        "Retrolua through its tools (see docs/guides/mcp.md). One emulator per session, launched by open_game.")
    parser.add_argument("--rom", help="the game open_game opens when given no ROM (default: the Dodge demo)")
    parser.add_argument("--core", help="the core for it (a name, or a path: only here, never from the agent)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a core option for every game (repeatable)")
    parser.add_argument("--attach", nargs="?", const="", metavar="PID|unix:PATH",
                        help="drive a running game over its control socket instead (default: the one this user "
                        "runs); closing the session leaves it running")
    arguments = parser.parse_args(argv)
    attach = None
    if arguments.attach is not None:
        if arguments.rom or arguments.core or arguments.option:
            parser.error("--attach drives a running game: --rom, --core and --option are for launched ones")
        try:
            attach = find_game(arguments.attach)
        except ValueError as error:
            sys.stderr.write("retrolua mcp: %s\n" % error)
            sys.exit(1)
    options = {}
    for pair in arguments.option:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            parser.error("--option: %r is not KEY=VALUE" % pair)
        options[key] = value
    rom = None
    if arguments.rom:
        try:
            rom = shipped_file(os.path.expanduser(arguments.rom))
        except FileNotFoundError as error:
            parser.error("--rom: %s" % error)
        if not os.path.isfile(rom):
            parser.error("--rom: no such file: %s" % rom)
    try:
        server = create_server(rom, arguments.core, _core_options(options), attach=attach)
    except ImportError as error:
        sys.stderr.write("retrolua mcp: %s\n" % error)
        sys.exit(1)
    except ValueError as error:
        parser.error(str(error))
    try:
        server.run()  # stdio
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
