"""The `retrolua` package (python/) against a real emulator: the binary door's numpy views, batched
steps, states, errors and hostile requests, the lifetime of launched emulators, and installing the
package into a fresh venv. Run by Tests/HostTests/PythonPackageTests.swift (RETROLUA = the built
binary) with build/venv's pytest: `build/venv/bin/python -m pytest Tests/python/test_package.py`."""

import array
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import retrolua  # noqa: E402
from retrolua import _protocol as wire  # noqa: E402
from retrolua.control import Retrolua  # noqa: E402
from venvs import borrowing_venv  # noqa: E402

NES = os.path.join(ROOT, "build", "roms", "demo.nes")
SCENARIO = os.path.join(ROOT, "examples", "python", "demo_scenario.lua")


@pytest.fixture
def emu():
    with retrolua.Emulator(NES, core="nestopia", keep_alive=True) as emulator:
        yield emulator


def test_step_memory_states_screen_and_audio(emu):
    assert emu.info["core"] == "nestopia"
    assert emu.default_domain == "system_ram" and emu.domains["system_ram"] == 2048
    result = emu.step(10, {"right": True})
    assert (result.frame, result.frames, result.lag, result.done) == (10, 10, 0, False)
    assert emu.read(0x03)[0] == 126  # the demo starts moving the player on its fifth frame
    state = emu.save_state()
    emu.step(20, ["left"])
    assert emu.read(0x03)[0] == 106
    assert emu.load_state(state) == 10
    assert emu.read(0x03)[0] == 126
    emu.write(0x03, [50])
    assert emu.ram()[0x03] == 50
    screen = emu.screen()
    assert screen.shape == (224, 256, 3) and screen.dtype == np.uint8
    assert tuple(screen[0, 0]) == (0x15, 0x3C, 0xFE)  # the demo's background colour
    emu.step(1, emu.mask("b"))
    sound = emu.audio()
    assert sound.ndim == 2 and sound.shape[1] == 2 and len(sound) > 0


def test_saved_bytes_load_back_as_kept_or_as_a_copy(emu):
    emu.step(10, {"right": True})
    state = emu.save_state()  # the emulator keeps these bytes: loading this object is a restore
    copy = bytes(bytearray(state))  # equal bytes, another object: loaded through shared memory
    assert copy == state and copy is not state
    emu.step(20, ["left"])
    assert emu.load_state(state) == 10 and emu.read(0x03)[0] == 126
    emu.step(5, ["left"])
    assert emu.load_state(copy) == 10 and emu.read(0x03)[0] == 126
    later = emu.save_state()  # a newer save replaces the kept one; the older bytes still load
    assert emu.load_state(state) == 10 and emu.load_state(later) == 10
    assert emu.save_state() == later


def test_views_equal_what_the_json_door_and_lua_see(emu):
    emu.step(37, {"right": True, "a": True})
    other = Retrolua.connect("unix:" + emu._launched.path)  # a second client of the same emulator
    try:
        width, height, rgb = other.frame()
        assert emu.screen().tobytes() == rgb and emu.screen().shape == (height, width, 3)
        assert emu.ram().tobytes() == other.read(0, 2048)
        assert emu.read(0x100, 16, domain="system_ram").tobytes() == other.read(0x100, 16)
    finally:
        other.disconnect()


def test_a_batch_of_per_frame_actions_equals_single_steps():
    moves = np.array([emu_mask for emu_mask in [128, 64, 0, 128, 256, 128] * 10], dtype=np.uint16)
    with retrolua.Emulator(NES, core="nestopia") as a, retrolua.Emulator(NES, core="nestopia") as b:
        result = a.step(actions=moves, screen=True, ram=True)
        assert (result.frame, result.frames) == (60, 60)
        for mask in moves:
            b.step(1, int(mask))
        assert a.last_ram().tobytes() == b.ram().tobytes()
        assert np.array_equal(a.last_screen(), b.screen())
        two_ports = np.zeros((5, 2), dtype=np.uint16)
        two_ports[:, 1] = 128
        assert a.step(actions=two_ports).frames == 5


def test_views_are_rewritten_and_copies_are_kept(emu):
    emu.step(5)
    view = emu.read(0x03)
    kept = view.copy()
    emu.step(10, {"right": True})
    emu.read(0x03)
    assert view[0] != kept[0]  # the same shared bytes, rewritten by the next read


