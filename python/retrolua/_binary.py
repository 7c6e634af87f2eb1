"""Where the `retrolua` executable is ($RETROLUA, then PATH, then a build in the source tree), and where the
files Retrolua ships are (the source tree, or an installed Retrolua's share/retrolua/)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Optional

from .errors import RetroluaError


def find_binary(explicit: Optional[str] = None) -> str:
    """The `retrolua` to launch: `explicit`, else $RETROLUA, else `retrolua` on PATH, else
    `.build/release/retrolua` or `.build/debug/retrolua` of the source tree this package sits in
    (or of the current directory). Raises RetroluaError naming every place looked at."""
    if explicit:
        return explicit
    from_env = os.environ.get("RETROLUA")
    if from_env:
        return from_env
    on_path = shutil.which("retrolua")
    if on_path:
        return on_path
    looked = ["$RETROLUA", "PATH"]
    roots = [Path(__file__).resolve().parent.parent.parent, Path.cwd()]
    for root in roots:
        for kind in ("release", "debug"):
            candidate = root / ".build" / kind / "retrolua"
            looked.append(str(candidate))
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    raise RetroluaError("cannot find the retrolua executable (looked at: " + ", ".join(looked) + "); install it "
                        "with scripts/install (PREFIX/bin on PATH) or set RETROLUA=/path/to/retrolua")


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
