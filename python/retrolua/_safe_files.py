"""Files of untrusted folders read safely (stable-retro integrations): regular files only, each within a
size limit, inside their folder; gzipped states inflated a piece at a time, refused past a limit."""

import os
import stat
import zlib

from .errors import RetroluaError

#: The largest state `gunzip_state` inflates: past any system's (stable-retro's largest, N64's, are
#: about 17 MB): a gzip bomb stops here instead of filling memory.
MAX_STATE = 64 << 20


def gunzip_state(data: bytes, where: str = "the state", limit: int = MAX_STATE) -> bytes:
    """A state's bytes, gunzipped when they are gzip's (stable-retro's `.state` files are): inflated a
    piece at a time, refused past `limit` bytes (a gzip bomb never fills memory)."""
    data = bytes(data)
    if data[:2] != b"\x1f\x8b":
        if len(data) > limit:
            raise RetroluaError("%s: %d bytes, more than a state can be (%d MiB)" % (where, len(data), limit >> 20))
        return data
    out = bytearray()
    rest = data
    try:
        while rest[:2] == b"\x1f\x8b":  # gzip members one after another, as gzip reads them
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            pending = rest
            while not inflater.eof:
                piece = inflater.decompress(pending, min(limit + 1 - len(out), 1 << 20))
                out += piece
                if len(out) > limit:
                    raise RetroluaError("%s: inflates past %d MiB, more than a state can be (a gzip bomb?)"
                                        % (where, limit >> 20))
                pending = inflater.unconsumed_tail
                if not piece and not pending:
                    raise RetroluaError("%s: a damaged gzip file (it ends early)" % where)
            rest = inflater.unused_data.lstrip(b"\0")  # zero padding after the last member is allowed
    except zlib.error as error:
        raise RetroluaError("%s: a damaged gzip file (%s)" % (where, error)) from None
    if rest:
        raise RetroluaError("%s: a damaged gzip file (%d bytes of something else after it)" % (where, len(rest)))
    return bytes(out)


def read_file(path: str, limit: int, cut: bool = False) -> bytes:
    """The bytes of regular file `path`, at most `limit` of them (RetroluaError past it, or with `cut`
    its first `limit`): a FIFO, a device or a folder is refused without waiting on it. OSError as open
    raises it."""
    if "\0" in path:
        raise RetroluaError("%r: not a file name (a NUL byte)" % path[:200])
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RetroluaError("%s: not a regular file" % path)
        if info.st_size > limit and not cut:
            raise RetroluaError("%s: %d bytes, more than the %d MiB such a file may have"
                                % (path, info.st_size, max(1, limit >> 20)))
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit and cut:
        return data[:limit]
    if len(data) > limit:  # it grew since
        raise RetroluaError("%s: more than the %d MiB such a file may have" % (path, max(1, limit >> 20)))
    return data


def inside_folder(folder: str, name: str, what: str) -> str:
    """`folder`/`name`, refused when it resolves outside `folder` (.., an absolute name, a symlink)."""
    path = os.path.join(folder, name)
    if "\0" in path or not os.path.realpath(path).startswith(os.path.realpath(folder) + os.sep):
        raise RetroluaError("%s: %s is outside the integration's folder" % (folder, what))
    return path
