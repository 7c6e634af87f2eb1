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
import copy as _copy
import json
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

try:
    import ray
    import ray.cloudpickle
except ImportError as error:  # pragma: no cover
    raise ImportError("retrolua.ray needs Ray: pip install 'retrolua[ray]'") from error

from . import _autoreset, _ray_job
from ._binary import find_binary
from .actions import check_actions
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


# -- the vector env ---------------------------------------------------------------------------------

try:
    import gymnasium
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space, concatenate, create_empty_array, iterate
except ImportError:  # pragma: no cover - the job map needs no gymnasium
    gymnasium = None
    VectorEnv = object  # type: ignore[misc,assignment]


class _EnvActor:
    """One sub-environment inside a Ray actor (built there, so its emulator runs on that node)."""

    def __init__(self, make: Union[Callable[[], Any], Dict[str, Any]]) -> None:
        if callable(make):
            self.env = make()
        else:
            from .env import RetroluaEnv

            self.env = RetroluaEnv(**make)

    def describe(self) -> Tuple[Any, Any, Dict[str, Any], Optional[str]]:
        return self.env.observation_space, self.env.action_space, dict(self.env.metadata), self.env.render_mode

    def reset(self, seed: Optional[int], options: Optional[Dict[str, Any]]) -> Tuple[Any, Dict[str, Any]]:
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any, mode: str, due: bool) -> Tuple[Any, float, bool, bool, Dict[str, Any], Any]:
        """A step in the vector env's autoreset `mode` (see `retrolua._autoreset.step`)."""
        return _autoreset.step(self.env, action, mode, due)

    def call(self, name: str, args: Sequence[Any], kwargs: Dict[str, Any]) -> Any:
        value = getattr(self.env, name)
        return value(*args, **kwargs) if callable(value) else value

    def close(self) -> None:
        self.env.close()


_EnvActorRemote = ray.remote(max_restarts=0)(_EnvActor)


class _VectorActor:
    """Several sub-environments inside one Ray actor: a `retrolua.vector` env of that many emulators on
    its node, behind one batch door (one request per step for all of them)."""

    def __init__(self, count: int, make: Dict[str, Any]) -> None:
        from .vector import make_vec

        options = dict(make)
        self.envs = make_vec(options.pop("rom"), count, **options)

    def describe(self) -> Tuple[Any, Any, Dict[str, Any], Optional[str]]:
        envs = self.envs
        return envs.single_observation_space, envs.single_action_space, dict(envs.metadata), envs.render_mode

    def reset(self, seeds: List[Optional[int]], options: Optional[Dict[str, Any]]) -> Tuple[Any, Dict[str, Any]]:
        return self.envs.reset(seed=seeds, options=options)

    def step(self, actions: Any) -> Tuple[Any, Any, Any, Any, Dict[str, Any]]:
        return self.envs.step(actions)

    def call(self, name: str, args: Sequence[Any], kwargs: Dict[str, Any]) -> Tuple[Any, ...]:
        values = [getattr(env, name) for env in self.envs.envs]
        return tuple(value(*args, **kwargs) if callable(value) else value for value in values)

    def close(self) -> None:
        self.envs.close()


_VectorActorRemote = ray.remote(max_restarts=0)(_VectorActor)


def _merge_infos(parts: List[Dict[str, Any]], sizes: List[int]) -> Dict[str, Any]:
    """Batched infos of consecutive groups of sub-environments as one (each key's array and its
    `_key` mask laid end to end; a group without the key gets zeros and False there)."""
    keys = [key for key in dict.fromkeys(k for part in parts for k in part) if not key.startswith("_")]
    merged: Dict[str, Any] = {}
    for key in keys:
        arrays, masks = [], []
        for part, size in zip(parts, sizes):
            if key in part:
                arrays.append(np.asarray(part[key]))
                masks.append(np.asarray(part.get("_" + key, np.ones(size, dtype=bool))))
            else:
                arrays.append(None)
                masks.append(np.zeros(size, dtype=bool))
        sample = next(array for array in arrays if array is not None)
        filled = [array if array is not None else np.zeros((size,) + sample.shape[1:], dtype=sample.dtype)
                  for array, size in zip(arrays, sizes)]
        merged[key] = np.concatenate(filled)
        merged["_" + key] = np.concatenate(masks)
    return merged


