"""`retrolua.Emulator`: one emulator process driven through the binary door of its control socket.

Bulk data never goes through JSON: the host writes the screen (RGB), RAM, sound and savestates into
memory shared with this process, and the methods return numpy views of it. **A view is overwritten
by the next call that writes the same area**: `screen()` and `step(screen=True)` rewrite the screen
view, `ram()`, `read()` and `step(ram=True)` the RAM view, `audio()` the sound view. Call `.copy()`
on a view to keep it. `save_state()` returns bytes (a copy: states are kept around).

`step()` is `finish_step(send_step(…))`: `send_step` returns as soon as the request is sent, so a
program driving several emulators sends to all of them, then finishes each (`retrolua.vector` does).
"""

from __future__ import annotations

import array
import fcntl
import json
import mmap
import os
import socket
import struct
import time
import weakref
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _batch
from . import _protocol as wire
from ._launch import Launched, launch, stop
from .errors import RetroluaError

#: What `step` takes as one port's buttons: a RetroPad mask (bit n = button n, as in `Emulator.buttons`),
#: a mapping of button names to booleans, or a sequence of pressed button names.
Buttons = Union[int, Mapping[str, bool], Sequence[str], None]

#: What `Emulator.send_step` returns and `Emulator.finish_step` takes: which views the step refreshes.
PendingStep = int


class StepResult(NamedTuple):
    """What a step reports: the frame counter after it, frames run, lag frames among them, the
    scenario's summed reward and done flag (0.0 and False without a scenario), and the table its
    `info()` returned after the last frame (empty without one)."""

    frame: int
    frames: int
    lag: int
    reward: float
    done: bool
    info: Dict[str, Any] = {}


class Snapshot:
    """A state kept inside the emulator process (`Emulator.snapshot`): restoring it copies nothing
    through shared memory and skips the checks a state from outside needs. Freed by `forget()`,
    when this object is garbage-collected, or with the emulator."""

    __slots__ = ("id", "length", "_owner", "__weakref__")

    def __init__(self, owner: "Emulator", id: int, length: int) -> None:
        self.id, self.length, self._owner = id, length, weakref.ref(owner)

    def forget(self) -> None:
        """Frees the emulator's copy now (the snapshot cannot be restored afterwards)."""
        owner = self._owner()
        if owner is not None and self.id:
            owner._forget_later.append(self.id)
        self.id = 0

    def __del__(self) -> None:
        self.forget()

    def __repr__(self) -> str:
        return "Snapshot(%d, %d bytes)" % (self.id, self.length)


