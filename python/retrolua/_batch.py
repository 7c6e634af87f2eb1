"""The batch door's shared memory (Sources/Control/ControlBatchLane.swift is the other side).

A vector environment makes one memory file for all its emulators, sealed at its size, and passes it to
each with a `batch` request naming that emulator's lane. From then on a step is written into the lane
(request header and payload) instead of the socket; one bump of the `generation` word and one futex
wake start every emulator whose lane holds a request, and each writes its reply and observation into
its lane, bumps `completed` and wakes the trainer. A batch step costs the trainer one wake and one
wait whatever the number of emulators, and the observations are read where the emulators wrote them.

Layout (retrolua._layout's REGION and LANE): page 0 holds `generation` (u32 at 0), `completed` (u32 at
64), the ticket counter (u32 at 128) and `wake at` (u32 at 192: emulators wake the trainer only once
`completed` reaches it); lane i starts at 4096 + i * stride with its control block (`request`, `done`,
ticket, request length: u32 at 0, 4, 8, 12; the request at 64; the reply at 1088), then its screen and
RAM areas.
"""

from __future__ import annotations

import ctypes
import fcntl
import mmap
import os
import platform
import time
from typing import Callable, List, Sequence

import numpy as np

from ._layout import JOIN as _JOIN, LANE, MAX_INFO, REGION, REPLY

HEADER = REGION.size
CONTROL = LANE.size
REQUEST_AT = LANE.at.request_area
MAX_REQUEST = LANE.width.request_area
REPLY_AT = LANE.at.reply_area
#: The `batch` request's payload: the lane's control block, screen and RAM offsets (u64), its index (u32).
JOIN = _JOIN.struct

_FUTEX = {"x86_64": 202, "aarch64": 98}.get(platform.machine())
_FUTEX_WAIT, _FUTEX_WAKE = 0, 1
_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long


class _Timespec(ctypes.Structure):
    _fields_ = [("seconds", ctypes.c_long), ("nanoseconds", ctypes.c_long)]


def _round(value: int, to: int = 4096) -> int:
    return (value + to - 1) // to * to


class BatchRegion:
    """The shared memory of `count` lanes, each with `screen` and `ram` bytes of room (the emulators'
    own areas' capacities, from their handshakes)."""

    def __init__(self, count: int, screen: int, ram: int) -> None:
        if _FUTEX is None:
            raise OSError("the batch door needs futexes (x86_64 or aarch64 Linux)")
        self.count = count
        self.screen_capacity, self.ram_capacity = screen, ram
        self.stride = CONTROL + _round(screen) + _round(ram)
        self.size = HEADER + count * self.stride
        self.fd = os.memfd_create("retrolua-batch", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            os.ftruncate(self.fd, self.size)
            # Sealed at its size: an emulator maps it knowing a write into it can never fault.
            fcntl.fcntl(self.fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
            self.map = mmap.mmap(self.fd, self.size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        except BaseException:
            os.close(self.fd)
            raise
        anchor = ctypes.c_char.from_buffer(self.map)
        self._address = self.address = ctypes.addressof(anchor)  # for retrolua._native's calls
        del anchor  # the address stays valid while the map does; no export pins the map
        words = np.frombuffer(self.map, dtype=np.uint32, count=HEADER // 4)
        self.generation, self.completed, self.wake_at = (words[at // 4:at // 4 + 1] for at in
                                                         (REGION.at.generation, REGION.at.completed, REGION.at.wake_at))
        self.requests = self._column(LANE.at.request)
        self.done = self._column(LANE.at.done)
        self.tickets = self._column(LANE.at.ticket)
        self.lengths = self._column(LANE.at.length)
        #: Lanes whose request area another request overwrote since `retrolua._lanes` wrote its own there.
        self.foreign = np.ones(count, dtype=bool)
        self._timeout = _Timespec(0, 100_000_000)
        self._dirty = False

    def _column(self, at: int) -> np.ndarray:
        """One u32 of every lane's control block, as a strided view."""
        return np.ndarray((self.count,), dtype=np.uint32, buffer=self.map, offset=HEADER + at,
                          strides=(self.stride,))

    def lane(self, index: int) -> int:
        return HEADER + index * self.stride

    def screen_at(self, index: int) -> int:
        return self.lane(index) + CONTROL

    def ram_at(self, index: int) -> int:
        return self.screen_at(index) + _round(self.screen_capacity)

    def join_payload(self, index: int) -> bytes:
        return JOIN.pack(self.lane(index), self.screen_at(index), self.ram_at(index), index, 0)

    def post(self, index: int, request: memoryview) -> None:
        """Writes a request (header and payload) into lane `index`; it starts at the next `wake`."""
        at = self.lane(index)
        self.map[at + REQUEST_AT:at + REQUEST_AT + len(request)] = request
        self.lengths[index] = len(request)
        self.requests[index] = (int(self.requests[index]) + 1) & 0xFFFFFFFF
        self.foreign[index] = True
        self._dirty = True

    def mark_posted(self) -> None:
        """Requests were written into lanes (by `retrolua._lanes`): the next `wake` starts them."""
        self._dirty = True

    def wake(self) -> None:
        """Starts every request posted since the last wake: one word bumped, one system call."""
        if self._dirty:
            self._dirty = False
            self.generation[0] = (int(self.generation[0]) + 1) & 0xFFFFFFFF
            _syscall(_FUTEX, ctypes.c_void_p(self._address), _FUTEX_WAKE, 0x7FFFFFFF, None, None, 0)

    def abandon(self, index: int) -> None:
        """Drops the request left in lane `index` by an emulator that is gone, so that the one joining
        the lane next does not run it (a step that crashed the last one would crash it too)."""
        self.done[index] = self.requests[index]

    def answered(self, index: int) -> bool:
        return bool(self.done[index] == self.requests[index])

    def wait(self, lanes: Sequence[int], check: Callable[[int], None], enough: int = -1) -> List[int]:
        """Waits until `enough` of `lanes` (all, by default) are answered; returns the answered ones in
        the order they were finished. Every 0.1 s of waiting, `check(index)` looks at each unanswered
        lane's emulator (gone, past its deadline: it raises)."""
        self.wake()
        wanted = np.asarray(lanes, dtype=np.intp)
        need = len(wanted) if enough < 0 else min(enough, len(wanted))
        address = ctypes.c_void_p(self._address + REGION.at.completed)
        checked = time.monotonic()
        while True:
            seen = int(self.completed[0])
            finished = self.done[wanted] == self.requests[wanted]
            count = int(finished.sum())
            if count >= need:
                ready = wanted[finished]
                return [int(lane) for lane in ready[np.argsort(self.tickets[ready], kind="stable")]]
            self.wake_at[0] = (seen + need - count) & 0xFFFFFFFF  # woken once, by the last one needed
            _syscall(_FUTEX, address, _FUTEX_WAIT, seen, ctypes.byref(self._timeout), None, 0)
            if time.monotonic() - checked >= 0.1:
                for lane in wanted[~finished]:
                    check(int(lane))
                checked = time.monotonic()

    def reply(self, index: int) -> memoryview:
        """Lane `index`'s reply bytes (header and message), valid until its next request."""
        at = self.lane(index) + REPLY_AT
        return memoryview(self.map)[at:at + REPLY.size + MAX_INFO]

    def close(self) -> None:
        """Lets go of the descriptor (kept until then: a restarted emulator joins with it); the memory
        goes with the last mapping."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
