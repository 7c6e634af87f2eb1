"""The Python client's edges against a real emulator: a client that truncates the shared memory it
was given, a scenario whose main chunk fails, a core that hangs (timeouts, a parent killed while the
core spins), Ctrl-C during a step, and integration folders as untrusted input (a FIFO, a gzip bomb,
deep JSON, damaged gzip, names outside the folder, oversized scripts, scratch files after kill -9).
Run by Tests/HostTests/PythonPackageTests.swift (RETROLUA = the built binary) with build/venv's
pytest: `build/venv/bin/python -m pytest Tests/python/test_client_edges.py`."""

import array
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import zlib

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from processes import gone  # noqa: E402
import retrolua  # noqa: E402
from retrolua import _protocol as wire  # noqa: E402
from retrolua import integration  # noqa: E402
from retrolua.control import Retrolua  # noqa: E402

NES = os.path.join(ROOT, "build", "roms", "demo.nes")
DODGE = os.path.join(ROOT, "build", "roms", "dodge.nes")
PYTHON_PATH = os.path.join(ROOT, "python")


def _cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as stat:
        fields = stat.read().split(") ")[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


@pytest.fixture(scope="module")
def hanging_core(tmp_path_factory):
    """Tests/cores/broken_core.c built to spin forever inside its 10th frame, and a game for it."""
    if not shutil.which("cc"):
        pytest.skip("no C compiler")
    folder = tmp_path_factory.mktemp("hang")
    core = str(folder / "broken_libretro.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", core, os.path.join(ROOT, "Tests", "cores", "broken_core.c"),
                    "-lm", "-DMODE_HANG_AT_10"], check=True)
    game = folder / "game.brk"
    game.write_bytes(b"broken core content")
    return core, str(game)


# -- 1. the shared memory of the binary door ---------------------------------------------------------


def test_a_client_that_truncates_its_shared_memory_is_refused_and_the_emulator_serves_on():
    with retrolua.Emulator(NES, core="nestopia", keep_alive=True) as emu:
        emu.step(2, screen=True)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(emu._launched.path)
        try:
            sock.sendall(b'{"cmd": "binary"}\n')
            data, ancillary, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(4))
            fds = array.array("i")
            for _, _, payload in ancillary:
                fds.frombytes(payload[:4])
            fd = fds[0]
            size = json.loads(data)["size"]
            try:
                for length in (0, 4096, size - 1, size + 4096):
                    with pytest.raises(PermissionError):
                        os.ftruncate(fd, length)
                assert os.fstat(fd).st_size == size
                with pytest.raises(PermissionError):  # nor can the seals be lifted or changed
                    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE)
                os.pwrite(fd, b"\xff" * 64, 0)  # it stays writable: the client writes states into it
            finally:
                os.close(fd)
            # The emulator serves this client's screen, step, read and state, and the other client.
            for command, a, b in ((wire.SCREEN, 0, 0), (wire.STEP, 0, 0), (wire.READ, 0, 16),
                                  (wire.SAVE_STATE, 0, 0)):
                sock.sendall(wire.REQUEST.pack(command, 0, 0, 1 if command == wire.STEP else 0, a, b))
                header = b""
                while len(header) < wire.REPLY.size:
                    header += sock.recv(wire.REPLY.size - len(header))
                fields = wire.REPLY.unpack(header)
                assert fields[0] == 0, (command, sock.recv(fields[1]))
        finally:
            sock.close()
        assert emu.step(1, screen=True).frames == 1 and emu.screen().shape == (224, 256, 3)
        assert emu._launched.process.poll() is None


# -- 4. a scenario whose main chunk fails -----------------------------------------------------------


