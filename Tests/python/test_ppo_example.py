"""The PyTorch PPO example (examples/python/ppo.py) with a tiny budget, on pixels and on RAM: it trains,
exits 0 and writes its CSV and its learning curve. Needs torch and matplotlib: build/venv-sb3 (Debian's CPU
torch and matplotlib); run by Tests/HostTests/PythonPackageTests.swift:
`build/venv-sb3/bin/python -m pytest Tests/python/test_ppo_example.py`."""

import csv
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PPO = os.path.join(ROOT, "examples", "python", "ppo.py")

pytest.importorskip("torch", reason="ppo.py needs torch: run this with build/venv-sb3/bin/python (scripts/setup)")
pytest.importorskip("matplotlib", reason="ppo.py draws its curve with matplotlib (Debian's python3-matplotlib)")
pytest.importorskip("gymnasium")


def run_ppo(tmp_path, *arguments):
    """ppo.py as a user runs it, from another folder, on the CPU (the smoke must not need a GPU)."""
    return subprocess.run([sys.executable, PPO, "--total-steps", "256", "--envs", "2", "--steps-per-rollout", "32",
                           "--device", "cpu", "--csv", str(tmp_path / "curve.csv"),
                           "--plot", str(tmp_path / "curve.png"), *arguments],
                          cwd="/", capture_output=True, text=True, timeout=240)


@pytest.mark.parametrize("obs, extra", [("pixels", []), ("ram", ["--coin-shaping", "2"])], ids=["pixels", "ram"])
def test_the_ppo_example_trains_and_writes_its_csv_and_learning_curve(tmp_path, obs, extra):
    # Episodes cut at 20 steps, so the 256 steps end some and the CSV has rows.
    result = run_ppo(tmp_path, "--obs", obs, "--max-episode-steps", "20", "--seed", "3", *extra)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"^ppo\.py: %s, 2 envs x 32 steps, 4 updates, cpu$" % obs, result.stdout, re.M), result.stdout
    assert len(re.findall(r"^update \d/4: ", result.stdout, re.M)) == 4, result.stdout
    assert re.search(r"^trained 256 env steps in ", result.stdout, re.M), result.stdout
    with open(tmp_path / "curve.csv", newline="") as file:
        rows = list(csv.reader(file))
    assert rows[0] == ["env_steps", "episodes", "mean_return_last_20"], rows
    assert rows[1:] and all(int(steps) % 64 == 0 and int(episodes) >= 1 and -3 <= float(mean) <= 20
                            for steps, episodes, mean in rows[1:]), rows
    with open(tmp_path / "curve.png", "rb") as file:
        assert file.read(8) == b"\x89PNG\r\n\x1a\n"


def test_the_same_seed_gives_the_same_curve(tmp_path):
    first = run_ppo(tmp_path, "--obs", "ram", "--max-episode-steps", "20", "--seed", "5")
    with open(tmp_path / "curve.csv") as file:
        curve = file.read()
    again = run_ppo(tmp_path, "--obs", "ram", "--max-episode-steps", "20", "--seed", "5")
    assert first.returncode == 0 and again.returncode == 0, first.stderr + again.stderr
    with open(tmp_path / "curve.csv") as file:
        assert file.read() == curve


@pytest.mark.parametrize("arguments, message", [(["--total-steps", "0"], "must be >= 1"),
                                                (["--obs", "screen"], "invalid choice"),
                                                (["--minibatches", "5"], "must divide into --minibatches"),
                                                (["--coin-shaping", "1"], "--coin-shaping needs --obs ram")])
def test_the_ppo_example_refuses_bad_arguments(tmp_path, arguments, message):
    result = run_ppo(tmp_path, *arguments)
    assert result.returncode == 2 and "ppo.py: error:" in result.stderr and message in result.stderr, result.stderr
