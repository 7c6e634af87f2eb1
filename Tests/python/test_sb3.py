"""stable-baselines3 against Retrolua's environments: SB3's own `check_env`, unmodified, on RAM, screen
and Dict (`both`) observations with both action spaces; PPO learning a few steps from each kind of
observation; the PPO example (examples/python/ppo_dodge.py) with a tiny budget. Needs build/venv-sb3
(scripts/setup: SB3 2.3.2, gymnasium 0.29.1, Debian's CPU torch); run by
Tests/HostTests/PythonPackageTests.swift: `build/venv-sb3/bin/python -m pytest Tests/python/test_sb3.py`."""

import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

pytest.importorskip("stable_baselines3")
import gymnasium  # noqa: E402
from gymnasium.utils.env_checker import check_env as gymnasium_check_env  # noqa: E402
from stable_baselines3 import PPO  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402

import retrolua  # noqa: E402
import retrolua.env  # noqa: E402,F401  (registers retrolua/Dodge-v0 and retrolua/Dodge-ram-v0)

NES = os.path.join(ROOT, "build", "roms", "demo.nes")
SCENARIO = os.path.join(ROOT, "examples", "python", "demo_scenario.lua")


@pytest.mark.parametrize("actions", [None, [[], ["right"], ["left"], ["a", "right"]]], ids=["MultiBinary", "Discrete"])
@pytest.mark.parametrize("obs", ["ram", "screen", "both"])
def test_sb3_check_env_passes_without_a_warning(obs, actions):
    env = retrolua.make(NES, core="nestopia", scenario=SCENARIO, obs=obs, actions=actions, frameskip=2, noop_max=4,
                        sticky=0.25)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # SB3 warns about what its algorithms would not handle well
            check_env(env)
        gymnasium_check_env(env, skip_render_check=True)  # and gymnasium's own, in this venv's 0.29
    finally:
        env.close()


@pytest.mark.parametrize("env_id", ["retrolua/Dodge-ram-v0", "retrolua/Dodge-v0"])
def test_sb3_check_env_passes_on_the_registered_dodge(env_id):
    env = gymnasium.make(env_id)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env.unwrapped)
    finally:
        env.close()


@pytest.mark.parametrize("obs, policy", [("ram", "MlpPolicy"), ("screen", "CnnPolicy"), ("both", "MultiInputPolicy")])
def test_ppo_learns_from_each_kind_of_observation(obs, policy):
    env = retrolua.make(NES, core="nestopia", scenario=SCENARIO, obs=obs, actions=[[], ["right"], ["left"]],
                        frameskip=4, max_steps=20)
    try:
        # One rollout and one update; no orthogonal init (seconds for NatureCNN's 43008×512 layer).
        model = PPO(policy, env, n_steps=16, batch_size=16, n_epochs=1, seed=0, device="cpu", verbose=0,
                    policy_kwargs={"ortho_init": False})
        model.learn(total_timesteps=16)
        assert model.num_timesteps == 16
        observation, _ = env.reset(seed=0)
        action, _ = model.predict(observation, deterministic=True)
        assert env.action_space.contains(int(action))
    finally:
        env.close()


def test_the_ppo_example_trains_and_prints_the_mean_reward_before_and_after():
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "python", "ppo_dodge.py"), "--timesteps", "256",
         "--n-steps", "64", "--batch-size", "32", "--eval-episodes", "2", "--max-episode-steps", "50"],
        cwd="/", capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "retrolua/Dodge-ram-v0 passes stable-baselines3's check_env" in result.stdout, result.stdout
    before = re.search(r"^mean reward before: (-?[\d.]+) ± ([\d.]+)$", result.stdout, re.M)
    after = re.search(r"^mean reward after: (-?[\d.]+) ± ([\d.]+)$", result.stdout, re.M)
    assert before and after, result.stdout
    # At most 50 steps of 4 frames: from -3 (three lives lost) to a few coins.
    assert all(-3 <= float(match.group(1)) <= 10 for match in (before, after)), result.stdout
    assert re.search(r"^trained 256 timesteps in ", result.stdout, re.M), result.stdout



def test_ppo_trains_on_the_batch_door_vec_env_as_on_subproc_vec_env():
    from stable_baselines3.common.vec_env import SubprocVecEnv
    from retrolua.sb3 import RetroluaVecEnv

    dodge = os.path.join(ROOT, "build", "roms", "dodge.nes")
    options = dict(core="nestopia", obs="ram", scenario=os.path.join(ROOT, "examples", "python", "dodge_scenario.lua"),
                   actions=retrolua.env.DODGE_ACTIONS, frameskip=4, max_steps=12)
    ours = RetroluaVecEnv(dodge, 3, **options)
    theirs = SubprocVecEnv([lambda: retrolua.make(dodge, **options)] * 3)
    try:
        ours.seed(4)
        theirs.seed(4)
        assert np.array_equal(ours.reset(), theirs.reset())
        ended = 0
        for step in range(30):  # SB3's conventions: same observations, rewards, dones and terminal observations
            actions = np.array([step % 5, (step * 3) % 5, 2])
            mine, other = ours.step(actions), theirs.step(actions)
            for a, b in zip(mine[:3], other[:3]):
                assert np.array_equal(a, b), step
            for a, b in zip(mine[3], other[3]):
                assert ("terminal_observation" in a) == ("terminal_observation" in b)
                if "terminal_observation" in a:
                    ended += 1
                    assert np.array_equal(a["terminal_observation"], b["terminal_observation"])
                    assert a["TimeLimit.truncated"] == b["TimeLimit.truncated"]
        assert ended >= 3
        model = PPO("MlpPolicy", ours, n_steps=16, batch_size=24, n_epochs=1, seed=0, device="cpu", verbose=0)
        model.learn(total_timesteps=48)
        assert model.num_timesteps == 48
        assert ours.get_attr("max_steps") == [12, 12, 12]
    finally:
        ours.close()
        theirs.close()


def test_the_vec_env_refuses_bad_actions_naming_the_env_and_value():
    from retrolua.sb3 import RetroluaVecEnv

    vec = RetroluaVecEnv(os.path.join(ROOT, "build", "roms", "dodge.nes"), 2, core="nestopia", obs="ram",
                         actions=retrolua.env.DODGE_ACTIONS, frameskip=2)
    try:
        vec.reset()
        space = r"is not in Discrete\(5\)"
        for actions, message in [
                (np.array([-1, 0]), r"^env 0: action -1 %s \(negative indices are refused\)" % space),  # not the last
                (np.array([0, 5]), r"^env 1: action 5 %s \(past 4" % space),
                (np.array([0, 1, 2]), r"^expected one action per env \(2 envs\), got 3"),
                (np.zeros((2, 2), dtype=np.int64), r"^env 0: action \[0, 0\] %s \(shape \(2,\)" % space),
                (np.array(["0", "1"]), r"^env 0: action '0' %s \('0' is not a number\)" % space),
                (np.array([0, None], dtype=object), r"^env 1: action None %s" % space),
                (np.array([0.0, 1.5]), r"^env 1: action 1.5 %s \(not a whole number\)" % space),
                (np.array([np.nan, 0.0]), r"^env 0: action nan %s \(NaN is not a number\)" % space),
                (np.array([0.0, np.inf]), r"^env 1: action inf %s \(past 4" % space)]:
            with pytest.raises(ValueError, match=message):
                vec.step(actions)
        assert len(vec.step(np.array([0, 1]))[1]) == 2  # none was started: both step
    finally:
        vec.close()
