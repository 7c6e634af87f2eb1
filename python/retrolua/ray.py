"""Bot farms on a Ray cluster (needs `pip install 'retrolua[ray]'`).

**A job map**: `map_jobs(jobs, address=…)` runs the jobs of `retrolua batch` (a JSON-lines file, or a
list of dicts / JSON lines) on a Ray cluster, each job a Ray task reserving `num_cpus`, and returns a
`JobResult` per job (the run's `--json` result parsed, exit status, `timed_out`, the stderr tail in
`error`); a failing job is a result with `ok=False` and the others go on. `iter_jobs` yields the results
as jobs finish; `map_jobs(progress=…)` calls a function with each. Each task runs its job as a one-line
`retrolua batch` of the retrolua binary on its node, so a job means exactly what it means to batch.

    import retrolua.ray
    results = retrolua.ray.map_jobs("jobs.jsonl", address="auto", timeout=60)
    best = max((r for r in results if r.ok), key=lambda r: r.result["results"]["score"])

Paths in jobs (ROMs, scripts, cores) are read on the node that runs the job, relative to `cwd` (the
driver's current folder by default): every node needs the same files at the same paths (a shared
folder, or the same checkout), or `working_dir=FOLDER` ships a folder to every node (Ray's runtime_env
`working_dir`, when `map_jobs` is what connects; jobs then run in the shipped copy). The binary is
`binary` where it exists on the node, else the node's $RETROLUA or `retrolua` on PATH.

**A vector env**: `RayVectorEnv(num_envs, rom=…, …)` is a `gymnasium.vector.VectorEnv` whose
sub-environments are `retrolua.env.RetroluaEnv`s, each in a Ray actor (so on any node), stepped
concurrently; batched numpy arrays, next-step autoreset like gymnasium's own vector envs. For RLlib:
`register_env("retrolua", retrolua.ray.rllib_env)` and `gym_env_vectorize_mode="vector_entry_point"`.

**N servers across a cluster**: `RayVectorEnv(num_envs, envs_per_actor=K, rom=…, …)` makes each actor a
`retrolua.make_vec` of K emulators behind one batch door on its node (reserving `num_cpus` × K CPUs): one
Ray call per actor per step, the K emulators stepped with one wake. With machines of C cores, K = C puts
one such server on each machine (Ray places the actors where the CPUs are; start the cluster with
`ray start --head` and `ray start --address HEAD:6379` on the others, then `address="HEAD:6379"`), so
N machines give N × C environments as one Gymnasium vector env.

`python -m retrolua.ray batch JOBS.jsonl --address ADDRESS` (what `retrolua batch --ray` runs) prints
batch's lines and exits as batch does.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from typing import Any, List, Optional, Sequence

try:
    import ray  # noqa: F401  (the clear error below, before the modules that need it)
except ImportError as error:  # pragma: no cover
    raise ImportError("retrolua.ray needs Ray: pip install 'retrolua[ray]'") from error

from ._ray_map import Job, JobResult, _iter_entries, connect, iter_jobs, map_jobs, read_jobs
from ._ray_vector import RayVectorEnv, rllib_env

__all__ = ["Job", "JobResult", "RayVectorEnv", "connect", "iter_jobs", "main", "map_jobs", "read_jobs", "rllib_env"]


# -- python -m retrolua.ray batch -------------------------------------------------------------------

_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _batch(argv: Sequence[str]) -> int:
    """`retrolua batch --ray`'s other half: batch's lines on stdout, its summary on stderr, its exit."""
    parser = argparse.ArgumentParser(prog="python -m retrolua.ray batch",
                                     description="Runs retrolua batch jobs on a Ray cluster.")
    parser.add_argument("jobs", help="the JSON-lines jobs file (as for retrolua batch)")
    parser.add_argument("--address", default=None, help="the Ray cluster (ray.init's address; default: a local one)")
    parser.add_argument("--jobs", dest="in_flight", type=int, default=None, help="at most N jobs at once")
    parser.add_argument("--timeout", type=float, default=None, help="seconds for jobs without their own")
    parser.add_argument("--cpus", type=float, default=1.0, help="CPUs each job reserves (default 1)")
    parser.add_argument("--binary", default=None, help="the retrolua binary on the nodes")
    options = parser.parse_args(argv)
    try:
        entries = read_jobs(options.jobs)
    except OSError:
        print("retrolua: %s: no such jobs file" % options.jobs, file=sys.stderr)
        return 1
    if not entries:
        print("retrolua: %s: no jobs" % options.jobs, file=sys.stderr)
        return 1
    stop = threading.Event()
    received: List[int] = []

    def on_signal(number: int, _frame: Any) -> None:
        received.append(number)
        stop.set()

    started = time.monotonic()
    try:
        connect(options.address, logging_level="warning")
    except Exception as error:  # noqa: BLE001 - ray.init raises many kinds
        print("retrolua: batch --ray: cannot connect to Ray at %s: %s" % (options.address, error), file=sys.stderr)
        return 1
    for number in _STOP_SIGNALS:  # after ray.init, which sets a SIGTERM handler of its own
        signal.signal(number, on_signal)
    failed = ran = 0
    for result in _iter_entries(entries, address=None, timeout=options.timeout, num_cpus=options.cpus,
                                binary=options.binary, cwd=None, working_dir=None, max_in_flight=options.in_flight,
                                stop=stop):
        ran += 1
        failed += 0 if result.ok else 1
        sys.stdout.write(json.dumps(result.line(), sort_keys=True, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    skipped = len(entries) - ran
    print("batch: %d jobs, %d passed, %d failed%s in %.2f s (on Ray)"
          % (len(entries), ran - failed, failed,
             ", %d not started (stopped by a signal)" % skipped if skipped else "", time.monotonic() - started),
          file=sys.stderr)
    if received:
        return 128 + received[0]
    return 0 if failed == 0 else 1


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] != "batch":
        print("usage: python -m retrolua.ray batch JOBS.jsonl [--address ADDRESS] [--jobs N] [--timeout S] "
              "[--cpus N] [--binary PATH]", file=sys.stderr)
        return 2
    return _batch(args[1:])


if __name__ == "__main__":
    sys.exit(main())
