"""stable-retro game integrations (retrolua.integration) checked against stable-retro's own engine,
from the stable-retro 1.0.1 wheel that scripts/setup installs: its variable types, its reward and done
rules, and a whole Airstriker episode side by side (rewards, ends, info and screens).

stable-retro allows one emulator per process: each test deletes its reference before the next."""

import gc
import gzip
import json
import os
import random
import sys
import warnings

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("RETROLUA", os.path.join(ROOT, ".build", "debug", "retrolua"))

import retrolua  # noqa: E402
from retrolua import actions, integration  # noqa: E402
from retrolua.errors import RetroluaError  # noqa: E402

stable_retro = pytest.importorskip("stable_retro")
pytest.importorskip("gymnasium")
import stable_retro.data  # noqa: E402

AIRSTRIKER = os.path.join(ROOT, "build", "roms", "airstriker.md")
GENESIS = os.path.join(ROOT, "build", "cores", "genesis_plus_gx_libretro.so")
DODGE = os.path.join(ROOT, "build", "roms", "dodge.nes")
GAME = os.path.join(os.path.dirname(stable_retro.__file__), "data", "stable", "Airstriker-Genesis-v0")
TYPES = ["|u1", "|i1", "|d1", "|n1", ">u2", "<u2", "=u2", ">i2", "<i2", ">u3", "<u3", ">u4", "<u4", ">i4",
         ">d2", "<d2", ">d3", ">d4", "<d4", ">d6", ">n2", ">n4", "<n4", ">n6", ">n8", "<n8"]


def folder(tmp_path, variables, rules=None):
    """An integration folder of the test's own: data.json's variables, scenario.json's rules."""
    (tmp_path / "data.json").write_text(json.dumps({"info": variables}))
    (tmp_path / "scenario.json").write_text(json.dumps(rules or {}))
    return str(tmp_path)


def scenario_file(tmp_path, game_folder, rom):
    path = tmp_path / "scenario.lua"
    path.write_text(integration.load(game_folder).lua(rom))
    return str(path)


def wheel_core(name):
    return os.path.join(ROOT, "build", "cores", name + "_libretro.so")


# Each system as stable-retro addresses it, and where our emulator keeps those bytes (domain, offset):
# the Genesis' 68000 RAM word-swapped at 0xFF0000, the NES' RAM, the SNES' WRAM through its bus, the
# Game Boy's and the GBA's work RAM through theirs, the PC Engine's and the 2600's RAM at their bases.
SYSTEMS = [("airstriker.md", wheel_core("genesis_plus_gx"), 0xFFF001, "system_ram", 0xFF0000, True),
           ("dodge.nes", "nestopia", 0x0600, None, 0, False),
           ("demo.sfc", wheel_core("snes9x"), 0x7E1801, "bus", 0, False),
           ("demo.gb", wheel_core("gambatte"), 0xD101, "bus", 0, False),
           ("demo.gba", wheel_core("mgba"), 0x2001001, "bus_2000000", 0x2000000, False),
           ("demo.pce", wheel_core("mednafen_pce_fast"), 0xF81001, "system_ram", 0xF80000, False),
           ("demo.a26", wheel_core("stella"), 0x80, "system_ram", 0x80, False)]


