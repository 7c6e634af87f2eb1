"""`retrolua.ray`'s vector env: `RayVectorEnv` (sub-environments in Ray actors) and `rllib_env`; see `retrolua.ray`."""

from __future__ import annotations

import copy as _copy
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import ray

from . import _autoreset
from ._ray_map import connect
from .actions import check_actions
from .errors import RetroluaError

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
