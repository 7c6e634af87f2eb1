"""A stable-baselines3 `VecEnv` of Retrolua environments behind one batch door, in place of SB3's
`SubprocVecEnv` (which runs each env in a worker process and pickles every observation through a pipe):

    from stable_baselines3 import PPO
    from retrolua.sb3 import RetroluaVecEnv
    envs = RetroluaVecEnv("build/roms/dodge.nes", 8, core="nestopia", obs="ram",
                          scenario="examples/python/dodge_scenario.lua", actions=retrolua.env.DODGE_ACTIONS)
    PPO("MlpPolicy", envs).learn(10_000)

The emulators are `retrolua.pool.RetroluaPool`'s, stepped all at once; episodes reset on the step that
ends them (SB3's convention): `infos[i]["terminal_observation"]` holds the ended episode's last observation
and `infos[i]["TimeLimit.truncated"]` says whether `max_steps` ended it. Options as for `retrolua.make`.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ImportError as error:  # pragma: no cover
    raise ImportError("retrolua.sb3 needs stable-baselines3: pip install stable-baselines3") from error

from ._autoreset import SAME_STEP
from ._infos import per_env
from .pool import RetroluaPool

__all__ = ["RetroluaVecEnv"]


class RetroluaVecEnv(VecEnv):
    """`num_envs` Retrolua environments as one SB3 VecEnv (see the module)."""

    def __init__(self, rom: str, num_envs: int, **options: Any) -> None:
        self.pool = RetroluaPool(rom, num_envs, autoreset_mode=SAME_STEP, **options)
        super().__init__(num_envs, self.pool.observation_space, self.pool.action_space)

    def reset(self) -> Any:
        options = self._options[0] if all(option == self._options[0] for option in self._options) else None
        observations, info = self.pool.reset(seed=list(self._seeds), options=options or None)
        self.reset_infos = _unbatch(info, self.num_envs)
        self._reset_seeds()
        self._reset_options()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self.pool.send(actions)

    def step_wait(self) -> Any:
        observations, rewards, terminations, truncations, info = self.pool.recv()
        infos = _unbatch(info, self.num_envs)
        for index in np.flatnonzero(terminations | truncations):
            infos[index]["terminal_observation"] = info["final_obs"][index]
            infos[index]["TimeLimit.truncated"] = bool(truncations[index] and not terminations[index])
        return observations, rewards.astype(np.float32), terminations | truncations, infos

    def close(self) -> None:
        self.pool.close()

    def _envs(self, indices: Any) -> List[Any]:
        return [self.pool.envs[index] for index in self._get_indices(indices)]

    def get_attr(self, attr_name: str, indices: Any = None) -> List[Any]:
        return [getattr(env, attr_name) for env in self._envs(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        for env in self._envs(indices):
            setattr(env, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> List[Any]:
        return [getattr(env, method_name)(*method_args, **method_kwargs) for env in self._envs(indices)]

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> List[bool]:
        return [False for _ in self._envs(indices)]

    def get_images(self) -> Sequence[Optional[np.ndarray]]:
        return [env.render() for env in self.pool.envs]


def _unbatch(info: Dict[str, Any], count: int) -> List[Dict[str, Any]]:
    """Gymnasium's batched info (arrays and `_key` masks) as one dict per environment (a key at a time)."""
    return per_env(info, count, ("final_obs", "final_info"))