@pytest.mark.parametrize("rom,core,base,domain,origin,swap", SYSTEMS, ids=[s[0] for s in SYSTEMS])
def test_every_type_reads_as_stable_retro_reads_it(tmp_path, rom, core, base, domain, origin, swap):
    # Random bytes at odd and even addresses; each variable decoded by the Lua scenario and by
    # stable-retro's own GameData (masks too), the bytes written by each side into its own emulator.
    rom = os.path.join(ROOT, "build", "roms", rom)
    rng = np.random.default_rng(5)
    types = TYPES if not rom.endswith(".a26") else TYPES[:9]  # the 2600 has 128 bytes of RAM
    stride = 11 if len(types) == len(TYPES) else 5
    raw = rng.integers(0, 256, stride * len(types) + 8, dtype=np.uint8)
    raw[::7] = rng.integers(0, 10, len(raw[::7])) * 0x11  # valid BCD digits too
    variables = {"v%02d" % i: {"address": base + stride * i, "type": t} for i, t in enumerate(types)}
    masks = {"|i1": -113, ">u2": 0x0F0F, ">d2": 0x0FF0, ">n4": 0xF0F, "<i2": 0x7FFF}
    for i, (t, mask) in enumerate(masks.items()):
        variables["m%02d" % i] = {"address": base + 1 + i, "type": t, "mask": mask}
    game = folder(tmp_path, variables)
    reference = stable_retro.RetroEmulator(rom)
    data = stable_retro.data.GameData()
    data.load(os.path.join(game, "data.json"), os.path.join(game, "scenario.json"))
    reference.configure_data(data)
    for offset, byte in enumerate(raw):
        data.memory.assign(base + offset, "|u1", int(byte))
    expected = {name: data.lookup_value(name) for name in variables}
    del data, reference
    gc.collect()
    with retrolua.Emulator(rom, core=core, scenario=scenario_file(tmp_path, game, rom)) as emu:
        emu.step(2)
        for offset, byte in enumerate(raw):
            at = base - origin + offset
            emu.write(at ^ 1 if swap else at, [int(byte)], domain)
        got = emu.step(0).info
    assert got == expected, [(n, variables[n], got.get(n), expected[n]) for n in expected if got.get(n) != expected[n]]


OPS = sorted(integration.OPS) + [""]  # "": no op, the value itself
VALUES = [5, 5, 7, 3, -2, 0, 4, 4, -30000, 300]


def reference_run(game, rules_kind):
    """stable-retro's reward or done for each value of VALUES after the first (its own GameData)."""
    reference = stable_retro.RetroEmulator(DODGE)
    data = stable_retro.data.GameData()
    data.load(os.path.join(game, "data.json"), os.path.join(game, "scenario.json"))
    reference.configure_data(data)
    data.reset()
    out = []
    for index, value in enumerate(VALUES):
        data.memory.assign(0x0600, ">i2", value)
        data.update_ram()
        if index:
            out.append(data.current_reward() if rules_kind == "reward" else bool(data.is_done()))
    del data, reference
    gc.collect()
    return out


def our_run(tmp_path, game, rules_kind):
    out = []
    with retrolua.Emulator(DODGE, core="nestopia", scenario=scenario_file(tmp_path, game, DODGE)) as emu:
        for _ in range(30):  # past the game's boot, which clears the RAM (a done scenario ends steps early)
            emu.step(1)
        for index, value in enumerate(VALUES):
            emu.write(0x0600, int(value & 0xFFFF).to_bytes(2, "big"))
            result = emu.step(1)
            if index:
                out.append(result.reward if rules_kind == "reward" else result.done)
    return out


@pytest.mark.parametrize("measurement", ["delta", "absolute"])
def test_reward_rules_match_stable_retro(tmp_path, measurement):
    # One variable per comparison, each with its own power-of-two reward and penalty: the sum says
    # which rules fired (and stays exact in stable-retro's 32-bit floats).
    variables, rules = {}, {"reward": {"variables": {}}}
    for index, op in enumerate(sorted(integration.OPS)):
        variables["w%02d" % index] = {"address": 0x0600, "type": ">i2"}
        rules["reward"]["variables"]["w%02d" % index] = {"op": op, "reference": 4, "reward": float(2 ** index),
                                                         "penalty": float(2 ** (index + 12)), "measurement": measurement}
    game = folder(tmp_path, variables, rules)
    assert our_run(tmp_path, game, "reward") == reference_run(game, "reward")
    # No op: the value (or its change) itself times reward or penalty, plus the time rule's.
    rules = {"reward": {"variables": {"v": {"reward": 1.5, "penalty": 0.25, "measurement": measurement}},
                        "time": {"reward": 0.5}}}
    game = folder(tmp_path, {"v": {"address": 0x0600, "type": ">i2"}}, rules)
    assert our_run(tmp_path, game, "reward") == reference_run(game, "reward")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("measurement", ["absolute", "delta"])
def test_done_rules_match_stable_retro(tmp_path, op, measurement):
    spec = {"op": op, "reference": 4, "measurement": measurement}
    rules = {"done": {"variables": {"v": {k: v for k, v in spec.items() if v != ""}}}}
    game = folder(tmp_path, {"v": {"address": 0x0600, "type": ">i2"}}, rules)
    expected = reference_run(game, "done")
    got = our_run(tmp_path, game, "done")
    assert got == expected


