"""The wire's fixed layouts, each spelled once as a field list (name, struct code) from which its
`struct.Struct`, its numpy dtype and every field's offset and size come. The other spellings are
Sources/Control/ControlBinaryLayout.swift (the host) and Sources/RetroluaBatch/retrolua_batch.c (the
trainer's side in C); Tests/python/test_wire_layouts.py checks all three field by field."""

from __future__ import annotations

import struct
from types import SimpleNamespace
from typing import Optional, Sequence, Tuple

import numpy as np


class Layout:
    """Little-endian fields in order; a field named "" is a gap (a code like "60x") that only moves
    the next one. `size` pads the whole to a fixed size (a page, a lane's control block)."""

    def __init__(self, fields: Sequence[Tuple[str, str]], size: Optional[int] = None) -> None:
        self.struct = struct.Struct("<" + "".join(code for _, code in fields))
        self.fields = tuple((name, code) for name, code in fields if name)
        offsets, sizes, at = {}, {}, 0
        for name, code in fields:
            width = struct.calcsize("<" + code)
            if name:
                offsets[name], sizes[name] = at, width
            at += width
        self.size = at if size is None else size
        if self.size < at:
            raise ValueError("the fields take %d bytes, more than the layout's %d" % (at, self.size))
        #: Each field's offset and size, by name: `LAYOUT.at.reward`, `LAYOUT.width.reward`.
        self.at, self.width = SimpleNamespace(**offsets), SimpleNamespace(**sizes)
        self.offsets, self.sizes = offsets, sizes
        self.dtype = np.dtype({"names": [name for name, _ in self.fields],
                               "formats": [_numpy_format(code) for _, code in self.fields],
                               "offsets": [offsets[name] for name, _ in self.fields], "itemsize": self.size})


def _numpy_format(code: str) -> str:
    """A struct code as numpy's format: "1024s" (bytes) as "V1024", the numbers little-endian."""
    if code.endswith("s"):
        return "V%d" % struct.calcsize(code)
    return "<" + code


#: A binary door request's header, then its payload.
REQUEST = Layout([("command", "I"), ("flags", "I"), ("length", "I"), ("count", "I"), ("a", "Q"), ("b", "Q")])
#: A reply's header, then its message (an error, or after a step the scenario's info() as JSON).
REPLY = Layout([("status", "I"), ("length", "I"), ("frame", "q"), ("frames", "q"), ("lag", "q"), ("done", "q"),
                ("width", "q"), ("height", "q"), ("bytes", "q"), ("reward", "d")])
#: The longest message a reply in a batch lane carries (the info() JSON is cut there).
MAX_INFO = 16384
#: PREPROCESS's payload.
PREPROCESS_OPTIONS = Layout([("frameskip", "I"), ("max_pool", "I"), ("grayscale", "I"), ("width", "I"),
                             ("height", "I"), ("frame_stack", "I"), ("noop_max", "I"), ("sticky_actions", "d"),
                             ("seed", "Q")])
#: The `batch` request's payload: the lane's control block, screen and RAM offsets, its index.
JOIN = Layout([("control", "Q"), ("screen", "Q"), ("ram", "Q"), ("index", "I"), ("padding", "I")])
#: A batch region's first page: the futex words (each on its own cache line) and the ticket counter.
REGION = Layout([("generation", "I"), ("", "60x"), ("completed", "I"), ("", "60x"), ("tickets", "I"), ("", "60x"),
                 ("wake_at", "I")], size=4096)
#: A lane's control block: its sequence words, the request (header and payload) and the reply (header and
#: message); its screen and RAM areas follow it.
LANE = Layout([("request", "I"), ("done", "I"), ("ticket", "I"), ("length", "I"), ("", "48x"),
               ("request_area", "1024s"), ("reply_area", "%ds" % (REPLY.size + MAX_INFO))], size=20480)
