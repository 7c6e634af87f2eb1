"""The trainer's side of the batch door in C (Sources/RetroluaBatch, built by `swift build` as
libRetroluaBatch.so beside the binary; the wheel carries it beside its own): posting a batch, waiting for
the lanes and reading the replies and the `info()` objects into arrays in one call each (a whole step of
every lane, the actions' masks to the observations' copies, in one: rb_step), where Python
would take numpy calls and a loop per environment. `library()` is the one place the choice is made:
None (the Python path in retrolua._lanes, with the same results) when the library is not found, not the
version this module was written for, or RETROLUA_NATIVE=0."""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import List, Optional

VERSION = 3
NAME = "libRetroluaBatch.so"

_p, _i32, _i64, _f64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_double


class Batch(ctypes.Structure):
    """rb_batch (Sources/RetroluaBatch/include/retrolua_batch.h): a whole batch step's arguments and outputs,
    filled once by retrolua._lanes; rb_step reads and writes it. The two copies' fields are flat here."""

    _fields_ = [("base", _p), ("stride", _i64), ("n", _i32), ("action_kind", _i32), ("actions", _p), ("table", _p),
                ("table_size", _i64), ("header", _p), ("foreign", _p), ("spin", _i32), ("mean_ns", _f64),
                ("spin_ns", _i64), ("started_ns", _i64), ("timeout_ns", _i64), ("steps", _p), ("max_steps", _i64),
                ("rewards", _p), ("terminated", _p), ("truncated", _p), ("frames", _p), ("lags", _p),
                ("lengths", _p), ("sizes", _p), ("expected_height", _i64), ("expected_width", _i64),
                ("keys", ctypes.c_char_p),
                ("nkeys", _i32), ("ints", _p), ("reals", _p), ("kinds", _p), ("range", _p), ("copies", _i32)]
    _fields_ += [(name + str(kind), kind_type) for kind in range(2) for name, kind_type in
                 (("out", _p), ("offset", _i64), ("pitch", _i64), ("rows", _i64), ("row_bytes", _i64))]
    _fields_ += [(name, _i32) for name in ("refused", "failed", "infos_read", "sized", "posted", "post_only")]


_loaded: Optional[ctypes.CDLL] = None
_tried = False


def candidates() -> List[Path]:
    """Where the library may be: $RETROLUA_BATCH_LIBRARY, this wheel's bundle (_bundle/lib), beside the
    binary that launches (a SwiftPM build folder holds both), and its ../lib (an installed prefix)."""
    from ._binary import BUNDLED, find_binary

    places = []
    if os.environ.get("RETROLUA_BATCH_LIBRARY"):
        places.append(Path(os.environ["RETROLUA_BATCH_LIBRARY"]))
    places.append(BUNDLED.parent.parent / "lib" / NAME)  # the wheel's (scripts/install's PREFIX/lib)
    try:
        binary = Path(find_binary()).resolve()
        places += [binary.parent / NAME, binary.parent.parent / "lib" / NAME]
    except Exception:  # no binary found: the launch will say so
        pass
    return places


def _load() -> Optional[ctypes.CDLL]:
    for path in candidates():
        if not path.is_file():
            continue
        try:
            lib = ctypes.CDLL(str(path))
        except OSError:
            continue
        if lib.rb_version() != VERSION:
            continue
        pointer, i32, i64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64
        lib.rb_post.argtypes = [pointer, i64, pointer, i32, pointer, pointer, pointer]
        lib.rb_post.restype = None
        lib.rb_wait.argtypes = [pointer, i64, pointer, i32, i32, i64, i64, pointer]
        lib.rb_wait.restype = i32
        lib.rb_collect.argtypes = [pointer, i64, pointer, i32] + [pointer] * 4 + [i64] + [pointer] * 3
        lib.rb_collect.restype = i32
        lib.rb_infos.argtypes = [pointer, i64, pointer, i32, ctypes.c_char_p, i32, pointer, pointer, pointer, pointer]
        lib.rb_infos.restype = i32
        lib.rb_step.argtypes = [pointer]
        lib.rb_step.restype = i32
        return lib
    return None


def library() -> Optional[ctypes.CDLL]:
    """The loaded library, or None: the Python path (RETROLUA_NATIVE=0 asks for it)."""
    global _loaded, _tried
    if os.environ.get("RETROLUA_NATIVE", "1") == "0":
        return None
    if not _tried:
        _loaded, _tried = _load(), True
    return _loaded
