"""The trainer's per-batch work in C (Sources/RetroluaBatch, loaded by retrolua._native) against the Python
path it replaces (RETROLUA_NATIVE=0): the same observations, rewards, ends, truncations and infos step for
step, for every observation kind and preprocessing the vector env and the pool offer; infos as arrays and
as per-env dicts agree; the C reader of info() objects agrees with Python's json on every kind of value
and leaves what it cannot read to it. Run by PythonPackageTests.testTheNativeBatchPathEqualsThePythonOne."""

import ctypes
import json
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import gymnasium  # noqa: E402,F401
from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
import retrolua  # noqa: E402
from retrolua import _infos, _native  # noqa: E402
from retrolua._batch import HEADER, REPLY_AT  # noqa: E402
from retrolua.pool import make_pool  # noqa: E402

DODGE = os.path.join(ROOT, "build", "roms", "dodge.nes")
SCENARIO = os.path.join(ROOT, "examples", "python", "dodge_scenario.lua")

pytestmark = pytest.mark.skipif(not os.path.exists(DODGE), reason="build/roms/dodge.nes is built by scripts/roms")

# dodge's scenario with an info() that changes its keys and kinds: a real every step, a string every third
# step (the C reader leaves it to Python), a boolean.
INFO = """
local steps = 0
function info()
  steps = steps + 1
  local table = { score = score(), lives = lives(), half = score() / 2, alive = lives() > 0 }
  if steps % 3 == 0 then table.note = "third" end
  return table
end
"""

ATARI = dict(obs="screen", grayscale=True, resize=(84, 84), frame_stack=4, max_pool=True, noop_max=6,
             sticky_actions=0.25, frameskip=4)
CASES = [("vector", dict(obs="screen")), ("vector", dict(obs="ram")), ("vector", dict(obs="both")),
         ("vector", dict(obs="screen", crop=(8, 16, 200, 180))), ("vector", ATARI),
         ("vector", dict(obs="screen", resize=(64, 48), frame_stack=2)),
         ("vector", dict(obs="ram", copy=False)), ("pool", dict(obs="screen")),
         ("pool", dict(obs="both", autoreset_mode="SameStep")), ("pool", ATARI), ("pool-async", dict(obs="ram"))]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    path = tmp_path_factory.mktemp("scenario") / "dodge_info.lua"
    with open(SCENARIO) as file:
        path.write_text(file.read() + INFO)
    return str(path)


def test_the_library_is_built_beside_the_binary():
    assert _native.library() is not None, "libRetroluaBatch.so not found in %s" % _native.candidates()


def run(kind, options, scenario, native, monkeypatch, info_format="arrays", steps=14):
    """Each env's trajectory: (observation, reward, terminated, truncated, info row) per step."""
    monkeypatch.setenv("RETROLUA_NATIVE", "1" if native else "0")
    common = dict(core="nestopia", scenario=scenario, actions=retrolua.env.DODGE_ACTIONS, frameskip=2, max_steps=5,
                  info_format=info_format)
    options = dict(common, **options)
    seen = {index: [] for index in range(3)}
    if kind == "vector":
        envs = retrolua.make_vec(DODGE, 3, **options)
        step = lambda actions: envs.step(actions)  # noqa: E731
    else:
        envs = make_pool(DODGE, 3, 2 if kind == "pool-async" else 3, **options)
    try:
        assert (envs._stepper.native is not None) == native
        if kind == "vector":
            observations, info = envs.reset(seed=5)
            ids = np.arange(3)
        else:
            envs.async_reset(seed=5)
            ids = None
        plans = {index: np.random.default_rng(index).integers(0, 5, 4 * steps) for index in range(3)}
        counts = {index: 0 for index in range(3)}
        for _ in range(steps):
            if kind == "vector":
                actions = np.array([plans[index][counts[index]] for index in range(3)])
                observations, rewards, terminated, truncated, info = step(actions)
            else:
                observations, rewards, terminated, truncated, info = envs.recv()
                ids = info["env_id"] if info_format == "arrays" else np.array([row["env_id"] for row in info])
            rows = _infos.per_env(info, len(ids)) if info_format == "arrays" else info
            for row, index in enumerate(ids.tolist()):
                observation = ({key: value[row].copy() for key, value in observations.items()}
                               if isinstance(observations, dict) else observations[row].copy())
                seen[index].append((observation, rewards[row], terminated[row], truncated[row], rows[row]))
                counts[index] += 1
            if kind != "vector":
                envs.send(np.array([plans[index][counts[index]] for index in ids.tolist()]), ids)
        if native and kind != "pool-async":  # every env's step in one call (retrolua._step), between resets
            assert envs._stepper.whole.count > 0
        return seen
    finally:
        envs.close()


@pytest.mark.parametrize("kind, options", CASES, ids=["%s-%s" % (kind, "-".join(
    "%s=%s" % item for item in sorted(options.items()))) for kind, options in CASES])
