"""Finding what the server drives: a running game of this user (`--attach`), and the installed cores."""

import os
import subprocess
from typing import Any, Dict, List, Optional

from .._binary import find_binary, launch_environment
from ..control import Retrolua
from ..errors import RetroluaError


def attached_pid(address: str) -> Optional[int]:
    """The process id in a runtime-folder socket's name (PID.sock), else None."""
    name = os.path.basename(address)
    return int(name[:-5]) if name.endswith(".sock") and name[:-5].isdigit() else None


def runtime_folder() -> str:
    """Where this user's runs listen (as `retrolua attach` looks): $XDG_RUNTIME_DIR/retrolua, else
    /tmp/retrolua-UID."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    return os.path.join(runtime, "retrolua") if runtime.startswith("/") else "/tmp/retrolua-%d" % os.getuid()


def find_game(target: str = "") -> str:
    """The control address (unix:PATH) of a running game: `target` is unix:PATH, a process id, or empty for
    the one game this user runs (ValueError listing them when there are several, or saying where it looked)."""
    if target.startswith("unix:"):
        return target
    folder = runtime_folder()
    if target:
        if not target.isdigit():
            raise ValueError("--attach: %r is neither a process id nor unix:PATH" % target)
        path = os.path.join(folder, "%s.sock" % int(target))
        if not os.path.exists(path):
            raise ValueError("--attach: no game of this user with process id %s (no %s)" % (target, path))
        return "unix:" + path
    live = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        names = []
    for name in names:
        if attached_pid(name) is None:
            continue
        address = "unix:" + os.path.join(folder, name)
        try:
            client = Retrolua.connect(address, call_timeout=5.0)
        except OSError:
            continue  # a socket a run that ended left behind
        try:
            info = client.info()
        except (RetroluaError, OSError, ValueError):
            continue
        finally:
            client.disconnect()
        live.append((address, "  %s\t%s on %s, frame %s" % (attached_pid(name), info.get("content", "?"),
                                                          info.get("core", "?"), info.get("frame", 0))))
    if len(live) == 1:
        return live[0][0]
    if not live:
        raise ValueError("--attach: no running game found in %s (every windowed run listens there; headless: "
                         "run --console, or --control unix:PATH and --attach unix:PATH)" % folder)
    raise ValueError("--attach: several games are running; name one by its process id:\n"
                     + "\n".join(summary for _, summary in live))


def installed_cores(binary: Optional[str] = None) -> List[Dict[str, Any]]:
    """The cores `retrolua cores` finds: name (for open_game's `core`), display name, systems, extensions."""
    executable = find_binary(binary)
    try:
        result = subprocess.run([executable, "cores"], stdin=subprocess.DEVNULL, capture_output=True,
                                env=launch_environment(), timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RetroluaError("cannot run %s cores: %s" % (executable, error)) from None
    if result.returncode != 0:
        raise RetroluaError("%s cores failed: %s" % (executable, result.stderr.decode(errors="replace").strip()))
    cores: List[Dict[str, Any]] = []
    for line in result.stdout.decode(errors="replace").splitlines():
        if line and not line[0].isspace():
            name, _, display = line.partition(" ")
            cores.append({"name": name, "display_name": display.strip()})
        elif cores and ":" in line:
            key, _, value = line.strip().partition(":")
            value = value.strip()
            cores[-1][key] = value.split() if key == "extensions" else value
    return cores
