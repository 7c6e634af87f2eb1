"""retrolua.puffer against PufferLib 2.0.2 from PyPI: PufferLib's own checks of a native env (its PufferEnv's
constructor, `pufferlib.vector.make`'s and `check_envs`, the vector's first-send action check, PufferLib's
`check_space` on what comes back); stepping the env equals stepping the pool with the same actions;
`pufferlib.vector.make` with the native and Multiprocessing backends steps, resets and reports episodes (2
workers of 3 equal one env of 6); bad actions raise ValueError and a killed emulator EnvironmentFailed. (The
2.0.2 wheel ships no trainer, and its torch models need torch >= 2.3, newer than Debian's.) Needs
build/venv-puffer (scripts/setup); run by Tests/HostTests/PythonPackageTests.swift:
`build/venv-puffer/bin/python -m pytest Tests/python/test_puffer.py`."""

import os
import signal
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

pytest.importorskip("pufferlib")
import pufferlib  # noqa: E402
import pufferlib.emulation  # noqa: E402
import pufferlib.vector  # noqa: E402
from pufferlib.exceptions import APIUsageError  # noqa: E402

import retrolua.env  # noqa: E402
from retrolua.pool import make_pool  # noqa: E402
from retrolua.puffer import EnvironmentFailed, RetroluaPufferEnv  # noqa: E402

DODGE = os.path.join(ROOT, "build", "roms", "dodge.nes")
SCENARIO = os.path.join(ROOT, "examples", "python", "dodge_scenario.lua")
OPTIONS = dict(core="nestopia", scenario=SCENARIO, actions=retrolua.env.DODGE_ACTIONS, frameskip=2, obs="ram",
               max_steps=12)

pytestmark = pytest.mark.skipif(not os.path.exists(DODGE), reason="build/roms/dodge.nes is built by scripts/roms")


def actions_for(space, count, steps, seed=0):
    """`steps` batches of `count` seeded actions from a single agent's `space`."""
    space.seed(seed)
    return [np.stack([space.sample() for _ in range(count)]).astype(np.int32) for _ in range(steps)]


@pytest.mark.parametrize("obs", ["ram", "screen"])
@pytest.mark.parametrize("actions", [retrolua.env.DODGE_ACTIONS, None], ids=["Discrete", "MultiBinary"])
def test_pufferlibs_checks_pass(obs, actions):
    env = pufferlib.vector.make(RetroluaPufferEnv, env_args=[DODGE], env_kwargs=dict(OPTIONS, num_envs=2, obs=obs,
                                                                                     actions=actions))
    try:  # the native backend: PufferEnv.__init__ checked the spaces and vector.make that it is native
        assert isinstance(env, pufferlib.PufferEnv) and env.num_agents == 2
        pufferlib.vector.check_envs([env], env)
        observations, infos = env.reset(seed=0)
        assert infos == [] and observations is env.observations
        pufferlib.emulation.check_space(observations, env.observation_space)
        for batch in actions_for(env.single_action_space, 2, 3):
            assert env.action_space.contains(batch)  # what Multiprocessing checks on its first send
            observations, rewards, terminals, truncations, infos = env.step(batch)
            pufferlib.emulation.check_space(observations, env.observation_space)
            assert rewards.dtype == np.float32 and terminals.dtype == truncations.dtype == bool
            assert isinstance(infos, list)
    finally:
        env.close()


