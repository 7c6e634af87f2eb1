"""`retrolua.ray`'s job map: `retrolua batch` jobs as Ray tasks, one `JobResult` each (see `retrolua.ray`)."""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

import numpy as np
import ray
import ray.cloudpickle

from . import _ray_job
from ._binary import find_binary
from .errors import RetroluaError

# Workers get the job runner's code with the task: a node needs no retrolua package for a job map.
ray.cloudpickle.register_pickle_by_value(_ray_job)

#: A job: a dict (a job line's object), or one JSON line of text.
Job = Union[Mapping[str, Any], str]


@dataclass
class JobResult:
    """One job's outcome, as `retrolua batch` reports it (see docs/guides/bots-and-batch.md, "Batch")."""

    job: int
    """The job's number, counting from 1 in the order given."""
    name: str
    """Its `name`, or `line N` (its line in the file, or its place in the list)."""
    ok: bool
    """True when the run exited 0 (and was not stopped)."""
    status: int
    """The run's exit status; -signal when killed by one, -1 when it never ran."""
    seconds: Optional[float] = None
    result: Optional[Dict[str, Any]] = None
    """The run's `--json` result: core, content, frames, fps, frame hash, `results` (emu.result)…"""
    error: Optional[str] = None
    """Why it failed: what happened and the tail of its stderr (None when ok)."""
    timed_out: bool = False
    node: Optional[str] = None
    """The host name of the node that ran it."""

    @classmethod
    def from_line(cls, job: int, name: str, line: Mapping[str, Any]) -> "JobResult":
        """From batch's result line (its own `job` is replaced by `job`; `name` is used when it has none)."""
        status = line.get("status")
        return cls(job=job, name=str(line.get("name", name)), ok=line.get("ok") is True,
                   status=status if isinstance(status, int) else -1, seconds=line.get("seconds"),
                   result=line.get("result"), error=line.get("error"), timed_out=line.get("timed_out") is True,
                   node=line.get("node"))

    def line(self) -> Dict[str, Any]:
        """Batch's JSON line for this job (with `node` too)."""
        out: Dict[str, Any] = {"job": self.job, "name": self.name, "ok": self.ok, "status": self.status}
        for key in ("seconds", "result", "error", "node"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.timed_out:
            out["timed_out"] = True
        return out


# -- the job map ------------------------------------------------------------------------------------

_WHITESPACE = " \t\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"


def read_jobs(jobs: Union[str, os.PathLike, Iterable[Job]]) -> List[Tuple[str, int]]:
    """The jobs as (JSON line, line number): a path is a JSON-lines file (blank lines and lines starting
    with # are skipped, as batch skips them), an iterable gives one job per item. Lines are not
    checked here: the binary checks each (a bad one fails its job)."""
    if isinstance(jobs, (str, os.PathLike)):
        with open(jobs, "rb") as file:
            text = file.read().decode("utf-8", "replace")
        items: Iterable[Tuple[int, Job]] = enumerate(text.split("\n"), start=1)
    else:
        items = enumerate(jobs, start=1)
    out = []
    for number, item in items:
        if isinstance(item, str):
            stripped = item.strip(_WHITESPACE)
            if not stripped or stripped.startswith("#"):
                continue
            out.append((item, number))
        else:
            out.append((json.dumps(dict(item), default=_plain), number))
    return out


def _plain(value: Any) -> Any:
    """numpy scalars and arrays as JSON values (a job built with numpy seeds); anything else as text."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def connect(address: Optional[str] = None, working_dir: Optional[str] = None, **init: Any) -> None:
    """`ray.init(address, …)` unless Ray is already initialized (then `working_dir` is refused: it is
    a runtime_env of the connection, so pass it to your own `ray.init`)."""
    if ray.is_initialized():
        if working_dir is not None:
            raise ValueError("working_dir needs a new Ray connection: Ray is already initialized "
                             "(pass runtime_env={'working_dir': …} to your ray.init)")
        return
    if working_dir is not None:
        init["runtime_env"] = dict(init.get("runtime_env") or {}, working_dir=os.fspath(working_dir))
    ray.init(address=address, **init)


_run_job = ray.remote(max_retries=0)(_ray_job.run_job)


def iter_jobs(
    jobs: Union[str, os.PathLike, Iterable[Job]],
    *,
    address: Optional[str] = None,
    num_cpus: float = 1,
    timeout: Optional[float] = None,
    binary: Optional[str] = None,
    cwd: Optional[str] = None,
    working_dir: Optional[str] = None,
    max_in_flight: Optional[int] = None,
    stop: Optional[threading.Event] = None,
) -> Iterator[JobResult]:
    """Runs the jobs on Ray and yields a `JobResult` per job as each finishes (see the module's doc).

    `timeout`: seconds for each job without its own `"timeout"` (batch's `--timeout`); `num_cpus`: what
    each job reserves; `max_in_flight`: jobs submitted at once (default: all, Ray queues them by
    CPUs); `stop`: an event that, once set, cancels the jobs not finished (running ones are stopped
    the way batch stops them and reported as stopped). Closing the iterator cancels them too."""
    return _iter_entries(read_jobs(jobs), address=address, num_cpus=num_cpus, timeout=timeout, binary=binary,
                         cwd=cwd, working_dir=working_dir, max_in_flight=max_in_flight, stop=stop)


def _iter_entries(entries: List[Tuple[str, int]], *, address: Optional[str], num_cpus: float,
                  timeout: Optional[float], binary: Optional[str], cwd: Optional[str], working_dir: Optional[str],
                  max_in_flight: Optional[int], stop: Optional[threading.Event]) -> Iterator[JobResult]:
    connect(address, working_dir)
    if binary is None:
        try:
            binary = find_binary()
        except RetroluaError:
            binary = None
    if cwd is None and working_dir is None:
        cwd = os.getcwd()
    limit = max_in_flight if max_in_flight and max_in_flight > 0 else len(entries)
    task = _run_job.options(num_cpus=num_cpus)
    seconds = None if timeout is None else str(timeout)
    waiting = list(enumerate(entries, start=1))
    waiting.reverse()
    running: Dict[Any, Tuple[int, str, int, float]] = {}
    try:
        while waiting or running:
            while waiting and len(running) < limit and not (stop and stop.is_set()):
                number, (line, line_number) = waiting.pop()
                running[task.remote(line, line_number, seconds, binary, cwd)] = (number, line, line_number,
                                                                                  time.monotonic())
            if stop and stop.is_set():
                waiting.clear()
                break
            ready, _ = ray.wait(list(running), num_returns=1, timeout=0.2)
            for ref in ready:
                yield _result(ref, running.pop(ref))
        if running:
            for ref in running:
                ray.cancel(ref)
            for ref in list(running):
                yield _result(ref, running.pop(ref))
    finally:
        for ref in running:
            ray.cancel(ref)


def _default_name(line: str, line_number: int) -> str:
    """The job's name for a result its node did not report: its `name`, else `line N` as batch says."""
    try:
        value = json.loads(line)
    except ValueError:
        value = None
    name = value.get("name") if isinstance(value, dict) else None
    return name if isinstance(name, str) else "line %d" % line_number


def _result(ref: Any, entry: Tuple[int, str, int, float]) -> JobResult:
    number, line, line_number, started = entry
    try:
        reported = ray.get(ref)
    except ray.exceptions.TaskCancelledError:
        return JobResult(job=number, name=_default_name(line, line_number), ok=False, status=-1,
                         error="stopped before it finished (the farm was stopped)")
    except ray.exceptions.RayError as error:
        return JobResult(job=number, name=_default_name(line, line_number), ok=False, status=-1,
                         seconds=time.monotonic() - started, error="ray: %s" % str(error).strip()[-2000:])
    return JobResult.from_line(number, _default_name(line, line_number), reported)


def map_jobs(
    jobs: Union[str, os.PathLike, Iterable[Job]],
    *,
    progress: Optional[Callable[[JobResult], None]] = None,
    **options: Any,
) -> List[JobResult]:
    """Runs the jobs on Ray (see `iter_jobs` for the options); their `JobResult`s in job order.
    `progress(result)` is called as each job finishes."""
    results = []
    for result in iter_jobs(jobs, **options):
        if progress is not None:
            progress(result)
        results.append(result)
    return sorted(results, key=lambda result: result.job)
