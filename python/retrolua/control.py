"""The JSON-lines client of Retrolua's control socket (see docs/guides/control-socket.md), for any
request the socket knows (`eval`, slots, TCP with a token); `retrolua.Emulator` is the fast door.

    from retrolua.control import Retrolua
    with Retrolua.launch("build/roms/demo.nes", core="nestopia") as emu:
        emu.step(10, {"right": True})
        x = emu.read(0x03)[0]
        state = emu.save_state()
        width, height, rgb = emu.frame()

Only the standard library: `launch` starts `retrolua run --headless --control unix:…` (as
`retrolua.Emulator` does, through the same launcher, but the emulator outlives a disconnect) and
connects; `connect` joins a running one. Errors from the emulator raise RetroluaError with its message.

Each request waits `call_timeout` seconds for its reply (a step 0.1 s more per frame; None: forever);
past it RetroluaError names the request, a launched emulator (stuck: a core that hangs) is killed and
the client closed. Ctrl-C during a request raises KeyboardInterrupt and closes the client likewise.

A TCP socket needs the run's token (`connect(address, token=…)`); without one, `connect` takes
$RETROLUA_CONTROL_TOKEN, else the file the run wrote beside its data folder
(~/.local/share/retrolua/control-PORT.token, or under $XDG_DATA_HOME).
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._launch import Launched, launch, stop
from .errors import RetroluaError

#: A path argument: text or a path object.
PathLike = Union[str, "os.PathLike[str]"]


class Retrolua:
    """A JSON-lines client of one control socket (see the module's doc): `launch` or `connect` make one."""

    def __init__(self, sock: socket.socket, process: Optional[subprocess.Popen] = None,
                 folder: Optional[str] = None, call_timeout: Optional[float] = 60.0) -> None:
        self._sock = sock
        self._file = sock.makefile("rwb")
        # A launched emulator: its process (with its stderr file) and its socket's folder, what close() ends.
        self._process = process
        self._folder = folder
        self.call_timeout = call_timeout
        self._failure: Optional[str] = None
        sock.settimeout(call_timeout)

    @classmethod
    def connect(cls, address: str, token: Optional[str] = None, data_folder: Optional[str] = None,
                call_timeout: Optional[float] = 60.0) -> "Retrolua":
        """Connects to `unix:PATH` or `tcp:127.0.0.1:PORT` (TCP: sends the token in a hello first)."""
        if address.startswith("unix:"):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(address[5:])
            return cls(sock, call_timeout=call_timeout)
        if not address.startswith("tcp:"):
            raise ValueError("address must be unix:PATH or tcp:HOST:PORT")
        host, port = address[4:].rsplit(":", 1)
        token = token or os.environ.get("RETROLUA_CONTROL_TOKEN") or cls._token_from_file(port, data_folder)
        if not token:
            raise RetroluaError("no control token for " + address + ": pass token=, set RETROLUA_CONTROL_TOKEN, "
                                "or run as the user who started retrolua")
        sock = socket.create_connection((host, int(port)))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client = cls(sock, call_timeout=call_timeout)
        try:
            client.request("hello", token=token)
        except (RetroluaError, OSError):
            client.disconnect()
            raise
        return client

    @staticmethod
    def _token_from_file(port: str, data_folder: Optional[str] = None) -> Optional[str]:
        """The token a run wrote beside its data folder (`control-PORT.token`), or None."""
        if data_folder is None:
            base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
            data_folder = os.path.join(base, "retrolua", "data")
        path = os.path.join(os.path.dirname(os.path.abspath(data_folder)), "control-" + port + ".token")
        try:
            with open(path, encoding="utf-8") as file:
                return file.readline().strip() or None
        except OSError:
            return None

    @classmethod
    def launch(cls, rom: Optional[PathLike] = None, core: Optional[PathLike] = None,
               scenario: Optional[PathLike] = None, scripts: Sequence[PathLike] = (), binary: Optional[str] = None,
               extra_args: Sequence[str] = (), env: Optional[Mapping[str, str]] = None, timeout: float = 30,
               call_timeout: Optional[float] = 60.0, keep_alive: bool = True) -> "Retrolua":
        """Starts a headless retrolua with a private control socket and connects to it (in a session
        of its own: the terminal's Ctrl-C is Python's; it ends with this process, see --die-with-parent).
        The emulator outlives a disconnect (another client may connect to its socket) until `close()`;
        with `keep_alive=False` it ends with this connection and its socket's folder is removed at once."""
        launched, sock = launch(
            os.fspath(rom) if rom else None, os.fspath(core) if core else None,
            scenario=os.fspath(scenario) if scenario else None, scripts=[os.fspath(s) for s in scripts],
            binary=binary, args=extra_args, env=env, keep_alive=keep_alive, timeout=timeout)
        # The stderr file travels with the process: whichever client closes the process closes it too.
        launched.process.stderr = launched.stderr  # type: ignore[assignment]
        return cls(sock, launched.process, launched.folder, call_timeout=call_timeout)

    def request(self, cmd: str, **fields: Any) -> Dict[str, Any]:
        """Sends one request and returns the reply (a dict); raises RetroluaError when ok is false."""
        if self._failure:
            raise RetroluaError(self._failure)
        fields["cmd"] = cmd
        timeout = self.call_timeout
        if timeout is not None and cmd == "step" and isinstance(fields.get("frames"), int):
            timeout += max(0, fields["frames"]) * 0.1
        try:
            if timeout != self.call_timeout:
                self._sock.settimeout(timeout)
            self._file.write(json.dumps(fields).encode() + b"\n")
            self._file.flush()
            line = self._file.readline()
            if timeout != self.call_timeout:
                self._sock.settimeout(self.call_timeout)
        except socket.timeout:
            message = "%s: no reply from the emulator in %.1f s (call_timeout)" % (cmd, timeout)
            if self._process:
                self._process.kill()
                message += "; it was killed"
            self._fail(message)
            raise RetroluaError(message) from None
        except KeyboardInterrupt as interrupt:
            self._fail("a request was interrupted")  # its reply would be read as the next one's
            interrupt.__suppress_context__ = True
            raise
        if not line:
            raise RetroluaError("the emulator closed the connection")
        reply: Dict[str, Any] = json.loads(line)
        if not reply.get("ok"):
            raise RetroluaError(reply.get("error", "unknown error"))
        return reply

    def step(self, frames: int = 1, buttons: Optional[Mapping[str, bool]] = None,
             ports: Optional[Sequence[Mapping[str, bool]]] = None) -> Dict[str, Any]:
        """Runs `frames` frames holding `buttons` (port 1) or `ports` (a list of button dicts)."""
        fields: Dict[str, Any] = {"frames": frames}
        if ports is not None:
            fields["inputs"] = ports
        elif buttons is not None:
            fields["input"] = buttons
        return self.request("step", **fields)

    def read(self, address: int, length: int = 1, domain: Optional[str] = None) -> bytes:
        """`length` bytes at `address` of `domain` (default: the default domain)."""
        fields: Dict[str, Any] = {"address": address, "length": length}
        if domain:
            fields["domain"] = domain
        return base64.b64decode(self.request("read", **fields)["data"])

    def write(self, address: int, data: Union[bytes, bytearray, Sequence[int]], domain: Optional[str] = None
              ) -> None:
        """Writes bytes at `address` of `domain` (default: the default domain)."""
        fields: Dict[str, Any] = {"address": address, "data": base64.b64encode(bytes(data)).decode()}
        if domain:
            fields["domain"] = domain
        self.request("write", **fields)

    def save_state(self, slot: Optional[int] = None) -> Optional[bytes]:
        """The state as bytes (or saved to a numbered slot)."""
        if slot is not None:
            self.request("save_state", slot=slot)
            return None
        return base64.b64decode(self.request("save_state")["state"])

    def load_state(self, state: Optional[bytes] = None, slot: Optional[int] = None) -> Dict[str, Any]:
        """Loads `state` (bytes from `save_state`) or a numbered slot; the reply."""
        if slot is not None:
            return self.request("load_state", slot=slot)
        return self.request("load_state", state=base64.b64encode(state).decode())  # type: ignore[arg-type]

    def frame(self, rgba: bool = False) -> Tuple[int, int, bytes]:
        """(width, height, pixels): RGB (or RGBA) bytes, rows top to bottom."""
        reply = self.request("frame", format="rgba" if rgba else "rgb")
        return reply["width"], reply["height"], base64.b64decode(reply["data"])

    def png(self, scale: int = 1) -> Tuple[int, int, bytes]:
        """(width, height, PNG file bytes) of the current frame, encoded by the emulator, each pixel
        `scale`×`scale` (1…8)."""
        reply = self.request("frame", format="png", scale=scale)
        return reply["width"], reply["height"], base64.b64decode(reply["data"])

    def audio(self) -> Tuple[float, bytes]:
        """(sample_rate, interleaved stereo int16 little-endian bytes) produced since the last call."""
        reply = self.request("audio")
        return reply["rate"], base64.b64decode(reply["data"])

    def info(self) -> Dict[str, Any]:
        """The emulator's `info` reply (core, content, frame, fps, …)."""
        return self.request("info")

    def reset(self) -> Dict[str, Any]:
        """Presses the console's reset; the reply."""
        return self.request("reset")

    def eval(self, lua: str) -> List[Any]:
        """Runs Lua in the emulator (only when it was started with --trust); its results."""
        return self.request("eval", lua=lua)["values"]

    def console(self, lua: str) -> Dict[str, Any]:
        """Runs a chunk in the emulator's console evaluator (the default profile: no --trust needed), as
        typed at its Lua console: the reply's `status` is "done" (with `values`, each shown as text),
        "incomplete" (the chunk needs more lines) or "error" (with `error`); `output` lists what the chunk
        printed ({"text": …, "stream": "out"|"err"})."""
        return self.request("console", lua=lua)

    def complete(self, text: str) -> List[str]:
        """The console's completions of `text` (API names, module fields, the console's globals)."""
        return self.request("complete", text=text)["matches"]

    @property
    def pid(self) -> Optional[int]:
        """The launched emulator's process id (None for a client of `connect`)."""
        return self._process.pid if self._process is not None else None

    def _fail(self, why: str) -> None:
        """The connection cannot go on (a request timed out or was interrupted): a launched emulator is
        asked to quit after what it is doing (or was killed already), and the client closed. A game this
        client only connected to is someone else's (a person's, attached to): it is left running."""
        self._failure = why + ": this client is closed"
        if self._process is None:
            self.disconnect()
            return
        try:
            self._sock.settimeout(1.0)
            self._sock.sendall(b'{"cmd": "quit"}\n')
        except OSError:
            pass
        self.close()

    def disconnect(self) -> None:
        """Closes the connection only: the emulator keeps running and accepts the next client. A connection
        the emulator's end already dropped closes too (what was left unsent is dropped)."""
        try:
            self._file.close()  # flushes first: on a dead socket that fails, and the file closes anyway
        except OSError:
            pass
        finally:
            self._sock.close()

    def close(self) -> None:
        """Asks the emulator to quit and waits for a launched one to exit."""
        try:
            self.request("quit")
        except (RetroluaError, OSError, ValueError):
            pass
        self.disconnect()
        if self._process is not None:
            stop(Launched(self._process, self._folder, self._process.stderr), None, wait=30.0)

    def __enter__(self) -> "Retrolua":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


ControlClient = Retrolua
