"""Many emulators behind one batch door (retrolua._batch, retrolua.vector, retrolua.pool): same seed ⇒ same
batches whatever order the emulators finish in; an env's frames equal a single env's on the same inputs;
the shared batch equals the screenshots and memory reads; a core crashing mid-step is reported for its env
while the others go on, and the env restarts; kill -9 of the trainer ends every emulator within 2 s and
leaves nothing in /dev/shm or TMPDIR; the Gymnasium vector contract; hostile batch requests; bad actions
refused naming the env and value at every door; an emulator killed (kill -9) or closed mid-run reported for its env.

Run: RETROLUA=$PWD/.build/debug/retrolua build/venv/bin/python -m pytest -q Tests/python/test_batch.py
"""

import hashlib
import mmap
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gymnasium  # noqa: E402
from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
import retrolua  # noqa: E402
from processes import gone  # noqa: E402
from retrolua import _batch  # noqa: E402
from retrolua import _protocol as wire  # noqa: E402
from retrolua.errors import RetroluaError  # noqa: E402
from retrolua.pool import EnvironmentFailed, make_pool  # noqa: E402

DODGE = os.path.join(ROOT, "build", "roms", "dodge.nes")
SCENARIO = os.path.join(ROOT, "examples", "python", "dodge_scenario.lua")
OPTIONS = dict(core="nestopia", scenario=SCENARIO, actions=retrolua.env.DODGE_ACTIONS, frameskip=2)

pytestmark = pytest.mark.skipif(not os.path.exists(DODGE), reason="build/roms/dodge.nes is built by scripts/roms")


def digest(array):
    return hashlib.sha1(np.ascontiguousarray(array).tobytes()).hexdigest()


def moves(env_id, count):
    """Env `env_id`'s actions, the same whatever order the pool returns the envs in."""
    return np.random.default_rng(1000 + env_id).integers(0, 5, count)


def pool_trajectories(batch_size, steps=40, **options):
    """Each env's (observation hash, reward, terminated, truncated) per step, through a pool."""
    pool = make_pool(DODGE, 4, batch_size, **dict(OPTIONS, **options))
    plan = {env: moves(env, 4 * steps) for env in range(4)}
    seen = {env: [] for env in range(4)}
    try:
        pool.async_reset(seed=7)
        while min(len(trail) for trail in seen.values()) < steps:
            observations, rewards, terminations, truncations, info = pool.recv()
            ids = [int(env) for env in info["env_id"]]
            for row, env in enumerate(ids):
                seen[env].append((digest(observations[row]), float(rewards[row]), bool(terminations[row]),
                                  bool(truncations[row])))
            pool.send(np.array([plan[env][len(seen[env]) - 1] for env in ids]), ids)
        return {env: seen[env][:steps] for env in seen}
    finally:
        pool.close()


def test_same_seed_gives_the_same_batches_whatever_order_the_emulators_finish_in():
    asynchronous = pool_trajectories(2, obs="ram", max_steps=15)
    again = pool_trajectories(2, obs="ram", max_steps=15)
    synchronous = pool_trajectories(4, obs="ram", max_steps=15)
    assert asynchronous == again == synchronous
    assert any(step[3] for env in asynchronous.values() for step in env)  # episodes ended and reset


def test_an_envs_frames_equal_a_single_envs_on_the_same_inputs():
    batched = pool_trajectories(4, steps=25, obs="screen", max_steps=1000)
    single = retrolua.make(DODGE, obs="screen", max_steps=1000, **OPTIONS)
    try:
        for env in (0, 3):
            observation, _ = single.reset(seed=7 + env)
            trail = [digest(observation)]
            for action in moves(env, 24):
                observation, reward, terminated, truncated, _ = single.step(action)
                trail.append(digest(observation))
                if terminated:
                    break
            assert [step[0] for step in batched[env][:len(trail)]] == trail
    finally:
        single.close()


def test_the_preprocessed_pool_equals_the_preprocessed_vector_env():
    options = dict(OPTIONS, obs="screen", grayscale=True, resize=(84, 84), frame_stack=4, max_pool=True,
                   noop_max=8, sticky_actions=0.25, frameskip=4)
    vector = retrolua.make_vec(DODGE, 3, **options)
    pool = make_pool(DODGE, 3, **options)
    try:
        first, _ = vector.reset(seed=3)
        second, _ = pool.reset(seed=3)
        assert first.shape == (3, 4, 84, 84) and np.array_equal(first, second)
        for step in range(10):
            actions = np.array([step % 5, (step + 1) % 5, 4])
            a = vector.step(actions)
            b = pool.step(actions)
            assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    finally:
        vector.close()
        pool.close()