def test_done_nodes_and_conditions_match_stable_retro(tmp_path):
    variables = {"v": {"address": 0x0600, "type": ">i2"}, "w": {"address": 0x0600, "type": "|i1"}}
    rules = {"done": {"condition": "any", "nodes": {
        "both": {"condition": "all", "variables": {"v": {"op": "positive"}, "w": {"op": "zero"}}},
        "low": {"variables": {"v": {"op": "less-than", "reference": -100}}}}}}
    game = folder(tmp_path, variables, rules)
    expected = reference_run(game, "done")
    assert our_run(tmp_path, game, "done") == expected and any(expected) and not all(expected)


def stable_retro_screen(ours):
    """Our RGB from RGB565 repeats each channel's top bits in its low ones; stable-retro's leaves
    them zero. The same frame, then, exactly: ours with those bits cleared."""
    cleared = ours.copy()
    cleared[..., 0] &= 0xF8
    cleared[..., 1] &= 0xFC
    cleared[..., 2] &= 0xF8
    return cleared


def test_airstriker_episode_matches_stable_retro_step_by_step():
    # The wheel's own integration (data.json, scenario.json, Level1.state) on the same core, random
    # button combos, both sides reset when either episode ends.
    reference = stable_retro.make("Airstriker-Genesis-v0", use_restricted_actions=stable_retro.Actions.ALL,
                                  render_mode=None)
    ours = retrolua.make(AIRSTRIKER, core=GENESIS, integration=GAME)
    try:
        assert ours.action_space.shape == (16,)  # without actions=: a RetroPad button each
        first, _ = reference.reset(seed=0)
        mine, info = ours.reset(seed=0)
        assert np.array_equal(stable_retro_screen(mine), first)
        assert set(info) >= {"score", "lives", "gameover"}
        rng = np.random.default_rng(3)
        rewards, ends = 0.0, 0
        for step in range(1500):
            buttons = rng.integers(0, 2, 12).astype(np.int8)
            action = np.zeros(16, np.int8)
            action[:12] = buttons
            want = reference.step(buttons)
            got = ours.step(action)
            assert got[1] == want[1] and got[2] == want[2], step
            assert {k: got[4][k] for k in want[4]} == want[4], step
            assert np.array_equal(stable_retro_screen(got[0]), want[0]), step
            rewards += got[1]
            if want[2]:
                ends += 1
                reference.reset(seed=0)
                ours.reset(seed=0)
        assert rewards > 0  # the score moved: the rule was exercised
    finally:
        reference.close()
        ours.close()
        del reference
        gc.collect()


SCRIPT = """
total = 0
function score()
  total = total + 1
  if scenario.frame == 0 then data.seen = 0 end
  data.seen = data.seen + data.v
  if data.v == 9 then data.v = 1 end
  return total * 100 + data.seen + scenario.frame / 4
end
function over() return data.v == 7 end
"""


def test_integration_scripts_run_as_in_stable_retro(tmp_path):
    # Rules given as the integration's own Lua functions: globals kept between frames, `data` reads,
    # values of the script's own, a write to a variable, `scenario.frame`, and a fresh start at reset.
    (tmp_path / "rules.lua").write_text(SCRIPT)
    rules = {"reward": {"script": "lua:score"}, "done": {"script": "lua:over"}, "scripts": ["rules.lua"]}
    game = folder(tmp_path, {"v": {"address": 0x0600, "type": "|u1"}}, rules)
    episodes = [[3, 9, 4, 7, 2], [5, 9, 7]]
    reference = stable_retro.RetroEmulator(DODGE)
    data = stable_retro.data.GameData()
    data.load(os.path.join(game, "data.json"), os.path.join(game, "scenario.json"))
    reference.configure_data(data)
    for _ in range(30):  # past the game's boot, which clears the RAM
        reference.step()
    expected = []
    for values in episodes:
        data.memory.assign(0x0600, "|u1", 0)
        data.reset()
        data.update_ram()
        for value in values:
            data.memory.assign(0x0600, "|u1", value)
            reference.step()
            data.update_ram()
            expected.append((data.current_reward(), bool(data.is_done()), data.memory.extract(0x0600, "|u1")))
    del data, reference
    gc.collect()
    env = retrolua.make(DODGE, core="nestopia", integration=game, obs="ram", warmup_frames=30)
    got = []
    try:
        for values in episodes:
            env.reset(seed=0)
            for value in values:
                env.emu.write(0x0600, [value])
                _, reward, done, _, _ = env.step(np.zeros(16, np.int8))
                got.append((reward, done, int(env.emu.read(0x0600)[0])))
    finally:
        env.close()
    assert got == expected and any(done for _, done, _ in got)


