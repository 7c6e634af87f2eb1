"""The Python examples that need only gymnasium (examples/python/random_agent.py), run as a user runs
them, with short budgets. Run by Tests/HostTests/PythonPackageTests.swift with build/venv (gymnasium
1.x) and with build/venv-sb3 (gymnasium 0.29): `build/venv/bin/python -m pytest Tests/python/test_examples.py`.
The PPO example is in test_sb3.py (it needs stable-baselines3)."""

import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("gymnasium")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples", "python")
EPISODE = re.compile(r"^episode (\d+): return (-?[\d.]+), (\d+) steps \((terminated|truncated)\)$", re.M)


def run_example(name, *arguments, timeout=60):
    """The example in a process of its own (as `python examples/python/NAME …`), from another folder:
    it finds the package and the tree's files by itself."""
    return subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *arguments], cwd="/",
                          capture_output=True, text=True, timeout=timeout)


def test_the_random_agent_plays_dodge_and_prints_episode_returns():
    arguments = ["--env", "retrolua/Dodge-v0", "--steps", "120", "--max-episode-steps", "50", "--seed", "4"]
    result = run_example("random_agent.py", *arguments)
    assert result.returncode == 0, result.stdout + result.stderr
    episodes = EPISODE.findall(result.stdout)
    assert len(episodes) == 2 and all(steps == "50" and how == "truncated" for _, _, steps, how in episodes), result.stdout
    assert re.search(r"^2 episodes finished, mean return -?[\d.]+; 120 steps in ", result.stdout, re.M), result.stdout
    again = run_example("random_agent.py", *arguments)  # the seed decides the actions: the same returns
    assert EPISODE.findall(again.stdout) == episodes, again.stdout


def test_the_random_agent_on_a_rom_of_ones_own():
    result = run_example("random_agent.py", "--rom", os.path.join(ROOT, "build", "roms", "demo.nes"),
                         "--core", "nestopia", "--obs", "ram", "--steps", "30", "--max-episode-steps", "10")
    assert result.returncode == 0, result.stdout + result.stderr
    assert [(ret, steps) for _, ret, steps, _ in EPISODE.findall(result.stdout)] == [("0", "10")] * 3, result.stdout


def test_the_random_agent_on_a_stable_retro_integration():
    if __import__("importlib.util").util.find_spec("stable_retro") is None:
        pytest.skip("stable-retro (its integrations) is in build/venv only")
    result = run_example("random_agent.py", "--rom", os.path.join(ROOT, "build", "roms", "airstriker.md"),
                         "--core", os.path.join(ROOT, "build", "cores", "genesis_plus_gx_libretro.so"),
                         "--integration", "Airstriker-Genesis-v0", "--actions", "discrete", "--steps", "60",
                         "--max-episode-steps", "30")
    assert result.returncode == 0, result.stdout + result.stderr
    assert [steps for _, _, steps, _ in EPISODE.findall(result.stdout)] == ["30", "30"], result.stdout


@pytest.mark.parametrize("arguments", [["--steps", "0"], ["--steps", "many"], ["--obs", "pixels"]])
def test_the_random_agent_refuses_bad_arguments(arguments):
    result = run_example("random_agent.py", *arguments)
    assert result.returncode == 2 and "random_agent.py: error:" in result.stderr, result.stderr