def test_the_native_path_equals_the_python_path_step_for_step(kind, options, scenario, monkeypatch):
    native = run(kind, options, scenario, True, monkeypatch)
    python = run(kind, options, scenario, False, monkeypatch)
    for index in range(3):
        if kind != "pool-async":  # batches of 2 of 3: which env comes back is the emulators' race
            assert len(native[index]) == len(python[index])
        assert min(len(native[index]), len(python[index])) >= 5
        for step, (ours, theirs) in enumerate(zip(native[index], python[index])):
            assert data_equivalence(ours, theirs, exact=True), "env %d, step %d: %r vs %r" % (
                index, step, ours[1:], theirs[1:])
    ended = [row for index in range(3) for row in native[index] if row[2] or row[3]]
    assert ended  # max_steps=5: episodes ended and reset within the run
    notes = [row for index in range(3) for row in native[index] if "note" in row[4]]
    assert notes and all("half" in row[4] for index in range(3) for row in native[index][1:])


def test_one_emulator_with_a_core_to_spare_spins_and_agrees(scenario, monkeypatch):
    """One emulator on a machine of two cores or more: the C path spins before the futex (its bound the
    mean wait); the steps are the same."""
    trajectories = []
    for native in ("1", "0"):
        monkeypatch.setenv("RETROLUA_NATIVE", native)
        envs = retrolua.make_vec(DODGE, 1, core="nestopia", scenario=scenario, actions=retrolua.env.DODGE_ACTIONS,
                                 obs="both", max_steps=6)
        try:
            stepper = envs._stepper
            assert stepper._spin == (len(os.sched_getaffinity(0)) > 1)
            seen = [envs.reset(seed=2)]
            for step in range(15):
                seen.append(envs.step(np.array([step % 5])))
            if native == "1" and stepper._spin:
                assert stepper._mean_ns > 0  # measured, so the next waits spin first
            trajectories.append(seen)
        finally:
            envs.close()
    assert data_equivalence(trajectories[0], trajectories[1], exact=True)


@pytest.mark.parametrize("actions", [retrolua.env.DODGE_ACTIONS, None, "filtered", "discrete", "multi_discrete"],
                         ids=["listed", "multi_binary", "filtered", "discrete", "multi_discrete"])
def test_a_whole_step_in_one_call_agrees_for_every_action_kind(actions, scenario, monkeypatch):
    """rb_step (the vector env's ordinary step in one call: masks from indices or button rows in C, or from
    the env in Python for stable-retro's kinds) against the Python path; button rows of any nonzero value press."""
    trajectories = []
    for native in ("1", "0"):
        monkeypatch.setenv("RETROLUA_NATIVE", native)
        envs = retrolua.make_vec(DODGE, 2, core="nestopia", scenario=scenario, actions=actions, obs="both",
                                 max_steps=4)
        try:
            envs.action_space.seed(7)
            seen = [envs.reset(seed=4)]
            for step in range(10):
                batch = envs.action_space.sample()
                if actions is None:  # int8 rows: -1 and 3 press as 1 does
                    batch = batch * np.array([1, -1, 3], dtype=np.int8)[step % 3]
                seen.append(envs.step(batch))
            assert (envs._stepper._whole is not None) == (native == "1")
            trajectories.append(seen)
        finally:
            envs.close()
    assert data_equivalence(trajectories[0], trajectories[1], exact=True)


@pytest.mark.parametrize("bad", [[-1, 0], [0, 5], [0.0, np.nan], [0.5, 1.0], [[0, 1]], [0, 1, 2], ["a", "b"]],
                         ids=["negative", "past", "nan", "fraction", "shape", "count", "strings"])
@pytest.mark.parametrize("kind", ["vector", "pool"])
def test_bad_actions_raise_before_any_step_is_posted(bad, kind, scenario, monkeypatch):
    monkeypatch.setenv("RETROLUA_NATIVE", "1")
    options = dict(core="nestopia", scenario=scenario, actions=retrolua.env.DODGE_ACTIONS, obs="ram")
    envs = retrolua.make_vec(DODGE, 2, **options) if kind == "vector" else make_pool(DODGE, 2, **options)
    step = envs.step if kind == "vector" else envs.send
    try:
        envs.reset(seed=0)
        envs.step(np.array([1, 2]))
        assert envs._stepper.whole.count == 1
        before = envs._region.requests.copy()
        with pytest.raises(ValueError):
            step(np.array(bad))
        assert (envs._region.requests == before).all()
        envs.step(np.array([0, 1]))  # and the next good batch steps, in one call
        assert (envs._region.requests == before + 1).all() and envs._stepper.whole.count == 2
    finally:
        envs.close()


@pytest.mark.parametrize("kind", ["vector", "pool"])
def test_infos_as_arrays_and_as_dicts_agree(kind, scenario, monkeypatch):
    options = dict(obs="ram")
    arrays = run(kind, options, scenario, True, monkeypatch)
    dicts = run(kind, options, scenario, True, monkeypatch, info_format="dicts")
    for index in range(3):
        for ours, theirs in zip(arrays[index], dicts[index]):
            assert data_equivalence(ours, theirs, exact=True)