def test_scenario_reward_and_done():
    with retrolua.Emulator(NES, core="nestopia", scenario=SCENARIO) as emu:
        emu.step(10)
        total, done = 0.0, False
        for _ in range(100):
            result = emu.step(4, {"right": True})
            total += result.reward
            if result.done:
                done = True
                break
        assert done and total == 200 - 120 and emu.read(0x03)[0] == 200


def test_refusals_raise_and_the_emulator_goes_on(emu):
    cases = [
        (lambda: emu.read(0x7FF, 4), "outside 'system_ram'"),
        (lambda: emu.read(0, 1 << 20), "length must be 1…"),
        (lambda: emu.read(0, 1, domain="vram"), "no memory domain 'vram'"),
        (lambda: emu.load_state(b"not a state"), ""),
        (lambda: emu.load_state(b"\0" * 100000), ""),
        (lambda: emu.write(0x900, b"xy"), "outside"),
    ]
    for call, words in cases:
        with pytest.raises(retrolua.RetroluaError) as caught:
            call()
        assert words in str(caught.value)
    for call, kind in [(lambda: emu.step(2_000_000), ValueError), (lambda: emu.step(1, {"jump": True}), ValueError),
                       (lambda: emu.step(1, 1 << 20), ValueError), (lambda: emu.read(-1), ValueError)]:
        with pytest.raises(kind):
            call()
    assert emu.step(1).frame == 1


def _binary_socket(path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    sock.sendall(b'{"cmd": "binary"}\n')
    data, ancillary, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(4))
    handshake = json.loads(data)
    fds = array.array("i")
    for _, _, payload in ancillary:
        fds.frombytes(payload[:4])
    os.close(fds[0])
    return sock, handshake


def _reply(sock):
    header = b""
    while len(header) < wire.REPLY.size:
        chunk = sock.recv(wire.REPLY.size - len(header))
        if not chunk:
            return None, ""
        header += chunk
    fields = wire.REPLY.unpack(header)
    message = b""
    while len(message) < fields[1]:
        message += sock.recv(fields[1] - len(message))
    return fields, message.decode()


# (header fields command, flags, count, a, b; payload; words of the error): each refused, the connection lives.
HOSTILE = [
    ((0, 0, 0, 0, 0), b"", "unknown command 0"),
    ((99, 0, 0, 0, 0), b"", "unknown command 99"),
    ((0xFFFFFFFF, 0, 0, 0, 0), b"", "unknown command"),
    ((wire.STEP, 0x10, 1, 0, 0), b"", "unknown flags"),
    ((wire.STEP, 0, 2_000_000, 0, 0), b"", "frames must be 0…1000000"),
    ((wire.STEP, 0xF00, 1, 0, 0), b"", "ports must be 0…8"),
    ((wire.STEP, 0x100, 3, 0, 0), b"\1\2\3", "the payload must be empty"),
    ((wire.STEP, 0x200, 3, 0, 0), b"\0" * 10, "the payload must be empty"),
    ((wire.STEP, 0, 1, 0, 0), b"\0\0", "the payload must be empty"),
    ((wire.SCREEN, 1, 0, 0, 0), b"", "flags apply to step, save_state and movie only"),
    ((wire.MOVIE, 3, 0, 0, 0), b"", "flags are 1 (record from now) or 2 (stop)"),
    ((wire.MOVIE, 1, 0, 0, 0), b"\xff\xfe", "the payload must be an absolute file path"),
    ((wire.MOVIE, 1, 0, 0, 0), b"/etc/passwd/x.rlm", "the folder /etc/passwd does not exist"),
    ((wire.MOVIE, 1, 0, 0, 0), b"relative.rlm", "must be an absolute file path"),
    ((wire.READ, 0, 7, 0, 1), b"", "no memory domain 7"),
    ((wire.READ, 0, 0xFFFFFFFF, 0, 1), b"", "no memory domain"),
    ((wire.READ, 0, 0, 0, 0), b"", "length must be 1…"),
    ((wire.READ, 0, 0, 0, 1 << 63), b"", "length must be 1…"),
    ((wire.READ, 0, 0, 1 << 63, 1), b"", "address 9223372036854775808 is out of range"),
    ((wire.READ, 0, 0, (1 << 63) - 1, 16), b"", "outside"),
    ((wire.READ, 0, 0, 0x7FF, 2), b"", "outside"),
    ((wire.WRITE, 0, 0, 1 << 63, 0), b"x", "out of range"),
    ((wire.WRITE, 0, 0, 0x7FFF_FFFF_FFFF_FFFF, 0), b"xy", "outside"),
    ((wire.LOAD_STATE, 0, 0, 0, 0), b"", "length must be 1…"),
    ((wire.LOAD_STATE, 0, 0, 1 << 40, 0), b"", "length must be 1…"),
    ((wire.LOAD_STATE, 0, 0, 1 << 63, 0), b"", "length must be 1…"),
    ((wire.LOAD_STATE, 0, 0, 64, 0), b"", ""),  # 64 bytes of whatever the shared area holds
]