class Emulator:
    """A Retrolua emulator in its own process.

    `Emulator(rom, core=…)` launches `retrolua run ROM --headless --control unix:…` (found as
    `retrolua.find_binary` says); it ends with this object (`close()`, garbage collection, interpreter
    exit) or when this process dies. `Emulator.connect("unix:PATH")` drives one already running.

    Other arguments: `scenario` (a Lua file defining `reward()` and `done()`), `scripts` (Lua scripts
    run in the emulator), `args` (more `retrolua run` arguments), `env`, `binary`, `keep_alive`
    (the emulator outlives a disconnect; `close()` still ends it), `timeout` (seconds to start),
    `call_timeout` (seconds a call waits for its reply, a step 0.1 s more per frame; None: forever:
    past it the call raises RetroluaError naming it and the emulator, stuck — a core that hangs —
    is killed and this object closed), `spin` (seconds to wait for a reply without sleeping before
    blocking: waking a sleeping CPU costs 50–200 µs on VMs, more than the round trip itself; 0 never
    spins — the vector env's choice, whose emulators need every core).

    Ctrl-C during a call raises KeyboardInterrupt and leaves the emulator usable: it finishes the
    call, whose reply the next call reads and drops (a launched emulator runs in a session of its
    own, so the terminal's Ctrl-C does not reach it).
    """

    def __init__(
        self,
        rom: Optional[Union[str, os.PathLike]] = None,
        core: Optional[Union[str, os.PathLike]] = None,
        *,
        scenario: Optional[Union[str, os.PathLike]] = None,
        scripts: Sequence[Union[str, os.PathLike]] = (),
        args: Sequence[str] = (),
        env: Optional[Mapping[str, str]] = None,
        binary: Optional[str] = None,
        keep_alive: bool = False,
        timeout: float = 30.0,
        call_timeout: Optional[float] = 60.0,
        spin: float = 0.002,
        _socket: Optional[socket.socket] = None,
    ) -> None:
        self.spin = max(0.0, float(spin))
        if call_timeout is not None and not call_timeout > 0:
            raise ValueError("call_timeout is a number of seconds above 0, or None, got %r" % (call_timeout,))
        self._call_timeout = call_timeout
        # The wire's bookkeeping: requests sent whose reply is not read yet (a call interrupted by
        # Ctrl-C leaves one, read and dropped by the next call), bytes of a reply header read so far,
        # bytes of a reply's message not read yet, the call being waited for, and why the emulator is
        # unusable (it timed out or its connection is out of step).
        self._unread, self._got, self._message_left = 0, 0, 0
        self._waiting: "tuple[str, Optional[float], float]" = ("", None, 0.0)
        self._failure: Optional[str] = None
        self._launched: Optional[Launched] = None
        if _socket is None:
            self._launched, _socket = launch(
                os.fspath(rom) if rom is not None else None, os.fspath(core) if core is not None else None,
                scenario=os.fspath(scenario) if scenario is not None else None,
                scripts=[os.fspath(s) for s in scripts], binary=binary, args=args, env=env,
                keep_alive=keep_alive, timeout=timeout)
        self._sock = _socket
        self._finalizer = weakref.finalize(self, _finalize, self._launched, self._sock)
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    @classmethod
    def connect(cls, address: str, spin: float = 0.002, call_timeout: Optional[float] = 60.0) -> "Emulator":
        """Drives an emulator already serving `unix:PATH` (the binary door needs a Unix socket)."""
        if not address.startswith("unix:"):
            raise ValueError("the binary door needs a Unix socket: address must be unix:PATH")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(address[5:])
        except OSError as error:
            sock.close()
            raise RetroluaError("cannot connect to %s: %s" % (address, error)) from error
        return cls(_socket=sock, spin=spin, call_timeout=call_timeout)

    # -- set-up ---------------------------------------------------------------------------------

    def _open(self) -> None:
        self._sock.settimeout(self._call_timeout)  # the JSON half; the binary door's reads use SO_RCVTIMEO
        handshake, fd = None, -1
        try:
            self.info: Dict[str, Any] = self._json({"cmd": "info"})
            """The emulator's `info` (core, content, fps, sample rate, domains, buttons, …) at connection."""
            handshake, fd = self._json_with_fd({"cmd": "binary"})
        except socket.timeout:
            pass
        if handshake is None:
            self._stuck("connecting")  # raises
        self._sock.settimeout(None)
        try:
            self._map = _map_shared(fd, handshake["size"])
        finally:
            os.close(fd)
        self.call_timeout = self._call_timeout  # the socket's receive slices (see the property)
        self._finalizer.detach()
        self._finalizer = weakref.finalize(self, _finalize, self._launched, self._sock, self._map)
        self._layout = {name: tuple(handshake[name]) for name in ("screen", "ram", "audio", "state")}
        self.buttons: List[str] = list(handshake["buttons"])
        """RetroPad button names; button n is bit n of a mask."""
        self._button_bits = {name: 1 << index for index, name in enumerate(self.buttons)}
        self.domains: Dict[str, int] = {d["name"]: d["size"] for d in handshake["domains"]}
        """Memory domains by name, with their sizes in bytes."""
        self._domain_index = {d["name"]: index for index, d in enumerate(handshake["domains"])}
        default = handshake["default_domain"]
        self.default_domain: Optional[str] = handshake["domains"][default]["name"] if default >= 0 else None
        self._forget_later: List[int] = []
        self._kept_state: Optional[Snapshot] = None
        self._kept_bytes: Optional[bytes] = None
        self._request = bytearray(wire.REQUEST.size + 2 * 8)
        self._reply = bytearray(wire.REPLY.size)
        self._reply_view = memoryview(self._reply)
        self._screens: Dict[tuple, np.ndarray] = {}
        self._processing: Optional["tuple[int, int]"] = None  # preprocess(): (frame_stack, channels)
        offset, capacity = self._layout["ram"]
        self._ram_area = np.frombuffer(self._map, dtype=np.uint8, count=capacity, offset=offset)
        # Where screens, observations and RAM arrive: this emulator's own memory, or its batch lane's.
        self._screen_map, self._screen_offset = self._map, self._layout["screen"][0]
        self._batch: Optional[_batch.BatchRegion] = None
        self._lane = -1
        self._lane_unread = False  # the next reply is in the lane, not on the socket
        self._lane_message = -1  # where the rest of the lane's reply message is
        offset, capacity = self._layout["audio"]
        self._audio_area = np.frombuffer(self._map, dtype=np.int16, count=capacity // 2, offset=offset)

    @property
    def call_timeout(self) -> Optional[float]:
        """Seconds a call waits for its reply (a step 0.1 s more per frame); None: forever."""
        return self._call_timeout

    @call_timeout.setter
    def call_timeout(self, seconds: Optional[float]) -> None:
        if seconds is not None and not seconds > 0:
            raise ValueError("call_timeout is a number of seconds above 0, or None, got %r" % (seconds,))
        self._call_timeout = seconds
        # A blocking read returns (EAGAIN) after each slice of at most a second without bytes, to look
        # at the call's deadline: no extra system call while replies come.
        slice_ = 0.0 if seconds is None else min(float(seconds), 1.0)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,
                              struct.pack("@ll", int(slice_), int(slice_ % 1 * 1e6)))

    def _json(self, request: Dict[str, Any]) -> Dict[str, Any]:
        return self._json_with_fd(request, want_fd=False)[0]

    def _json_with_fd(self, request: Dict[str, Any], want_fd: bool = True) -> "tuple[Dict[str, Any], int]":
        line, fd = b"", -1
        fds = array.array("i")
        try:
            self._sock.sendall(json.dumps(request).encode() + b"\n")
            while not line.endswith(b"\n"):
                data, ancillary, _, _ = self._sock.recvmsg(65536, socket.CMSG_SPACE(fds.itemsize))
                if not data:
                    raise self._gone()
                for level, kind, payload in ancillary:
                    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                        fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
                line += data
        except socket.timeout:
            raise
        except OSError as error:  # it went away as we connected (a run that refused to start)
            for extra in fds:
                os.close(extra)
            raise self._gone() from error
        reply = json.loads(line)
        if fds:
            fd = fds[0]
            for extra in fds[1:]:
                os.close(extra)
        if not reply.get("ok"):
            if fd >= 0:
                os.close(fd)
            raise RetroluaError(reply.get("error", "unknown error"))
        if want_fd and fd < 0:
            raise RetroluaError("the emulator did not pass its shared memory")
        return reply, fd

    def _gone(self) -> RetroluaError:
        tail = self._launched.stderr_tail() if self._launched else ""
        if self._launched and self._launched.process.poll() is not None:
            return RetroluaError("the emulator exited (status %d): %s" % (self._launched.process.returncode, tail))
        return RetroluaError("the emulator closed the connection" + (": " + tail if tail else ""))

    # -- the wire -------------------------------------------------------------------------------

    def _call(self, command: int, flags: int = 0, count: int = 0, a: int = 0, b: int = 0,
              payload: Union[bytes, bytearray, memoryview] = b"") -> tuple:
        self._send(command, flags, count, a, b, payload)
        return self._reply_header()

    def _send(self, command: int, flags: int = 0, count: int = 0, a: int = 0, b: int = 0,
              payload: Union[bytes, bytearray, memoryview] = b"") -> None:
        """The request half of a call (`send_step` sends a step without waiting for its reply)."""
        while self._forget_later:  # snapshots collected since the last call: no reply is pending now
            self._send_now(wire.FORGET, 0, 0, self._forget_later.pop(), 0, b"")
            self._reply_header()
        self._send_now(command, flags, count, a, b, payload)

    def _send_now(self, command: int, flags: int, count: int, a: int, b: int,
                  payload: Union[bytes, bytearray, memoryview]) -> None:
        if self._failure:
            raise RetroluaError(self._failure)
        if self._unread or self._message_left:
            self._drain()
        request, sent = self._request, self._unread
        wire.REQUEST.pack_into(request, 0, command, flags, len(payload), count, a, b)
        if self._batch is not None and command == wire.STEP and wire.REQUEST.size + len(payload) <= _batch.MAX_REQUEST:
            if len(request) < wire.REQUEST.size + len(payload):
                request += bytes(wire.REQUEST.size + len(payload) - len(request))
            end = wire.REQUEST.size + len(payload)
            request[wire.REQUEST.size:end] = payload
            self._batch.post(self._lane, memoryview(request)[:end])  # started by the batch's next wake
            self._unread, self._lane_unread = self._unread + 1, True
            self._waiting = ("step", None if self.call_timeout is None else self.call_timeout + count * 0.1,
                             time.monotonic())
            return
        try:
            if len(payload) <= len(request) - wire.REQUEST.size:
                end = wire.REQUEST.size + len(payload)
                request[wire.REQUEST.size:end] = payload
                self._sock.sendall(memoryview(request)[:end])
            else:
                self._sock.sendall(memoryview(request)[: wire.REQUEST.size])
                self._sock.sendall(payload)
            self._unread += 1
        except OSError as error:
            raise self._gone() from error
        except KeyboardInterrupt as interrupt:
            if self._unread == sent:  # perhaps sent in part: the connection cannot be trusted
                self._out_of_step("a request was interrupted while being sent")
            interrupt.__suppress_context__ = True
            raise
        timeout = self.call_timeout
        if timeout is not None and command == wire.STEP:
            timeout += count * 0.1
        self._waiting = (_NAMES.get(command, "call"), timeout, time.monotonic())

    def _drain(self) -> None:
        """Reads and drops the replies of calls that were interrupted (Ctrl-C) before their reply came."""
        if self._message_left:
            self._skip_message()
        while self._unread:
            reply = self._read_header()
            self._message_left = reply[1]
            self._skip_message()

    def _reply_header(self) -> tuple:
        """The reply half: the header's fields; an error reply raises RetroluaError. A step's `info()`
        JSON (the message of a successful reply) is left for `finish_step`."""
        reply = self._read_header()
        self._message_left = reply[1]
        if reply[0] != 0:
            raise RetroluaError(self._receive(reply[1]).decode(errors="replace"))
        return reply

    def _read_header(self) -> tuple:
        """The next reply's header, read into `_reply` (resumed where an interrupted read stopped).

        A Ctrl-C while waiting consumed nothing: the next call resumes. One landing just after a
        read returned (its count lost) is told by the status byte, set to 0xFF before each read (a
        reply's is 0 or 1): then the emulator is closed rather than read out of step."""
        if self._lane_unread:
            return self._lane_header()
        view, reply, sock, size = self._reply_view, self._reply, self._sock, wire.REPLY.size
        try:
            if self.spin and self._got == 0:
                deadline = time.perf_counter() + self.spin
                while True:
                    reply[0] = 0xFF
                    try:
                        got = sock.recv_into(view, size, socket.MSG_DONTWAIT)
                    except BlockingIOError:
                        got = -1  # nothing yet (the handler ends here: an interrupt chains nothing)
                    if got == 0:
                        raise self._gone()
                    if got > 0:
                        self._got = got
                        break
                    if time.perf_counter() >= deadline:
                        break
            while self._got < size:
                if self._got == 0:
                    reply[0] = 0xFF
                try:
                    got = sock.recv_into(view[self._got:], size - self._got)
                except BlockingIOError:  # SO_RCVTIMEO: a slice of the call's time passed, nothing came
                    self._check_deadline()
                    continue
                if got == 0:
                    raise self._gone()
                self._got += got
        except OSError as error:
            raise self._gone() from error
        except KeyboardInterrupt as interrupt:
            interrupt.__suppress_context__ = True
            if self._got or reply[0] != 0xFF:
                self._out_of_step("a reply was interrupted while being read")
            raise
        self._got = 0
        self._unread -= 1
        return wire.REPLY.unpack_from(reply)

    def _lane_header(self) -> tuple:
        """The reply in the batch lane, once the emulator has written it (waited for on the batch's futex)."""
        region, lane = self._batch, self._lane
        assert region is not None
        if not region.answered(lane):
            region.wait([lane], lambda _: self.check_alive())
        reply = region.reply(lane)
        self._reply[:] = reply[:wire.REPLY.size]
        self._lane_unread, self._unread = False, self._unread - 1
        self._lane_message = region.lane(lane) + _batch.REPLY_AT + wire.REPLY.size
        return wire.REPLY.unpack_from(self._reply)

    def check_alive(self) -> None:
        """Raises RetroluaError if the emulator has exited, or if the call it is running is past its
        deadline (it is killed then): what a vector env waiting on many emulators asks of each."""
        if self._launched is not None and self._launched.process.poll() is not None:
            error = self._gone()
            self._failure = str(error) + ": this Emulator is closed"
            raise error
        self._check_deadline()

    @property
    def capacities(self) -> Dict[str, int]:
        """The bytes of room for a screen (or processed observation) and for RAM: a batch region gives
        each emulator's lane as much."""
        return {"screen": self._layout["screen"][1], "ram": self._layout["ram"][1]}

    def join_batch(self, region: "_batch.BatchRegion", lane: int) -> None:
        """From now on steps go through `region`'s lane `lane` (see retrolua._batch), and screens,
        observations and RAM arrive in its areas. The vector envs call this; `region.wake()` starts
        the steps posted, and each emulator's `finish_step` reads its lane."""
        payload = region.join_payload(lane)
        request = wire.REQUEST.pack(wire.BATCH, 0, len(payload), 0, 0, 0) + payload
        if self._unread or self._message_left:
            self._drain()
        try:
            self._sock.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", region.fd))])
        except OSError as error:
            raise self._gone() from error
        self._unread += 1
        self._waiting = ("batch", self.call_timeout, time.monotonic())
        self._reply_header()
        self._batch, self._lane = region, lane
        self._screen_map, self._screen_offset, self._screens = region.map, region.screen_at(lane), {}
        self._ram_area = np.frombuffer(region.map, dtype=np.uint8, count=self._layout["ram"][1],
                                       offset=region.ram_at(lane))

    def _check_deadline(self) -> None:
        """Past the call's deadline the emulator is stuck (a core that hangs): killed, RetroluaError."""
        name, timeout, sent = self._waiting
        if timeout is not None and time.monotonic() - sent >= timeout:
            self._stuck(name, timeout)

    def _receive(self, count: int) -> bytes:
        """`count` bytes of the current reply's message (it comes with its header: a Ctrl-C here is
        rare, and since what was read is unknown then, it closes the emulator)."""
        if self._lane_message >= 0:
            assert self._batch is not None
            at = self._lane_message
            self._lane_message = at + count if count < self._message_left else -1
            self._message_left -= count
            return bytes(self._batch.map[at:at + count])
        data = bytearray()
        try:
            while len(data) < count:
                try:
                    chunk = self._sock.recv(count - len(data))
                except BlockingIOError:
                    self._check_deadline()
                    continue
                if not chunk:
                    raise self._gone()
                data += chunk
                self._message_left -= len(chunk)
        except OSError as error:
            raise self._gone() from error
        except KeyboardInterrupt as interrupt:
            interrupt.__suppress_context__ = True
            self._out_of_step("a reply was interrupted while being read")
            raise
        return bytes(data)

    def _skip_message(self) -> None:
        while self._message_left:
            self._receive(self._message_left)

    def _stuck(self, name: str, timeout: Optional[float] = None) -> None:
        """No reply in time: the emulator (a core that hangs, a script stuck) is killed; raises."""
        waited = timeout if timeout is not None else self.call_timeout
        message = "%s: no reply from the emulator in %.1f s (call_timeout)" % (name, waited or 0.0)
        tail = ""
        if self._launched is not None:
            self._launched.process.kill()
            message += "; it was killed"
            tail = self._launched.stderr_tail(1000)
        self._failure = message + ": this Emulator is closed"
        self.close()
        raise RetroluaError(message + (" (its last words: %s)" % tail if tail else ""))

    def _out_of_step(self, why: str) -> None:
        """The connection lost track of its replies: the emulator is closed (a launched one ends)."""
        self._failure = "%s: this Emulator is closed" % why
        self.close()

    # -- input ----------------------------------------------------------------------------------

    def mask(self, buttons: Buttons) -> int:
        """A RetroPad mask from a mask, a `{name: bool}` mapping or a list of pressed names."""
        if buttons is None:
            return 0
        if isinstance(buttons, (int, np.integer)):
            value = int(buttons)
            if not 0 <= value <= 0xFFFF:
                raise ValueError("a button mask is 0…65535, got %d" % value)
            return value
        bits = self._button_bits
        try:
            if isinstance(buttons, Mapping):
                return sum(bits[name] for name, pressed in buttons.items() if pressed)
            if isinstance(buttons, str):
                return bits[buttons]
            return sum(bits[name] for name in buttons)
        except KeyError as error:
            raise ValueError("unknown button %s (buttons: %s)" % (error, ", ".join(self.buttons))) from None

    # -- commands -------------------------------------------------------------------------------

    def step(self, frames: int = 1, buttons: Buttons = None, *, ports: Optional[Sequence[Buttons]] = None,
             actions: Optional[Union[np.ndarray, Sequence[int]]] = None, screen: bool = False,
             ram: bool = False) -> StepResult:
        """Runs `frames` frames and returns once they have run.

        Input: `buttons` for port 1, or `ports` (one entry per port), held for every frame; or
        `actions`, one mask per frame (shape (N,) for port 1 or (N, ports); `frames` is then N).
        With none of them the player's input is held as it is. `screen=True` / `ram=True` also
        refresh the `screen()` / `ram()` views in the same round trip (use `last_screen()` /
        `last_ram()` to get them without another request). Stops early when the scenario says done.
        """
        return self.finish_step(self.send_step(frames, buttons, ports=ports, actions=actions, screen=screen, ram=ram))

    def send_step(self, frames: int = 1, buttons: Buttons = None, *, ports: Optional[Sequence[Buttons]] = None,
                  actions: Optional[Union[np.ndarray, Sequence[int]]] = None, screen: bool = False,
                  ram: bool = False) -> PendingStep:
        """The request half of `step` (same arguments): sends it and returns at once, without waiting
        for the frames. Pass what it returns to `finish_step`, before any other call on this emulator.
        Sending to several emulators before finishing any runs their frames at the same time (what
        the vector env does)."""
        flags, frames, payload = self._step_request(frames, buttons, ports, actions, screen, ram)
        self._send(wire.STEP, flags, frames, payload=payload)
        return flags

    def finish_step(self, pending: PendingStep) -> StepResult:
        """The reply half of `step`: waits for the step `send_step` sent (`pending` is what it returned),
        refreshes the views it asked for and returns its result, as `step` does."""
        reply = self._reply_header()
        info = json.loads(self._receive(reply[1])) if reply[1] else {}
        if pending & wire.STEP_SCREEN:
            self._screen_size = (reply[7], reply[6])
        if pending & wire.STEP_RAM:
            self._ram_length = reply[8]
        if pending & wire.STEP_PROCESSED:
            self._observation_size = (reply[7], reply[6])
        return StepResult(reply[2], reply[3], reply[4], reply[9], reply[5] != 0, info)

    def _step_request(self, frames: int, buttons: Buttons, ports: Optional[Sequence[Buttons]],
                      actions: Optional[Union[np.ndarray, Sequence[int]]], screen: bool, ram: bool
                      ) -> "tuple[int, int, Union[bytes, memoryview]]":
        """A step's flags, frame count and payload (see `step`)."""
        flags = (wire.STEP_SCREEN if screen else 0) | (wire.STEP_RAM if ram else 0)
        if actions is not None:
            masks = np.ascontiguousarray(actions, dtype="<u2")
            if masks.ndim == 1:
                masks = masks.reshape(-1, 1)
            if masks.ndim != 2 or not 1 <= masks.shape[1] <= 8:
                raise ValueError("actions has shape (frames,) or (frames, ports ≤ 8), got %s" % (masks.shape,))
            frames = masks.shape[0]
            payload: Union[bytes, memoryview] = memoryview(masks).cast("B")
            flags |= masks.shape[1] << 8
        elif ports is not None:
            if not 1 <= len(ports) <= 8:
                raise ValueError("ports is a list of 1…8 inputs")
            payload = np.array([self.mask(p) for p in ports], dtype="<u2").tobytes()
            flags |= len(ports) << 8
        elif buttons is not None:
            payload = self.mask(buttons).to_bytes(2, "little")
            flags |= 1 << 8
        else:
            payload = b""
        if not 0 <= frames <= 1_000_000:
            raise ValueError("frames is 0…1000000, got %d" % frames)
        return flags, frames, payload

    def preprocess(self, frameskip: int = 1, *, max_pool: bool = False, grayscale: bool = False,
                   resize: Optional[Sequence[int]] = None, frame_stack: int = 1, noop_max: int = 0,
                   sticky_actions: float = 0.0, seed: int = 0) -> None:
        """Sets the preprocessing of this connection's processed steps (`processed_step`), done in the
        emulator process: each runs `frameskip` frames (1…64; each keeps the last frame's buttons with
        probability `sticky_actions`, 0 ≤ p < 1), takes the element-wise max of its last two frames
        (`max_pool`), their luma (`grayscale`, OpenCV's weights), resizes by area (`resize=(width,
        height)`, 1…1024 each) and stacks the last `frame_stack` (1…16) of them, oldest first. An
        episode's start runs a seeded 1…`noop_max` no-op frames (0…10000). `seed` seeds the generator."""
        if resize is not None and len(resize) != 2:
            raise ValueError("preprocess: resize is (width, height), each 1…1024, or None, got %r" % (resize,))
        width, height = (0, 0) if resize is None else (int(resize[0]), int(resize[1]))
        checks = [(1 <= int(frameskip) <= 64, "frameskip is 1…64, got %r" % (frameskip,)),
                  (resize is None or (1 <= width <= 1024 and 1 <= height <= 1024),
                   "resize is (width, height), each 1…1024, or None, got %r" % (resize,)),
                  (1 <= int(frame_stack) <= 16, "frame_stack is 1…16, got %r" % (frame_stack,)),
                  (0 <= int(noop_max) <= 10000, "noop_max is 0…10000, got %r" % (noop_max,)),
                  (0.0 <= float(sticky_actions) < 1.0, "sticky_actions is 0 ≤ p < 1, got %r" % (sticky_actions,))]
        for ok, message in checks:
            if not ok:
                raise ValueError("preprocess: " + message)
        payload = wire.PREPROCESS_OPTIONS.pack(
            int(frameskip), bool(max_pool), bool(grayscale), width, height, int(frame_stack), int(noop_max),
            float(sticky_actions), _unsigned(seed, "seed"))
        self._call(wire.PREPROCESS, payload=payload)
        self._processing = (int(frame_stack), 1 if grayscale else 3)

    def processed_step(self, buttons: Buttons = None, *, ports: Optional[Sequence[Buttons]] = None,
                       episode_start: bool = False, seed: Optional[int] = None) -> StepResult:
        """One step as `preprocess` set it (see `send_processed_step`); `last_observation()` then shows it."""
        return self.finish_step(self.send_processed_step(buttons, ports=ports, episode_start=episode_start,
                                                         seed=seed))

    def send_processed_step(self, buttons: Buttons = None, *, ports: Optional[Sequence[Buttons]] = None,
                            episode_start: bool = False, seed: Optional[int] = None) -> PendingStep:
        """The request half of `processed_step`: `buttons` (or `ports`) held through the frame skip, or
        (`episode_start`) an episode's start — its no-op frames (one without `noop_max`), the stack
        filled with its observation; `seed` reseeds the generator first. Pass the result to `finish_step`."""
        if self._processing is None:
            raise RetroluaError("processed_step: call preprocess() first")
        if episode_start and (buttons is not None or ports is not None):
            raise ValueError("processed_step: an episode's start presses no buttons")
        flags, _, payload = self._step_request(1, buttons, ports, None, False, False)
        flags |= wire.STEP_PROCESSED | (wire.STEP_EPISODE if episode_start else 0)
        flags |= wire.STEP_SEED if seed is not None else 0
        self._send(wire.STEP, flags, 1 if episode_start else 0, _unsigned(seed or 0, "seed"), payload=payload)
        return flags

    def last_observation(self) -> np.ndarray:
        """The processed observation the last processed step left: uint8, (frame_stack, height, width),
        or (…, 3) without grayscale; a view into shared memory, rewritten by the next step or `screen()`."""
        size = getattr(self, "_observation_size", None)
        if size is None or self._processing is None:
            raise RetroluaError("no observation yet: call processed_step() first")
        stack, channels = self._processing
        shape = (stack,) + size + ((channels,) if channels == 3 else ())
        return np.frombuffer(self._screen_map, dtype=np.uint8, count=int(np.prod(shape)),
                             offset=self._screen_offset).reshape(shape)

    def screen(self) -> np.ndarray:
        """The core's last frame as RGB, shape (height, width, 3) uint8: a view into shared memory,
        rewritten by the next `screen()` or `step(screen=True)`."""
        reply = self._call(wire.SCREEN)
        self._screen_size = (reply[7], reply[6])
        return self.last_screen()

    def last_screen(self) -> np.ndarray:
        """The screen view as the last `screen()` or `step(screen=True)` left it."""
        size = getattr(self, "_screen_size", None)
        if size is None:
            raise RetroluaError("no screen yet: call screen() or step(screen=True) first")
        view = self._screens.get(size)
        if view is None:
            height, width = size
            view = np.frombuffer(self._screen_map, dtype=np.uint8, count=height * width * 3,
                                 offset=self._screen_offset).reshape(height, width, 3)
            self._screens[size] = view
        return view

    def read(self, address: int, length: int = 1, domain: Optional[str] = None) -> np.ndarray:
        """`length` bytes at `address` of `domain` (default: the default domain) as a uint8 view,
        rewritten by the next `read`, `ram` or `step(ram=True)`."""
        reply = self._call(wire.READ, 0, self._domain(domain), _unsigned(address, "address"),
                           _unsigned(length, "length"))
        return self._ram_area[: reply[8]]

    def ram(self) -> np.ndarray:
        """The whole default memory domain as a uint8 view (see `read` for when it is rewritten)."""
        if self.default_domain is None:
            raise RetroluaError("the core exposes no memory")
        return self.read(0, min(self.domains[self.default_domain], self._layout["ram"][1]))

    def last_ram(self) -> np.ndarray:
        """The RAM view as the last `step(ram=True)` left it."""
        return self._ram_area[: getattr(self, "_ram_length", 0)]

    def write(self, address: int, data: Union[bytes, bytearray, memoryview, Iterable[int], np.ndarray],
              domain: Optional[str] = None) -> None:
        """Writes bytes at `address` of `domain` (default: the default domain)."""
        payload = data if isinstance(data, (bytes, bytearray, memoryview)) else bytes(np.asarray(data, dtype=np.uint8))
        self._call(wire.WRITE, 0, self._domain(domain), _unsigned(address, "address"), payload=payload)

    def save_state(self) -> bytes:
        """The emulator's state (a Retrolua state container, as `savestate` files hold) as bytes.

        The emulator also keeps the last one it gave: loading those same bytes back (the same
        object: bytes cannot change) is then a `restore`, without copying the state back."""
        kept = self._kept_state
        # Let go of the last bytes first: a fresh megabyte costs more in page faults than the copy.
        self._kept_bytes = None
        reply = self._call(wire.SAVE_STATE, wire.SAVE_KEEP, 0, kept.id if kept is not None else 0)
        if kept is None:
            self._kept_state = Snapshot(self, reply[3], reply[8])
        offset = self._layout["state"][0]
        self._kept_bytes = self._map[offset: offset + reply[8]]
        return self._kept_bytes

    def load_state(self, state: Union[bytes, bytearray, memoryview]) -> int:
        """Loads a state made by `save_state` (or a savestate file's bytes); returns the frame counter.

        The held input is not part of a state: a later `step()` without buttons keeps what was held
        before the load, so replays that must match pass their buttons (or `actions`) every step."""
        if state is self._kept_bytes and self._kept_state is not None:
            return self.restore(self._kept_state)
        offset, capacity = self._layout["state"]
        if not 0 < len(state) <= capacity:
            raise RetroluaError("a state is 1…%d bytes here, got %d" % (capacity, len(state)))
        self._map[offset: offset + len(state)] = state
        return self._call(wire.LOAD_STATE, 0, 0, len(state))[2]

    def get_state(self) -> bytes:
        """`save_state` by stable-retro's name."""
        return self.save_state()

    def set_state(self, state: Union[bytes, bytearray, memoryview]) -> int:
        """`load_state` by stable-retro's name."""
        return self.load_state(state)

    def record_movie(self, path: Union[str, os.PathLike]) -> None:
        """Records a movie from the current state (stored in it) to `path` (an `.rlm`: a `.bk2` or
        `.fm2` cannot carry the start state, so stopping such a one fails; never over an existing
        file) until `stop_movie()`; `retrolua movie play` replays it."""
        self._call(wire.MOVIE, wire.MOVIE_RECORD, payload=os.fsencode(os.path.abspath(os.fspath(path))))

    def stop_movie(self) -> None:
        """Ends the movie being recorded and writes it."""
        self._call(wire.MOVIE, wire.MOVIE_STOP)

    def snapshot(self, into: Optional[Snapshot] = None) -> Snapshot:
        """Saves the state inside the emulator process and returns a handle to it (`into`: replace
        that snapshot, reusing its memory). The fast way to return to a state many times (episode
        resets, search); `save_state` gives bytes to keep or write to disk."""
        if into is not None and (into._owner() is not self or not into.id):
            raise RetroluaError("that snapshot belongs to another emulator or was forgotten")
        reply = self._call(wire.SNAPSHOT, 0, 0, into.id if into is not None else 0)
        if into is not None:
            into.length = reply[8]
            return into
        return Snapshot(self, reply[3], reply[8])

    def restore(self, snapshot: Snapshot) -> int:
        """Loads a snapshot of this emulator; returns the frame counter (see `load_state` on input)."""
        if snapshot._owner() is not self or not snapshot.id:
            raise RetroluaError("that snapshot belongs to another emulator or was forgotten")
        return self._call(wire.RESTORE, 0, 0, snapshot.id)[2]

    def audio(self) -> np.ndarray:
        """Sound since the last call as int16 stereo, shape (frames, 2): a view, rewritten by the next
        call (at most two seconds per call; call again for the rest)."""
        reply = self._call(wire.AUDIO)
        return self._audio_area[: reply[3] * 2].reshape(-1, 2)

    @property
    def sample_rate(self) -> float:
        """The core's audio sample rate (Hz)."""
        return float(self.info.get("sample_rate", 0))

    def reset(self) -> int:
        """Presses the console's reset; returns the frame counter."""
        return self._call(wire.RESET)[2]

    def _domain(self, name: Optional[str]) -> int:
        if name is None:
            if self.default_domain is None:
                raise RetroluaError("the core exposes no memory")
            name = self.default_domain
        try:
            return self._domain_index[name]
        except KeyError:
            raise RetroluaError("no memory domain %r (domains: %s)" % (name, ", ".join(self.domains))) from None

    # -- lifetime -------------------------------------------------------------------------------

    @property
    def pid(self) -> Optional[int]:
        """The emulator's process id (None when connected to one this object did not start)."""
        return self._launched.process.pid if self._launched else None

    def close(self) -> None:
        """Ends a launched emulator (waits for it) and lets go of the connection and shared memory."""
        self._finalizer()

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def __enter__(self) -> "Emulator":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_NAMES = {wire.STEP: "step", wire.SCREEN: "screen", wire.READ: "read", wire.WRITE: "write",
          wire.SAVE_STATE: "save_state", wire.LOAD_STATE: "load_state", wire.AUDIO: "audio", wire.RESET: "reset",
          wire.QUIT: "quit", wire.SNAPSHOT: "snapshot", wire.RESTORE: "restore", wire.FORGET: "forget",
          wire.MOVIE: "movie", wire.PREPROCESS: "preprocess", wire.BATCH: "batch"}