@pytest.mark.parametrize("rom", ["dodge.nes", "demo.gb", "demo.sfc", "demo.gba", "demo.pce", "demo.a26", "airstriker.md"])
def test_each_systems_action_groups_are_stable_retros(rom):
    reference = stable_retro.RetroEmulator(os.path.join(ROOT, "build", "roms", rom))
    data = stable_retro.data.GameData()
    reference.configure_data(data)
    expected = data.valid_actions()
    del data, reference
    gc.collect()
    assert actions.action_groups(rom) == expected


SCENARIO_ACTIONS = [("KidChameleon-Genesis-v0", "airstriker.md"), ("MortalKombatII-Genesis-v0", "airstriker.md"),
                    ("NHL94-Genesis-v0", "airstriker.md"), ("WiznLiz-Genesis-v0", "airstriker.md"),
                    ("PunchOut-Nes-v0", "dodge.nes"), ("TreasureMaster-Nes-v0", "dodge.nes"),
                    ("AdventureIsland-GameBoy-v0", "demo.gb"), ("Skiing-Atari2600-v0", "demo.a26")]


@pytest.mark.parametrize("game,rom", SCENARIO_ACTIONS, ids=[g for g, _ in SCENARIO_ACTIONS])
def test_the_wheels_own_scenario_actions_give_stable_retros_groups(game, rom):
    # Scenarios of the wheel with their own "actions", on content of the same system (the groups
    # depend on the system's buttons, not on the game).
    where = os.path.join(os.path.dirname(GAME), game)
    reference = stable_retro.RetroEmulator(os.path.join(ROOT, "build", "roms", rom))
    data = stable_retro.data.GameData()
    reference.configure_data(data)
    data.load(os.path.join(where, "data.json"), os.path.join(where, "scenario.json"))
    expected = data.valid_actions()
    del data, reference
    gc.collect()
    assert actions.action_groups(rom, integration.load(where).rules["actions"]) == expected


@pytest.mark.parametrize("kind", ["all", "filtered", "discrete", "multi_discrete"])
def test_stable_retro_action_spaces_press_what_stable_retro_presses(kind):
    modes = {"discrete": stable_retro.Actions.DISCRETE, "multi_discrete": stable_retro.Actions.MULTI_DISCRETE,
             "filtered": stable_retro.Actions.FILTERED, "all": stable_retro.Actions.ALL}
    reference = stable_retro.make("Airstriker-Genesis-v0", use_restricted_actions=modes[kind], render_mode=None)
    space = reference.action_space
    rng = np.random.default_rng(2)
    if kind == "discrete":
        chosen = list(range(space.n))
    elif kind == "multi_discrete":
        chosen = [rng.integers(0, space.nvec) for _ in range(300)]
    else:
        chosen = [rng.integers(0, 2, 12).astype(np.int8) for _ in range(300)]
    pressed = [int(sum(int(b) << i for i, b in enumerate(reference.unwrapped.action_to_array(a)[0])))
               for a in chosen]
    reference.close()
    del reference
    gc.collect()
    env = retrolua.make(AIRSTRIKER, core=GENESIS, integration=GAME, actions=kind)
    try:
        assert env.action_space == space
        assert [env._mask(a) for a in chosen] == pressed
        env.reset(seed=0)
        env.step(env.action_space.sample())  # the space's samples are valid actions
    finally:
        env.close()