def test_hostile_binary_requests_are_refused_and_the_emulator_serves_on(emu):
    sock, handshake = _binary_socket(emu._launched.path)
    try:
        assert handshake["version"] == 1 and handshake["request_size"] == 32
        for (command, flags, count, a, b), payload, words in HOSTILE:
            sock.sendall(wire.REQUEST.pack(command, flags, len(payload), count, a, b) + payload)
            fields, message = _reply(sock)
            assert fields is not None and fields[0] == 1, (command, flags, count, a, b)
            assert words in message, (words, message)
        # byte at a time, then two requests in one write: framing holds
        request = wire.REQUEST.pack(wire.STEP, 0, 0, 2, 0, 0)
        for byte in request:
            sock.send(bytes([byte]))
        assert _reply(sock)[0][3] == 2
        sock.sendall(request + request)
        assert _reply(sock)[0][2] + 2 == _reply(sock)[0][2]
        assert emu.step(1).frames == 1  # the other client was served all along
        # a declared payload past the limit: the connection is closed with a reason
        sock.sendall(wire.REQUEST.pack(wire.WRITE, 0, 0xFFFFFFFF, 0, 0, 0) + b"\0" * (1 << 16))
        sock.settimeout(30)
        fields, message = _reply(sock)
        assert fields[0] == 1 and "binary request of 4294967295 bytes is longer than" in message
        assert sock.recv(1) == b""  # then closed
    finally:
        sock.close()
    assert emu.step(1).frames == 1


