"""The wire under `retrolua.Emulator`: requests sent on the control socket's binary door (or a batch lane),
replies read back with their deadlines, Ctrl-C kept from leaving the connection out of step, and the
emulator's lifetime. `Emulator` builds its commands on this class."""

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
from typing import Any, Dict, List, Optional, Union

from . import _batch
from . import _protocol as wire
from ._launch import Launched, stop
from .errors import RetroluaError


class Wire:
    """The connection to one emulator process: its socket, its reply bookkeeping and its lifetime."""

    _sock: socket.socket
    _launched: Optional[Launched]
    _finalizer: weakref.finalize
    _call_timeout: Optional[float]
    _unread: int
    _got: int
    _message_left: int
    _waiting: "tuple[str, Optional[float], float]"
    _failure: Optional[str]
    _forget_later: List[int]
    _batch: Optional[_batch.BatchRegion]
    _lane: int
    _lane_unread: bool
    _lane_message: int
    _request: bytearray
    _reply: bytearray
    _reply_view: memoryview
    spin: float
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


_NAMES = {wire.STEP: "step", wire.SCREEN: "screen", wire.READ: "read", wire.WRITE: "write",
          wire.SAVE_STATE: "save_state", wire.LOAD_STATE: "load_state", wire.AUDIO: "audio", wire.RESET: "reset",
          wire.QUIT: "quit", wire.SNAPSHOT: "snapshot", wire.RESTORE: "restore", wire.FORGET: "forget",
          wire.MOVIE: "movie", wire.PREPROCESS: "preprocess", wire.BATCH: "batch"}

def _unsigned(value: int, name: str) -> int:
    value = int(value)
    if not 0 <= value < 1 << 63:
        raise ValueError("%s must be 0…2^63-1, got %d" % (name, value))
    return value


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
