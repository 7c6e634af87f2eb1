"""A vector environment: N emulators (one process each) stepped concurrently from one Python thread.

    import retrolua
    envs = retrolua.make_vec("build/roms/dodge.nes", num_envs=4, core="nestopia", obs="ram",
                             scenario="examples/python/dodge_scenario.lua", actions=retrolua.env.DODGE_ACTIONS)
    observations, infos = envs.reset(seed=0)
    observations, rewards, terminations, truncations, infos = envs.step(envs.action_space.sample())

All the emulators share one batch region (retrolua._batch): `step` writes every emulator's request
into its lane and wakes them all with one system call, so they run their frames at the same time on as
many cores as there are, then waits once; rewards, ends and observations are read from the lanes with
numpy over all of them (retrolua._lanes), each observation copied once into the batch (no pickling, no
worker processes, unlike `gymnasium.vector.AsyncVectorEnv`). `batch=False` steps each over its own
socket instead; `info_format="dicts"` gives one info dict per env instead of Gymnasium's arrays; `restart(i)` replaces an emulator that died (`EnvironmentFailed`). Sub-environments are `RetroluaEnv`s (same arguments as
`retrolua.make`, plus `copy=False` to get the observations where the emulators wrote them — views
of the batch region, no copy, rewritten by the next step);
episodes reset as Gymnasium 1.x's vector envs do by default (`AutoresetMode.NEXT_STEP`:
the step after an episode's end resets that emulator and ignores its action). Needs gymnasium >= 1.0.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

try:
    import gymnasium
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space, create_empty_array
except ImportError as error:  # pragma: no cover
    raise ImportError("retrolua.vector needs gymnasium >= 1.0: pip install 'retrolua[gym]'") from error

from . import _autoreset
from ._batch import BatchRegion
from ._infos import assemble_infos, per_env, set_row
from ._lanes import EnvironmentFailed, LaneStepper, join
from .actions import check_actions
from .emulator import PendingStep
from .env import RetroluaEnv
from .errors import RetroluaError


class RetroluaVectorEnv(VectorEnv):
    """`num_envs` RetroluaEnvs in their own emulator processes, stepped concurrently (see the module)."""

    def __init__(self, rom: str, num_envs: int, copy: bool = True, batch: bool = True, info_format: str = "arrays",
                 **options: Any) -> None:
        if num_envs < 1:
            raise ValueError("num_envs must be at least 1, got %d" % num_envs)
        if info_format not in ("arrays", "dicts"):
            raise ValueError("info_format is 'arrays' or 'dicts', got %r" % (info_format,))
        self.info_format = info_format
        self._everyone = np.arange(num_envs)
        self.envs: List[RetroluaEnv] = []
        self._region: Optional[BatchRegion] = None
        self._stepper: Optional[LaneStepper] = None
        options.setdefault("spin", 0.0)  # waiting for several emulators: leave every core to them
        self._rom, self._options = rom, options
        try:
            for _ in range(num_envs):
                self.envs.append(RetroluaEnv(rom, **options))
            if batch:
                try:
                    self._region = join(self.envs)
                except OSError as error:  # no memfd or futex here: each emulator over its own socket
                    warnings.warn("retrolua.make_vec: no batch region (%s); stepping over sockets" % error)
                if self._region is not None:
                    stepper = LaneStepper(self._region, self.envs)
                    self._stepper = stepper if stepper.usable else None
        except BaseException:
            self.close()
            raise
        first = self.envs[0]
        self.num_envs = num_envs
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = first.render_mode
        self.metadata = dict(first.metadata, autoreset_mode=AutoresetMode.NEXT_STEP)
        self._observations = self._empty()
        self._returned: List[Any] = []
        self._autoreset = _autoreset.Autoreset(num_envs, _autoreset.NEXT_STEP)
        self.copy = copy

    def reset(self, *, seed: _autoreset.Seed = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[Any, Dict[str, Any]]:
        """Resets every emulator (seeds `seed + i`, or one per env from a list); (observations, infos)."""
        seeds = _autoreset.seeds(seed, self.num_envs)
        super().reset(seed=seeds[0])
        infos: Dict[str, Any] = {}
        batch = self._batch()
        listed = []
        for index, (env, env_seed) in enumerate(zip(self.envs, seeds)):
            if self._stepper is not None:
                _, info = self._stepper.reset(index, env_seed, options)
            else:
                _, info = env.reset(seed=env_seed, options=options)
            env.store_observation(batch, index)
            infos = self._add_info(infos, info, index)
            listed.append(info)
        self._autoreset.after_reset()
        return batch, infos if self.info_format == "arrays" else listed

    def step(self, actions: Any) -> Tuple[Any, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        """Steps every emulator at once (those whose episode ended last step are reset instead)."""
        stepper = self._stepper
        if stepper is not None and stepper.native is not None and not self._autoreset.ended.any():
            stepped = self._whole_step(stepper, actions)  # one call to C
            if stepped is not None:
                return stepped
        check_actions(self.single_action_space, actions, range(self.num_envs))  # all, before any is sent
        if self._stepper is not None:
            return self._lane_step(actions)
        pending: List[Optional[PendingStep]] = [None] * self.num_envs
        for index, env in enumerate(self.envs):
            if not self._autoreset.due(index):
                pending[index] = self._guarded(index, env.send_step, actions[index])
        self._wait([index for index, sent in enumerate(pending) if sent is not None])
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminations = np.zeros(self.num_envs, dtype=bool)
        truncations = np.zeros(self.num_envs, dtype=bool)
        infos: Dict[str, Any] = {}
        batch = self._batch()
        for index, env in enumerate(self.envs):
            sent = pending[index]
            if sent is None:
                _, info = self._guarded(index, env.reset)
            else:
                _, rewards[index], terminations[index], truncations[index], info = self._guarded(
                    index, env.finish_step, sent, False)
            env.store_observation(batch, index)
            infos = self._add_info(infos, info, index)
        self._autoreset.after_step(terminations, truncations)
        return batch, rewards, terminations, truncations, self._format(infos)

    def _whole_step(self, stepper: LaneStepper, actions: Any) -> Optional[Tuple[Any, np.ndarray, np.ndarray,
                                                                                  np.ndarray, Any]]:
        """`step` of every env in one call to C (retrolua._step), or None for actions it leaves to `_lane_step`."""
        out = self._batch() if self.copy else None
        stepped = stepper.whole.step(actions, out, self._check)  # (its failures name their env)
        if stepped is None:
            return None
        rewards, terminations, truncations, info, copied = stepped
        if not copied:
            out = None if self.copy else stepper.in_place()
            if out is None:
                out = self._batch()
                stepper.observations(None, out)
        self._autoreset.after_step(terminations, truncations)
        return out, rewards, terminations, truncations, self._format(info)

    def _lane_step(self, actions: Any) -> Tuple[Any, np.ndarray, np.ndarray, np.ndarray, Any]:
        """`step` through the batch lanes, numpy or C over every env (retrolua._lanes): resets go through
        each env's own path, while the others' steps run."""
        stepper, count = self._stepper, self.num_envs
        assert stepper is not None
        due = self._autoreset.ended
        everyone = not due.any()
        if everyone:
            stepper.post(None, self._guarded(-1, stepper.masks, actions, self._everyone))
            rewards, terminations, truncations, counters, columns = stepper.collect(None, self._check)
            info = assemble_infos(count, None, columns, counters)
        else:
            stepping = np.flatnonzero(~due)
            stepper.post(stepping, self._guarded(-1, stepper.masks, np.asarray(actions)[stepping], stepping))
            resets = {int(index): self._guarded(int(index), stepper.reset, int(index))[1]
                      for index in np.flatnonzero(due)}
            rewards = np.zeros(count, dtype=np.float64)
            terminations = np.zeros(count, dtype=bool)
            truncations = np.zeros(count, dtype=bool)
            counters = np.zeros((count, 2), dtype=np.int64)
            rewards[stepping], terminations[stepping], truncations[stepping], counters[stepping], columns = \
                stepper.collect(stepping, self._check)
            info = assemble_infos(count, stepping, columns, counters)
            for index, reset_info in resets.items():
                set_row(info, index, reset_info)
        batch = None if self.copy else stepper.in_place()
        if batch is None:
            batch = self._batch()
            stepper.observations(None, batch)
        if not everyone:
            for index in np.flatnonzero(due):  # a reset's observation (into the lane itself when in place)
                self.envs[index].store_observation(batch, int(index))
        self._autoreset.after_step(terminations, truncations)
        return batch, rewards, terminations, truncations, self._format(info)

    def _format(self, info: Dict[str, Any]) -> Any:
        """`info` as asked for: Gymnasium's batched arrays, or (info_format="dicts") one dict per env."""
        return info if self.info_format == "arrays" else per_env(info, self.num_envs)

    def _batch(self) -> Any:
        """Where this step's observations go: arrays the caller no longer holds, else new ones (each
        observation copied once, straight from shared memory), or (`copy=False`) the arrays every step
        rewrites. Reusing a dropped batch spares the page faults of fresh memory every step."""
        if not self.copy:
            return self._observations
        for batch in self._returned:
            if _unheld(batch):
                return batch
        batch = self._empty()
        self._returned = [batch] + self._returned[:2]
        return batch

    def _empty(self) -> Any:
        """Arrays for a batch of observations (every row is written before they are returned)."""
        return create_empty_array(self.single_observation_space, self.num_envs, fn=np.empty)

    def _wait(self, indices: List[int]) -> None:
        """Starts the steps posted to the batch lanes and waits for them all (one wake, one wait)."""
        if self._region is not None and indices:
            self._guarded(-1, self._region.wait, indices, self._check)

    def _check(self, index: int) -> None:
        self._guarded(index, self.envs[index].emu.check_alive)

    def restart(self, index: int) -> None:
        """Replaces environment `index` (its emulator died: a core that crashed) with a new one in the same
        lane; it resets on the next step, as an ended episode does (or call `reset`)."""
        old = self.envs[index]
        old.close()
        env = RetroluaEnv(self._rom, **self._options)
        if self._region is not None:
            self._region.abandon(index)
            env.emu.join_batch(self._region, index)
        self.envs[index] = env
        self._autoreset.ended[index] = True

    @staticmethod
    def _guarded(index: int, call: Any, *args: Any) -> Any:
        try:
            return call(*args)
        except EnvironmentFailed:
            raise
        except RetroluaError as error:
            if index < 0:
                raise
            raise EnvironmentFailed(index, error) from error

    def render(self) -> Optional[Tuple[np.ndarray, ...]]:
        """Every emulator's last frame (render_mode "rgb_array")."""
        if self.render_mode != "rgb_array":
            return None
        return tuple(env.render() for env in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        for env in getattr(self, "envs", []):
            env.close()
        if getattr(self, "_region", None) is not None:
            self._region.close()


def _unheld(batch: Any) -> bool:
    """Whether nothing but our list (and this call) holds `batch`: a view of it holds its array too.
    The counts: the list's reference, the caller's loop variable, this parameter, getrefcount's argument."""
    if sys.getrefcount(batch) > 4:
        return False
    if isinstance(batch, dict):  # each array: the dict's slot, the loop variable, the argument
        return all(sys.getrefcount(value) <= 3 for value in batch.values())
    return True


def make_vec(rom: str, num_envs: int, **options: Any) -> RetroluaVectorEnv:
    """A RetroluaVectorEnv of `num_envs` emulators (options as for `retrolua.make`)."""
    if int(gymnasium.__version__.split(".")[0]) < 1:
        raise RetroluaError("retrolua.make_vec needs gymnasium >= 1.0 (this is %s)" % gymnasium.__version__)
    return RetroluaVectorEnv(rom, num_envs, **options)