def test_the_binary_door_is_refused_on_tcp():
    process = subprocess.Popen([retrolua.find_binary(), "run", NES, "--headless", "--quiet", "--control",
                                "tcp:127.0.0.1:0"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    try:
        address = process.stderr.readline().decode().strip().rsplit(" ", 1)[1]
        token = re.search(r"control token ([0-9a-f]{32})", process.stderr.readline().decode()).group(1)
        client = Retrolua.connect(address, token=token)
        with pytest.raises(retrolua.RetroluaError, match="binary needs a Unix socket"):
            client.request("binary")
        assert client.step(1)["frame"] == 1
        client.close()
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.stderr.close()


def _temp_names():
    """The launcher's temporary folders (retrolua-emu-*) there are now."""
    return set(name for name in os.listdir(tempfile.gettempdir()) if name.startswith("retrolua-emu-"))


def _leftovers(before):
    return sorted(_temp_names() - before)


def _gone(pid, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        with open("/proc/%d/stat" % pid) as stat:  # a zombie (waited for by nobody yet) is gone too
            if stat.read().split(") ")[1].startswith("Z"):
                return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("how", ["kill -9", "no close"])
def test_a_launched_emulator_dies_with_its_python_parent(how):
    before = _temp_names()
    script = textwrap.dedent("""
        import os, sys, time
        sys.path.insert(0, %r)
        import retrolua
        emu = retrolua.Emulator(%r, core="nestopia")
        emu.step(5)
        print(emu.pid, flush=True)
        if sys.argv[1] == "kill -9":
            time.sleep(60)
    """ % (os.path.join(ROOT, "python"), NES))
    parent = subprocess.Popen([sys.executable, "-c", script, how], stdout=subprocess.PIPE)
    pid = int(parent.stdout.readline())
    if how == "kill -9":
        parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=30)
    parent.stdout.close()
    assert _gone(pid, 2.0), "the emulator outlived its parent by more than 2 s"
    assert _leftovers(before) == []


def test_a_crashed_emulator_is_an_error_and_the_trainer_goes_on():
    emu = retrolua.Emulator(NES, core="nestopia")
    emu.step(1)
    os.kill(emu.pid, signal.SIGKILL)  # as a crashing core would end it
    with pytest.raises(retrolua.RetroluaError, match="exited|closed"):
        for _ in range(100):
            emu.step(1)
    emu.close()
    with retrolua.Emulator(NES, core="nestopia") as again:
        assert again.step(3).frame == 3


def test_a_failed_start_reports_the_emulators_message_and_leaves_nothing():
    before = _temp_names()
    with pytest.raises(retrolua.RetroluaError, match="no-such.nes"):
        retrolua.Emulator("/nonexistent/no-such.nes", core="nestopia")
    with pytest.raises(retrolua.RetroluaError, match="cannot start"):
        retrolua.Emulator(NES, binary="/nonexistent/retrolua")
    assert _leftovers(before) == []


def test_many_emulators_in_one_process():
    emus = [retrolua.Emulator(NES, core="nestopia") for _ in range(3)]
    try:
        for index, emu in enumerate(emus):
            emu.step(index + 1)
        assert [emu.step(0).frame for emu in emus] == [1, 2, 3]
    finally:
        for emu in emus:
            emu.close()
    assert all(emu.closed for emu in emus)


def _fresh_venv_with_the_package(tmp_path):
    """A fresh venv with python/ pip-installed in it; its interpreter's path."""
    venv = tmp_path / "venv"
    # Setuptools to build comes borrowed too; the package itself is built and installed from python/.
    python = borrowing_venv(venv, "borrowed.pth")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation",
                    "--disable-pip-version-check", os.path.join(ROOT, "python")], check=True, cwd=str(tmp_path))
    return python, venv


def test_pip_install_into_a_fresh_venv(tmp_path):
    python, venv = _fresh_venv_with_the_package(tmp_path)
    check = ("import os, retrolua, retrolua.integration as i, numpy; emu = retrolua.Emulator(%r, core='nestopia'); "
             "assert os.path.isfile(i._SCENARIO_LUA), 'the Lua of the integrations is installed'; "
             "print(emu.step(3).frame, emu.screen().shape, retrolua.__file__); emu.close()" % NES)
    result = subprocess.run([python, "-c", check], capture_output=True, text=True, cwd=str(tmp_path), timeout=120)
    assert result.returncode == 0, result.stderr
    frame, _, location = result.stdout.strip().partition(" ")
    assert frame == "3" and "(224, 256, 3)" in location and str(venv) in location