_F_GET_SEALS = getattr(fcntl, "F_GET_SEALS", 1034)
_F_SEAL_SHRINK = getattr(fcntl, "F_SEAL_SHRINK", 0x0002)


def _map_shared(fd: int, size: int) -> mmap.mmap:
    """The emulator's shared memory, mapped: it must be as large as its layout says and sealed against
    shrinking (a shrunk mapping faults, SIGBUS, on the next access: in the emulator and here)."""
    try:
        actual = os.fstat(fd).st_size
        sealed = fcntl.fcntl(fd, _F_GET_SEALS) & _F_SEAL_SHRINK
    except OSError as error:
        raise RetroluaError("the emulator's shared memory cannot be checked: %s" % error) from None
    if not isinstance(size, int) or not 0 < size <= actual:
        raise RetroluaError("the emulator's shared memory is %d bytes, its layout says %r" % (actual, size))
    if not sealed:
        raise RetroluaError("the emulator's shared memory is not sealed against shrinking (a retrolua older "
                            "than this package?)")
    return mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)


def _unsigned(value: int, name: str) -> int:
    value = int(value)
    if not 0 <= value < 1 << 63:
        raise ValueError("%s must be 0…2^63-1, got %d" % (name, value))
    return value


def _finalize(launched: Optional[Launched], sock: socket.socket, shared: Optional[mmap.mmap] = None) -> None:
    """Quit (a launched emulator), close the connection, unmap, wait for the process, remove its folder."""
    if launched is not None:
        try:
            sock.sendall(wire.REQUEST.pack(wire.QUIT, 0, 0, 0, 0, 0))
        except OSError:
            pass
    if shared is not None:
        try:
            shared.close()
        except BufferError:
            pass  # numpy views still point at it: the mapping goes when they do
    if launched is not None:
        stop(launched, sock)
    else:
        sock.close()
