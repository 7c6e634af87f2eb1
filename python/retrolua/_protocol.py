"""The binary door's framing (Sources/Control/ControlBinaryProtocol.swift is the other side).

After `{"cmd": "binary"}` on a Unix control socket the host answers one JSON line carrying a shared
memory descriptor (SCM_RIGHTS) and the layout of that memory; from then on every request is a
32-byte little-endian header (command, flags, payload length, count: u32; a, b: u64) and a payload,
and every reply a 72-byte header (status, message length: u32; frame, frames, lag, done, width,
height, length: i64; reward: f64), followed by the error message when status is not 0.
"""

from . import _layout

#: The headers as structs (their fields, offsets and dtypes: retrolua._layout, where they are spelled).
REQUEST = _layout.REQUEST.struct
REPLY = _layout.REPLY.struct

(STEP, SCREEN, READ, WRITE, SAVE_STATE, LOAD_STATE, AUDIO, RESET, QUIT, SNAPSHOT, RESTORE, FORGET, MOVIE,
 PREPROCESS, BATCH) = range(1, 16)
STEP_SCREEN = 1
STEP_RAM = 2
STEP_PROCESSED = 4  # after PREPROCESS: the frame skip with sticky actions, the observation in the screen area
STEP_EPISODE = 8  # with STEP_PROCESSED: an episode's start (no-op frames, the stack filled)
STEP_SEED = 0x1000  # with STEP_PROCESSED: reseed the generator with `a` first
#: PREPROCESS's payload: frameskip, max_pool, grayscale, width, height (0, 0: no resize), frame_stack,
#: noop_max (u32), sticky_actions (f64), seed (u64).
PREPROCESS_OPTIONS = _layout.PREPROCESS_OPTIONS.struct
SAVE_KEEP = 1  # save_state: also keep it as snapshot `a` (0: a new one)
MOVIE_RECORD, MOVIE_STOP = 1, 2  # movie: record from now to the payload's path / stop