def test_integrations_by_name_and_the_rom_check(tmp_path, monkeypatch):
    assert integration.find("Airstriker-Genesis-v0") == GAME
    assert integration.find(GAME) == GAME
    mine = tmp_path / "Mine-Nes-v0"
    os.makedirs(mine)
    (mine / "data.json").write_text('{"info": {}}')
    (mine / "rom.sha").write_text("0" * 40 + "\n")
    monkeypatch.setenv("RETROLUA_INTEGRATIONS", str(tmp_path))
    assert integration.find("Mine-Nes-v0") == str(mine)
    with pytest.raises(RetroluaError, match="no integration 'Nope-v0'.*RETROLUA_INTEGRATIONS"):
        integration.find("Nope-v0")
    assert integration.load(GAME).rom_mismatch(AIRSTRIKER) is None
    assert "its RAM addresses may not fit" in integration.load(str(mine)).rom_mismatch(DODGE)
    with pytest.warns(UserWarning, match="SHA-1"):
        retrolua.make(DODGE, core="nestopia", integration="Mine-Nes-v0").close()


def test_retro_make_is_stable_retros_make():
    # A script written for stable-retro, with `import retrolua.retro as retro`: the same space, rules
    # and start (the ROM from the integration's folder, the core from stable-retro's wheel).
    import retrolua.retro as retro
    reference = stable_retro.make("Airstriker-Genesis-v0", render_mode=None)
    rng = np.random.default_rng(9)
    chosen = [rng.integers(0, 2, 12).astype(np.int8) for _ in range(300)]
    def play(env, names=None):
        env.reset(seed=0)
        out = []
        for action in chosen:
            _, reward, terminated, _, info = env.step(action)
            out.append((reward, terminated, {k: v for k, v in info.items() if names is None or k in names}))
        return out

    expected = play(reference)
    space = reference.action_space
    reference.close()
    del reference
    gc.collect()
    env = retro.make("Airstriker-Genesis-v0")
    try:
        assert env.action_space == space
        assert env.buttons == ["B", "A", "MODE", "START", "UP", "DOWN", "LEFT", "RIGHT", "C", "Y", "X", "Z"]
        assert env.get_action_meaning(np.array([1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0], np.int8)) == ["B", "RIGHT"]
        assert play(env, expected[0][2]) == expected
        assert env.get_ram().shape == (65536,)
        saved = env.em.get_state()
        frame = env.step(chosen[0])[4]["frame"]
        env.em.set_state(saved)
        assert env.step(chosen[0])[4]["frame"] == frame  # back where it was
    finally:
        env.close()
    ram = retro.make("Airstriker-Genesis-v0", obs_type=retro.Observations.RAM, state=retro.State.NONE,
                     use_restricted_actions=retro.Actions.DISCRETE)
    try:
        assert ram.observation_space.shape == (65536,) and ram.action_space.n == 126
    finally:
        ram.close()
    with pytest.raises(RetroluaError, match="for one player"):
        retro.make("Airstriker-Genesis-v0", players=2)
    games = retro.data.list_games()
    assert "Airstriker-Genesis-v0" in games and len(games) > 900
    assert retro.data.list_states("Airstriker-Genesis-v0") == ["Level1"]


def test_states_by_name_gzip_and_crop(tmp_path):
    game = integration.load(GAME)
    assert game.states() == ["Level1"] and game.default_state == "Level1"
    assert game.state()[:2] != b"\x1f\x8b"
    with open(os.path.join(GAME, "Level1.state"), "rb") as file:
        assert integration.gunzip_state(file.read()) == game.state("Level1")
    env = retrolua.make(AIRSTRIKER, core=GENESIS, integration=GAME, state="Level1", crop=(8, 16, 100, 50))
    try:
        observation, _ = env.reset(seed=0)
        assert observation.shape == (50, 100, 3) and env.observation_space.shape == (50, 100, 3)
    finally:
        env.close()


