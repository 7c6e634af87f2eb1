"""Steps of many environments at once through their batch lanes (retrolua._batch), with numpy over every
lane instead of Python per environment: the action masks are written into the lanes' request headers as
one array, and rewards, ends, frame counters and observations are read from the replies as strided
views. What the vector envs (`retrolua.vector`, `retrolua.pool`) use for their ordinary steps; resets
and anything unusual go through each environment's own `RetroluaEnv`."""

from __future__ import annotations

import ctypes
import json
import os
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _native
from . import _protocol as wire
from ._infos import Columns, _numeric_keys, _typed_columns, columns_of
from ._batch import HEADER, REPLY_AT, REQUEST_AT, BatchRegion  # noqa: F401
from ._layout import MAX_INFO
from ._layout import REPLY as _REPLY
from .env import RetroluaEnv
from .errors import RetroluaError

#: A reply header (retrolua._protocol.REPLY) as one record: read for every lane in one copy.
REPLY = _REPLY.dtype


class LaneStepper:
    """Ordinary steps (the configured frame skip, one button mask held, or a processed step) of the
    environments in `envs` (all made with the same options), each joined to lane i of `region`. The
    per-batch work runs in C (retrolua._native) where the library is found, else in numpy and Python
    here, with the same results."""

    def __init__(self, region: BatchRegion, envs: Sequence[RetroluaEnv]) -> None:
        self.region, self.envs = region, envs
        first = envs[0]
        count, stride, buffer = region.count, region.stride, region.map
        self._headers = np.ndarray((count, 4), dtype="<u4", buffer=buffer, offset=HEADER + REQUEST_AT,
                                   strides=(stride, 4))
        self._masks = np.ndarray((count,), dtype="<u2", buffer=buffer, offset=HEADER + REQUEST_AT + wire.REQUEST.size,
                                 strides=(stride,))
        self._replies = np.ndarray((count,), dtype=REPLY, buffer=buffer, offset=HEADER + REPLY_AT, strides=(stride,))
        flags, frames = first.step_request()
        # command, flags (one port's mask follows), payload length, frame count; a and b stay 0
        self._template = np.array([wire.STEP, flags | 1 << 8, 2, frames], dtype="<u4")
        self.processed = first.processed
        self._views_cache: Optional[Dict[str, np.ndarray]] = None
        self._parsed: Dict[int, Tuple[bytes, Dict[str, Any]]] = {}  # each lane's last info(): text, value
        self._expected: Optional[np.ndarray] = None
        self._sizes = np.zeros((0, 2), dtype=np.int64)
        self.usable = not first.sticky  # Python-side stickiness draws per frame and per env: the env's own path
        #: Each lane's steps since its env's reset (the envs' `max_steps` truncates), kept here for every env at once.
        self.steps = np.zeros(count, dtype=np.int64)
        self.max_steps = first.max_steps
        self._fresh: set = set()  # envs reset since their last lane step: told of the step (`count_step`)
        self.native = _native.library()
        self._all = np.arange(count, dtype=np.int64)
        self._ready = np.zeros(count, dtype=np.int64)
        # Spinning only pays where a core is free for it: more cores than emulators (the trainer needs one).
        self._spin = len(os.sched_getaffinity(0)) > count
        self._mean_ns = 0.0  # a batch's mean wait: the spin's bound
        self._keys: Optional[List[str]] = None  # the info() keys every lane reports, for rb_infos
        self._key_blob = b""
        self._cells = (np.zeros(0, dtype=np.uint8), np.zeros(0, dtype=np.uint8))  # rb_infos' kinds and ranges
        self._cell_at = (0, 0)
        # The addresses of the arrays every call passes, once (they live as long as the stepper).
        self._all_at, self._ready_at, self._steps_at = _at(self._all), _at(self._ready), _at(self.steps)
        self._template_at, self._foreign_at = _at(self._template), _at(region.foreign)
        #: Every lane's step in one call to C (retrolua._step), made at its first use.
        self._whole: Optional[Any] = None

    @property
    def whole(self) -> Optional[Any]:
        """The step of every lane in one call to C (a retrolua._step.WholeStep), or None on the Python path."""
        if self._whole is None and self.native is not None:
            from ._step import WholeStep

            self._whole = WholeStep(self)
        return self._whole

    def masks(self, actions: Any, indices: Sequence[int]) -> np.ndarray:
        """The RetroPad masks of `actions` (one per index), as the envs' `_mask` makes them."""
        if not len(indices):
            return np.zeros(0, dtype=np.uint16)
        return self.envs[int(indices[0])].masks(actions)  # the envs share their options: any one says

    def reset(self, index: int, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
              ) -> Tuple[Any, Dict[str, Any]]:
        """Env `index`'s reset (its own path), its step count back to 0."""
        result = self.envs[index].reset(seed=seed, options=options)
        self.steps[index] = 0
        self._fresh.add(index)
        return result

    def post(self, indices: Optional[np.ndarray], masks: np.ndarray) -> None:
        """Writes a step for each of `indices` (None: every lane) into its lane and starts them (the C
        path at once; the Python path at the region's next wake)."""
        region = self.region
        if self.native is not None:
            if indices is None:
                lanes, lanes_at = self._all, self._all_at
            else:
                lanes = np.array(indices, dtype=np.int64)
                lanes_at = _at(lanes)
            masks = np.array(masks, dtype=np.uint16)
            self.native.rb_post(region.address, region.stride, lanes_at, len(lanes), _at(masks),
                                self._template_at, self._foreign_at)
            return
        lanes = slice(None) if indices is None else indices
        # A lane's header stays from one step to the next, unless the env's own path posted another request.
        if region.foreign.any():
            stale = np.flatnonzero(region.foreign)
            self._headers[stale] = self._template
            region.lengths[stale] = 34
            region.foreign[stale] = False
        self._masks[lanes] = masks
        region.requests[lanes] += np.uint32(1)  # wraps at 2³² as the emulator's counter does
        region.mark_posted()

    def wait(self, lanes: Any, check: Any, enough: int = -1, ordered: bool = True) -> Optional[np.ndarray]:
        """`BatchRegion.wait` (the C path: a short spin first where a core is free, then the futex): the
        answered lanes of `lanes`, in the order they were finished (None without `ordered`)."""
        if self.native is None:
            finished = self.region.wait(lanes, check, enough)
            return np.asarray(finished, dtype=np.intp) if ordered else None
        region = self.region
        region.wake()  # requests the envs' own paths wrote into lanes
        if lanes is not self._all:
            lanes = np.array(lanes, dtype=np.int64)
        lanes_at = self._all_at if lanes is self._all else _at(lanes)
        need = len(lanes) if enough < 0 else min(enough, len(lanes))
        spin = int(min(self._mean_ns, 2e6)) if self._spin else 0
        started = time.perf_counter_ns() if self._spin else 0
        while True:
            got = self.native.rb_wait(region.address, region.stride, lanes_at, len(lanes), need, spin,
                                      100_000_000, self._ready_at if ordered else 0)
            if got >= 0:
                break
            spin = 0
            unanswered = region.done[lanes] != region.requests[lanes]
            for lane in lanes[unanswered]:
                check(int(lane))
        if self._spin:  # the spin's bound: the mean wait of the last batches
            self._mean_ns += (time.perf_counter_ns() - started - self._mean_ns) / 8
        return self._ready[:got].astype(np.intp) if ordered else None

    def collect(self, indices: Optional[np.ndarray], check: Any
                ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Columns]:
        """Waits for the steps of `indices` (None: every lane); (rewards, terminations, truncations,
        frame and lag counters as (n, 2), the info() columns). A failed step raises (`check`'s error
        for an emulator that is gone)."""
        lanes = self._all if indices is None else np.array(indices, dtype=np.int64)
        self.wait(lanes, check, ordered=False)
        count = len(lanes)
        if self.native is not None:
            region = self.region
            rewards, terminations = np.empty(count), np.empty(count, dtype=bool)
            truncations, counters = np.empty(count, dtype=bool), np.empty((count, 2), dtype=np.int64)
            sizes, lengths = np.empty((count, 2), dtype=np.int64), np.empty(count, dtype=np.int64)
            failed = self.native.rb_collect(region.address, region.stride,
                                            self._all_at if indices is None else _at(lanes), count, _at(rewards),
                                            _at(terminations), _at(truncations), self._steps_at, self.max_steps,
                                            _at(counters), _at(sizes), _at(lengths))
            if failed >= 0:
                self._fail(lanes, failed, int(lengths[failed]))
            self._sizes = sizes
            columns = self._native_columns(lanes, lengths)
        else:
            replies = self._replies[lanes]  # a copy: the lanes are rewritten by the next step
            if replies["status"].any():
                row = int(np.flatnonzero(replies["status"])[0])
                self._fail(lanes, row, int(replies["length"][row]))
            rewards, terminations = replies["reward"], replies["done"] != 0
            self.steps[lanes] += 1
            truncations = ~terminations & (self.steps[lanes] >= self.max_steps)
            self._sizes = np.stack((replies["height"], replies["width"]), axis=1)
            counters = np.stack((replies["frame"], replies["lag"]), axis=1)
            columns = columns_of(self._parse(lanes, replies["length"].tolist()))
        if self._fresh:
            self.count_fresh(lanes, terminations)
        return rewards, terminations, truncations, counters, columns

    def count_fresh(self, lanes: np.ndarray, terminations: np.ndarray) -> None:
        """The envs of `lanes` reset since their last lane step are told of this one (their first from the start)."""
        for row in np.flatnonzero(np.isin(lanes, list(self._fresh))):
            index = int(lanes[row])
            self.envs[index].count_step(bool(terminations[row]))
            self._fresh.discard(index)

    def _fail(self, lanes: np.ndarray, row: int, length: int) -> None:
        index = int(lanes[row])
        at = self.region.lane(index) + REPLY_AT + _REPLY.size
        message = bytes(self.region.map[at:at + min(length, MAX_INFO)]).decode(errors="replace")
        raise EnvironmentFailed(index, RetroluaError(message))

    def _parse(self, lanes: np.ndarray, lengths: List[int]) -> List[Dict[str, Any]]:
        """Each lane's info() as a dict (an info() that did not change is not parsed again)."""
        infos: List[Dict[str, Any]] = []
        region_map, lane, parsed = self.region.map, self.region.lane, self._parsed
        for index, length in zip(lanes.tolist(), lengths):
            if length:
                at = lane(index) + REPLY_AT + _REPLY.size
                text = region_map[at:at + min(length, MAX_INFO)]
                known = parsed.get(index)
                if known is None or known[0] != text:
                    known = parsed[index] = (text, json.loads(text))
                infos.append(dict(known[1]))
            else:
                infos.append({})
        return infos

    def _native_columns(self, lanes: np.ndarray, lengths: np.ndarray) -> Columns:
        """The info() columns read by rb_infos while every lane reports the same numeric keys; else
        parsed here (and the keys learnt for the next batch when they are such)."""
        count = len(lanes)
        if self._keys is not None:
            width = len(self._keys)
            if self._cells[0].size < width * count or self._cells[1].size < 2 * width:
                self._cells = (np.zeros(width * count, dtype=np.uint8), np.zeros(2 * width, dtype=np.uint8))
                self._cell_at = (_at(self._cells[0]), _at(self._cells[1]))
            # Fresh each batch: the columns handed out are rows of these.
            ints, reals = np.empty((width, count), dtype=np.int64), np.empty((width, count))
            region = self.region
            if self.native.rb_infos(region.address, region.stride, self._all_at if lanes is self._all else _at(lanes),
                                    count, self._key_blob, width, _at(ints), _at(reals), *self._cell_at) < 0:
                kinds = self._cells[0][:width * count].reshape(width, count)
                return _typed_columns(self._keys, ints, reals, kinds, self._cells[1].tolist())
        infos = self._parse(lanes, lengths.tolist())
        self.learn_keys(_numeric_keys(infos))
        return columns_of(infos)

    def learn_keys(self, keys: Optional[List[str]]) -> None:
        """The info() keys every lane reports (None: not such that C reads them), for the next batches."""
        self._keys = keys
        self._key_blob = b"".join(key.encode() + b"\0" for key in keys or [])

    def _views(self) -> Dict[str, np.ndarray]:
        """Every lane's observation in place, by kind ("screen", "ram"), as strided arrays over the
        region; the screen cut as the envs cut it."""
        first, region = self.envs[0], self.region
        space = first.observation_space
        spaces = dict(space.spaces) if first.obs_type == "both" else {first.obs_type: space}
        views = {}
        for kind, box in spaces.items():
            at = region.screen_at(0) if kind == "screen" else region.ram_at(0)
            if kind == "screen" and not first.processed:
                rows, columns = first.crop_slices
                height, width = first.emu.last_screen().shape[:2]
                whole = np.ndarray((region.count, height, width, 3), dtype=np.uint8, buffer=region.map, offset=at,
                                   strides=(region.stride, width * 3, 3, 1))
                views[kind] = whole[:, rows, columns]
            else:
                shape = tuple(box.shape)
                inner = tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
                views[kind] = np.ndarray((region.count,) + shape, dtype=np.uint8, buffer=region.map, offset=at,
                                         strides=(region.stride,) + inner)
        return views

    def in_place(self) -> Any:
        """Every lane's observation where its emulator wrote it, as one batch of strided views (a dict of
        them for "both"), no copy: valid until the next step; None when the last step's screens are not
        the size the views were made for."""
        if self._views_cache is None:
            self.observations(None, None)
        if self._expected is not None and (self._sizes != self._expected).any():
            return None
        views = self._views_cache
        assert views is not None
        return views if self.envs[0].obs_type == "both" else next(iter(views.values()))

    def observations(self, indices: Optional[np.ndarray], out: Any) -> None:
        """Copies the observations of `indices` (None: every lane) into `out` (a batch of as many rows,
        or a dict of them), straight from the lanes: one copy each. The last `collect` told each frame's
        size: a screen that changed size goes through the envs' own path (which says what is wrong)."""
        if self._views_cache is None:
            self._views_cache, self._expected = self._views(), None
            first = self.envs[0]
            if first.obs_type != "ram" and not self.processed:
                self._expected = np.array(first.emu.last_screen().shape[:2])
        if out is None:
            return
        if self._expected is not None and (self._sizes != self._expected).any():
            for row, index in enumerate(range(self.region.count) if indices is None else indices.tolist()):
                self.envs[index].store_observation(out, row)
            return
        for kind, view in self._views_cache.items():
            target = out[kind] if isinstance(out, dict) else out
            if indices is None:
                np.copyto(target, view)
            else:
                np.take(view, indices, axis=0, out=target)


def _at(array: np.ndarray) -> int:
    """A contiguous writable array's first byte, for retrolua._native's calls (a ctypes view of its buffer:
    a tenth of the time `__array_interface__` takes)."""
    return ctypes.addressof(ctypes.c_char.from_buffer(array)) if array.nbytes else 0


class EnvironmentFailed(RetroluaError):
    """A sub-environment failed (its emulator exited: a core that crashed; or it stopped answering):
    `index` says which; `restart(index)` puts a new one in its place."""

    def __init__(self, index: int, error: RetroluaError) -> None:
        super().__init__("environment %d: %s" % (index, error))
        self.index = index


def join(envs: List[RetroluaEnv]) -> BatchRegion:
    """One batch region for every env's emulator (see retrolua._batch); the envs' emulators join it."""
    capacities = [env.emu.capacities for env in envs]
    region = BatchRegion(len(envs), max(room["screen"] for room in capacities), max(room["ram"] for room in capacities))
    try:
        for index, env in enumerate(envs):
            env.emu.join_batch(region, index)
    except BaseException:
        region.close()
        raise
    return region
