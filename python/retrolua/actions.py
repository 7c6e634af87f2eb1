"""stable-retro's action spaces for any system: its action groups (up, down or neither; left, right
or neither; the face-button combinations a game can use together…) as RetroPad masks, and its
FILTERED actions' filter. `RetroluaEnv(actions="all" | "filtered" | "discrete" | "multi_discrete")`
uses them; an integration's scenario may give its own groups ("actions")."""

import math
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .errors import RetroluaError

#: Each system's buttons in stable-retro's order (position = RetroPad id; "" where none) and its
#: default action groups (each a list of the button combinations allowed together), by extension.
_NES = "B,,SELECT,START,UP,DOWN,LEFT,RIGHT,A"
_MD = "B,A,MODE,START,UP,DOWN,LEFT,RIGHT,C,Y,X,Z"
_MD_FACE = "A|B|C|X|Y|Z|A+B|B+C|A+X|B+Y|C+Z|X+Y|Y+Z"
_GB_FACE = "A|B|SELECT|A+B|A+SELECT|B+SELECT|A+B+SELECT"
_SHOULDERS = "L|R|L+R"
_PADS: Dict[str, Tuple[str, List[str]]] = {
    ".nes": (_NES, ["A|B|A+B"]), ".sms": ("B,,,PAUSE,UP,DOWN,LEFT,RIGHT,A", ["A|B|A+B"]),
    ".gg": ("B,,,START,UP,DOWN,LEFT,RIGHT,A", ["A|B|A+B"]), ".gb": (_NES, [_GB_FACE]), ".gbc": (_NES, [_GB_FACE]),
    ".gba": ("B,,SELECT,START,UP,DOWN,LEFT,RIGHT,A,,L,R", [_GB_FACE, _SHOULDERS]),
    ".md": (_MD, [_MD_FACE]), ".gen": (_MD, [_MD_FACE]), ".smd": (_MD, [_MD_FACE]), ".bin": (_MD, [_MD_FACE]),
    ".32x": (_MD, [_MD_FACE]), ".scd": (_MD, [_MD_FACE]), ".chd": (_MD, [_MD_FACE]), ".zip": (_MD, [_MD_FACE]),
    ".pce": ("II,III,SELECT,RUN,UP,DOWN,LEFT,RIGHT,I,IV,V,VI", ["I|II|III|IV|V|I+II|II+III|I+IV|II+V|III+VI|IV+V|V+VI"]),
    ".sfc": ("B,Y,SELECT,START,UP,DOWN,LEFT,RIGHT,A,X,L,R",
             ["A|B|X|Y|A+B|B+Y|Y+X|X+A|A+B+Y|B+Y+X|Y+X+A|A+B+Y+X", _SHOULDERS]),
    ".nds": ("B,Y,SELECT,START,UP,DOWN,LEFT,RIGHT,A,X,L,R,L2,R2,L3,R3", ["A|B|X|Y|SELECT|A+B|X+Y", _SHOULDERS]),
    ".a26": ("BUTTON,,SELECT,RESET,UP,DOWN,LEFT,RIGHT", ["BUTTON"]),
    ".n64": ("A,B,,START,UP,DOWN,LEFT,RIGHT,C-RIGHT,C-UP,L,R,Z,C-MODE,L3,R3", ["A|B|Z|L|R|C-UP|C-RIGHT|START"]),
}
_PADS[".smc"], _PADS[".z64"], _PADS[".v64"] = _PADS[".sfc"], _PADS[".n64"], _PADS[".n64"]


def buttons(content: str) -> List[str]:
    """The system's buttons in stable-retro's order (a button's position is its RetroPad id; "" where
    the system has none at that id): what its MultiBinary actions press."""
    extension = os.path.splitext(content)[1].lower()
    if extension not in _PADS:
        raise RetroluaError("stable-retro actions: no buttons known for %s files" % (extension or "extension-less"))
    return _PADS[extension][0].split(",")


def action_groups(content: str, groups: Optional[List[List[List[str]]]] = None) -> List[List[int]]:
    """stable-retro's action groups for content `content` as RetroPad masks, in its order: each
    group's allowed combinations (sorted masks, the empty one first), groups by their buttons' union.
    `groups` (a scenario's "actions": lists of button-name lists) replaces the system's defaults."""
    names = buttons(content)
    defaults = _PADS[os.path.splitext(content)[1].lower()][1]
    if groups is None:
        groups = [[[], ["UP"], ["DOWN"]], [[], ["LEFT"], ["RIGHT"]]]
        groups += [[[]] + [combo.split("+") for combo in group.split("|")] for group in defaults]
    if not isinstance(groups, list) or not all(isinstance(group, list) for group in groups):
        raise RetroluaError("stable-retro actions: a list of groups of button combinations, got %r" % (groups,))
    out: Dict[int, set] = {}
    for group in groups:
        masks = set()
        for combo in group:
            if not isinstance(combo, list) or any(button not in names or not button for button in combo):
                raise RetroluaError("stable-retro actions: %r is not a list of this system's buttons (%s)"
                                    % (combo, ", ".join(b for b in names if b)))
            masks.add(sum(1 << names.index(button) for button in set(combo)))
        union = 0
        for mask in masks:
            union |= mask
        out[union] = out.get(union, set()) | masks
    return [sorted(out[union]) for union in sorted(out)]


