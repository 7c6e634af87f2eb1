"""What an environment observes of its emulator, in one place for `retrolua.env` (one observation,
copied) and `retrolua.vector` (a row of a batch, copied straight from shared memory)."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from .emulator import Emulator

#: An observation: the screen (H, W, 3) or, preprocessed, (stack, H, W[, 3]), the RAM (N,), or both in a dict.
Observation = Union[np.ndarray, Dict[str, np.ndarray]]

KINDS = ("screen", "ram", "both")


def crop_slices(crop: Optional[Sequence[int]], shape: Tuple[int, ...]) -> Tuple[slice, slice]:
    """Rows and columns of a crop (x, y, width, height), as stable-retro cuts it (0 or past the edge: to
    the edge)."""
    if crop is None:
        return slice(None), slice(None)
    x, y, width, height = (int(c) for c in crop)
    right = shape[1] if not width or x + width > shape[1] else x + width
    bottom = shape[0] if not height or y + height > shape[0] else y + height
    return slice(min(y, bottom), bottom), slice(min(x, right), right)


class Observer:
    """An env's observation of `emu`: `kind` ("screen", "ram" or "both"), the screen cut to `crop`
    (rows, columns), and the start state's frame and RAM (a load draws nothing: an episode that starts
    without no-op frames shows these)."""

    __slots__ = ("emu", "kind", "crop", "start_screen", "start_ram", "processed")

    def __init__(self, emu: Emulator, kind: str, crop: Tuple[slice, slice], start_screen: np.ndarray,
                 start_ram: np.ndarray, processed: bool = False) -> None:
        self.emu, self.kind, self.crop = emu, kind, crop
        self.start_screen, self.start_ram = start_screen, start_ram
        self.processed = processed  # the screen is the emulator's processed observation (`preprocess`)

    def views(self, at_start: bool) -> Tuple[np.ndarray, np.ndarray]:
        """The (cropped) screen and the RAM now, or at the start: views, rewritten by the next step."""
        if self.processed:
            return self.emu.last_observation(), self.start_ram
        if at_start:
            return self.start_screen[self.crop], self.start_ram
        return self.emu.last_screen()[self.crop], self.emu.last_ram()

    def copy(self, at_start: bool) -> Observation:
        """The observation, copied out of shared memory."""
        screen, ram = self.views(at_start)
        if self.kind == "screen":
            return screen.copy()
        if self.kind == "ram":
            return ram.copy()
        return {"screen": screen.copy(), "ram": ram.copy()}

    def store(self, batch: Any, index: int, at_start: bool) -> None:
        """Copies the observation into row `index` of `batch` (arrays, or a dict of them for "both")."""
        screen, ram = self.views(at_start)
        if self.kind == "screen":
            batch[index] = screen
        elif self.kind == "ram":
            batch[index] = ram
        else:
            batch["screen"][index] = screen
            batch["ram"][index] = ram
