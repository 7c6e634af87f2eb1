"""An EnvPool-style pool of environments: `send` actions to some, `recv` the first `batch_size` that are done.

    import retrolua.pool
    pool = retrolua.pool.make_pool("build/roms/dodge.nes", num_envs=8, batch_size=4, core="nestopia",
                                   obs="ram", scenario="examples/python/dodge_scenario.lua",
                                   actions=retrolua.env.DODGE_ACTIONS)
    pool.async_reset(seed=0)
    while training:
        observations, rewards, terminations, truncations, info = pool.recv()
        pool.send(policy(observations), info["env_id"])

With `batch_size < num_envs` the trainer works on one batch while the others' frames run: every
emulator stays busy and the trainer never waits for the slowest. `step(actions, env_ids)` is `send`
then `recv`; with `batch_size == num_envs` and every id it is a synchronous vector step.

Every environment is a `RetroluaEnv` in its own emulator process, all joined to one batch region
(`retrolua._batch`): a `send` writes the steps into their lanes and wakes them with one system call, a
`recv` waits on one futex and reads rewards, ends and observations from the lanes. Episodes reset as
Gymnasium 1.x's autoreset modes say: "NextStep" (default: the send after an episode's end resets that
environment, ignoring its action; the reset's observation comes back with reward 0) or "SameStep"
(reset at once; `info["final_obs"]` and `info["final_info"]` keep the ended episode's last). Seeds and
start states are per environment (`reset(seed=[...])`, `states=[...]`). A crashed emulator raises
`EnvironmentFailed` naming its environment; `restart(index)` starts a new one in its place.
Needs gymnasium (the spaces).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Deque, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _autoreset
from ._infos import COUNTERS, assemble_infos, batch_infos, per_env, set_row
from ._lanes import EnvironmentFailed, LaneStepper, join
from .actions import check_actions
from .env import RetroluaEnv
from .errors import RetroluaError

__all__ = ["EnvironmentFailed", "RetroluaPool", "make_pool"]


class RetroluaPool:
    """`num_envs` environments, `batch_size` of them returned by each `recv` (see the module)."""

    def __init__(self, rom: str, num_envs: int, batch_size: Optional[int] = None,
                 autoreset_mode: str = _autoreset.NEXT_STEP, states: Optional[Sequence[Any]] = None,
                 info_format: str = "arrays", **options: Any) -> None:
        batch_size = num_envs if batch_size is None else batch_size
        if num_envs < 1 or not 1 <= batch_size <= num_envs:
            raise ValueError("num_envs >= 1 and 1 <= batch_size <= num_envs, got %d and %d" % (num_envs, batch_size))
        if autoreset_mode not in (_autoreset.NEXT_STEP, _autoreset.SAME_STEP):
            raise ValueError("autoreset_mode is %r or %r, got %r" % (_autoreset.NEXT_STEP, _autoreset.SAME_STEP,
                                                                      autoreset_mode))
        if info_format not in ("arrays", "dicts"):
            raise ValueError("info_format is 'arrays' or 'dicts', got %r" % (info_format,))
        self.info_format = info_format
        if states is not None and len(states) != num_envs:
            raise ValueError("states: one start state per environment (%d), got %d" % (num_envs, len(states)))
        if options.get("sticky"):
            raise ValueError("the pool steps in the emulators: use sticky_actions (per frame, there) instead of sticky")
        self.num_envs, self.batch_size, self.autoreset_mode = num_envs, batch_size, autoreset_mode
        options.setdefault("spin", 0.0)
        self._rom, self._options, self._states = rom, options, states
        self.envs: List[RetroluaEnv] = []
        self._region = None
        try:
            for index in range(num_envs):
                self.envs.append(self._make(index))
            self._region = join(self.envs)
        except BaseException:
            self.close()
            raise
        self._stepper = LaneStepper(self._region, self.envs)
        first = self.envs[0]
        self.observation_space, self.action_space = first.observation_space, first.action_space
        self._running = np.zeros(num_envs, dtype=bool)  # a step posted and not yet returned by recv
        self._everyone = np.arange(num_envs)
        self._ended = np.zeros(num_envs, dtype=bool)  # the episode ended (NextStep: the next send resets)
        self._ready: Deque[Tuple[int, Dict[str, Any]]] = deque()  # reset results waiting for recv
        self._seeds: List[Optional[int]] = [None] * num_envs

    def _make(self, index: int) -> RetroluaEnv:
        options = dict(self._options)
        if self._states is not None:
            options["state"] = self._states[index]
        return RetroluaEnv(self._rom, **options)

    # -- EnvPool's API ----------------------------------------------------------------------------

    def async_reset(self, seed: _autoreset.Seed = None, options: Optional[Dict[str, Any]] = None) -> None:
        """Resets every environment (seeds `seed + i`, or one per env from a list); the results come
        from the next `recv`s, `batch_size` at a time."""
        self._finish_running()
        self._ready.clear()
        for index, env_seed in enumerate(_autoreset.seeds(seed, self.num_envs)):
            self._ready.append((index, self._reset(index, env_seed, options)))

    def reset(self, seed: _autoreset.Seed = None, options: Optional[Dict[str, Any]] = None
              ) -> Tuple[Any, Dict[str, Any]]:
        """Resets every environment; (observations, info) of all `num_envs` (info["env_id"] says the order)."""
        self.async_reset(seed, options)
        ids = np.arange(self.num_envs)
        infos = [info for _, info in self._ready]
        self._ready.clear()
        return self._observe(ids, list(range(self.num_envs))), self._format(self._info(ids, infos))

    def send(self, actions: Any, env_ids: Optional[Sequence[int]] = None) -> None:
        """Starts a step for each of `env_ids` (default: all) with its row of `actions`; an environment
        whose episode ended resets instead (NextStep). Each id must have been returned by `recv` (or
        reset) since its last step."""
        whole = self._stepper.whole
        every = env_ids is None or np.array_equal(env_ids, self._everyone)
        if (whole is not None and every and not self._ready and not self._running.any()
                and (self.autoreset_mode == _autoreset.SAME_STEP or not self._ended.any()) and whole.post(actions)):
            self._running[:] = True  # every env's step in one call to C (retrolua._step)
            return
        ids = np.arange(self.num_envs) if env_ids is None else np.asarray(env_ids, dtype=np.intp).reshape(-1)
        if len(ids) and (ids.min() < 0 or ids.max() >= self.num_envs or len(np.unique(ids)) != len(ids)):
            raise ValueError("send: env_ids are distinct environments 0…%d, got %s" % (self.num_envs - 1, ids))
        check_actions(self.action_space, actions, ids)  # all, before any is sent
        actions = np.asarray(actions)
        if actions.ndim == 0 or len(actions) != len(ids):  # (spaces check_actions leaves unchecked)
            raise ValueError("send: %d actions for %d environments" % (len(actions) if actions.ndim else 0, len(ids)))
        waiting = {index for index, _ in self._ready}
        busy = [int(index) for index in ids if self._running[index] or index in waiting]
        if busy:
            raise RetroluaError("send: environment %d still has a step to recv" % busy[0])
        due = self._ended[ids] if self.autoreset_mode == _autoreset.NEXT_STEP else np.zeros(len(ids), dtype=bool)
        stepping = ids[~due]
        if len(stepping):
            self._stepper.post(stepping, self._stepper.masks(actions[~due], stepping))
            self._running[stepping] = True
            self._region.wake()
        for index in ids[due]:
            self._ready.append((int(index), self._reset(int(index), None, None)))

    def recv(self) -> Tuple[Any, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        """The first `batch_size` environments done (waiting resets first, then the steps that finished
        first), in the order of their ids: (observations, rewards, terminations, truncations, info),
        info["env_id"] their ids."""
        size = self.batch_size
        whole = self._stepper.whole
        if whole is not None and whole.pending:
            if size == self.num_envs and not self._ready and self._running.all():
                return self._whole_recv(whole)
            whole.drop()  # (a restart since): read as any other steps
        if len(self._ready) + int(self._running.sum()) < size:
            raise RetroluaError("recv: only %d environments have a step or reset to return, batch_size is %d"
                                % (len(self._ready) + int(self._running.sum()), size))
        resets = dict(self._ready.popleft() for _ in range(min(size, len(self._ready))))
        stepped = np.zeros(0, dtype=np.intp)
        if len(resets) < size:
            finished = self._stepper.wait(np.flatnonzero(self._running), self._check, size - len(resets))
            stepped = np.sort(finished[: size - len(resets)])
        if resets:
            ids = np.sort(np.concatenate([np.fromiter(resets, dtype=np.intp, count=len(resets)), stepped]))
        else:
            ids = stepped
        rewards = np.zeros(size, dtype=np.float64)
        terminations = np.zeros(size, dtype=bool)
        truncations = np.zeros(size, dtype=bool)
        counters = np.zeros((size, 2), dtype=np.int64)
        columns: Dict[str, Any] = {}
        rows: Any = None
        if len(stepped):
            self._running[stepped] = False
            got = self._stepper.collect(stepped, self._check)
            if resets:
                rows = np.searchsorted(ids, stepped)
                rewards[rows], terminations[rows], truncations[rows], counters[rows], columns = got
            else:
                rewards, terminations, truncations, counters, columns = got
        elif resets:
            rows = stepped
        info = assemble_infos(size, rows, columns, counters)
        reset_rows = np.searchsorted(ids, np.fromiter(resets, dtype=np.intp, count=len(resets))).tolist()
        for row in reset_rows:
            set_row(info, row, resets[int(ids[row])])
        ended = np.logical_or(terminations, truncations)
        self._ended[ids] = ended
        finals: Dict[int, Tuple[Any, Dict[str, Any]]] = {}
        if self.autoreset_mode == _autoreset.SAME_STEP and ended.any():
            finals = self._same_step_resets(ids, ended, info)
        observations = self._observe(ids, reset_rows + list(finals))
        info["env_id"] = ids.astype(np.int32)
        if finals:
            self._add_finals(info, finals, size)
        return observations, rewards, terminations, truncations, self._format(info)

    def _whole_recv(self, whole: Any) -> Tuple[Any, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        """`recv` of every env's step posted by one call to C, read by another (retrolua._step)."""
        ids = np.arange(self.num_envs)
        out = self._empty(len(ids))
        rewards, terminations, truncations, info, copied = whole.finish(out, self._check)
        self._running[:] = False
        if not copied:
            self._stepper.observations(None, out)
        ended = np.logical_or(terminations, truncations)
        self._ended[:] = ended
        finals: Dict[int, Tuple[Any, Dict[str, Any]]] = {}
        if self.autoreset_mode == _autoreset.SAME_STEP and ended.any():
            finals = self._same_step_resets(ids, ended, info)
            for row in finals:  # the reset's observation
                self.envs[row].store_observation(out, row)
        info["env_id"] = ids.astype(np.int32)
        if finals:
            self._add_finals(info, finals, len(ids))
        return out, rewards, terminations, truncations, self._format(info)

    def step(self, actions: Any, env_ids: Optional[Sequence[int]] = None
             ) -> Tuple[Any, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        """`send` then `recv`."""
        self.send(actions, env_ids)
        return self.recv()

    # -- the rest ---------------------------------------------------------------------------------

    def restart(self, index: int) -> None:
        """Replaces environment `index` (its emulator died: `EnvironmentFailed.index`) with a new one in the
        same lane, reset (its reset comes from a later `recv`)."""
        self.envs[index].close()
        env = self._make(index)
        self._region.abandon(index)
        env.emu.join_batch(self._region, index)
        self.envs[index] = env
        self._running[index] = False
        self._ready = deque(item for item in self._ready if item[0] != index)
        self._ready.append((index, self._reset(index, None, None)))

    def close(self) -> None:
        for env in self.envs:
            env.close()
        self.envs = []
        if self._region is not None:
            self._region.close()

    def __enter__(self) -> "RetroluaPool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _reset(self, index: int, seed: Optional[int], options: Optional[Dict[str, Any]]) -> Dict[str, Any]:
        try:
            _, info = self._stepper.reset(index, seed, options)
        except RetroluaError as error:
            raise EnvironmentFailed(index, error) from error
        self._ended[index] = False
        return info

    def _check(self, index: int) -> None:
        try:
            self.envs[index].emu.check_alive()
        except RetroluaError as error:
            raise EnvironmentFailed(index, error) from error

    def _finish_running(self) -> None:
        """Waits out the steps still running (a reset of everything drops their results)."""
        running = np.flatnonzero(self._running)
        if self._stepper.whole is not None:
            self._stepper.whole.drop()  # (their results dropped)
        if len(running):
            self._region.wait(running, self._check)
            self._running[:] = False

    def _observe(self, ids: np.ndarray, reset_rows: List[int]) -> Any:
        """The observations of `ids` as a new batch (the lanes are rewritten by the next send)."""
        out = self._empty(len(ids))
        if len(ids):
            self._stepper.observations(ids, out)
        for row in reset_rows:  # a reset without no-op frames shows the start state's own frame
            self.envs[int(ids[row])].store_observation(out, row)
        return out

    def _empty(self, count: int) -> Any:
        """A new batch of `count` observations (arrays, or a dict of them for obs="both")."""
        space = self.observation_space
        if self.envs[0].obs_type == "both":
            return {key: np.empty((count,) + box.shape, dtype=box.dtype) for key, box in space.spaces.items()}
        return np.empty((count,) + space.shape, dtype=space.dtype)

    def _info(self, ids: np.ndarray, infos: List[Dict[str, Any]]) -> Dict[str, Any]:
        """The batched info of reset results (each env's own dict)."""
        counters = np.array([[info.get("frame", 0), info.get("lag", 0)] for info in infos], dtype=np.int64)
        info = batch_infos([{k: v for k, v in i.items() if k not in COUNTERS} for i in infos], counters)
        info["env_id"] = ids.astype(np.int32)
        return info

    def _format(self, info: Dict[str, Any]) -> Any:
        """`info` as asked for: batched arrays (EnvPool's and Gymnasium's), or (info_format="dicts") one
        dict per env, `env_id` in each."""
        if self.info_format == "arrays":
            return info
        rows = per_env(info, len(info["env_id"]), ("final_obs", "final_info"))
        for row in np.flatnonzero(info.get("_final_obs", ())):
            rows[row]["final_obs"], rows[row]["final_info"] = info["final_obs"][row], info["final_info"][row]
        return rows

    def _same_step_resets(self, ids: np.ndarray, ended: np.ndarray, info: Dict[str, Any]
                          ) -> Dict[int, Tuple[Any, Dict[str, Any]]]:
        """SameStep: each ended environment's last observation and info, then its reset (into `info`)."""
        finals: Dict[int, Tuple[Any, Dict[str, Any]]] = {}
        rows = np.flatnonzero(ended)
        last = per_env({key: values[rows] for key, values in info.items()}, len(rows), COUNTERS)
        for row, final_info in zip(rows.tolist(), last):
            index = int(ids[row])
            batch = self._observe(np.asarray([index], dtype=np.intp), [])
            observation = {key: value[0] for key, value in batch.items()} if isinstance(batch, dict) else batch[0]
            finals[row] = (observation, final_info)
            set_row(info, row, self._reset(index, None, None))
        return finals

    @staticmethod
    def _add_finals(info: Dict[str, Any], finals: Dict[int, Tuple[Any, Dict[str, Any]]], size: int) -> None:
        info["final_obs"] = np.full(size, None, dtype=object)
        info["final_info"] = np.full(size, None, dtype=object)
        info["_final_obs"] = np.zeros(size, dtype=bool)
        info["_final_info"] = np.zeros(size, dtype=bool)
        for row, (observation, final_info) in finals.items():
            info["final_obs"][row], info["final_info"][row] = observation, final_info
            info["_final_obs"][row] = info["_final_info"][row] = True


def make_pool(rom: str, num_envs: int, batch_size: Optional[int] = None, **options: Any) -> RetroluaPool:
    """A RetroluaPool (options as for `retrolua.make`, plus `autoreset_mode`, per-env `states` and
    `info_format`: "arrays", each info key an array over the batch with `env_id`, or "dicts", one per env)."""
    return RetroluaPool(rom, num_envs, batch_size, **options)
