"""A native PufferLib environment (`pufferlib.PufferEnv`, PufferLib 2.0) whose agents are the emulators of a
`retrolua.pool.RetroluaPool`, so PufferLib's vectorization runs them without its Gymnasium emulation layer:

    import pufferlib.vector
    from retrolua.puffer import RetroluaPufferEnv
    envs = pufferlib.vector.make(RetroluaPufferEnv, env_args=["build/roms/dodge.nes"],
                                 env_kwargs=dict(num_envs=8, core="nestopia", obs="ram",
                                                 scenario="examples/python/dodge_scenario.lua",
                                                 actions=retrolua.env.DODGE_ACTIONS),
                                 backend=pufferlib.vector.Multiprocessing, num_envs=2, num_workers=2)
    observations, infos = envs.reset(seed=0)
    observations, rewards, terminals, truncations, infos = envs.step(actions)

One env holds `num_envs` emulators (its `num_agents`); PufferLib's native backend
(`backend=pufferlib.PufferEnv`, the default) steps them in this process, and `Multiprocessing` runs one env
per worker, each writing into its slice of PufferLib's shared buffers (`buf`). PufferLib 2.0's `Serial`
backend refuses native envs. Each step copies the pool's batch into the buffers once. Episodes reset on the
step that ends them, as PufferLib's own envs do: that step's observation is the new episode's first, its
reward and terminal/truncation flag the ended episode's last. `infos` is a list with one dict per episode
ended by the step: `episode_return`, `episode_length`, `env_id` (the emulator's index in this env) and the
numbers of the scenario's info (score, lives, …). Observations are a `Box` ("screen" or "ram"; "both" is
a Dict, which native PufferLib envs do not take); a `MultiBinary` action space (the RetroPad's buttons) is
offered as the `MultiDiscrete` of two values per button that PufferLib accepts. Bad actions raise ValueError, a crashed
emulator `retrolua.pool.EnvironmentFailed`. Options as for `retrolua.pool.make_pool` (core, scenario, obs,
actions, frameskip, preprocessing, states, …). Needs `pip install 'retrolua[puffer]'` (PufferLib 2.0).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

try:
    import gymnasium
    import pufferlib
except ImportError as error:  # pragma: no cover
    raise ImportError("retrolua.puffer needs PufferLib 2.0: pip install 'retrolua[puffer]'") from error

from ._autoreset import SAME_STEP
from .pool import EnvironmentFailed, RetroluaPool

__all__ = ["EnvironmentFailed", "RetroluaPufferEnv"]


class RetroluaPufferEnv(pufferlib.PufferEnv):
    """`num_envs` Retrolua emulators as the agents of one native PufferLib env (see the module)."""

    def __init__(self, rom: str, num_envs: int = 1, buf: Any = None, **options: Any) -> None:
        for name in ("batch_size", "autoreset_mode", "info_format"):
            if name in options:
                raise ValueError("RetroluaPufferEnv: %s is PufferLib's to choose (its vector's batch_size, "
                                 "resets on the ending step), not an option here" % name)
        if options.get("obs") == "both":
            raise ValueError("RetroluaPufferEnv: obs='both' is a Dict space, and native PufferLib envs take a Box")
        self.pool = RetroluaPool(rom, num_envs, autoreset_mode=SAME_STEP, **options)
        try:
            self.single_observation_space = self.pool.observation_space
            self._buttons = isinstance(self.pool.action_space, gymnasium.spaces.MultiBinary)
            self.single_action_space = _puffer_action_space(self.pool.action_space)
            self.num_agents = num_envs
            self.render_mode = options.get("render_mode")
            super().__init__(buf)
        except BaseException:
            self.pool.close()
            raise
        self._returns = np.zeros(num_envs, dtype=np.float64)
        self._lengths = np.zeros(num_envs, dtype=np.int64)

    def reset(self, seed: Union[int, Sequence[Optional[int]], None] = None) -> Tuple[np.ndarray, List[Dict[str, Any]]]:
        """Resets every emulator: seeds `seed + i`, or one per emulator from a list; (observations, []).
        A list of one `[s]` (PufferLib's Multiprocessing hands worker w `[seed + w]`) seeds `s * num_envs + i`,
        so workers never share a seed and W workers of N equal one env of W * N."""
        if isinstance(seed, (list, tuple)) and len(seed) == 1 and seed[0] is not None:
            seed = int(seed[0]) * self.num_agents
        observations, _ = self.pool.reset(seed=seed)
        self.observations[:] = observations
        self.rewards[:] = 0
        self.terminals[:] = False
        self.truncations[:] = False
        self._returns[:] = 0
        self._lengths[:] = 0
        return self.observations, []

    def step(self, actions: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, List[Dict[str, Any]]]:
        """Steps every emulator with its row of `actions`; the results land in the env's buffers."""
        actions = np.asarray(actions)
        if self._buttons and actions.size and (actions.min() < 0 or actions.max() > 1):
            raise ValueError("RetroluaPufferEnv.step: actions: each button is 0 or 1, got %s" % (actions,))
        observations, rewards, terminations, truncations, info = self.pool.step(actions)
        self.observations[:] = observations
        self.rewards[:] = rewards
        self.terminals[:] = terminations
        self.truncations[:] = truncations
        self._returns += rewards
        self._lengths += 1
        infos = []
        for index in np.flatnonzero(terminations | truncations).tolist():
            episode = {key: value for key, value in info["final_info"][index].items() if _is_number(value)}
            episode.update(episode_return=float(self._returns[index]), episode_length=int(self._lengths[index]),
                           env_id=index)
            infos.append(episode)
            self._returns[index], self._lengths[index] = 0.0, 0
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def render(self) -> Optional[np.ndarray]:
        """The first emulator's last frame as RGB (render_mode "rgb_array"; else None)."""
        return self.pool.envs[0].render() if self.pool.envs else None

    def close(self) -> None:
        self.pool.close()


def _puffer_action_space(space: Any) -> Any:
    """The pool's action space as native PufferLib envs take it: MultiBinary as a MultiDiscrete of 2s."""
    if isinstance(space, gymnasium.spaces.MultiBinary):
        return gymnasium.spaces.MultiDiscrete(np.full(space.shape, 2, dtype=np.int64))
    return space


def _is_number(value: Any) -> bool:
    return isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))