class RayVectorEnv(VectorEnv):  # type: ignore[misc,valid-type]
    """A `gymnasium.vector.VectorEnv` of `num_envs` `RetroluaEnv`s, each in a Ray actor (reserving
    `num_cpus`), stepped concurrently; observations, rewards and flags come back as batched numpy
    arrays. `RayVectorEnv(2, rom="build/roms/dodge.nes", core="nestopia", obs="ram", …)` passes the
    keywords to `retrolua.env.RetroluaEnv`; `env_fns=[callable, …]` builds each actor's env instead (the
    callables are pickled to the actors). Autoreset as gymnasium's vector envs (`autoreset_mode`,
    next step by default; in `metadata["autoreset_mode"]`). Connects to Ray (`address`) unless Ray is
    initialized already. The package (and gymnasium) must be importable on the nodes that run actors.

    `envs_per_actor=K` (K > 1) puts K sub-environments in each actor instead: a `retrolua.make_vec` of K
    emulators behind one batch door on that node (the actor reserves `num_cpus` × K CPUs), so a
    cluster of N nodes with C cores each runs N actors of C environments, one Ray call per node per
    step. `num_envs` is then a multiple of K; autoreset is next-step; `reset` resets every env.
    """

    def __init__(self, num_envs: Optional[int] = None, *, env_fns: Optional[Sequence[Callable[[], Any]]] = None,
                 num_cpus: float = 1, address: Optional[str] = None,
                 autoreset_mode: Union[str, "AutoresetMode"] = "NextStep", copy: bool = True,
                 envs_per_actor: int = 1, **env_options: Any) -> None:
        if gymnasium is None:
            raise ImportError("RayVectorEnv needs gymnasium >= 1.0: pip install 'retrolua[gym,ray]'")
        if env_fns is None:
            if num_envs is None or num_envs < 1 or "rom" not in env_options:
                raise ValueError("RayVectorEnv needs num_envs >= 1 and rom=… (or env_fns=[…])")
            makers: List[Any] = [dict(env_options) for _ in range(num_envs)]
        else:
            if env_options or (num_envs is not None and num_envs != len(env_fns)) or not env_fns:
                raise ValueError("env_fns=[…] takes no env options, and num_envs (if given) is its length")
            makers = list(env_fns)
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.copy = copy
        self._group = int(envs_per_actor)
        if self._group > 1 and (env_fns is not None or len(makers) % self._group
                                or self.autoreset_mode != AutoresetMode.NEXT_STEP):
            raise ValueError("envs_per_actor=%d needs rom=… options (no env_fns), num_envs a multiple of it and "
                             "next-step autoreset" % self._group)
        connect(address)
        if self._group > 1:
            remote = _VectorActorRemote.options(num_cpus=num_cpus * self._group)
            self.actors = [remote.remote(self._group, maker) for maker in makers[::self._group]]
        else:
            remote = _EnvActorRemote.options(num_cpus=num_cpus)
            self.actors = [remote.remote(maker) for maker in makers]
        self.num_envs = len(makers)
        try:
            described = ray.get([actor.describe.remote() for actor in self.actors])
        except ray.exceptions.RayError as error:
            self._kill()
            raise RetroluaError("a RayVectorEnv sub-environment failed to start: %s" % error) from error
        observation_space, action_space, metadata, self.render_mode = described[0]
        for other in described[1:]:
            if other[0] != observation_space or other[1] != action_space:
                self._kill()
                raise RuntimeError("the sub-environments' spaces differ: %s / %s" % (other[:2], described[0][:2]))
        self.metadata = dict(metadata, autoreset_mode=self.autoreset_mode)
        self.single_observation_space, self.single_action_space = observation_space, action_space
        self.observation_space = batch_space(observation_space, self.num_envs)
        self.action_space = batch_space(action_space, self.num_envs)
        self._observations = create_empty_array(observation_space, n=self.num_envs, fn=np.zeros)
        self._rewards = np.zeros((self.num_envs,), dtype=np.float64)
        self._terminations = np.zeros((self.num_envs,), dtype=np.bool_)
        self._truncations = np.zeros((self.num_envs,), dtype=np.bool_)
        self._autoreset = _autoreset.Autoreset(self.num_envs, self.autoreset_mode.value)

    def _gather(self, refs: List[Any]) -> List[Any]:
        try:
            return ray.get(refs)
        except ray.exceptions.RayError as error:
            raise RetroluaError("a RayVectorEnv sub-environment failed: %s" % error) from error

    def _batch(self, observations: List[Any]) -> Any:
        self._observations = concatenate(self.single_observation_space, observations, self._observations)
        return _copy.deepcopy(self._observations) if self.copy else self._observations

    def reset(self, *, seed: _autoreset.Seed = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[Any, Dict[str, Any]]:
        """Resets every sub-environment (seed: None, an int n for n, n+1, …, or one per env), or those
        of `options["reset_mask"]`; (batched observations, infos)."""
        seeds = _autoreset.seeds(seed, self.num_envs)
        options = dict(options) if options else None
        mask = options.pop("reset_mask", None) if options else None
        if mask is None:
            mask = np.ones((self.num_envs,), dtype=np.bool_)
        elif not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (self.num_envs,)):
            raise ValueError("options['reset_mask'] must be a bool numpy array of shape (%d,)" % self.num_envs)
        if self._group > 1:
            return self._reset_groups(seeds, options, mask)
        chosen = [index for index in range(self.num_envs) if mask[index]]
        replies = self._gather([self.actors[index].reset.remote(seeds[index], options) for index in chosen])
        observations = list(iterate(self.single_observation_space, self._observations)) if self.num_envs else []
        infos: Dict[str, Any] = {}
        for index, (observation, info) in zip(chosen, replies):
            observations[index] = observation
            infos = self._add_info(infos, info, index)
        self._terminations[mask] = False
        self._truncations[mask] = False
        self._autoreset.after_reset(mask)
        return self._batch(observations), infos

    def step(self, actions: Any) -> Tuple[Any, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        """Steps every sub-environment at once (sub-environments that ended last step are reset
        instead, in next-step mode); batched (observations, rewards, terminations, truncations, infos)."""
        check_actions(self.single_action_space, actions, range(self.num_envs))  # all, before any is sent
        if self._group > 1:
            return self._step_groups(actions)
        mode = self.autoreset_mode.value
        refs = [actor.step.remote(action, mode, self._autoreset.due(index))
                for index, (actor, action) in enumerate(zip(self.actors, iterate(self.action_space, actions)))]
        replies = self._gather(refs)
        infos: Dict[str, Any] = {}
        observations = []
        for index, (observation, reward, terminated, truncated, info, final) in enumerate(replies):
            observations.append(observation)
            self._rewards[index], self._terminations[index], self._truncations[index] = reward, terminated, truncated
            if final is not None:
                infos = self._add_info(infos, {"final_obs": final[0], "final_info": final[1]}, index)
            infos = self._add_info(infos, info, index)
        self._autoreset.after_step(self._terminations, self._truncations)
        return (self._batch(observations), self._rewards.copy(), self._terminations.copy(),
                self._truncations.copy(), infos)

    def _reset_groups(self, seeds: List[Optional[int]], options: Optional[Dict[str, Any]],
                      mask: np.ndarray) -> Tuple[Any, Dict[str, Any]]:
        if not mask.all():
            raise ValueError("envs_per_actor > 1: reset resets every sub-environment (no reset_mask)")
        size = self._group
        replies = self._gather([actor.reset.remote(seeds[i * size:(i + 1) * size], options)
                                for i, actor in enumerate(self.actors)])
        self._terminations[:] = self._truncations[:] = False
        self._autoreset.after_reset()
        observations = self._join_groups([reply[0] for reply in replies])
        return observations, _merge_infos([reply[1] for reply in replies], [size] * len(replies))

    def _step_groups(self, actions: Any) -> Tuple[Any, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        size = self._group
        actions = np.asarray(actions)
        replies = self._gather([actor.step.remote(actions[i * size:(i + 1) * size])
                                for i, actor in enumerate(self.actors)])
        self._rewards[:] = np.concatenate([reply[1] for reply in replies])
        self._terminations[:] = np.concatenate([reply[2] for reply in replies])
        self._truncations[:] = np.concatenate([reply[3] for reply in replies])
        self._autoreset.after_step(self._terminations, self._truncations)
        infos = _merge_infos([reply[4] for reply in replies], [size] * len(replies))
        return (self._join_groups([reply[0] for reply in replies]), self._rewards.copy(),
                self._terminations.copy(), self._truncations.copy(), infos)

    def _join_groups(self, batches: List[Any]) -> Any:
        if isinstance(batches[0], dict):
            self._observations = {key: np.concatenate([batch[key] for batch in batches]) for key in batches[0]}
        else:
            self._observations = np.concatenate(batches)
        return _copy.deepcopy(self._observations) if self.copy else self._observations

    def render(self) -> Tuple[Any, ...]:
        """Each sub-environment's render()."""
        return self.call("render")

    def call(self, name: str, *args: Any, **kwargs: Any) -> Tuple[Any, ...]:
        """Calls (or reads) `name` on every sub-environment; their results."""
        replies = self._gather([actor.call.remote(name, args, kwargs) for actor in self.actors])
        return tuple(value for reply in replies for value in reply) if self._group > 1 else tuple(replies)

    def get_attr(self, name: str) -> Tuple[Any, ...]:
        return self.call(name)

    def close_extras(self, **kwargs: Any) -> None:
        """Closes the sub-environments (their emulators end) and ends the actors."""
        try:
            ray.get([actor.close.remote() for actor in self.actors], timeout=30)
        except (ray.exceptions.RayError, ray.exceptions.GetTimeoutError):
            pass
        self._kill()

    def _kill(self) -> None:
        for actor in getattr(self, "actors", []):
            try:
                ray.kill(actor)
            except Exception:  # noqa: BLE001 - Ray already shut down: its actors went with it
                pass
        self.actors = []


def rllib_env(config: Mapping[str, Any]) -> Any:
    """An RLlib env creator: `register_env("retrolua", retrolua.ray.rllib_env)`, then
    `config.environment("retrolua", env_config={"rom": …, "core": …, …})`. RLlib passes `num_envs`
    when `env_runners(gym_env_vectorize_mode="vector_entry_point")`: each env runner then gets one
    `RayVectorEnv` of that many actors; otherwise a `RetroluaEnv` per env."""
    options = dict(config)
    num_envs = options.pop("num_envs", None)
    if num_envs is None:
        from .env import RetroluaEnv

        return RetroluaEnv(**options)
    return RayVectorEnv(int(num_envs), **options)


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
