"""Where the `retrolua` executable is: $RETROLUA, then PATH, then a build in the source tree."""

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
    raise RetroluaError("cannot find the retrolua executable (looked at: " + ", ".join(looked) + ")")
