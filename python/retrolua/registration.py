"""The shipped environments' Gymnasium ids, registered when `retrolua` is imported (as other emulators'
packages do it) if gymnasium is installed:

- `retrolua/Dodge-v0`: Dodge (build/roms/dodge.nes on nestopia) with its scenario, screen observations,
  `DODGE_ACTIONS`, frameskip 4, episodes of at most 5000 steps.
- `retrolua/Dodge-ram-v0`: the same with RAM observations.

With gymnasium >= 1.0 they have a vector entry point too: `gymnasium.make_vec(id, n,
vectorization_mode="vector_entry_point")` gives a `retrolua.vector.RetroluaVectorEnv`.
"""

from __future__ import annotations

import inspect
from typing import Any, Dict

import gymnasium

from ._binary import shipped_file
from .env import DODGE_ACTIONS, RetroluaEnv

#: gymnasium >= 1.0 registers vector entry points (0.29 has no such argument).
VECTOR_ENTRY = "vector_entry_point" in inspect.signature(gymnasium.register).parameters

#: The registered ids and the observations each gives.
IDS: Dict[str, str] = {"retrolua/Dodge-v0": "screen", "retrolua/Dodge-ram-v0": "ram"}


def _dodge_files() -> Dict[str, Any]:
    return dict(scenario=shipped_file("examples/python/dodge_scenario.lua"), actions=DODGE_ACTIONS)


def _dodge(**options: Any) -> RetroluaEnv:
    options.setdefault("core", "nestopia")
    options.setdefault("frameskip", 4)
    return RetroluaEnv(shipped_file("dodge.nes"), **_dodge_files(), **options)


def _dodge_vec(num_envs: int, **options: Any) -> Any:
    from .vector import make_vec  # gymnasium >= 1.0 only: imported when asked for

    options.setdefault("core", "nestopia")
    options.setdefault("frameskip", 4)
    options.setdefault("max_steps", options.pop("max_episode_steps", None) or 5000)
    return make_vec(shipped_file("dodge.nes"), num_envs, **_dodge_files(), **options)


def register() -> None:
    """Registers the ids not registered yet (importing this module does it)."""
    for env_id, obs in IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=_dodge, kwargs={"obs": obs}, max_episode_steps=5000,
                               **({"vector_entry_point": _dodge_vec} if VECTOR_ENTRY else {}))


register()