def test_an_installed_retrolua_serves_the_registered_ids_from_any_folder(tmp_path):
    # scripts/install PREFIX and the package pip-installed: from a folder outside the tree, the registered ids
    # find their ROM and scenario in PREFIX/share/retrolua (no source tree, no $RETROLUA).
    prefix = tmp_path / "prefix"
    subprocess.run(["/bin/bash", os.path.join(ROOT, "scripts", "install"), "--binary", retrolua.find_binary(),
                    str(prefix)], check=True, capture_output=True, timeout=120)
    python, _ = _fresh_venv_with_the_package(tmp_path)
    environment = {k: v for k, v in os.environ.items() if k != "RETROLUA"}
    environment["PATH"] = str(prefix / "bin") + ":/usr/bin:/bin"
    environment["HOME"] = str(tmp_path)
    check = ("import gymnasium, retrolua; from retrolua._binary import shipped_file; "
             "env = gymnasium.make('retrolua/Dodge-ram-v0'); env.reset(seed=1); env.step(0); env.close(); "
             "print(shipped_file('build/roms/dodge.nes'))")
    result = subprocess.run([python, "-c", check], capture_output=True, text=True, cwd=str(tmp_path),
                            env=environment, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(prefix / "share" / "retrolua" / "roms" / "dodge.nes"), result.stdout

    # Without an installed retrolua the package says how to get one.
    environment["PATH"] = "/usr/bin:/bin"
    missing = subprocess.run([python, "-c", "import retrolua; retrolua.find_binary()"], capture_output=True,
                             text=True, cwd=str(tmp_path), env=environment, timeout=60)
    assert missing.returncode != 0 and "scripts/install" in missing.stderr and "RETROLUA=" in missing.stderr, \
        missing.stderr


def test_a_failing_scenario_fails_the_step_with_its_error(tmp_path):
    # A scenario that breaks would go on scoring 0: the step raises with the scenario's own error.
    broken = tmp_path / "broken.lua"
    broken.write_text("function reward() return memory.read_u8('x') end\nfunction done() return false end\n")
    with retrolua.Emulator(NES, core="nestopia", scenario=str(broken)) as emulator:
        with pytest.raises(retrolua.RetroluaError, match="the scenario failed: .*memory.read_u8: bad argument #1"):
            emulator.step(1)
        with pytest.raises(retrolua.RetroluaError, match="the scenario failed"):
            emulator.step(5)  # and goes on saying so
        assert emulator.read(0x03)[0] >= 0  # the emulator itself serves on


# -- Gymnasium environments (retrolua.make, retrolua.env) ---------------------------------------------

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

import retrolua.env  # noqa: E402,F401  (import retrolua registers the ids; this names the module used below)


@pytest.mark.parametrize("obs", ["ram", "screen", "both"])
def test_environments_pass_gymnasiums_check_env(obs):
    env = retrolua.make(NES, core="nestopia", scenario=SCENARIO, obs=obs, actions=[[], ["right"], ["left"]],
                        frameskip=4, noop_max=8, sticky=0.25)
    try:
        check_env(env, skip_render_check=True)
        if obs == "screen":
            assert env.observation_space == gymnasium.spaces.Box(0, 255, (224, 256, 3), np.uint8)
        if obs == "ram":
            assert env.observation_space.shape == (2048,)
    finally:
        env.close()


def test_the_same_seed_gives_the_same_episode_and_seeds_differ():
    # Two environments side by side (a replay after a state load on one emulator is the subject of a
    # separate question: see the report), each episode from the same start state.
    envs = [retrolua.make(NES, core="nestopia", obs="ram", noop_max=30, sticky=0.5, frameskip=2) for _ in range(3)]
    try:
        def episode(env, seed):
            first, _ = env.reset(seed=seed)
            env.action_space.seed(seed)
            return [first] + [env.step(env.action_space.sample())[0] for _ in range(10)]
        a, b, c = episode(envs[0], 7), episode(envs[1], 7), episode(envs[2], 8)
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
        assert not all(np.array_equal(x, y) for x, y in zip(a, c))
    finally:
        for env in envs:
            env.close()


def test_scenario_rewards_end_episodes_and_render():
    env = retrolua.make(NES, core="nestopia", scenario=SCENARIO, obs="ram", actions=[[], ["right"]], frameskip=4,
                        warmup_frames=10, render_mode="rgb_array", max_steps=200)
    try:
        observation, _ = env.reset(seed=0)
        assert observation[0x03] == 120
        total, terminated, truncated = 0.0, False, False
        while not (terminated or truncated):
            observation, reward, terminated, truncated, _ = env.step(1)
            total += reward
        assert terminated and total == 80 and observation[0x03] == 200
        assert env.render().shape == (224, 256, 3)
    finally:
        env.close()
    env = retrolua.make(NES, core="nestopia", obs="ram", max_steps=3)  # no scenario: reward 0, truncation only
    try:
        env.reset()
        results = [env.step(env.action_space.sample())[1:4] for _ in range(3)]
        assert results == [(0.0, False, False), (0.0, False, False), (0.0, False, True)]
    finally:
        env.close()


def test_importing_retrolua_registers_the_ids_and_render_fps_follows_frame_skip():
    # A fresh interpreter: `import retrolua` alone (as with other emulators' packages) gives the ids.
    probe = "import retrolua, gymnasium; print(sorted(k for k in gymnasium.registry if k.startswith('retrolua/')))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=dict(
        os.environ, PYTHONPATH=os.path.join(ROOT, "python")), check=True).stdout
    assert out.strip() == "['retrolua/Dodge-ram-v0', 'retrolua/Dodge-v0']"
    env = retrolua.make(NES, core="nestopia", obs="ram", frameskip=4)
    try:  # one rendered frame a step: a recorded video plays at the game's speed
        assert env.metadata["render_fps"] == pytest.approx(env.emu.info["fps"] / 4)
    finally:
        env.close()