@pytest.mark.parametrize("files,message", [
    ({}, "data.json: No such file"),
    ({"data.json": "{not json"}, "data.json: not JSON"),
    ({"data.json": '{"info": {"x": {"address": 1, "type": ">q2"}}}',
      "scenario.json": '{"done": {"variables": {"x": {"op": "zero"}}}}'}, "use variable 'x'"),
    ({"data.json": '{"info": {"x": {"address": -1, "type": ">u2"}}}', "scenario.json": "{}"}, "bad address"),
    ({"data.json": '{"info": {"x": {"address": 1, "type": ">u2"}}}',
      "scenario.json": '{"done": {"variables": {"y": {"op": "zero"}}}}'}, "use variable 'y'"),
    ({"data.json": '{"info": {}}', "scenario.json": '{"reward": {"script": "lua:f"}}'}, '"scripts" names no script'),
    ({"data.json": '{"info": {}}', "scenario.json": '{"reward": {"script": "lua:f"}, "scripts": ["s.lua"]}'},
     "s.lua: No such file"),
    ({"data.json": '{"info": {}}', "scenario.json": '{"reward": {"script": "lua:f"}, "scripts": ["../x.lua"]}'},
     "outside the integration's folder"),
    ({"data.json": '{"info": {}}', "scenario.json": '{"reward": {"script": "py:f"}, "scripts": ["s.py"]}'},
     "scripts are Lua files"),
    ({"data.json": '{"info": {"x": {"address": 1, "type": ">u2"}}}',
      "scenario.json": '{"reward": {"variables": {"x": {"reward": "lots"}}}}', "metadata.json": "{}"},
     "'reward' must be a number"),
])
def test_bad_integrations_are_refused_with_the_file_and_the_reason(tmp_path, files, message):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(RetroluaError, match=message.replace("(", r"\(")):
        retrolua.make(DODGE, core="nestopia", integration=str(tmp_path))
    (tmp_path / "bad.state").write_bytes(gzip.compress(b"x" * 100)[:20])
    with pytest.raises(RetroluaError, match="damaged gzip"):
        integration.gunzip_state((tmp_path / "bad.state").read_bytes(), "bad.state")


def test_mangled_integrations_give_a_clear_error_and_nothing_else(tmp_path):
    # The wheel's real files with one value replaced by junk, 400 times: each loads or is refused
    # with a RetroluaError (never a KeyError, TypeError…).
    rng = random.Random(7)
    games = sorted(entry.path for entry in os.scandir(os.path.dirname(GAME))
                   if os.path.exists(os.path.join(entry.path, "scenario.json")))
    junk = [None, True, -1, 2 ** 70, 1.5, float("nan"), "x", "", [], {}, [1, 2], {"a": 1}, "lua:", "><u2"]

    def mutate(value):
        if isinstance(value, dict) and value and rng.random() < 0.7:
            key = rng.choice(sorted(value))
            return {**value, key: mutate(value[key])}
        if isinstance(value, list) and value and rng.random() < 0.7:
            index = rng.randrange(len(value))
            return value[:index] + [mutate(value[index])] + value[index + 1:]
        return rng.choice(junk)

    for trial in range(400):
        game = rng.choice(games)
        with open(os.path.join(game, "data.json")) as file:
            data = json.load(file)
        with open(os.path.join(game, "scenario.json")) as file:
            rules = json.load(file)
        if trial % 2:
            data = mutate(data)
        else:
            rules = mutate(rules)
        where = tmp_path / str(trial)
        where.mkdir()
        (where / "data.json").write_text(json.dumps(data))
        (where / "scenario.json").write_text(json.dumps(rules))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                loaded = integration.load(str(where))
                loaded.lua("game.md")
                actions.action_groups("game.md", rules.get("actions") if isinstance(rules, dict) else None)
            except RetroluaError:
                pass


def test_a_variable_of_unknown_type_is_left_out_as_stable_retro_leaves_it(tmp_path):
    game = folder(tmp_path, {"x": {"address": 1, "type": "><d4"}, "y": {"address": 2, "type": "|u1"}})
    with pytest.warns(UserWarning, match="type '><d4'.*left out"):
        assert list(integration.load(game).variables) == ["y"]


def test_an_unknown_op_warns_and_counts_as_none_as_stable_retro_does(tmp_path):
    game = folder(tmp_path, {"v": {"address": 0x0600, "type": ">i2"}},
                  {"reward": {"variables": {"v": {"op": "equals", "reward": 1.0}}}})
    with pytest.warns(UserWarning, match="unknown op 'equals'"):
        integration.load(game).lua(DODGE)
        assert our_run(tmp_path, game, "reward") == reference_run(game, "reward")
