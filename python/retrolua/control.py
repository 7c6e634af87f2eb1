"""The JSON-lines client of Retrolua's control socket (see docs/guides/control-socket.md), for any
request the socket knows (`eval`, slots, TCP with a token); `retrolua.Emulator` is the fast door.

    from retrolua.control import Retrolua
    with Retrolua.launch("build/roms/demo.nes", core="nestopia") as emu:
        emu.step(10, {"right": True})
        x = emu.read(0x03)[0]
        state = emu.save_state()
        width, height, rgb = emu.frame()

Only the standard library: `launch` starts `retrolua run --headless --control unix:…` and connects;
`connect` joins a running one. Errors from the emulator raise RetroluaError with its message.

Each request waits `call_timeout` seconds for its reply (a step 0.1 s more per frame; None: forever);
past it RetroluaError names the request, a launched emulator (stuck: a core that hangs) is killed and
the client closed. Ctrl-C during a request raises KeyboardInterrupt and closes the client likewise.

A TCP socket needs the run's token (`connect(address, token=…)`); without one, `connect` takes
$RETROLUA_CONTROL_TOKEN, else the file the run wrote beside its data folder
(~/.local/share/retrolua/control-PORT.token, or under $XDG_DATA_HOME).
"""

import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

from ._binary import find_binary, launch_environment
from .errors import RetroluaError


class Retrolua:
    def __init__(self, sock, process=None, folder=None, call_timeout=60.0):
        self._sock = sock
        self._file = sock.makefile("rwb")
        self._process = process
        self._folder = folder
        self.call_timeout = call_timeout
        self._failure = None
        sock.settimeout(call_timeout)

    @classmethod
    def connect(cls, address, token=None, data_folder=None, call_timeout=60.0):
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
    def _token_from_file(port, data_folder=None):
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
    def launch(cls, rom=None, core=None, scenario=None, scripts=(), binary=None, extra_args=(), env=None, timeout=30,
               call_timeout=60.0):
        """Starts a headless retrolua with a private control socket and connects to it (in a session
        of its own: the terminal's Ctrl-C is Python's; it ends with this process, see --die-with-parent)."""
        binary = find_binary(binary)
        folder = tempfile.mkdtemp(prefix="retrolua-")
        path = os.path.join(folder, "control.sock")
        args = [binary, "run"] + ([rom] if rom else []) + ["--headless", "--quiet", "--control", "unix:" + path,
                                                              "--die-with-parent"]
        if core:
            args += ["--core", core]
        if scenario:
            args += ["--scenario", scenario]
        for script in scripts:
            args += ["--script", script]
        args += list(extra_args)
        # stderr in an unnamed file: never a pipe that fills up and stalls the emulator
        stderr = tempfile.TemporaryFile()
        environment = launch_environment(env)
        environment["RETROLUA_PARENT_PID"] = str(os.getpid())
        process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                                   env=environment, start_new_session=True)
        process.stderr = stderr
        deadline = time.time() + timeout
        while not os.path.exists(path):
            if process.poll() is not None:
                stderr.seek(0)
                shutil.rmtree(folder, ignore_errors=True)
                raise RetroluaError("retrolua exited: " + stderr.read().decode(errors="replace").strip())
            if time.time() > deadline:
                process.kill()
                shutil.rmtree(folder, ignore_errors=True)
                raise RetroluaError("retrolua did not open its control socket in time")
            time.sleep(0.01)
        while True:  # the socket's file appears just before it listens
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(path)
                break
            except ConnectionRefusedError:
                sock.close()
                if time.time() > deadline:
                    process.kill()
                    raise RetroluaError("retrolua did not accept connections in time")
                time.sleep(0.01)
        return cls(sock, process, folder, call_timeout=call_timeout)

    def request(self, cmd, **fields):
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
        reply = json.loads(line)
        if not reply.get("ok"):
            raise RetroluaError(reply.get("error", "unknown error"))
        return reply

    def step(self, frames=1, buttons=None, ports=None):
        """Runs `frames` frames holding `buttons` (port 1) or `ports` (a list of button dicts)."""
        fields = {"frames": frames}
        if ports is not None:
            fields["inputs"] = ports
        elif buttons is not None:
            fields["input"] = buttons
        return self.request("step", **fields)

    def read(self, address, length=1, domain=None):
        fields = {"address": address, "length": length}
        if domain:
            fields["domain"] = domain
        return base64.b64decode(self.request("read", **fields)["data"])

    def write(self, address, data, domain=None):
        fields = {"address": address, "data": base64.b64encode(bytes(data)).decode()}
        if domain:
            fields["domain"] = domain
        self.request("write", **fields)

    def save_state(self, slot=None):
        """The state as bytes (or saved to a numbered slot)."""
        if slot is not None:
            self.request("save_state", slot=slot)
            return None
        return base64.b64decode(self.request("save_state")["state"])

    def load_state(self, state=None, slot=None):
        if slot is not None:
            return self.request("load_state", slot=slot)
        return self.request("load_state", state=base64.b64encode(state).decode())

    def frame(self, rgba=False):
        """(width, height, pixels): RGB (or RGBA) bytes, rows top to bottom."""
        reply = self.request("frame", format="rgba" if rgba else "rgb")
        return reply["width"], reply["height"], base64.b64decode(reply["data"])

    def audio(self):
        """(sample_rate, interleaved stereo int16 little-endian bytes) produced since the last call."""
        reply = self.request("audio")
        return reply["rate"], base64.b64decode(reply["data"])

    def info(self):
        return self.request("info")

    def reset(self):
        return self.request("reset")

    def eval(self, lua):
        """Runs Lua in the emulator (only when it was started with --trust); its results."""
        return self.request("eval", lua=lua)["values"]

    def _fail(self, why):
        """The connection cannot go on (a request timed out or was interrupted): a launched emulator is
        asked to quit after what it is doing (or was killed already), and the client closed."""
        self._failure = why + ": this client is closed"
        try:
            self._sock.settimeout(1.0)
            self._sock.sendall(b'{"cmd": "quit"}\n')
        except OSError:
            pass
        self.close()

    def disconnect(self):
        """Closes the connection only: the emulator keeps running and accepts the next client."""
        self._file.close()
        self._sock.close()

    def close(self):
        """Asks the emulator to quit and waits for a launched one to exit."""
        try:
            self.request("quit")
        except (RetroluaError, OSError, ValueError):
            pass
        self.disconnect()
        if self._process:
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
        if self._process and self._process.stderr:
            self._process.stderr.close()
        if self._folder:
            shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


ControlClient = Retrolua