def test_the_shared_batch_equals_the_screenshots_and_memory_reads():
    envs = retrolua.make_vec(DODGE, 3, obs="both", **OPTIONS)
    try:
        envs.reset(seed=0)
        for step in range(5):
            batch, _, _, _, infos = envs.step(np.array([1, 2, step % 5]))
        for index, env in enumerate(envs.envs):
            assert np.array_equal(batch["screen"][index], env.emu.screen())
            ram = batch["ram"][index]
            assert np.array_equal(ram, env.emu.read(0, len(ram)))
        assert len({digest(batch["ram"][index]) for index in range(3)}) > 1  # different inputs, different games
    finally:
        envs.close()


def test_the_gymnasium_vector_contract():
    envs = retrolua.make_vec(DODGE, 3, obs="ram", max_steps=4, **OPTIONS)
    other = retrolua.make_vec(DODGE, 3, obs="ram", max_steps=4, **OPTIONS)
    try:
        observations, infos = envs.reset(seed=11)
        assert envs.observation_space.contains(observations)
        assert set(infos) >= {"frame", "_frame"}
        replay, _ = other.reset(seed=11)
        assert data_equivalence(observations, replay)
        ended = np.zeros(3, dtype=bool)
        for step in range(9):
            actions = envs.action_space.sample()
            observations, rewards, terminations, truncations, infos = envs.step(actions)
            again = other.step(actions)
            assert data_equivalence((observations, rewards, terminations, truncations),
                                                                again[:4])
            assert envs.observation_space.contains(observations)
            assert rewards.dtype == np.float64 and terminations.dtype == truncations.dtype == np.bool_
            assert all(infos["_" + key].dtype == np.bool_ for key in infos if not key.startswith("_"))
            # next-step autoreset: an env whose episode ended resets now, reward 0, not ended
            assert not (rewards[ended] != 0).any() and not (terminations | truncations)[ended].any()
            ended = terminations | truncations
        assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    finally:
        envs.close()
        other.close()


def test_the_pool_returns_every_env_and_says_when_a_send_is_wrong():
    pool = make_pool(DODGE, 4, 3, obs="ram", **OPTIONS)
    try:
        pool.async_reset(seed=0)
        _, _, _, _, info = pool.recv()
        assert sorted(info["env_id"]) == [0, 1, 2]
        with pytest.raises(RetroluaError, match="still has a step to recv"):
            pool.send(np.zeros(1, dtype=int), [3])  # env 3's reset is still waiting for recv
        pool.send(np.zeros(3, dtype=int), info["env_id"])
        returned = set()
        for _ in range(6):
            _, _, _, _, info = pool.recv()
            assert len(set(info["env_id"])) == 3
            returned |= set(int(env) for env in info["env_id"])
            pool.send(np.ones(3, dtype=int), info["env_id"])
        assert returned == {0, 1, 2, 3}
        with pytest.raises(ValueError, match="distinct"):
            pool.send(np.zeros(2, dtype=int), [0, 0])
        with pytest.raises(ValueError, match="batch_size"):
            make_pool(DODGE, 2, 3, **OPTIONS)
    finally:
        pool.close()


# -- bad actions: every door refuses them naming the env and the value, before any step is sent ------