DUMP_RAM = """event.on("exit", function()
  emu.result("ram", (memory.read_bytes(0, 2048):gsub(".", function(c) return string.format("%02x", c:byte()) end)))
end)
"""


def test_recorded_episodes_replay_to_the_same_ram(tmp_path):
    # record=: every episode a movie from its start state (no-ops included); `retrolua movie play`
    # of each ends on the RAM the episode ended on. "filtered" presses only the NES's own buttons:
    # nestopia's turbo buttons (RetroPad X and Y) keep a phase its states do not hold.
    env = retrolua.make(NES, core="nestopia", obs="ram", record=str(tmp_path), max_steps=30, noop_max=6,
                        frameskip=2, actions="filtered")
    finals = []
    try:
        for episode in range(2):
            env.reset(seed=episode)
            env.action_space.seed(episode)
            truncated = False
            while not truncated:
                observation, _, _, truncated, _ = env.step(env.action_space.sample())
            finals.append(bytes(observation))
    finally:
        env.close()
    movies = sorted(p for p in os.listdir(tmp_path) if p.endswith(".rlm"))
    assert len(movies) == 2 and movies[0].startswith("demo-") and movies[1].endswith("-000001.rlm")
    (tmp_path / "dump.lua").write_text(DUMP_RAM)
    for movie, final in zip(movies, finals):
        out = subprocess.run([os.environ["RETROLUA"], "movie", "play", str(tmp_path / movie), NES, "--core", "nestopia",
                              "--headless", "--script", str(tmp_path / "dump.lua"), "--json"],
                             capture_output=True, text=True, timeout=60).stdout.strip().splitlines()[-1]
        assert bytes.fromhex(json.loads(out)["results"]["ram"]) == final, movie


def test_registered_dodge_and_async_vector_env():
    env = gymnasium.make("retrolua/Dodge-ram-v0")
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()
    vector = gymnasium.vector.AsyncVectorEnv([lambda: retrolua.make(NES, core="nestopia", obs="ram")] * 2)
    try:
        observations, _ = vector.reset(seed=1)
        assert observations.shape == (2, 2048)
        observations, rewards, terminated, truncated, _ = vector.step(vector.action_space.sample())
        assert observations.shape == (2, 2048) and rewards.shape == (2,)
    finally:
        vector.close()


def test_one_environment_replays_an_episode_after_a_reset():
    # The same emulator, reset twice with the same seed: the same observations, rewards and info.
    # (Not with nestopia's turbo buttons, RetroPad X and Y: the core keeps their pulse counter outside
    # its savestates, so the same state and input replay differently — a core fact, README "Python".)
    env = retrolua.make(NES, core="nestopia", scenario=SCENARIO, obs="both", noop_max=30, sticky=0.5, frameskip=2,
                        actions=[[], ["b"], ["a"], ["right"], ["left"], ["a", "right"], ["start"]])
    try:
        def episode(seed):
            first, info = env.reset(seed=seed)
            env.action_space.seed(seed)
            steps = [env.step(env.action_space.sample()) for _ in range(20)]
            return [first] + [s[0] for s in steps], [s[1:] for s in steps], info
        first, second = episode(3), episode(3)
        for x, y in zip(first[0], second[0]):
            assert np.array_equal(x["ram"], y["ram"]) and np.array_equal(x["screen"], y["screen"])
        assert first[1] == second[1] and first[2] == second[2]
    finally:
        env.close()


DODGE = os.path.join(ROOT, "build", "roms", "dodge.nes")
DODGE_SCENARIO = os.path.join(ROOT, "examples", "python", "dodge_scenario.lua")


