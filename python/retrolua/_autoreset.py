"""What both vector envs (`retrolua.vector`, local; `retrolua.ray`, Ray actors) share: one seed per
sub-environment, and which sub-environments reset instead of stepping (gymnasium's autoreset modes).
Standard library and numpy only: the Ray job map imports it without gymnasium."""

from __future__ import annotations

import numbers
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

#: gymnasium's `AutoresetMode` values: reset on the step after an episode's end (ignoring that
#: step's action), on the same step (the final observation goes in `info`), or never.
NEXT_STEP, SAME_STEP, DISABLED = "NextStep", "SameStep", "Disabled"

Seed = Union[int, Sequence[Optional[int]], None]


def seeds(seed: Seed, count: int) -> List[Optional[int]]:
    """One seed per sub-environment: None for each, `seed + i` for an int, or a list of `count`."""
    if seed is None:
        return [None] * count
    if isinstance(seed, numbers.Integral):
        return [int(seed) + index for index in range(count)]
    chosen = list(seed)
    if len(chosen) != count:
        raise ValueError("%d seeds for %d environments" % (len(chosen), count))
    return chosen


class Autoreset:
    """Which sub-environments' episodes ended on the last step, and what that means in `mode`."""

    __slots__ = ("mode", "ended")

    def __init__(self, count: int, mode: str = NEXT_STEP) -> None:
        if mode not in (NEXT_STEP, SAME_STEP, DISABLED):
            raise ValueError("autoreset mode is %s, %s or %s, got %r" % (NEXT_STEP, SAME_STEP, DISABLED, mode))
        self.mode = mode
        self.ended = np.zeros((count,), dtype=np.bool_)

    def due(self, index: int) -> bool:
        """Whether sub-environment `index` resets this step instead of stepping (next-step mode)."""
        return self.mode == NEXT_STEP and bool(self.ended[index])

    def after_reset(self, mask: Optional[np.ndarray] = None) -> None:
        """The sub-environments reset (those of `mask`, else all) start afresh."""
        if mask is None:
            self.ended[:] = False
        else:
            self.ended[mask] = False

    def after_step(self, terminations: np.ndarray, truncations: np.ndarray) -> None:
        """Records which episodes this step ended (disabled mode: stepping an ended one was an error)."""
        if self.mode == DISABLED and self.ended.any():
            raise RuntimeError("autoreset_mode DISABLED: reset the ended sub-environments with reset_mask first")
        self.ended = np.logical_or(terminations, truncations)


def step(env: Any, action: Any, mode: str, due: bool) -> Tuple[Any, float, bool, bool, Dict[str, Any], Any]:
    """A sub-environment's step in autoreset `mode` (`due`: `Autoreset.due` for it): (observation,
    reward, terminated, truncated, info, final), `final` being (final observation, final info) when
    the same-step mode reset the env, else None."""
    if due and mode == NEXT_STEP:
        observation, info = env.reset()
        return observation, 0.0, False, False, info, None
    observation, reward, terminated, truncated, info = env.step(action)
    final = None
    if mode == SAME_STEP and (terminated or truncated):
        final = (observation, info)
        observation, info = env.reset()
    return observation, float(reward), bool(terminated), bool(truncated), info, final
