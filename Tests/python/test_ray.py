"""`retrolua.ray` on a local 2-CPU Ray cluster (one for the whole module, its processes checked gone at
the end): a farm of 4 jobs with one failing equals `retrolua batch`, per-job timeouts and bad lines,
the Ray-actor vector env against gymnasium's SyncVectorEnv (spaces, batching, next-step autoreset,
determinism), examples/python/ray_farm.py, and `retrolua batch --ray` end to end. Run by
Tests/HostTests/PythonPackageTests.swift (RETROLUA = the built binary):
`build/venv/bin/python -m pytest Tests/python/test_ray.py`."""

import json
import signal
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="scripts/setup installs Ray into build/venv")
gymnasium = pytest.importorskip("gymnasium")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON_DIR = os.path.join(ROOT, "python")
sys.path.insert(0, PYTHON_DIR)

import retrolua.ray  # noqa: E402
from retrolua.env import DODGE_ACTIONS, RetroluaEnv  # noqa: E402

BINARY = os.environ.get("RETROLUA") or os.path.join(ROOT, ".build", "debug", "retrolua")
DODGE = os.path.join(ROOT, "build", "roms", "dodge.nes")
BOT = os.path.join(ROOT, "examples", "python", "dodge_farm_bot.lua")
SCENARIO = os.path.join(ROOT, "examples", "python", "dodge_scenario.lua")


def _bot_job(seed, **extra):
    job = {"rom": DODGE, "core": "nestopia", "script": BOT, "frames": 400,
           "env": {"SEED": str(seed), "MAX_FRAMES": "300"}}
    job.update(extra)
    return json.dumps(job)


JOB_LINES = [
    "# four jobs: three games and a missing ROM",
    _bot_job(1, name="seed 1"),
    _bot_job(2),  # unnamed: batch calls it "line 3"
    json.dumps({"name": "missing rom", "rom": os.path.join(ROOT, "build", "roms", "no-such.nes"), "frames": 5}),
    "",
    _bot_job(3, name="seed 3"),
]


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster with 2 CPUs; its address. Workers import the tree's package (PYTHONPATH)."""
    saved = {key: os.environ.get(key) for key in ("PYTHONPATH", "RETROLUA")}
    os.environ["PYTHONPATH"] = PYTHON_DIR + (":" + saved["PYTHONPATH"] if saved["PYTHONPATH"] else "")
    os.environ["RETROLUA"] = BINARY
    folder = tempfile.mkdtemp(prefix="rl-ray-", dir="/tmp")
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", _temp_dir=folder,
             logging_level="warning")
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        # No Ray process (they all name the session folder) and no run of ours is left behind.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and _processes_naming(folder):
            time.sleep(0.2)
        leftover = _processes_naming(folder)
        shutil.rmtree(folder, ignore_errors=True)
        assert not leftover, leftover


def _processes_naming(text):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as file:
                command = file.read().replace(b"\0", b" ").decode("utf-8", "replace")
            with open("/proc/%s/stat" % pid) as file:
                zombie = file.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            continue
        if text in command and not zombie:
            found.append(command[:200])
    return found