def test_scenario_info_reaches_both_doors():
    # info() is called once at the end of a step; the binary door and the JSON door report it.
    env = retrolua.make(DODGE, core="nestopia", scenario=DODGE_SCENARIO, obs="ram", actions=retrolua.env.DODGE_ACTIONS,
                        frameskip=4, warmup_frames=30)
    try:
        _, info = env.reset(seed=0)
        assert info["lives"] == env.emu.read(0x08)[0] and info["score"] == 0 and "frame" in info
        _, _, _, _, info = env.step(1)
        assert set(info) >= {"score", "lives", "frame", "lag"}
    finally:
        env.close()
    client = Retrolua.launch(DODGE, core="nestopia", scenario=DODGE_SCENARIO)
    try:
        reply = client.request("step", frames=30)
        assert reply["info"] == {"lives": 3, "score": 0}
    finally:
        client.close()


def test_an_info_that_cannot_travel_is_an_error_and_the_emulator_goes_on(tmp_path):
    scenario = tmp_path / "big.lua"
    scenario.write_text("function reward() return 0 end function done() return false end\n"
                        "function info() return { blob = string.rep('x', 20000) } end\n")
    with retrolua.Emulator(NES, core="nestopia", scenario=str(scenario)) as emulator:
        with pytest.raises(retrolua.RetroluaError, match="at most 16384"):
            emulator.step(1)
        assert emulator.read(0x03)[0] == 0 and len(emulator.save_state()) > 0  # it serves on (frame 1: x unset)


def test_snapshots_restore_without_copies_and_are_bounded(emu):
    emu.step(10, ["right"])
    snapshot = emu.snapshot()
    assert snapshot.length == len(emu.save_state())
    before = emu.ram().copy()
    emu.step(20, ["left"])
    assert emu.restore(snapshot) == 10
    assert np.array_equal(emu.ram(), before)
    emu.step(5)
    emu.snapshot(into=snapshot)  # replaced in place: the same handle, the new state
    emu.step(5)
    assert emu.restore(snapshot) == 15
    other = emu.snapshot()
    other.forget()
    with pytest.raises(retrolua.RetroluaError, match="forgotten"):
        emu.restore(other)
    # Numbers the client would never send: the host refuses them.
    for command, a in ((wire.RESTORE, 999999), (wire.SNAPSHOT, 424242), (wire.RESTORE, 2 ** 64 - 1)):
        with pytest.raises(retrolua.RetroluaError, match="no snapshot"):
            emu._call(command, 0, 0, a)
    assert emu._call(wire.FORGET, 0, 0, 999999)[5] == 0
    with retrolua.Emulator(NES, core="nestopia") as stranger:
        with pytest.raises(retrolua.RetroluaError, match="another emulator"):
            stranger.restore(snapshot)
    del snapshot
    import gc
    gc.collect()
    assert emu.step(1).frame == 16  # the collected snapshot's forget went first, in order


def test_a_start_state_from_a_file(tmp_path):
    with retrolua.Emulator(NES, core="nestopia") as emulator:
        emulator.step(40, ["right"])
        path = tmp_path / "start.state"
        path.write_bytes(emulator.save_state())
        x = emulator.read(0x03)[0]
    env = retrolua.make(NES, core="nestopia", obs="ram", state=str(path))
    try:
        observation, info = env.reset(seed=0)
        assert info["frame"] == 41 and observation[0x03] == x  # one frame after the state, without input
    finally:
        env.close()


def test_our_vector_env_batches_concurrent_emulators():
    from retrolua.vector import RetroluaVectorEnv

    envs = retrolua.make_vec(DODGE, 2, core="nestopia", scenario=DODGE_SCENARIO, obs="ram",
                             actions=retrolua.env.DODGE_ACTIONS, frameskip=4, max_steps=6, noop_max=10)
    single = retrolua.make(DODGE, core="nestopia", scenario=DODGE_SCENARIO, obs="ram",
                           actions=retrolua.env.DODGE_ACTIONS, frameskip=4, max_steps=6, noop_max=10)
    try:
        assert isinstance(envs, RetroluaVectorEnv) and envs.num_envs == 2
        assert envs.observation_space.shape == (2, 2048) and envs.single_action_space.n == 5
        observations, infos = envs.reset(seed=5)
        alone, _ = single.reset(seed=6)
        assert np.array_equal(observations[1], alone)  # env i is seeded seed + i
        actions = np.array([2, 1])
        for step in range(6):
            observations, rewards, terminated, truncated, infos = envs.step(actions)
            alone, reward, _, _, info = single.step(1)
            assert np.array_equal(observations[1], alone) and rewards[1] == reward
            assert infos["lives"][1] == info["lives"] and infos["_lives"].all()
        assert truncated.all()
        # The next step resets (Gymnasium's NEXT_STEP autoreset): the start again.
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        assert not truncated.any() and (rewards == 0).all()
    finally:
        envs.close()
        single.close()
    vector = gymnasium.make_vec("retrolua/Dodge-ram-v0", num_envs=2, vectorization_mode="vector_entry_point")
    try:
        assert isinstance(vector, RetroluaVectorEnv)
        observations, _ = vector.reset(seed=1)
        assert observations.shape == (2, 2048)
    finally:
        vector.close()


