"""Where the `retrolua` executable is ($RETROLUA, the wheel's own, PATH, a build in the source tree), where the
files Retrolua ships are (as the binary finds them: `retrolua paths NAME`), and the environment a
launched retrolua gets (stable-retro's cores on its core path)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
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


def shipped_file(name: str, binary: Optional[str] = None) -> str:
    """A file Retrolua ships, by the name `retrolua run` takes for it (`dodge.nes`, `examples/python/
    dodge_scenario.lua`; `build/roms/dodge.nes` too), or any existing path: the binary's one rule, asked of it
    (`retrolua paths NAME`) — first this wheel's own binary (its share/retrolua/, even when $RETROLUA names
    another), then the one that launches (`binary`, $RETROLUA, …). A path that exists (relative to the working
    folder) comes first. The absolute path; FileNotFoundError names every place looked at."""
    if os.path.exists(name):
        return os.path.abspath(name)
    binaries = []
    if BUNDLED.is_file() and os.access(BUNDLED, os.X_OK):
        binaries.append(str(BUNDLED))
    problems = []
    try:
        launched = find_binary(binary)
        if launched not in binaries:
            binaries.append(launched)
    except RetroluaError as error:
        problems.append(str(error))
    for executable in binaries:
        try:
            result = subprocess.run([executable, "paths", name], capture_output=True, text=True, timeout=60,
                                    stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError) as error:
            problems.append("%s: %s" % (executable, error))
            continue
        found = result.stdout.strip().splitlines()
        if result.returncode == 0 and found:
            return found[-1]
        problems.append(result.stderr.strip().replace("retrolua: paths: ", "") or
                        "%s paths %s: exit status %d" % (executable, name, result.returncode))
    raise FileNotFoundError("; ".join(problems) or "%s: no such file" % name)


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