def test_the_batched_info_is_gymnasiums_shape(scenario, monkeypatch):
    monkeypatch.setenv("RETROLUA_NATIVE", "1")
    envs = retrolua.make_vec(DODGE, 3, core="nestopia", scenario=scenario, actions=retrolua.env.DODGE_ACTIONS,
                             obs="ram", max_steps=3)
    try:
        envs.reset(seed=1)
        noted = 0
        for step in range(5):
            *_, info = envs.step(np.array([1, 2, 3]))
            for key in ("frame", "lag", "score", "lives", "half", "alive"):
                assert info[key].shape == (3,) and info["_" + key].dtype == np.bool_
            # Lua writes a whole real as an integer: `half` is int64 while every score is even
            assert info["score"].dtype == np.int64 and info["half"].dtype.kind in "if"
            assert info["alive"].dtype == np.bool_
            if "note" in info:  # every third info() call adds a string: an object array, masked
                noted += 1
                assert info["note"].dtype == object and set(info["note"][info["_note"]]) == {"third"}
        assert noted
    finally:
        envs.close()


# -- the C reader of info() objects, on replies written here --------------------------------------------------

def replies(texts):
    """A region of len(texts) lanes whose replies carry `texts` (bytes) as their info()."""
    stride = 4096 * 8
    memory = np.zeros(HEADER + stride * len(texts), dtype=np.uint8)
    for lane, text in enumerate(texts):
        at = HEADER + lane * stride + REPLY_AT
        memory[at + 4:at + 8] = np.frombuffer(np.uint32(len(text)).tobytes(), dtype=np.uint8)
        memory[at + 72:at + 72 + len(text)] = np.frombuffer(text, dtype=np.uint8)
    return memory, stride


def read_infos(texts, keys):
    lib = _native.library()
    memory, stride = replies(texts)
    count, width = len(texts), len(keys)
    ints, reals = np.zeros((width, count), dtype=np.int64), np.zeros((width, count))
    kinds, ranges = np.zeros((width, count), dtype=np.uint8), np.zeros(2 * width, dtype=np.uint8)
    lanes = np.arange(count, dtype=np.int64)
    failed = lib.rb_infos(memory.ctypes.data, stride, lanes.ctypes.data, count,
                          b"".join(key.encode() + b"\0" for key in keys), width, ints.ctypes.data,
                          reals.ctypes.data, kinds.ctypes.data, ranges.ctypes.data)
    return failed, _infos._typed_columns(keys, ints, reals, kinds, ranges.tolist())


@pytest.mark.parametrize("texts", [
    [b'{"a":1,"b":2.5,"c":true}', b'{"a":-7,"b":3,"c":false}'],
    [b'{ "a" : 0 , "b" : -0.0 , "c" : 1e3 }', b'{"a":9223372036854775807,"b":1E-2,"c":-2.5e+2}'],
    [b'{"score":10,"lives":3}', b'{"score":true,"lives":3}', b'{"score":1.5,"lives":-1}'],
    [b'{"\xc3\xa9t\xc3\xa9":1}', b'{"\xc3\xa9t\xc3\xa9":2}'],
])
def test_the_c_reader_agrees_with_json(texts):
    infos = [json.loads(text) for text in texts]
    keys = _infos._numeric_keys(infos)
    failed, columns = read_infos(texts, keys)
    assert failed == -1
    assert data_equivalence(columns, _infos.columns_of(infos), exact=True)


@pytest.mark.parametrize("texts, keys", [
    ([b'{"a":1}', b'{"a":"x"}'], ["a"]),  # a string
    ([b'{"a":1}', b'{"a":[1]}'], ["a"]),  # an array
    ([b'{"a":1}', b'{"a":99999999999999999999}'], ["a"]),  # past 64 bits
    ([b'{"a":1}', b'{"b":1}'], ["a"]),  # another key
    ([b'{"a":1}', b'{"a":1,"b":2}'], ["a"]),  # one more key
    ([b'{"a":1}', b'{"a":01}'], ["a"]),  # not JSON
    ([b'{"a":1}', b'{"\\u0061":1}'], ["a"]),  # an escaped name
    ([b'{"a":1}', b'{"a":1'], ["a"]),  # cut short
    ([b'{"a":1}', b'{"a":1} x'], ["a"]),  # trailing bytes
    ([b'{"a":1}', b'{"a":null}'], ["a"]),
    ([b'{"a":1}', b''], ["a"]),  # no info()
])
def test_the_c_reader_leaves_what_it_cannot_read_to_python(texts, keys):
    failed, _ = read_infos(texts, keys)
    assert failed == 1


def test_keys_that_need_escapes_are_never_given_to_the_c_reader():
    assert _infos._numeric_keys([{'a"b': 1}]) is None
    assert _infos._numeric_keys([{"a\\b": 1}]) is None
    assert _infos._numeric_keys([{"a": "text"}]) is None
    assert _infos._numeric_keys([{"a": 1}, {"a": 2.5}]) == ["a"]
    assert _infos._numeric_keys([{"a": 2 ** 64}]) is None


def test_ctypes_sees_the_interface_version():
    assert _native.library().rb_version() == _native.VERSION
    assert isinstance(_native.library(), ctypes.CDLL)
