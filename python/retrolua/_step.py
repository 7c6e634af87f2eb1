"""A whole batch step of every lane in one call to C (rb_step in Sources/RetroluaBatch): the actions checked and
turned into button masks there, posted, waited for, and the rewards, ends, counters, infos and observations read
into arrays made once, so that a vector env's ordinary step is one foreign call and a few copies in Python.
What `retrolua.vector` uses while no env is due a reset; anything else goes through retrolua._lanes."""

from __future__ import annotations

import ctypes
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from . import _native
from ._batch import HEADER
from ._infos import Columns, _numeric_keys, _typed_columns, columns_of, full_infos
from .actions import check_actions

#: rb_step's answers: the wait passed its timeout (the emulators are looked at), an action was refused.
_TIMED_OUT, _REFUSED = -1, -2
#: A whole step's results: rewards, terminations, truncations, the batched info, whether the observations were copied.
Stepped = Tuple[np.ndarray, np.ndarray, np.ndarray, Dict[str, Any], bool]


class WholeStep:
    """rb_step over every lane of `stepper` (a retrolua._lanes.LaneStepper with the C library)."""

    def __init__(self, stepper: Any) -> None:
        self.stepper = stepper
        region, first, count = stepper.region, stepper.envs[0], stepper.region.count
        batch = self.batch = _native.Batch()
        batch.base, batch.stride, batch.n, batch.timeout_ns = region.address, region.stride, count, 100_000_000
        batch.header, batch.foreign, batch.spin = stepper._template_at, stepper._foreign_at, int(stepper._spin)
        batch.steps, batch.max_steps = stepper._steps_at, first.max_steps
        self._rewards, self._frames, self._lags = np.zeros(count), np.zeros(count, np.int64), np.zeros(count, np.int64)
        self._terminated, self._truncated = np.zeros(count, bool), np.zeros(count, bool)
        self._lengths, self._sizes = np.zeros(count, np.int64), np.zeros((count, 2), np.int64)
        for field in ("rewards", "terminated", "truncated", "frames", "lags", "lengths", "sizes"):
            setattr(batch, field, _at(getattr(self, "_" + field)))
        self._space, self._everyone = first.action_space, np.ones(count, dtype=bool)
        self._shape = (count,) + tuple(self._space.shape)
        if first._masks is not None:  # Discrete: indices into the env's masks, checked in C
            self._table, self._actions, self._casting = first._masks, np.zeros(count, np.int64), "same_kind"
            batch.action_kind, batch.table_size = 1, len(first._masks)
        elif first._kind is None and self._shape == (count, len(first._bits)):  # MultiBinary: a bit per column
            self._table, self._actions, self._casting = first._bits, np.zeros(self._shape, bool), "unsafe"
            batch.action_kind, batch.table_size = 2, len(first._bits)
        else:  # stable-retro's kinds: the env's masks, made in Python
            self._table, self._actions, self._casting = np.zeros(1, np.uint16), np.zeros(count, np.uint16), ""
        batch.table, batch.actions = _at(self._table), _at(self._actions)
        self._learn()
        self._targets: Optional[Tuple[Tuple[str, str], ...]] = None
        self._call, self._address = stepper.native.rb_step, ctypes.addressof(batch)
        self.count = 0  # the steps read: how a test knows this path ran

    def _learn(self) -> None:
        """The info() keys the stepper knows (rb_infos reads them; none: Python parses), with room for them."""
        keys, batch, count = self.stepper._keys, self.batch, self.batch.n
        self._known, self._blob = keys, self.stepper._key_blob
        batch.nkeys = -1 if keys is None else len(keys)
        batch.keys = self._blob
        width = max(len(keys or ()), 1)
        self._ints, self._reals = np.zeros((width, count), np.int64), np.zeros((width, count))
        self._kinds, self._range = np.zeros((width, count), np.uint8), np.zeros(2 * width, np.uint8)
        batch.ints, batch.reals, batch.kinds, batch.range = (_at(self._ints), _at(self._reals), _at(self._kinds),
                                                             _at(self._range))

    def _copies(self) -> Tuple[Tuple[str, str], ...]:
        """Each observation kind's copy out of the lanes (its view over the region as rows of bytes), once."""
        stepper, batch = self.stepper, self.batch
        stepper.observations(None, None)  # the views and the expected screen size
        if stepper._expected is not None:
            batch.expected_height, batch.expected_width = (int(size) for size in stepper._expected)
        targets = []
        for kind, view in stepper._views_cache.items():
            inner, shape = view.strides[1:], view.shape[1:]
            contiguous = tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
            if inner == contiguous:
                rows, pitch, row_bytes = 1, 0, int(np.prod(shape))
            elif len(shape) == 3 and inner[1:] == (3, 1):  # a cropped screen: its rows, a whole row apart
                rows, pitch, row_bytes = shape[0], inner[0], shape[1] * 3
            else:
                return ()
            offset = view.__array_interface__["data"][0] - stepper.region.address - HEADER
            slot = str(len(targets))
            for name, value in (("offset", offset), ("pitch", pitch), ("rows", rows), ("row_bytes", row_bytes)):
                setattr(batch, name + slot, value)
            targets.append(("out" + slot, kind))
        return tuple(targets)

    def step(self, actions: Any, out: Any, check: Callable[[int], None]) -> Optional[Stepped]:
        """Every lane's step with `actions` (one row each), the observations into `out` (None: left in the
        lanes; `check(index)` looks at an emulator slow to answer), in one call: `finish`'s results, or None
        for actions this path does not take (see `post`: nothing was posted)."""
        if not self._prepare(actions):
            return None
        self._outputs(out)
        code = self._call(self._address)
        return None if code == _REFUSED else self._results(code, check)

    def post(self, actions: Any) -> bool:
        """Posts every lane's step with `actions` (one row each) and starts them; False (nothing posted)
        for actions this path does not take: no array of the batch's shape, numbers of another kind, or
        refused (the caller's path checks them and says what is wrong)."""
        if not self._prepare(actions):
            return False
        self.batch.post_only = 1
        code = self._call(self._address)
        self.batch.post_only = 0
        return code != _REFUSED

    @property
    def pending(self) -> bool:
        """Whether `post` posted steps that `finish` has not read."""
        return bool(self.batch.posted)

    def drop(self) -> None:
        """Forgets the posted steps (their replies were waited for and dropped elsewhere)."""
        self.batch.posted = 0

    def finish(self, out: Any, check: Callable[[int], None]) -> Stepped:
        """Waits for the posted steps (`check(index)` looks at an emulator slow to answer), the observations
        into `out` (None: left in the lanes): (rewards, terminations, truncations, Gymnasium's batched
        info, whether `out` holds the observations)."""
        self._outputs(out)
        return self._results(self._call(self._address), check)

    def _prepare(self, actions: Any) -> bool:
        """The actions into the array rb_step reads (False: not taken here), the keys and copies it needs."""
        if type(actions) is not np.ndarray or actions.shape != self._shape:
            return False
        stepper = self.stepper
        if self._casting:
            try:
                np.copyto(self._actions, actions, casting=self._casting)
            except TypeError:
                return False
        else:
            check_actions(self._space, actions, range(self.batch.n))
            np.copyto(self._actions, stepper.masks(actions, stepper._all))
        if self._known is not stepper._keys:
            self._learn()
        if self._targets is None:
            self._targets = self._copies()
        return True

    def _outputs(self, out: Any) -> None:
        batch = self.batch
        if out is not None:
            for field, kind in self._targets or ():
                setattr(batch, field, _at(out[kind] if type(out) is dict else out))
        batch.copies = len(self._targets or ()) if out is not None else 0

    def _results(self, code: int, check: Callable[[int], None]) -> Stepped:
        batch, stepper = self.batch, self.stepper
        while code == _TIMED_OUT:
            try:
                for lane in np.flatnonzero(stepper.region.done != stepper.region.requests).tolist():
                    check(lane)
            except BaseException:
                batch.posted = 0  # the steps are dropped with the emulator that failed
                raise
            code = self._call(self._address)
        if batch.failed >= 0:
            stepper._fail(stepper._all, batch.failed, int(self._lengths[batch.failed]))
        self.count += 1
        terminations = self._terminated.copy()
        if stepper._fresh:
            stepper.count_fresh(stepper._all, terminations)
        stepper._sizes = self._sizes
        info = full_infos(self._columns(), self._frames.copy(), self._lags.copy(), self._everyone)
        return self._rewards.copy(), terminations, self._truncated.copy(), info, bool(batch.copies and batch.sized)

    def _columns(self) -> Columns:
        """The info() columns: read by rb_step while every lane reports the keys learnt, else parsed here."""
        stepper, batch = self.stepper, self.batch
        if batch.infos_read:
            width = batch.nkeys
            return _typed_columns(stepper._keys, self._ints[:width].copy(), self._reals[:width].copy(),
                                  self._kinds[:width], self._range[:2 * width].tolist())
        infos = stepper._parse(stepper._all, self._lengths.tolist())
        stepper.learn_keys(_numeric_keys(infos))
        return columns_of(infos)


def _at(array: np.ndarray) -> int:
    """A contiguous writable array's first byte (retrolua._lanes' `_at`)."""
    return ctypes.addressof(ctypes.c_char.from_buffer(array)) if array.nbytes else 0
