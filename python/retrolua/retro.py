"""stable-retro's `make` and names over Retrolua, for scripts written for stable-retro:

    import retrolua.retro as retro
    env = retro.make("Airstriker-Genesis-v0", use_restricted_actions=retro.Actions.DISCRETE)

`make(game, state=, scenario=, use_restricted_actions=, obs_type=, record=, render_mode=)` finds the
game's integration (`retrolua.integration.find`), its ROM (`rom.*` in the integration's folder, where
stable-retro's import puts it, or `rom=`) and a core for its system (`core=`, else the one stable-
retro's wheel has for it when installed, else Retrolua's default for the extension), and returns a
`RetroluaEnv` with stable-retro's rules, start state, action space and observations (see
`retrolua.integration` for what is checked against stable-retro). Not carried over: `players=2`.
"""

import enum
import importlib.util
import os
import types
from typing import Any, List, Optional, Union

from .errors import RetroluaError
from .integration import find, list_games, load


class Actions(enum.Enum):
    """stable-retro's action spaces (its `retro.Actions`)."""

    ALL = "all"
    FILTERED = "filtered"
    DISCRETE = "discrete"
    MULTI_DISCRETE = "multi_discrete"


class Observations(enum.Enum):
    """stable-retro's observation kinds (its `retro.Observations`)."""

    IMAGE = "screen"
    RAM = "ram"


class State(enum.Enum):
    """stable-retro's start-state choices: the integration's default state, or none (power-on)."""

    DEFAULT = "default"
    NONE = "none"


#: The core stable-retro's wheel runs each system on, by the content's extension.
WHEEL_CORES = {".md": "genesis_plus_gx", ".sms": "genesis_plus_gx", ".gg": "genesis_plus_gx", ".scd": "genesis_plus_gx",
               ".nes": "fceumm", ".sfc": "snes9x", ".gb": "gambatte", ".gbc": "gambatte", ".gba": "mgba",
               ".pce": "mednafen_pce_fast", ".a26": "stella", ".32x": "picodrive", ".n64": "parallel_n64",
               ".nds": "melonds", ".zip": "fbneo", ".chd": "mednafen_saturn"}


def make(game: str, state: Union[State, str, None] = State.DEFAULT, scenario: Optional[str] = None,
         use_restricted_actions: Actions = Actions.FILTERED, obs_type: Observations = Observations.IMAGE,
         record: Union[bool, str] = False, players: int = 1, render_mode: Optional[str] = None,
         rom: Optional[str] = None, core: Optional[str] = None, inttype: Any = None, **options: Any) -> Any:
    """A RetroluaEnv for stable-retro game `game` (a name or an integration folder); see the module.
    `inttype` is accepted and not needed: every folder `retrolua.integration.search_path` names is
    searched."""
    from .env import RetroluaEnv

    if players != 1:
        raise RetroluaError("retro.make: players=%r: Retrolua's environments are for one player" % (players,))
    folder = find(game)
    content = rom or _rom_in(folder)
    if state is State.DEFAULT or state is None:
        start: Any = None
    elif state is State.NONE:
        start = False
    else:
        start = state
    return RetroluaEnv(
        content, core=core or _wheel_core(content), integration=folder, scenario=scenario, state=start,
        actions=Actions(use_restricted_actions).value, obs=Observations(obs_type).value,
        render_mode=render_mode, record=(os.getcwd() if record is True else record) or None, **options)


def _list_states(game: str, inttype: Any = None) -> List[str]:
    return load(find(game)).states()


#: stable-retro's `retro.data.list_games()` and `retro.data.list_states(game)`.
data = types.SimpleNamespace(list_games=lambda inttype=None: list_games(), list_states=_list_states)


def _rom_in(folder: str) -> str:
    roms = sorted(name for name in os.listdir(folder) if name.startswith("rom.") and name != "rom.sha")
    if not roms:
        raise RetroluaError("%s has no ROM (rom.EXT): import the game's ROM there as stable-retro does, "
                            "or pass rom=" % folder)
    return os.path.join(folder, roms[0])


def _wheel_core(content: str) -> Optional[str]:
    """stable-retro's own core for the content's system, when stable-retro is installed."""
    spec = importlib.util.find_spec("stable_retro")
    name = WHEEL_CORES.get(os.path.splitext(content)[1].lower())
    for root in (spec.submodule_search_locations or []) if spec and name else []:
        path = os.path.join(root, "cores", name + "_libretro.so")
        if os.path.exists(path):
            return path
    return None