D5 = r"is not in Discrete\(5\)"
#: (the actions of envs 0, 1 and 2, the ValueError's message): a batch of Dodge's Discrete(5).
BATCH_REFUSALS = [
    ([0, -1, 2], r"^env 1: action -1 %s \(negative indices are refused\)" % D5),  # never the last action
    (np.array([0, 1, 5]), r"^env 2: action 5 %s \(past 4, the space's largest\)" % D5),
    (np.array([0, 1], dtype=np.int64), r"^expected one action per env \(3 envs\), got 2: \[0, 1\]"),
    (np.zeros(4, dtype=int), r"^expected one action per env \(3 envs\), got 4"),
    (2, r"^expected one action per env \(3 envs\), got 2$"),
    (np.zeros((3, 2), dtype=int),
     r"^env 0: action \[0, 0\] %s \(shape \(2,\), where the space's actions are \(\)\)" % D5),
    ([[0], [1], [2]], r"^env 0: action \[0\] %s \(shape \(1,\)" % D5),
    (np.array(["0", "1", "2"]), r"^env 0: action '0' %s \('0' is not a number\)" % D5),
    ([0, b"1", 2], r"^env 1: action b'1' %s" % D5),
    ([0, None, 2], r"^env 1: action None %s \(None is not a number\)" % D5),
    (np.array([0, 1, {}], dtype=object), r"^env 2: action \{\} %s \(\{\} is not a number\)" % D5),
    ([0, 1, 2.5], r"^env 2: action 2.5 %s \(not a whole number\)" % D5),
    (np.array([0.0, 1.0, 0.5]), r"^env 2: action 0.5 %s \(not a whole number\)" % D5),
    ([0, 1 + 0j, 2], r"^env 1: action \(1\+0j\) %s" % D5),
    ([0, float("nan"), 2], r"^env 1: action nan %s \(NaN is not a number\)" % D5),
    ([float("inf"), 1, 2], r"^env 0: action inf %s \(past 4" % D5),
    ([0, 1, float("-inf")], r"^env 2: action -inf %s \(negative indices are refused\)" % D5),
    ([0, 2 ** 70, 2], r"^env 1: action 1180591620717411303424 %s \(past 4" % D5),
]
#: One env's action and its message (RetroluaEnv.step).
SINGLE_REFUSALS = [
    (-1, r"^action -1 %s \(negative indices are refused\)" % D5), (5, r"^action 5 %s \(past 4" % D5),
    (1.5, r"^action 1.5 %s \(not a whole number\)" % D5), ("1", r"^action '1' %s \('1' is not a number\)" % D5),
    (None, r"^action None %s" % D5), (float("nan"), r"^action nan %s \(NaN is not a number\)" % D5),
    (float("inf"), r"^action inf %s" % D5), (np.zeros((2, 2)), r"^each action of Discrete\(5\) has 1 value, got"),
    (np.int8(-1), r"^action -1 %s" % D5),
]


@pytest.mark.parametrize("door", ["env", "vector", "vector-sticky", "pool", "pool-step"])
def test_bad_actions_are_refused_naming_the_env_and_value_before_anything_is_sent(door):
    options = dict(OPTIONS, obs="ram", sticky=0.5 if door == "vector-sticky" else 0.0)  # sticky: each env's own path
    if door == "env":
        env = retrolua.make(DODGE, **options)
        try:
            frame = env.reset(seed=0)[1]["frame"]
            for action, message in SINGLE_REFUSALS:
                with pytest.raises(ValueError, match=message):
                    env.step(action)
            assert env.step(np.int64(4))[4]["frame"] == frame + 2  # none of the refused steps ran
        finally:
            env.close()
        return
    envs = (make_pool if door.startswith("pool") else retrolua.make_vec)(DODGE, 3, **options)
    try:
        envs.reset(seed=0)
        if door == "pool":  # send refuses; recv then has nothing started to return
            step = lambda actions: (envs.send(actions), envs.recv())[1]  # noqa: E731
        else:
            step = (lambda actions: envs.step(actions, [0, 1, 2])) if door == "pool-step" else envs.step
        frames = step(np.zeros(3, dtype=int))[4]["frame"].copy()
        for actions, message in BATCH_REFUSALS:
            with pytest.raises(ValueError, match=message):
                step(actions)
        if door.startswith("pool"):  # the env named is the id's, not the row's
            with pytest.raises(ValueError, match=r"^env 0: action 7 %s" % D5):
                envs.send(np.array([1, 7]), [2, 0])
        observations, _, _, _, info = step(np.array([1, 2, 3], dtype=np.uint8))
        assert observations.shape[0] == 3 and (info["frame"] == frames + 2).all()  # nothing refused ran
    finally:
        envs.close()