@pytest.fixture(scope="module")
def jobs_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("jobs") / "jobs.jsonl"
    path.write_text("\n".join(JOB_LINES) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def batch_lines(jobs_file):
    """What plain `retrolua batch` says about the same jobs, by name."""
    done = subprocess.run([BINARY, "batch", jobs_file, "--jobs", "2"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    return {line["name"]: line for line in map(json.loads, done.stdout.splitlines())}


def _same_run(ours, theirs):
    """Two reports of one job agree: the same outcome and, for runs, the same game (frames, hash, results)."""
    assert (ours["ok"], ours["status"]) == (theirs["ok"], theirs["status"]), (ours, theirs)
    if "result" in theirs:
        for key in ("frames", "frame", "results", "exit_code"):
            assert ours["result"][key] == theirs["result"][key], key


def test_a_farm_of_four_jobs_with_one_failing_equals_batch(cluster, jobs_file, batch_lines):
    seen = []
    results = retrolua.ray.map_jobs(jobs_file, progress=seen.append, timeout=120)
    assert len(seen) == 4 and sorted(result.job for result in seen) == [1, 2, 3, 4]
    assert [result.name for result in results] == ["seed 1", "line 3", "missing rom", "seed 3"]
    for result in results:
        _same_run(result.line(), batch_lines[result.name])
        assert result.node
    failed = results[2]
    assert not failed.ok and failed.status == 1 and "no-such.nes" in failed.error
    scores = [result.result["results"]["score"] for result in results if result.ok]
    assert len(scores) == 3 and all(isinstance(score, int) for score in scores)


def test_timeouts_bad_lines_and_dict_jobs(cluster):
    jobs = [
        {"name": "endless", "rom": DODGE, "frames": 100000000, "timeout": 1},
        {"name": "typed", "rom": DODGE, "frames": "600"},
        "not json",
        {"name": "quick", "rom": DODGE, "frames": 5},
    ]
    results = retrolua.ray.map_jobs(jobs)
    endless, typed, garbage, quick = results
    assert endless.timed_out and not endless.ok and endless.status == 143
    assert endless.error.startswith("timed out after 1.0 s")
    assert endless.result["exit_code"] == 143  # stopped cleanly: the run still reported
    assert not typed.ok and typed.error == "job 'typed': 'frames' must be a whole number, got the string \"600\""
    assert (garbage.name, garbage.error) == ("line 3", "line 3 is not a JSON object")
    assert quick.ok and quick.result["frames"] == 5


def _dodge_options():
    return dict(rom=DODGE, core="nestopia", scenario=SCENARIO, obs="ram", actions=DODGE_ACTIONS, frameskip=4,
                max_steps=5, noop_max=30)


def test_the_ray_vector_env_behaves_as_gymnasiums_sync_vector_env(cluster):
    envs = retrolua.ray.RayVectorEnv(2, **_dodge_options())
    reference = gymnasium.vector.SyncVectorEnv([lambda: RetroluaEnv(**_dodge_options())] * 2)
    try:
        assert envs.num_envs == 2
        assert envs.single_observation_space == reference.single_observation_space
        assert envs.observation_space == reference.observation_space  # Box(0, 255, (2, 2048), uint8)
        assert envs.single_action_space == gymnasium.spaces.Discrete(5)
        assert envs.action_space == reference.action_space
        assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
        observations, infos = envs.reset(seed=7)
        expected, _ = reference.reset(seed=7)
        assert observations.shape == (2, 2048) and observations.dtype == np.uint8
        assert observations in envs.observation_space
        assert np.array_equal(observations, expected)  # the same seeds, the same no-op starts
        assert "frame" in infos and infos["_frame"].all()
        moves = np.random.default_rng(3).integers(0, 5, size=(12, 2))
        for step, actions in enumerate(moves):
            ours = envs.step(actions)
            theirs = reference.step(actions)
            for mine, other in zip(ours[:4], theirs[:4]):
                assert np.array_equal(mine, other), step
            # max_steps=5: both truncate at the 5th step and reset at the 6th (next-step autoreset).
            assert ours[3].all() == (step in (4, 10))
        other_seed, _ = envs.reset(seed=8)
        assert not np.array_equal(other_seed, expected)
        stats = gymnasium.wrappers.vector.RecordEpisodeStatistics(envs)
        stats.reset(seed=1)
        ended = [stats.step(stats.action_space.sample())[-1] for _ in range(5)][-1]
        assert ended["episode"]["l"].tolist() == [5, 5]  # both episodes ended by truncation at step 5
    finally:
        envs.close()
        reference.close()
    assert envs.actors == []


def test_a_ray_vector_env_of_batch_doors_equals_one_actor_per_env(cluster):
    grouped = retrolua.ray.RayVectorEnv(4, envs_per_actor=2, num_cpus=0.25, **_dodge_options())
    single = retrolua.ray.RayVectorEnv(4, num_cpus=0.25, **_dodge_options())
    try:
        assert len(grouped.actors) == 2 and grouped.num_envs == 4
        assert grouped.observation_space == single.observation_space
        first, infos = grouped.reset(seed=3)
        second, _ = single.reset(seed=3)
        assert np.array_equal(first, second) and infos["_frame"].all()
        for actions in np.random.default_rng(5).integers(0, 5, size=(8, 4)):
            ours, theirs = grouped.step(actions), single.step(actions)
            for mine, other in zip(ours[:4], theirs[:4]):
                assert np.array_equal(mine, other)
            assert np.array_equal(ours[4]["frame"], theirs[4]["frame"])
        assert len(grouped.call("max_steps")) == 4
        with pytest.raises(ValueError, match="multiple"):
            retrolua.ray.RayVectorEnv(3, envs_per_actor=2, **_dodge_options())
    finally:
        grouped.close()
        single.close()


def test_the_ray_farm_example(cluster):
    done = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", "ray_farm.py"),
                           "--address", cluster, "--seeds", "3", "--frames", "300"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(" score ") >= 3
    assert "best: seed" in done.stdout and "of 3 seeds" in done.stdout, done.stdout


def test_retrolua_batch_ray_prints_what_batch_prints(cluster, jobs_file, batch_lines):
    env = dict(os.environ, RETROLUA_PYTHON=sys.executable)
    done = subprocess.run([BINARY, "batch", "--ray", cluster, jobs_file, "--jobs", "2", "--timeout", "120"],
                          capture_output=True, text=True, timeout=180, env=env)
    assert done.returncode == 1, done.stderr  # one job failed
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(line["job"] for line in lines) == [1, 2, 3, 4]
    for line in lines:
        _same_run(line, batch_lines[line["name"]])
    assert "batch: 4 jobs, 3 passed, 1 failed" in done.stderr
    usage = subprocess.run([BINARY, "batch", "--ray", cluster, jobs_file, "--jobs", "0"], capture_output=True,
                           text=True, timeout=60, env=env)
    assert usage.returncode == 2 and "--jobs must be at least 1" in usage.stderr  # batch's own rule, up front


def test_a_stop_signal_cancels_the_farm_and_leaves_no_run(cluster, tmp_path):
    marker = "--frames 987654321"  # these jobs' runs, found by their command line
    path = tmp_path / "endless.jsonl"
    path.write_text("".join(json.dumps({"name": "endless %d" % n, "rom": DODGE, "frames": 987654321}) + "\n"
                            for n in range(2)))
    env = dict(os.environ, RETROLUA_PYTHON=sys.executable)
    farm = subprocess.Popen([BINARY, "batch", "--ray", cluster, str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while len(_processes_naming(marker)) < 2 and time.monotonic() < deadline and farm.poll() is None:
            time.sleep(0.2)
        assert len(_processes_naming(marker)) == 2, farm.poll()
        farm.send_signal(signal.SIGTERM)
        out, err = farm.communicate(timeout=60)
    finally:
        if farm.poll() is None:
            farm.kill()
    assert farm.returncode == 143, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert sorted(line["name"] for line in lines) == ["endless 0", "endless 1"]
    assert all(not line["ok"] and "stopped" in line["error"] for line in lines)
    deadline = time.monotonic() + 10
    while _processes_naming(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _processes_naming(marker)