def test_a_scenario_whose_main_chunk_fails_refuses_to_start(tmp_path):
    broken = tmp_path / "broken_scenario.lua"
    broken.write_text("function reward() return 1 end\nlocal nothing = nil\nnothing.x = 1\n")
    other = tmp_path / "other.lua"  # another script with a reward(): it must never stand in for the scenario
    other.write_text("function reward() return 5 end\nfunction done() return false end\n")
    for scripts in ((), (str(other),)):
        with pytest.raises(retrolua.RetroluaError, match=r"--scenario: .*broken_scenario.lua:3: attempt to index"):
            retrolua.Emulator(NES, core="nestopia", scenario=str(broken), scripts=scripts)
    with pytest.raises(retrolua.RetroluaError, match=r"broken_scenario.lua:3:"):
        Retrolua.launch(NES, core="nestopia", scenario=str(broken))
    raising = tmp_path / "raising.lua"
    raising.write_text('error("this integration is broken")\n')
    with pytest.raises(retrolua.RetroluaError, match=r"raising.lua:1: this integration is broken"):
        retrolua.make(NES, core="nestopia", scenario=str(raising))


def test_an_integration_whose_script_fails_as_it_loads_refuses_to_start(tmp_path):
    # stable-retro's own Lua runs in the scenario's main chunk: broken, the env must not train on 0.
    game = _folder(tmp_path / "game", {"reward": {"script": "lua:score"}, "scripts": ["broken.lua"]},
                   broken_lua="function score() return 1 end\nlocal t = nil\nprint(t.x)\n")
    with pytest.raises(retrolua.RetroluaError, match=r"--scenario: .*broken.lua:3: attempt to index"):
        retrolua.make(DODGE, core="nestopia", integration=game)


def test_a_scenario_failing_later_fails_every_json_step_too(tmp_path):
    broken = tmp_path / "later.lua"
    broken.write_text("function reward() if emu.framecount() > 2 then error('reward broke') end return 1 end\n"
                      "function done() return false end\n")
    client = Retrolua.launch(NES, core="nestopia", scenario=str(broken))
    try:
        assert client.step(1)["reward"] == 1
        for _ in range(2):
            with pytest.raises(retrolua.RetroluaError, match="the scenario failed: .*later.lua:1: reward broke"):
                client.step(3)
        assert len(client.read(0, 4)) == 4  # the emulator itself serves on
    finally:
        client.close()


# -- 6. a core that hangs ---------------------------------------------------------------------------


def test_a_call_without_a_reply_in_time_raises_naming_it_and_kills_the_emulator(hanging_core):
    core, game = hanging_core
    emu = retrolua.Emulator(game, core=core, call_timeout=1.0)
    try:
        assert emu.step(5).frame == 5
        with pytest.raises(retrolua.RetroluaError, match=r"step: no reply from the emulator in 2\.0 s .*killed"):
            emu.step(10)  # 1 s and 0.1 s per frame
        assert emu.closed and gone(emu._launched.process.pid, 10)
        with pytest.raises(retrolua.RetroluaError, match="step: no reply .* this Emulator is closed"):
            emu.screen()
    finally:
        emu.close()
    client = Retrolua.launch(game, core=core, call_timeout=1.0)
    try:
        client.step(5)
        with pytest.raises(retrolua.RetroluaError, match=r"step: no reply from the emulator in 1\.5 s .*killed"):
            client.step(5)
        with pytest.raises(retrolua.RetroluaError, match="this client is closed"):
            client.info()
    finally:
        client.close()