def test_stepping_the_puffer_env_equals_stepping_the_pool():
    env = RetroluaPufferEnv(DODGE, num_envs=3, **OPTIONS)
    pool = make_pool(DODGE, 3, autoreset_mode="SameStep", **OPTIONS)
    try:
        assert np.array_equal(env.reset(seed=5)[0], pool.reset(seed=5)[0])
        ended = 0
        for batch in actions_for(env.single_action_space, 3, 30, seed=1):
            observations, rewards, terminals, truncations, infos = env.step(batch)
            theirs, their_rewards, their_terminals, their_truncations, _ = pool.step(batch)
            assert np.array_equal(observations, theirs) and np.array_equal(rewards, their_rewards)
            assert np.array_equal(terminals, their_terminals) and np.array_equal(truncations, their_truncations)
            ends = np.flatnonzero(terminals | truncations)
            assert [info["env_id"] for info in infos] == ends.tolist()
            assert all(0 < info["episode_length"] <= 12 and "score" in info for info in infos)
            ended += len(ends)
        assert ended >= 6  # max_steps=12 over 30 steps: every emulator ended at least twice
    finally:
        env.close()
        pool.close()


def test_the_native_and_multiprocessing_backends_step_and_reset_alike():
    native = pufferlib.vector.make(RetroluaPufferEnv, env_args=[DODGE], env_kwargs=dict(OPTIONS, num_envs=6))
    workers = pufferlib.vector.make(RetroluaPufferEnv, env_args=[DODGE], env_kwargs=dict(OPTIONS, num_envs=3),
                                    backend=pufferlib.vector.Multiprocessing, num_envs=2, num_workers=2,
                                    overwork=True)
    try:
        assert workers.num_agents == 6 and workers.single_action_space == native.single_action_space
        for _ in range(2):  # a second reset starts the same episodes again
            first = native.reset(seed=3)[0].copy()
            assert np.array_equal(workers.reset(seed=3)[0], first)  # worker w seeds 3 * 3 + w * 3 + i
            episodes = []
            for batch in actions_for(native.single_action_space, 6, 14, seed=2):
                ours = native.step(batch)
                theirs = workers.step(batch)
                for a, b in zip(ours[:4], theirs[:4]):
                    assert np.array_equal(a, b)
                episodes += theirs[4]
            assert len(episodes) == 6 and {info["episode_length"] for info in episodes} == {12}
        with pytest.raises(APIUsageError, match="Serial"):  # PufferLib 2.0's Serial takes no native env
            pufferlib.vector.make(RetroluaPufferEnv, env_args=[DODGE], env_kwargs=dict(OPTIONS, num_envs=1),
                                  backend=pufferlib.vector.Serial, num_envs=1)
    finally:
        native.close()
        workers.close()
        workers.driver_env.close()  # Multiprocessing's own copy, for the spaces; its close leaves it open


def test_bad_actions_and_options_are_refused():
    env = RetroluaPufferEnv(DODGE, num_envs=2, **OPTIONS)
    buttons = RetroluaPufferEnv(DODGE, num_envs=1, **dict(OPTIONS, actions=None))
    try:
        env.reset(seed=0)
        buttons.reset(seed=0)
        for bad in (np.array([0, 5]), np.array([-1, 0]), np.array([0]), np.array([[0, 1], [1, 0]])):
            with pytest.raises(ValueError):
                env.step(bad)
        with pytest.raises(ValueError):
            buttons.step(np.full((1, buttons.single_action_space.shape[0]), 2))
        env.step(np.array([1, 2]))  # the env goes on after a refusal
    finally:
        env.close()
        buttons.close()
    for bad in (dict(obs="both"), dict(batch_size=1), dict(autoreset_mode="NextStep")):
        with pytest.raises(ValueError, match="RetroluaPufferEnv"):
            RetroluaPufferEnv(DODGE, num_envs=2, **dict(OPTIONS, **bad))


def test_a_killed_emulator_raises_environment_failed():
    env = RetroluaPufferEnv(DODGE, num_envs=2, **OPTIONS)
    try:
        env.reset(seed=0)
        env.step(np.array([0, 0]))
        os.kill(env.pool.envs[1].emu._launched.process.pid, signal.SIGKILL)
        with pytest.raises(EnvironmentFailed, match=r"^environment 1: ") as failure:
            env.step(np.array([0, 0]))
        assert failure.value.index == 1
    finally:
        env.close()
