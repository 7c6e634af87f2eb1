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

import json
import os
import socket
import struct
import time
import weakref
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _batch
from . import _protocol as wire
from ._launch import Launched, launch
from ._states import MemoryAndStates, Snapshot
from ._wire import _finalize, _map_shared, _unsigned
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


class Emulator(MemoryAndStates):
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

    def __enter__(self) -> "Emulator":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
