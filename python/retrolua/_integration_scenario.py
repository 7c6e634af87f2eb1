"""What `retrolua.env` needs to run a stable-retro integration: its scenario written as a Lua file in a
scratch folder of this process's own (stale ones of dead processes removed), its state and its crop."""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from typing import Any, Optional, Tuple

from . import integration as integrations

_SCRATCH = "retrolua-integration-"


def _scratch_folder() -> str:
    """A private folder for an integration's scenario file, named after this process: those of
    processes that are gone (killed before they removed theirs) are removed here first."""
    root = tempfile.gettempdir()
    try:
        entries = [entry for entry in os.scandir(root) if entry.name.startswith(_SCRATCH)]
    except OSError:
        entries = []
    for entry in entries:
        pid = entry.name[len(_SCRATCH):].split("-", 1)[0]
        try:
            if not pid.isdigit() or entry.stat(follow_symlinks=False).st_uid != os.getuid():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(entry.path, ignore_errors=True)
        except (OSError, OverflowError):
            continue
    return tempfile.mkdtemp(prefix="%s%d-" % (_SCRATCH, os.getpid()))


def integration_scenario(rom: str, folder: str, scenario: Optional[str], state: Any, crop: Any
                         ) -> Tuple[str, Any, Any, Any]:
    """A stable-retro integration's scenario as a Lua file of the env's own (the env removes it once
    its emulator has read it), its start state, its crop and its own action groups (None: the system's)."""
    game = integrations.load(integrations.find(folder), scenario or "scenario")
    mismatch = game.rom_mismatch(rom)
    if mismatch:
        warnings.warn(mismatch)
    if state is False:  # explicitly none: from power-on (stable-retro's State.NONE)
        state = None
    elif isinstance(state, str) and os.sep not in state and not os.path.exists(state):
        state = game.state(state)  # one of its states, by name
    elif state is None and game.default_state:
        state = game.state()
    lua = game.lua(rom)
    path = os.path.join(_scratch_folder(), "scenario.lua")
    with open(path, "w", encoding="utf-8") as file:
        file.write(lua)
    return path, state, crop if crop is not None else game.crop, game.rules.get("actions")