def test_a_connected_client_whose_call_times_out_leaves_the_game_running(tmp_path):
    # A client that only connected (MCP's --attach, a tool) does not own the game: a call that outlasts its
    # call_timeout closes the client, never the game.
    path = str(tmp_path / "game.sock")
    binary = os.environ.get("RETROLUA", os.path.join(ROOT, ".build", "debug", "retrolua"))
    game = subprocess.Popen([binary, "run", DODGE, "--headless", "--trust", "--control", "unix:" + path],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 60
        while not os.path.exists(path) and time.time() < deadline:
            time.sleep(0.05)
        client = Retrolua.connect("unix:" + path, call_timeout=0.5)
        with pytest.raises(retrolua.RetroluaError, match="no reply from the emulator in 0.5 s"):
            client.eval("local t = os.clock(); while os.clock() - t < 3 do end; return 1")
        with pytest.raises(retrolua.RetroluaError, match="this client is closed"):
            client.info()
        again = Retrolua.connect("unix:" + path, call_timeout=60)
        assert again.eval("return 6 * 7") == [42]
        assert game.poll() is None
        again.request("quit")
        again.disconnect()
        assert game.wait(timeout=60) == 0
    finally:
        if game.poll() is None:
            game.kill()
            game.wait()


def test_an_emulator_whose_core_hangs_ends_with_its_killed_parent(hanging_core):
    core, game = hanging_core
    script = textwrap.dedent("""
        import sys
        sys.path.insert(0, %r)
        import retrolua
        emu = retrolua.Emulator(%r, core=%r, call_timeout=None)
        emu.step(5)
        print(emu.pid, flush=True)
        emu.step(10)  # never returns: the core spins in its 10th frame
    """ % (PYTHON_PATH, game, core))
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        pid = int(parent.stdout.readline())
        start = _cpu_ticks(pid)
        deadline = time.monotonic() + 30
        while _cpu_ticks(pid) - start < 30:  # spinning: no frame ends, nothing polls the parent
            assert time.monotonic() < deadline, "the core never reached its hang"
            time.sleep(0.05)
        parent.kill()
        parent.wait(timeout=30)
        assert gone(pid, 30), "the emulator outlived its killed parent, spinning"
    finally:
        if parent.poll() is None:
            parent.kill()
        parent.stdout.close()


def test_an_emulator_started_from_a_thread_that_ends_lives_on():
    # The kernel also signals the child when the parent's thread that started it ends: the emulator
    # must see that its parent process is still there.
    box = {}

    def start():
        try:
            box["emu"] = retrolua.Emulator(NES, core="nestopia")
        except BaseException as error:  # noqa: B902 (reported below)
            box["error"] = error
    thread = threading.Thread(target=start)
    thread.start()
    thread.join()
    assert "emu" in box, box.get("error")
    emu = box["emu"]
    try:
        time.sleep(0.5)
        assert emu.step(3).frame == 3 and emu._launched.process.poll() is None
    finally:
        emu.close()


def test_ctrl_c_during_a_step_is_a_clean_interrupt_and_the_emulator_serves_on():
    # Ctrl-C as a terminal sends it, to the whole process group, during steps in a loop.
    script = textwrap.dedent("""
        import os, signal, sys, threading, traceback
        sys.path.insert(0, %r)
        import retrolua
        emu = retrolua.Emulator(%r, core="nestopia")
        completed = 0
        threading.Timer(0.5, os.killpg, (os.getpgid(0), signal.SIGINT)).start()
        try:
            while True:
                emu.step(300)
                completed += 1
        except KeyboardInterrupt as interrupt:
            print("".join(traceback.format_exception(interrupt)).replace("\\n", "|"), flush=True)
        print(completed, emu.step(0).frame, emu.step(1, screen=True).frame, emu.screen().shape, flush=True)
        emu.close()
    """ % (PYTHON_PATH, NES))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                            start_new_session=True)
    assert result.returncode == 0, result.stderr
    trace, numbers = result.stdout.strip().split("\n")
    assert trace.endswith("KeyboardInterrupt|"), trace
    assert "BlockingIOError" not in trace and "During handling" not in trace, trace
    assert trace.count("|") < 25, trace
    completed, frame, after, shape = numbers.split(" ", 3)
    # The interrupted step was finished by the emulator and its reply dropped; then it serves on.
    assert int(frame) % 300 == 0 and int(frame) >= 300 * int(completed), numbers
    assert int(after) == int(frame) + 1 and shape == "(224, 256, 3)"


# -- 7. integration folders are untrusted -----------------------------------------------------------


def _folder(path, rules=None, **files):
    path.mkdir(exist_ok=True)
    (path / "data.json").write_text(json.dumps({"info": {"x": {"address": 0x0600, "type": "|u1"}}}))
    (path / "scenario.json").write_text(json.dumps(rules or {"reward": {"variables": {"x": {"reward": 1}}}}))
    for name, content in files.items():
        (path / name.replace("_", ".")).write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def _gzip_of_zeros(megabytes):
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = bytes(1 << 20)
    return b"".join(compressor.compress(chunk) for _ in range(megabytes)) + compressor.flush()


