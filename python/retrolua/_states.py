"""`Emulator`'s memory, state, movie and sound commands, and `Snapshot`, a state kept in the emulator
process. The views returned point into shared memory (see `retrolua.emulator` for when they are rewritten)."""

from __future__ import annotations

import os
import weakref
from typing import Any, Dict, Iterable, Optional, Union

import numpy as np

from . import _protocol as wire
from ._wire import Wire, _unsigned
from .errors import RetroluaError

class Snapshot:
    """A state kept inside the emulator process (`Emulator.snapshot`): restoring it copies nothing
    through shared memory and skips the checks a state from outside needs. Freed by `forget()`,
    when this object is garbage-collected, or with the emulator."""

    __slots__ = ("id", "length", "_owner", "__weakref__")

    def __init__(self, owner: "MemoryAndStates", id: int, length: int) -> None:
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



class MemoryAndStates(Wire):
    """Reads and writes of memory domains, savestates and snapshots, movies, sound and reset."""

    info: Dict[str, Any]
    domains: Dict[str, int]
    default_domain: Optional[str]
    _layout: Dict[str, tuple]
    _domain_index: Dict[str, int]
    _ram_area: np.ndarray
    _audio_area: np.ndarray
    _map: Any
    _kept_state: Optional[Snapshot]
    _kept_bytes: Optional[bytes]

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