def test_bad_multi_discrete_actions_are_refused_naming_the_env():
    envs = retrolua.make_vec(DODGE, 2, core="nestopia", obs="ram", actions="multi_discrete")
    try:
        envs.reset(seed=0)
        space = r"is not in MultiDiscrete\(\[3 3 4\]\)"
        for actions, message in [
                ([[0, 0, 0], [0, 3, 0]], r"^env 1: action \[0, 3, 0\] %s \(past 2" % space),
                ([[0, -1, 0], [0, 0, 0]], r"^env 0: action \[0, -1, 0\] %s \(negative" % space),
                (np.zeros((2, 2), dtype=int),
                 r"^env 0: action \[0, 0\] %s \(shape \(2,\), where the space's actions are \(3,\)\)" % space),
                (np.zeros(3, dtype=int), r"^expected one action per env \(2 envs\), got 3"),
                ([[0, 0, 0], [0, 1]], r"^env 1: action \[0, 1\] %s \(shape" % space),
                ([[0, 0, 0], [0, 0, 1.5]], r"^env 1: action \[0, 0, 1.5\] %s \(not a whole number\)" % space),
                ([[0, 0, 0], ["0", 0, 0]], r"^env 1: action \['0', 0, 0\] %s \('0' is not a number\)" % space)]:
            with pytest.raises(ValueError, match=message):
                envs.step(actions)
        assert envs.step(np.array([[2, 2, 3], [0, 0, 0]]))[0].shape[0] == 2
    finally:
        envs.close()


def crash_core(folder):
    path = os.path.join(folder, "crash_libretro.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-DMODE_CRASH_ON_START", "-o", path,
                    os.path.join(ROOT, "Tests", "cores", "broken_core.c"), "-lm"], check=True)
    return path


@pytest.mark.parametrize("kind", ["vector", "pool"])
def test_a_core_crashing_mid_step_is_reported_for_its_env_and_the_others_go_on(tmp_path, kind):
    core = crash_core(str(tmp_path))
    content = tmp_path / "game.brk"
    content.write_bytes(b"\0" * 64)
    options = dict(core=core, obs="screen", actions=[[], ["start"]])
    envs = (retrolua.make_vec if kind == "vector" else make_pool)(str(content), 3, **options)
    try:
        envs.reset(seed=0)
        step = envs.step if kind == "vector" else (lambda actions: envs.step(actions, [0, 1, 2]))
        before = step(np.zeros(3, dtype=int))[4]["frame"].copy()
        with pytest.raises(EnvironmentFailed, match=r"environment 1: .*(exited|signal|closed)") as failure:
            step(np.array([0, 1, 0]))
        assert failure.value.index == 1
        envs.restart(1)
        if kind == "pool":
            envs.recv()  # the pool hands back the restarted env's reset first
            observations, _, _, _, info = envs.step(np.zeros(3, dtype=int), [0, 1, 2])
            frames = dict(zip(info["env_id"], info["frame"]))
        else:
            step(np.zeros(3, dtype=int))  # env 1 resets (next-step autoreset), the others step
            observations, _, _, _, info = step(np.zeros(3, dtype=int))
            frames = dict(enumerate(info["frame"]))
        assert observations.shape[0] == 3
        # envs 0 and 2 went on from where they were: the crash step ran for them too
        assert frames[0] > before[0] + 1 and frames[2] > before[2] + 1
    finally:
        envs.close()


@pytest.mark.parametrize("how", ["kill -9", "closed"])
@pytest.mark.parametrize("kind", ["vector", "vector-sticky", "pool"])
def test_an_emulator_killed_or_closed_mid_run_is_reported_for_its_env_and_the_others_go_on(kind, how):
    # vector-sticky: each env's own path (no batch lane); pool: the kill lands while its step is in flight
    options = dict(OPTIONS, obs="ram", sticky=0.5 if kind == "vector-sticky" else 0.0)
    envs = (make_pool if kind == "pool" else retrolua.make_vec)(DODGE, 3, **options)
    try:
        envs.reset(seed=0)
        step = (lambda actions: envs.step(actions, [0, 1, 2])) if kind == "pool" else envs.step
        before = step(np.zeros(3, dtype=int))[4]["frame"].copy()
        victim = envs.envs[1]
        if how == "closed":
            victim.close()
        elif kind == "pool":
            if how == "kill -9":  # stopped first: its step is posted and unanswered when the kill lands
                os.kill(victim.emu._launched.process.pid, signal.SIGSTOP)
            envs.send(np.zeros(3, dtype=int))
        if how == "kill -9":
            os.kill(victim.emu._launched.process.pid, signal.SIGKILL)
        with pytest.raises(EnvironmentFailed, match=r"^environment 1: the emulator exited") as failure:
            if kind == "pool" and how == "kill -9":
                envs.recv()
            else:
                step(np.zeros(3, dtype=int))
        assert failure.value.index == 1
        envs.restart(1)
        if kind == "pool":
            envs.recv()  # the restarted env's reset first
            _, _, _, _, info = envs.step(np.zeros(3, dtype=int), [0, 1, 2])
        else:
            step(np.zeros(3, dtype=int))  # env 1 resets (next-step autoreset), the others step
            _, _, _, _, info = step(np.zeros(3, dtype=int))
        frames = dict(zip(info.get("env_id", range(3)), info["frame"]))
        assert frames[0] > before[0] + 2 and frames[2] > before[2] + 2  # the others went on
    finally:
        envs.close()