def test_negative_and_out_of_range_actions_are_refused_on_every_path():
    # (SB3's VecEnv: test_sb3.py) numpy takes index -1 as the last action: every path refuses it by name before anything is sent.
    from retrolua.pool import make_pool

    options = dict(core="nestopia", obs="ram", actions=retrolua.env.DODGE_ACTIONS, frameskip=2)
    env = retrolua.make(DODGE, **options)
    multi = retrolua.make(DODGE, core="nestopia", obs="ram", actions="multi_discrete")
    try:
        env.reset(seed=0)
        for action in (-1, 5, 1.5):
            with pytest.raises(ValueError, match=r"^action %s is not in Discrete\(5\)" % re.escape(repr(action))):
                env.step(action)
        assert env.step(4)[4]["frame"] > 0  # the env steps on
        multi.reset(seed=0)
        with pytest.raises(ValueError, match=r"^action \[0, -1, 2\] is not in MultiDiscrete\(\[3 3 4\]\)"):
            multi.step([0, -1, 2])
        with pytest.raises(ValueError, match=r"^each action of MultiDiscrete\(\[3 3 4\]\) has 3 values"):
            multi.step([0, 1])
        multi.step([0, 0, 3])
    finally:
        env.close()
        multi.close()
    for sticky in (0.0, 0.5):  # through the batch lanes, and through each env's own path (sticky actions)
        envs = retrolua.make_vec(DODGE, 3, sticky=sticky, **options)
        try:
            envs.reset(seed=0)
            frames = envs.step([0, 0, 0])[4]["frame"].copy()
            with pytest.raises(ValueError, match=r"^env 1: action -1 is not in Discrete\(5\)"):
                envs.step([0, -1, 2])
            with pytest.raises(ValueError, match=r"^env 2: action 7 is not in Discrete\(5\)"):
                envs.step(np.array([0, 1, 7]))
            assert (envs.step([1, 2, 3])[4]["frame"] == frames + 2).all()  # nothing of the refused steps ran
        finally:
            envs.close()
    pool = make_pool(DODGE, 3, 3, **options)
    try:
        pool.async_reset(seed=0)
        pool.recv()
        with pytest.raises(ValueError, match=r"^env 2: action -3 is not in Discrete\(5\)"):
            pool.send(np.array([0, -3]), [0, 2])
        pool.send(np.array([0, 1, 2]))  # none was started: every env takes a step
        assert len(pool.recv()[1]) == 3
    finally:
        pool.close()


def test_vector_observations_are_cropped_and_never_rewritten_while_held():
    envs = retrolua.make_vec(DODGE, 2, core="nestopia", obs="screen", crop=(8, 16, 100, 50))
    single = retrolua.make(DODGE, core="nestopia", obs="screen", crop=(8, 16, 100, 50))
    try:
        assert envs.single_observation_space.shape == (50, 100, 3)
        held, _ = envs.reset(seed=0)
        alone, _ = single.reset(seed=0)
        assert held.shape == (2, 50, 100, 3) and np.array_equal(held[0], alone)
        before, corner = held.copy(), held[1, :4, :4]  # a view holds the batch too
        del held
        seen = set()
        for _ in range(6):  # a batch nobody holds is reused (no fresh memory each step)
            observations = envs.step(envs.action_space.sample())[0]
            seen.add(id(observations))
            del observations
        assert len(seen) <= 2
        assert np.array_equal(corner, before[1, :4, :4])  # what is still held was not written over
    finally:
        envs.close()
        single.close()
