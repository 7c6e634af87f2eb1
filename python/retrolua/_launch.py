"""Starting a private `retrolua run --headless --control unix:…` and cleaning up after it.

The child is started with `--die-with-parent` (it ends once this process is gone, even after a
kill -9 and with its core stuck in a frame), in a session of its own (the terminal's Ctrl-C is
Python's, not the emulator's) and, unless kept alive, `--exit-on-disconnect`. Its socket lives in a private temporary
folder that is removed as soon as the connection is made (nothing is left on disk if this process
dies), and its stderr goes to an unnamed temporary file (never a pipe that could fill up), read back
for error messages.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from typing import IO, Mapping, Optional, Sequence

from ._binary import find_binary, launch_environment
from .errors import RetroluaError


MALLOC_TUNABLES = "glibc.malloc.mmap_threshold=67108864:glibc.malloc.trim_threshold=268435456"


class Launched:
    """A started emulator process: its socket path (until connected), folder and stderr (None: not kept)."""

    def __init__(self, process: subprocess.Popen, folder: Optional[str], stderr: Optional[IO[bytes]]) -> None:
        self.process = process
        self.folder = folder
        self.stderr = stderr
        self.path = os.path.join(folder, "control.sock") if folder else ""

    def stderr_tail(self, limit: int = 4000) -> str:
        """The last `limit` characters the emulator wrote on stderr."""
        if self.stderr is None:
            return ""
        try:
            self.stderr.seek(0)
            return self.stderr.read().decode(errors="replace").strip()[-limit:]
        except (OSError, ValueError):
            return ""

    def remove_folder(self) -> None:
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


def launch(
    rom: Optional[str],
    core: Optional[str] = None,
    *,
    scenario: Optional[str] = None,
    scripts: Sequence[str] = (),
    binary: Optional[str] = None,
    args: Sequence[str] = (),
    env: Optional[Mapping[str, str]] = None,
    keep_alive: bool = False,
    timeout: float = 30.0,
) -> "tuple[Launched, socket.socket]":
    """Starts the emulator and returns it with a connected socket (raises RetroluaError with the
    emulator's own message when it does not start). `keep_alive`: it outlives a disconnect and its
    socket's folder is kept (`Launched.folder`, removed by `stop`) for other clients. The one launcher
    of the package: `retrolua.Emulator` and `retrolua.control.Retrolua.launch` both start here."""
    executable = find_binary(binary)
    folder = tempfile.mkdtemp(prefix="retrolua-emu-")
    stderr = tempfile.TemporaryFile()
    command = [executable, "run"] + ([os.fspath(rom)] if rom else []) + ["--headless", "--quiet"]
    command += ["--control", "unix:" + os.path.join(folder, "control.sock"), "--die-with-parent"]
    if not keep_alive:
        command.append("--exit-on-disconnect")
    if core:
        command += ["--core", os.fspath(core)]
    if scenario:
        command += ["--scenario", os.fspath(scenario)]
    for script in scripts:
        command += ["--script", os.fspath(script)]
    command += list(args)
    environment = launch_environment(env)
    # States of a megabyte are allocated per save and load (the core's rollback copy too): glibc
    # would hand them back to the kernel and fault them in again, costing more than the core's work.
    environment.setdefault("GLIBC_TUNABLES", MALLOC_TUNABLES)
    # --die-with-parent watches this process (the kernel signals the child when it dies, even with a
    # core stuck in a frame); naming it lets the child notice a death before it armed the watch.
    environment["RETROLUA_PARENT_PID"] = str(os.getpid())
    try:
        # A session of its own: the terminal's Ctrl-C interrupts Python, not the emulator's call.
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
            env=environment, close_fds=True, start_new_session=True)
    except OSError as error:
        stderr.close()
        shutil.rmtree(folder, ignore_errors=True)
        raise RetroluaError("cannot start %s: %s" % (executable, error)) from error
    launched = Launched(process, folder, stderr)
    try:
        sock = _connect_when_listening(launched, time.monotonic() + timeout)
    except BaseException:
        stop(launched, None)
        raise
    if not keep_alive:
        launched.remove_folder()  # connected: the path is no longer needed, and nothing outlives us
    return launched, sock


def _connect_when_listening(launched: Launched, deadline: float) -> socket.socket:
    while True:
        if launched.process.poll() is not None:
            raise RetroluaError("retrolua exited (status %d): %s" % (launched.process.returncode, launched.stderr_tail()))
        if os.path.exists(launched.path):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(launched.path)
                return sock
            except (ConnectionRefusedError, FileNotFoundError):
                sock.close()  # the file appears just before the socket listens
        if time.monotonic() > deadline:
            raise RetroluaError("retrolua did not open its control socket in time: " + launched.stderr_tail())
        time.sleep(0.005)


def stop(launched: Launched, sock: Optional[socket.socket], wait: float = 10.0) -> None:
    """Closes the connection, waits for the emulator to end (it ends when its last client leaves),
    else terminates, then kills it; removes its folder and closes its stderr. Safe to call twice."""
    if sock is not None:
        try:
            sock.close()
        except OSError:
            pass
    process = launched.process
    if process.poll() is None:
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    launched.remove_folder()
    if launched.stderr is not None:
        try:
            launched.stderr.close()
        except OSError:
            pass