TRAINER = """
import os, sys, time
import numpy as np
sys.path.insert(0, {python!r})
import retrolua
envs = retrolua.make_vec({rom!r}, 2, core="nestopia", obs="screen", frameskip=2)
envs.reset(seed=0)
print(" ".join(str(env.emu._launched.process.pid) for env in envs.envs), flush=True)
while True:
    envs.step(np.zeros((2, len(envs.envs[0].emu.buttons)), dtype=np.int8))
"""


def test_kill_9_of_the_trainer_ends_every_emulator_within_2_s_leaving_nothing_behind():
    shared_before = set(os.listdir("/dev/shm"))
    with tempfile.TemporaryDirectory() as scratch:
        environment = dict(os.environ, TMPDIR=scratch)
        trainer = subprocess.Popen([sys.executable, "-c", TRAINER.format(python=os.path.join(ROOT, "python"),
                                                                        rom=DODGE)],
                                   stdout=subprocess.PIPE, text=True, env=environment)
        try:
            pids = [int(pid) for pid in trainer.stdout.readline().split()]
            assert len(pids) == 2
            os.kill(trainer.pid, signal.SIGKILL)
            trainer.wait()
            assert all(gone(pid, 2.0) for pid in pids), "an emulator outlived its trainer by 2 s"
            assert os.listdir(scratch) == []
        finally:
            if trainer.poll() is None:
                trainer.kill()
    assert set(os.listdir("/dev/shm")) <= shared_before


# -- hostile batch requests: each refused with an error reply, the emulator serving on ---------------

