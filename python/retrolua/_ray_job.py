"""What `retrolua.ray`'s job map runs on a Ray worker: one job as a one-line `retrolua batch` of the
binary on that node, so every rule of a job (its fields, its timeout, its result line) lives in the
binary, as for `retrolua batch`. Standard library only: `retrolua.ray` ships this module to the
workers by value, so a node needs Ray and the retrolua binary, not this package."""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
from typing import Any, Dict, Optional, Tuple

#: Seconds a stopped batch gets to stop its run (it gives the run 2 s, then SIGKILL) before it is killed.
STOP_GRACE = 5.0


def node_binary(binary: Optional[str]) -> Optional[str]:
    """`binary` when it is an executable on this node, else $RETROLUA, else the one bundled in this node's
    retrolua wheel when it has one, else `retrolua` on PATH."""
    if binary and os.path.isfile(binary) and os.access(binary, os.X_OK):
        return binary
    if os.environ.get("RETROLUA"):
        return os.environ["RETROLUA"]
    try:
        from retrolua._binary import BUNDLED  # a node may have the wheel, or only a binary on PATH
    except ImportError:
        BUNDLED = None
    if BUNDLED is not None and os.access(BUNDLED, os.X_OK):
        return str(BUNDLED)
    return shutil.which("retrolua")


def _failure(error: str, **extra: Any) -> Dict[str, Any]:
    result: Dict[str, Any] = {"ok": False, "status": -1, "error": error}
    result.update(extra)
    return result


def _wait(process: "subprocess.Popen[bytes]") -> Tuple[bytes, bytes]:
    """Its output once it ends; waits in short slices so a cancellation is seen at once."""
    while True:
        try:
            return process.communicate(timeout=0.1)
        except subprocess.TimeoutExpired:
            continue


def _stop(process: "subprocess.Popen[bytes]") -> None:
    """SIGTERM to batch (it stops its run cleanly), then SIGKILL to its group after the grace."""
    try:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=STOP_GRACE)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
        process.communicate()


def run_job(line: str, line_number: int, timeout: Optional[str], binary: Optional[str],
            cwd: Optional[str]) -> Dict[str, Any]:
    """Runs the job `line` (line `line_number` of its file) with `retrolua batch`; batch's result line
    for it (a dict) with `node` added. A cancelled task stops its batch (SIGTERM) before it ends."""
    node = socket.gethostname()
    found = node_binary(binary)
    if found is None:
        return _failure("no retrolua executable on node %s (looked at %s, $RETROLUA, PATH)" % (node, binary),
                        node=node)
    if cwd and not os.path.isdir(cwd):
        return _failure("folder %s does not exist on node %s (jobs run there: give every node the same "
                        "paths, or ship a working_dir)" % (cwd, node), node=node)
    with tempfile.TemporaryDirectory(prefix="retrolua-ray-") as folder:
        path = os.path.join(folder, "job.jsonl")
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as file:
            file.write(line)
        command = [found, "batch", path, "--jobs", "1", "--line-offset", str(line_number - 1)]
        if timeout is not None:
            command += ["--timeout", timeout]
        # Its own process group: a stop that outlasts the grace kills batch and its run together.
        process = subprocess.Popen(command, cwd=cwd or None, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = _wait(process)
        except BaseException:
            # Cancelled (ray.cancel raises KeyboardInterrupt here): batch stops its run as on a signal.
            _stop(process)
            raise
    lines = [text for text in out.decode("utf-8", "replace").splitlines() if text.strip()]
    try:
        reported = json.loads(lines[-1]) if lines else None
    except ValueError:
        reported = None
    if not isinstance(reported, dict):
        tail = "\n".join(err.decode("utf-8", "replace").strip().splitlines()[-5:])
        return _failure("retrolua batch on node %s gave no result (exit status %d)%s"
                        % (node, process.returncode, ": " + tail if tail else ""), node=node,
                        status=process.returncode)
    reported["node"] = node
    return reported