def filter_mask(mask: int, groups: List[List[int]]) -> int:
    """A RetroPad mask with each group's buttons kept only when they are one of its combinations
    (stable-retro's FILTERED actions: up with down is neither)."""
    kept = 0
    for group in groups:
        union = 0
        for combo in group:
            union |= combo
        if mask & union in group:
            kept |= mask & union
    return kept


def check_actions(space: Any, actions: Any, envs: Optional[Sequence[int]] = None) -> None:
    """Refuses actions a Discrete or MultiDiscrete `space` cannot hold, before any is used: a ValueError
    naming the env (`envs[row]` for each row of a batch; None: one action, no env) and the value. A batch
    is one action per env, shaped (len(envs),) + space.shape; each value a whole number in the space
    (numbers of any numeric dtype; strings, None, other objects, NaN, infinities and fractions refused).
    An index of -1 would otherwise pick the last action (numpy's and Python's negative indexing); other
    spaces pass unchecked."""
    if hasattr(space, "nvec"):
        low: Any = getattr(space, "start", None)
        low = 0 if low is None else low
        high: Any = space.nvec - 1 + low
    elif hasattr(space, "n") and hasattr(space, "start"):
        low, high = int(space.start), int(space.start) + int(space.n) - 1
        if envs is None and isinstance(actions, (int, np.integer)) and low <= actions <= high:
            return  # one env's ordinary index: no array made
    else:
        return
    shape, size = tuple(space.shape), math.prod(space.shape)
    try:
        values = np.asarray(actions if envs is not None else [actions])
    except (TypeError, ValueError, OverflowError):  # ragged rows, or numbers past any dtype
        values = None
    kind = "" if values is None else values.dtype.kind
    if kind in ("b", "i", "u", "f") and (values.shape == (len(envs),) + shape if envs is not None
                                         else values[0].size == size):
        rows = values.reshape(-1, size) if size != 1 else values.reshape(-1)
        if size != 1:
            low, high = np.reshape(low, -1), np.reshape(high, -1)
        bad = (rows < low) | (rows > high)
        if kind == "f":
            bad |= (rows != np.floor(rows)) | np.isnan(rows)
        if not bad.any():
            return
    _refuse(space, actions, envs, np.broadcast_to(np.asarray(low, dtype=np.float64), shape),
            np.broadcast_to(np.asarray(high, dtype=np.float64), shape))


def _refuse(space: Any, actions: Any, envs: Optional[Sequence[int]], low: np.ndarray, high: np.ndarray) -> None:
    """Raises the ValueError for actions the quick check did not pass: which env, which value, and why
    (none for numbers it leaves to this one: an object array of whole numbers in the space)."""
    if envs is None:
        problem = _problem(actions, low, high, lenient=True)
        if not problem:
            return
        if problem == "size":
            raise ValueError("each action of %s has %d value%s, got %r"
                             % (space, low.size, "s"[low.size == 1:], _plain(actions)))
        raise ValueError("action %r is not in %s (%s)" % (_plain(actions), space, problem))
    count = len(envs)
    if isinstance(actions, (str, bytes, dict)) or not hasattr(actions, "__len__") or \
            (isinstance(actions, np.ndarray) and actions.ndim == 0):
        raise ValueError("expected one action per env (%d envs), got %r" % (count, _plain(actions)))
    if len(actions) != count:
        raise ValueError("expected one action per env (%d envs), got %d: %r" % (count, len(actions), _plain(actions)))
    for row, value in enumerate(actions):
        problem = _problem(value, low, high, lenient=False)
        if problem:
            raise ValueError("env %d: action %r is not in %s (%s)" % (int(envs[row]), _plain(value), space, problem))


def _problem(value: Any, low: np.ndarray, high: np.ndarray, lenient: bool) -> str:
    """Why one env's action is not in the space ("" when it is; "size" when it has too many values or
    too few, which a lenient check allows in any shape)."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        return "not a list of numbers of one shape"
    numbers: List[float] = []
    for item in array.reshape(-1).tolist():
        if isinstance(item, (bool, int, float, np.integer, np.floating)):
            try:
                numbers.append(float(item))
            except OverflowError:
                numbers.append(float("inf") if item > 0 else float("-inf"))
        else:
            return "%r is not a number" % (item,)
    if (array.size != low.size) if lenient else (array.shape != low.shape):
        return "size" if lenient else "shape %s, where the space's actions are %s" % (array.shape, low.shape)
    for number, least, most in zip(numbers, low.reshape(-1).tolist(), high.reshape(-1).tolist()):
        if number != number:
            return "NaN is not a number"
        if number < least:
            return "negative indices are refused" if least == 0 else "below %d" % least
        if number > most:
            return "past %d, the space's largest" % most
        if number != int(number):
            return "not a whole number"
    return ""


def _plain(value: Any) -> Any:
    """A value as Python prints it (numpy's arrays and scalars as lists and numbers)."""
    return value.tolist() if hasattr(value, "tolist") else value
