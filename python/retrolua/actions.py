"""stable-retro's action spaces for any system: its action groups (up, down or neither; left, right
or neither; the face-button combinations a game can use together…) as RetroPad masks, and its
FILTERED actions' filter. `RetroluaEnv(actions="all" | "filtered" | "discrete" | "multi_discrete")`
uses them; an integration's scenario may give its own groups ("actions")."""

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
    naming the env (`envs[row]` for each row of a batch; None: one action, no env) and the value. An index
    of -1 would otherwise pick the last action (numpy's and Python's negative indexing); other spaces
    pass unchecked."""
    if hasattr(space, "nvec"):
        low, high, per_row = 0, np.asarray(space.nvec, dtype=np.float64) - 1, int(np.size(space.nvec))
    elif hasattr(space, "n") and hasattr(space, "start"):
        low, high, per_row = int(space.start), int(space.start) + int(space.n) - 1, 1
    else:
        return
    if envs is None and per_row == 1 and isinstance(actions, (int, np.integer)) and low <= actions <= high:
        return  # one env's ordinary index: no array made
    try:
        values = np.asarray(actions if envs is not None else [actions], dtype=np.float64)
    except (TypeError, ValueError):
        where = "" if envs is None else "envs' "
        raise ValueError("the %sactions must be integers of %s, got %r" % (where, space, actions)) from None
    rows = values.reshape(len(values), -1) if values.ndim else values.reshape(1, -1)
    if rows.shape[1] != per_row:
        raise ValueError("each action of %s has %d value%s, got %r" % (space, per_row, "s"[per_row == 1:], actions))
    bad = ((rows < low) | (rows > high) | (rows != np.floor(rows))).any(axis=1) | np.isnan(rows).any(axis=1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        value = np.asarray(actions if envs is not None else [actions])[row]
        value = value.tolist() if hasattr(value, "tolist") else value
        if envs is None:
            raise ValueError("action %r is not in %s (negative indices are refused)" % (value, space))
        raise ValueError("env %d: action %r is not in %s (negative indices are refused)"
                         % (int(envs[row]), value, space))