def batch_request(emu, payload, descriptor=None):
    request = wire.REQUEST.pack(wire.BATCH, 0, len(payload), 0, 0, 0) + payload
    rights = [] if descriptor is None else [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", descriptor))]
    emu._sock.sendmsg([request], rights)
    emu._unread += 1
    emu._waiting = ("batch", 10.0, time.monotonic())
    return emu._reply_header()


def test_hostile_batch_requests_are_refused_and_the_emulator_serves_on():
    emu = retrolua.Emulator(DODGE, core="nestopia")
    try:
        screen, ram = emu._layout["screen"][1], emu._layout["ram"][1]
        region = _batch.BatchRegion(1, screen, ram)
        good = region.join_payload(0)
        with pytest.raises(RetroluaError, match="no shared memory descriptor"):
            batch_request(emu, good)
        unsealed = os.memfd_create("unsealed")
        os.ftruncate(unsealed, region.size)
        with pytest.raises(RetroluaError, match="sealed against shrinking"):
            batch_request(emu, good, unsealed)
        os.close(unsealed)
        for payload, message in [(good[:20], "payload must be 32 bytes"),
                                 (_batch.JOIN.pack(region.size, 0, 0, 0, 0), "not within"),
                                 (_batch.JOIN.pack(4096 + 3, region.screen_at(0), region.ram_at(0), 0, 0), "not within"),
                                 (_batch.JOIN.pack(2 ** 63, 2 ** 64 - 1, 0, 0, 0), "not within"),
                                 (_batch.JOIN.pack(0, region.screen_at(0), region.ram_at(0), 0, 0), "not within")]:
            with pytest.raises(RetroluaError, match=message):
                batch_request(emu, payload, region.fd)
        with open(DODGE, "rb") as file:  # a file that is not memory: refused for its seals
            with pytest.raises(RetroluaError, match="sealed"):
                batch_request(emu, good, file.fileno())
        emu.join_batch(region, 0)
        lane = region.lane(0)
        step = wire.REQUEST.pack(wire.STEP, 1 << 8, 2, 1, 0, 0) + b"\x00\x00"  # a good one-frame step
        for length, header, message in [
                (5000, b"", "lane 0's request length is 5000 bytes; it must be 32…1024"),
                (1025, step, "request length is 1025 bytes"),
                (3, b"", "request length is 3 bytes"),
                (32, wire.REQUEST.pack(99, 0, 0, 0, 0, 0), "unknown command 99"),
                (40, wire.REQUEST.pack(wire.STEP, 0, 4000, 2 ** 31, 0, 0) + b"\xff" * 8,
                 "header says 4000 payload bytes, but the lane's length \\(40\\) leaves 8"),
                (34, wire.REQUEST.pack(wire.STEP, 1 << 8, 0, 1, 0, 0) + b"\x00\x00", "header says 0 payload bytes"),
                (32, step, "header says 2 payload bytes, but the lane's length \\(32\\) leaves 0")]:
            region.map[lane + _batch.REQUEST_AT:lane + _batch.REQUEST_AT + len(header)] = header
            region.lengths[0] = length
            region.requests[0] += np.uint32(1)
            region.mark_posted()
            region.wait([0], lambda _: None)
            status, message_length = struct.unpack_from("<II", region.map, lane + _batch.REPLY_AT)
            assert status != 0 and message_length > 0
            at = lane + _batch.REPLY_AT + 72
            assert re.search(message, bytes(region.map[at:at + message_length]).decode()), (length, message)
        region.map[lane + _batch.REQUEST_AT:lane + _batch.REQUEST_AT + len(step)] = step
        region.lengths[0] = len(step)
        region.requests[0] += np.uint32(1)
        region.mark_posted()
        region.wait([0], lambda _: None)
        assert struct.unpack_from("<I", region.map, lane + _batch.REPLY_AT)[0] == 0  # the same step, agreeing
        assert emu.step(3, ["right"], screen=True).frames == 3  # still serving, through the lane
        assert emu.last_screen().shape[2] == 3
        region.close()
    finally:
        emu.close()


def test_a_region_that_is_not_a_sealed_memory_file_cannot_be_mapped_by_the_trainer_either(tmp_path):
    region = _batch.BatchRegion(2, 4096, 4096)
    try:
        assert region.size == _batch.HEADER + 2 * region.stride
        with mmap.mmap(region.fd, region.size) as other:
            other[0:4] = b"\1\0\0\0"
        assert region.generation[0] == 1  # one memory: what one side writes, the other sees
        with pytest.raises(OSError):
            os.ftruncate(region.fd, 4096)  # sealed: never shrunk under an emulator
    finally:
        region.close()


def test_without_copies_the_batch_is_the_lanes_own_memory():
    envs = retrolua.make_vec(DODGE, 2, obs="screen", copy=False, **OPTIONS)
    try:
        envs.reset(seed=0)
        first = envs.step(np.array([2, 1]))[0]
        assert not first.flags.owndata and first.base is not None  # a view of the region, not an array of its own
        held = first.copy()
        second = envs.step(np.array([2, 1]))[0]
        assert second is first  # the same views, rewritten in place by the emulators
        assert not np.array_equal(held, second)  # the players moved
        for index, env in enumerate(envs.envs):
            assert np.array_equal(second[index], env.emu.screen())
    finally:
        envs.close()


@pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="a windowed run needs an X server (the suite runs under Xvfb)")
def test_a_windowed_run_refuses_a_batch_region_and_serves_on(tmp_path):
    path = str(tmp_path / "window.sock")
    binary = os.environ.get("RETROLUA", os.path.join(ROOT, ".build", "debug", "retrolua"))
    run = subprocess.Popen([binary, "run", DODGE, "--core", "nestopia", "--no-audio", "--control", "unix:" + path],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 30
        while not os.path.exists(path) and time.time() < deadline:
            time.sleep(0.05)
        emu = retrolua.Emulator.connect("unix:" + path)
        capacities = emu.capacities
        region = _batch.BatchRegion(1, capacities["screen"], capacities["ram"])
        # the window plays its own frames and polls the socket between them: no lane would be answered
        with pytest.raises(RetroluaError, match="headless runs"):
            emu.join_batch(region, 0)
        assert emu.step(2).frames == 2  # the connection serves on
        region.close()
        emu.close()
    finally:
        run.terminate()
        run.wait(timeout=30)
