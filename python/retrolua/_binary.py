"""Where the `retrolua` executable is ($RETROLUA, the wheel's own, PATH, a build in the source tree), where the
files Retrolua ships are (the source tree, or an installed Retrolua's share/retrolua/), and the environment a
launched retrolua gets (stable-retro's cores on its core path)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Mapping, Optional

from .errors import RetroluaError

# The wheel (scripts/wheel) carries the binary as an installed tree: bin/retrolua finds its lua/, roms/ and
# examples/ in the share/retrolua/ beside it, as after scripts/install.
BUNDLED = Path(__file__).resolve().parent / "_bundle" / "bin" / "retrolua"


def find_binary(explicit: Optional[str] = None) -> str:
    """The `retrolua` to launch: `explicit`, else $RETROLUA, else the one bundled in this wheel, else
    `retrolua` on PATH, else `.build/release/retrolua` or `.build/debug/retrolua` of the source tree this
    package sits in (or of the current directory). Raises RetroluaError naming every place looked at."""
    if explicit:
        return explicit
    from_env = os.environ.get("RETROLUA")
    if from_env:
        return from_env
    if BUNDLED.is_file() and os.access(BUNDLED, os.X_OK):
        return str(BUNDLED)
    on_path = _retrolua_on_path()
    if on_path:
        return on_path
    looked = ["$RETROLUA", str(BUNDLED), "PATH"]
    roots = [Path(__file__).resolve().parent.parent.parent, Path.cwd()]
    for root in roots:
        for kind in ("release", "debug"):
            candidate = root / ".build" / kind / "retrolua"
            looked.append(str(candidate))
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    raise RetroluaError("cannot find the retrolua executable (looked at: " + ", ".join(looked) + "); install it "
                        "with scripts/install (PREFIX/bin on PATH) or set RETROLUA=/path/to/retrolua")


def _retrolua_on_path() -> Optional[str]:
    """The first `retrolua` on PATH that is not this package's own console command (which runs this lookup)."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or ".", "retrolua")
        if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
            continue
        try:
            with open(candidate, "rb") as file:
                if b"retrolua._cli" in file.read(1024):
                    continue
        except OSError:
            continue
        return candidate
    return None


def shipped_file(relative: str) -> str:
    """A file Retrolua ships, by its path in the source tree (`build/roms/dodge.nes`,
    `examples/python/dodge_scenario.lua`): in the tree this package sits in, or the current directory's, else
    in the share/retrolua/ folder of an installed retrolua (scripts/install puts `build/roms/` under `roms/`),
    so the registered environments work from any folder. FileNotFoundError names every place looked at."""
    looked = []
    for root in (Path(__file__).resolve().parent.parent.parent, Path.cwd()):
        candidate = root / relative
        looked.append(str(candidate))
        if candidate.exists():
            return str(candidate)
    try:
        binary = Path(find_binary()).resolve()
    except RetroluaError:
        binary = None
    if binary is not None:
        installed = relative[len("build/"):] if relative.startswith("build/") else relative
        candidate = binary.parent.parent / "share" / "retrolua" / installed
        looked.append(str(candidate))
        if candidate.exists():
            return str(candidate)
    raise FileNotFoundError("%s not found (looked at: %s; run scripts/setup in a Retrolua tree, or scripts/install)"
                            % (relative, ", ".join(looked)))


def stable_retro_cores() -> Optional[str]:
    """The cores folder of an installed stable-retro (found without importing it), if any."""
    try:
        spec = importlib.util.find_spec("stable_retro")
    except (ImportError, ValueError):
        return None
    for root in (spec.submodule_search_locations or []) if spec else []:
        folder = os.path.join(root, "cores")
        if os.path.isdir(folder):
            return folder
    return None


def launch_environment(base: Optional[Mapping[str, str]] = None) -> "dict[str, str]":
    """`base` (default os.environ) for a launched retrolua: an installed stable-retro's cores are searched
    after every other folder ($RETROLUA_EXTRA_CORE_PATH), so `pip install retrolua stable-retro` plays
    stable-retro's games with its cores while a core of the same name from Debian or RetroArch still wins."""
    environment = dict(os.environ if base is None else base)
    cores = stable_retro_cores()
    if cores:
        folders = [folder for folder in environment.get("RETROLUA_EXTRA_CORE_PATH", "").split(":") if folder]
        if cores not in folders:
            environment["RETROLUA_EXTRA_CORE_PATH"] = ":".join(folders + [cores])
    return environment
