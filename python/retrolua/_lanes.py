"""Steps of many environments at once through their batch lanes (retrolua._batch), with numpy over every
lane instead of Python per environment: the action masks are written into the lanes' request headers as
one array, and rewards, ends, frame counters and observations are read from the replies as strided
views. What the vector envs (`retrolua.vector`, `retrolua.pool`) use for their ordinary steps; resets
and anything unusual go through each environment's own `RetroluaEnv`."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _protocol as wire
from ._batch import HEADER, REPLY_AT, REQUEST_AT, BatchRegion  # noqa: F401
from .env import RetroluaEnv
from .errors import RetroluaError

#: A reply header (retrolua._protocol.REPLY) as one record: read for every lane in one copy.
REPLY = np.dtype([("status", "<u4"), ("length", "<u4"), ("frame", "<i8"), ("frames", "<i8"), ("lag", "<i8"),
                  ("done", "<i8"), ("width", "<i8"), ("height", "<i8"), ("bytes", "<i8"), ("reward", "<f8")])
assert REPLY.itemsize == wire.REPLY.size


class LaneStepper:
    """Ordinary steps (the configured frame skip, one button mask held, or a processed step) of the
    environments in `envs` (all made with the same options), each joined to lane i of `region`."""

    def __init__(self, region: BatchRegion, envs: Sequence[RetroluaEnv]) -> None:
        self.region, self.envs = region, envs
        first = envs[0]
        count, stride, buffer = region.count, region.stride, region.map
        self._headers = np.ndarray((count, 4), dtype="<u4", buffer=buffer, offset=HEADER + REQUEST_AT,
                                   strides=(stride, 4))
        self._masks = np.ndarray((count,), dtype="<u2", buffer=buffer, offset=HEADER + REQUEST_AT + 32,
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

    def masks(self, actions: Any, indices: Sequence[int]) -> np.ndarray:
        """The RetroPad masks of `actions` (one per index), as the envs' `_mask` makes them."""
        if not len(indices):
            return np.zeros(0, dtype=np.uint16)
        return self.envs[int(indices[0])].masks(actions)  # the envs share their options: any one says

    def post(self, indices: Optional[np.ndarray], masks: np.ndarray) -> None:
        """Writes a step for each of `indices` (None: every lane) into its lane; the region's next
        wake starts them."""
        region, lanes = self.region, slice(None) if indices is None else indices
        # A lane's header stays from one step to the next, unless the env's own path posted another request.
        if region.foreign.any():
            stale = np.flatnonzero(region.foreign)
            self._headers[stale] = self._template
            region.lengths[stale] = 34
            region.foreign[stale] = False
        self._masks[lanes] = masks
        region.requests[lanes] += np.uint32(1)  # wraps at 2³² as the emulator's counter does
        region.mark_posted()

    def collect(self, indices: Optional[np.ndarray], check: Any
                ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, List[dict]]:
        """Waits for the steps of `indices` (None: every lane); (rewards, terminations, truncations,
        frame and lag counters as (n, 2), infos). A failed step raises (`check`'s error for an emulator
        that is gone)."""
        lanes: Any = slice(None) if indices is None else indices
        indices = np.arange(self.region.count) if indices is None else indices
        self.region.wait(indices, check)
        replies = self._replies[lanes].copy()  # the lanes are rewritten by the next step
        lengths = replies["length"].tolist()
        if replies["status"].any():
            row = int(np.flatnonzero(replies["status"])[0])
            index = int(indices[row])
            at = self.region.lane(index) + REPLY_AT + 72
            message = bytes(self.region.map[at:at + min(lengths[row], 16384)]).decode(errors="replace")
            raise EnvironmentFailed(index, RetroluaError(message))
        infos: List[dict] = []
        region_map, lane, parsed = self.region.map, self.region.lane, self._parsed
        for index, length in zip(indices.tolist(), lengths):
            if length:
                at = lane(index) + REPLY_AT + 72
                text = region_map[at:at + length]
                known = parsed.get(index)
                if known is None or known[0] != text:  # an info() that did not change is not parsed again
                    known = parsed[index] = (text, json.loads(text))
                infos.append(dict(known[1]))
            else:
                infos.append({})
        terminations = replies["done"] != 0
        envs = self.envs
        truncations = np.array([envs[index].count_step(ended) for index, ended in
                                zip(indices.tolist(), terminations.tolist())], dtype=bool)
        self._sizes = np.stack((replies["height"], replies["width"]), axis=1)
        counters = np.stack((replies["frame"], replies["lag"]), axis=1)
        return replies["reward"], terminations, truncations, counters, infos

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


def batch_infos(infos: List[Dict[str, Any]], counters: np.ndarray) -> Dict[str, Any]:
    """Gymnasium's batched `info`: each key an array over the envs and `_key` saying which have it;
    `frame` and `lag` for every env."""
    count = len(infos)
    everyone = np.ones(count, dtype=bool)
    batched: Dict[str, Any] = {"frame": counters[:, 0].copy(), "_frame": everyone,
                               "lag": counters[:, 1].copy(), "_lag": everyone.copy()}
    keys = infos[0].keys() if infos else {}.keys()
    whole = set()  # names every env reports as a number: one array each, made at once
    if all(info.keys() == keys for info in infos):
        for key in keys:
            values = np.array([info[key] for info in infos])
            if values.ndim == 1 and values.dtype != object and values.dtype.kind in "biuf":
                batched[key], batched["_" + key] = values, everyone.copy()
                whole.add(key)
    for row, info in enumerate(infos):
        for key, value in info.items():
            if key in whole:
                continue
            if key not in batched:
                sample = np.asarray(value)
                kind = sample.dtype if sample.ndim == 0 and sample.dtype.kind in "biuf" else object
                batched[key] = np.zeros(count, dtype=kind) if kind != object else np.full(count, None, dtype=object)
                batched["_" + key] = np.zeros(count, dtype=bool)
            try:
                batched[key][row] = value
            except (TypeError, ValueError, OverflowError):
                batched[key] = batched[key].astype(object)
                batched[key][row] = value
            batched["_" + key][row] = True
    return batched


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