def test_a_fifo_in_an_integration_is_refused_not_waited_on(tmp_path):
    game = tmp_path / "game"
    game.mkdir()
    os.mkfifo(game / "data.json")
    box = {}

    def load():
        try:
            integration.load(str(game))
        except BaseException as error:  # noqa: B902 (reported below)
            box["error"] = error
    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "integration.load waits on a FIFO"
    assert isinstance(box.get("error"), retrolua.RetroluaError) and "not a regular file" in str(box["error"])
    ok = _folder(tmp_path / "ok")
    os.mkfifo(os.path.join(ok, "Start.state"))
    with pytest.raises(retrolua.RetroluaError, match="Start.state: not a regular file"):
        integration.load(ok).state("Start")


def test_a_gzip_bomb_state_is_refused_without_inflating_it(tmp_path):
    bomb = _gzip_of_zeros(256)  # 256 MiB of zeros in a quarter of a megabyte
    game = _folder(tmp_path / "game", Start_state=bomb, metadata_json='{"default_state": "Start"}')
    before = _max_rss_mb()
    with pytest.raises(retrolua.RetroluaError, match=r"Start.state: inflates past 64 MiB"):
        integration.load(game).state()
    with pytest.raises(retrolua.RetroluaError, match=r"inflates past 64 MiB"):
        retrolua.make(DODGE, core="nestopia", integration=game)
    assert _max_rss_mb() - before < 150, "the bomb was inflated"
    assert integration.gunzip_state(_gzip_of_zeros(2)) == bytes(2 << 20)  # a real state still inflates


def _max_rss_mb():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.parametrize("files,message", [
    ({"data_json": "[" * 200000}, "data.json: JSON nested more than 64 levels"),
    ({"data_json": json.dumps({"info": {}, "deep": json.loads("[" * 100 + "]" * 100)})}, "nested more than 64"),
    ({"scenario_json": json.dumps({"actions": json.loads("[" * 70 + "]" * 70)})}, "nested more than 64"),
    ({"Start_state": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"\xff" * 40,
      "metadata_json": '{"default_state": "Start"}'}, "Start.state: a damaged gzip file"),
    ({"metadata_json": '{"default_state": "../outside"}'}, "default_state '../outside' is outside the integration"),
    ({"metadata_json": '{"default_state": "/etc/passwd"}'}, "is outside the integration"),
    ({"metadata_json": '{"default_state": "a\\u0000b"}'}, "is outside the integration"),
    ({"scenario_json": json.dumps({"reward": {"script": "lua:f"}, "scripts": ["a\0.lua"]})},
     "is outside the integration"),
    ({"scenario_json": json.dumps({"reward": {"script": "lua:f"}, "scripts": ["big.lua"]}),
      "big_lua": "-- " + "x" * (1 << 20)}, r"big.lua: 1048579 bytes, more than the 1 MiB"),
])
def test_hostile_integration_files_are_a_clear_error(tmp_path, files, message):
    (tmp_path / "outside.state").write_bytes(b"a state outside the folder")
    game = _folder(tmp_path / "game", **files)
    with pytest.raises(retrolua.RetroluaError, match=message):
        retrolua.make(DODGE, core="nestopia", integration=game)


def test_the_scratch_scenario_is_gone_after_kill_9_and_stale_ones_are_removed(tmp_path):
    game = _folder(tmp_path / "game")
    scratch = tempfile.gettempdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = os.path.join(scratch, "retrolua-integration-%d-stale" % dead.pid)  # a process gone since
    os.makedirs(stale, exist_ok=True)
    script = textwrap.dedent("""
        import os, sys, time
        sys.path.insert(0, %r)
        import retrolua
        env = retrolua.make(%r, core="nestopia", integration=%r)
        env.reset(seed=0)
        print(os.getpid(), flush=True)
        time.sleep(60)
    """ % (PYTHON_PATH, DODGE, game))
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        pid = int(child.stdout.readline())
        assert not os.path.exists(stale), "a dead process's scratch folder was left"
        child.kill()
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
        child.stdout.close()
    assert [name for name in os.listdir(scratch) if name.startswith("retrolua-integration-%d-" % pid)] == []
