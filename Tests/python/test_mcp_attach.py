"""`retrolua mcp --attach`: the MCP server drives a game already running (headless with --control, or
windowed under Xvfb, found in a runtime folder of the test's own) through the SDK's stdio client: the tools
read, step and look at the running game; open_game refuses; closing the client leaves the game running;
a paused game is not stepped (the result says it is paused by the user); with several games running and
no process id, the command lists them. Run by the Swift suite (Tests/HostTests/PythonPackageTests.swift)."""

import asyncio
import base64
import os
import subprocess
import sys
import time

import pytest

from test_mcp import DODGE, PLAYER_X, ROOT, _environment, _error, _json, _png_size, _session

sys.path.insert(0, os.path.join(ROOT, "python"))
from retrolua.control import Retrolua  # noqa: E402
from retrolua.errors import RetroluaError  # noqa: E402


@pytest.fixture
def games(tmp_path):
    """Starts `retrolua run DODGE ARGUMENTS…` with a runtime folder of the test's own; kills what is left."""
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    env = dict(_environment(), XDG_RUNTIME_DIR=str(runtime), HOME=str(tmp_path), SDL_AUDIODRIVER="dummy")
    started = []

    def start(*arguments):
        process = subprocess.Popen([env["RETROLUA"], "run", DODGE, *arguments], env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        started.append(process)
        return process

    start.env = {"XDG_RUNTIME_DIR": str(runtime)}
    start.full_env = env
    start.binary = env["RETROLUA"]
    start.runtime = runtime / "retrolua"
    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()
        process.stderr.close()


def _wait_for(path, process):
    """Waits until the run's socket answers (the run opens it once its core is loaded)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read().decode(errors="replace")
        if os.path.exists(path):
            try:
                Retrolua.connect("unix:" + str(path)).disconnect()
                return "unix:" + str(path)
            except OSError:
                pass
        time.sleep(0.05)
    raise AssertionError("no socket at %s" % path)


def _frame(address):
    client = Retrolua.connect(address)
    try:
        return client.info()["frame"]
    finally:
        client.disconnect()


def test_an_agent_attaches_to_a_headless_game_and_leaves_it_running(games, tmp_path):
    path = tmp_path / "game.sock"
    run = games("--headless", "--control", "unix:" + str(path))
    address = _wait_for(path, run)

    async def body():
        async with _session("--attach", address, env=games.env) as session:
            described = _json(await session.call_tool("describe_game", {}))
            assert described["attached"] == address and described["core"] == "nestopia"
            assert "paused by the user" not in str(described)
            before = _json(await session.call_tool("read_memory", {"address": PLAYER_X, "format": "integers"}))
            stepped = _json(await session.call_tool("step", {"frames": 20, "buttons": ["right"]}))
            assert stepped["frames_run"] == 20
            after = _json(await session.call_tool("read_memory", {"address": PLAYER_X, "format": "integers"}))
            assert after["values"][0] > before["values"][0]
            picture = await session.call_tool("screenshot", {})
            images = [content for content in picture.content if content.type == "image"]
            size = _json(await session.call_tool("describe_game", {}))["size"]
            assert _png_size(base64.b64decode(images[0].data)) == (size["width"], size["height"])
            refused = _error(await session.call_tool("open_game", {}))
            assert "not available while attached" in refused
            return stepped["frame"]

    frame = asyncio.run(body())
    # The client is gone; the game is not: it answers, at the frame the agent left it.
    assert run.poll() is None
    assert _frame(address) == frame
    client = Retrolua.connect(address)
    client.close()  # quit
    assert run.wait(timeout=60) == 0


@pytest.mark.skipif(not os.environ.get("DISPLAY"),
                    reason="a windowed run needs an X server (the suite runs under Xvfb)")
def test_a_windowed_game_is_found_and_its_pause_is_respected(games):
    run = games("--no-audio")
    address = _wait_for(games.runtime / ("%d.sock" % run.pid), run)

    async def body(*arguments):
        async with _session("--attach", *arguments, env=games.env) as session:
            assert _json(await session.call_tool("describe_game", {}))["process_id"] == run.pid
            _json(await session.call_tool("run_lua", {"code": "emu.pause()"}))  # as the pause hotkey does
            paused = _json(await session.call_tool("step", {"frames": 5}))
            assert paused["paused"] is True and paused["frames_run"] == 0
            assert "paused by the user" in paused["message"]
            _json(await session.call_tool("run_lua", {"code": "emu.unpause()"}))
            assert _json(await session.call_tool("step", {"frames": 2}))["frames_run"] == 2

    # The control socket's own refusal, which the step tool translates: only for a client that asks.
    client = Retrolua.connect(address)
    client.request("console", lua="emu.pause()")
    with pytest.raises(RetroluaError, match="paused by the user"):
        client.request("step", frames=1, unless_paused=True)
    with pytest.raises(RetroluaError, match="unless_paused"):
        client.request("step", frames=1, unless_paused="yes")
    assert client.request("step", frames=1)["frames"] == 1  # a client that does not ask steps as before
    client.request("console", lua="emu.unpause()")
    client.disconnect()
    asyncio.run(body())  # the one game of this user
    asyncio.run(body(str(run.pid)))
    assert run.poll() is None
    second = games("--no-audio")
    _wait_for(games.runtime / ("%d.sock" % second.pid), second)
    listed = subprocess.run([sys.executable, "-m", "retrolua", "mcp", "--attach"], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, env=dict(_environment(), **games.env), timeout=120)
    assert listed.returncode == 1
    assert "several games are running" in listed.stderr
    assert str(run.pid) in listed.stderr and str(second.pid) in listed.stderr
    for process in (run, second):
        client = Retrolua.connect(address if process is run else "unix:%s/%d.sock" % (games.runtime, second.pid))
        client.close()
        assert process.wait(timeout=60) == 0


def test_attach_names_what_it_cannot_find(tmp_path):
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    env = dict(_environment(), XDG_RUNTIME_DIR=str(runtime))
    for arguments, message in ((["--attach"], "no running game found in"),
                               (["--attach", "999999"], "no game of this user"),
                               (["--attach", "nope"], "neither a process id nor unix:PATH"),
                               (["--attach", "--rom", DODGE], "--rom, --core and --option are for launched ones")):
        result = subprocess.run([sys.executable, "-m", "retrolua", "mcp", *arguments], stdin=subprocess.DEVNULL,
                                capture_output=True, text=True, env=env, timeout=120)
        assert result.returncode != 0 and message in result.stderr, (arguments, result.stderr)


AGENT_LINE = (0xFF, 0xD0, 0x80)  # the OSD's colour for "agent: …" (lua/defaults/osd.lua), top right


def _xdotool(*arguments):
    return subprocess.run(["xdotool", *arguments], capture_output=True, text=True, timeout=30, check=False).stdout


def _agent_line_shown(window):
    """Whether the window's top right quarter has pixels of the agent line's colour (ffmpeg's x11grab)."""
    import numpy as np

    geometry = dict(line.split("=") for line in _xdotool("getwindowgeometry", "--shell", window).split())
    width, height = int(geometry["WIDTH"]), int(geometry["HEIGHT"])
    raw = subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "x11grab", "-video_size", "%dx%d" % (width, height),
                          "-i", "%s+%s,%s" % (os.environ["DISPLAY"], geometry["X"], geometry["Y"]), "-frames:v", "1",
                          "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], capture_output=True, timeout=60, check=True)
    pixels = np.frombuffer(raw.stdout, np.uint8).reshape(height, width, 3)[: height // 4, width // 2:].astype(int)
    return bool((np.abs(pixels - np.array(AGENT_LINE)).sum(axis=2) < 24).any())


def _until(condition, what):
    """Polls `condition` (the window is drawn by another process at its own pace) until it holds."""
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


@pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="a windowed run needs an X server (the suite runs under Xvfb)")
def test_a_person_and_an_agent_share_a_window(games):
    """The person types (xdotool) while the agent plays through MCP: both inputs move the player, the person's
    pause (the p key) holds the agent's steps and waits, and the OSD's agent line shows while the agent is
    there and goes when it leaves."""
    run = games("--no-audio")
    address = _wait_for(games.runtime / ("%d.sock" % run.pid), run)
    _until(lambda: _xdotool("search", "--pid", str(run.pid)).split() != [], "no window")
    window = _xdotool("search", "--pid", str(run.pid)).split()[0]

    def x():
        client = Retrolua.connect(address)
        try:
            return client.read(PLAYER_X)[0]
        finally:
            client.disconnect()

    async def paused(call, wanted):
        deadline = time.monotonic() + 60
        while _json(await call("describe_game", {}))["paused"] != wanted:
            assert time.monotonic() < deadline, "the p key did not %s the game" % ("pause" if wanted else "resume")
            await asyncio.sleep(0.1)

    async def body():
        async with _session("--attach", env=games.env) as session:
            call = session.call_tool
            _xdotool("windowfocus", "--sync", window)
            start = _json(await call("read_memory", {"address": PLAYER_X, "format": "integers"}))["values"][0]
            _xdotool("keydown", "Right")
            _until(lambda: x() > start + 4, "the person's Right key did not move the player")
            _xdotool("keyup", "Right")
            settled = []
            _until(lambda: settled.append(x()) or settled[-2:] == [settled[-1]] * 2 and len(settled) > 1,
                   "the player kept moving after the person let go")
            moved = x()
            stepped = _json(await call("step", {"frames": 5, "buttons": ["left"]}))
            assert stepped["frames_run"] == 5 and x() == moved - 10  # the agent's input acts too
            _until(lambda: _agent_line_shown(window), "the OSD never showed the agent's line")
            # A fast chord from the person (up and left pressed in one go), then their pause: p.
            _xdotool("key", "--delay", "0", "Up+Left")
            _xdotool("key", "p")
            await paused(call, True)
            held = _json(await call("step", {"frames": 3}))
            assert held["paused"] is True and held["frames_run"] == 0
            waited = _json(await call("wait_until", {"frames": 60, "watch": ["0x00"]}))
            assert waited["paused"] is True
            frame = _json(await call("describe_game", {}))["frame"]
            _xdotool("key", "p")
            await paused(call, False)
            assert _json(await call("step", {"frames": 2}))["frames_run"] == 2
            assert _json(await call("describe_game", {}))["frame"] >= frame + 2

    asyncio.run(body())
    _until(lambda: not _agent_line_shown(window), "the agent's line stayed after it left")
    assert run.poll() is None  # the agent left; the game did not
    client = Retrolua.connect(address)
    client.close()
    assert run.wait(timeout=60) == 0


@pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="a windowed run needs an X server (the suite runs under Xvfb)")
def test_an_agent_on_a_persons_game_searches_writes_its_tools_waits_and_replays(games, tmp_path):
    """The whole of it on a game running in a window in real time: the agent finds the player's x byte by search,
    writes a reporter and a Lua tool of its own, waits on an event rather than polling, and its recorded
    session verifies as a movie."""
    run = games("--no-audio")
    _wait_for(games.runtime / ("%d.sock" % run.pid), run)

    async def body():
        async with _session("--attach", env=games.env) as session:
            call = session.call_tool
            _json(await call("write_memory", {"address": "0x08", "data": [99]}))  # lives: real time goes on
            recording = _json(await call("record_movie", {}))  # the data folder's agent-movies/: the sandbox's

            _json(await call("search_start", {}))
            for button, comparison in (("right", "increased"), ("left", "decreased"), ("right", "increased"),
                                       (None, "unchanged")):
                _json(await call("press_buttons", {"sequence": [{"buttons": [button] if button else [], "frames": 3}]}))
                found = _json(await call("search_narrow", {"comparison": comparison}))
            assert {entry["address"] for entry in found["addresses"]} == {"0x6", "0x203"}
            reporter = _json(await call("set_reporter", {"code": "function state() return {x = memory.read_u8(6), "
                                                                 "y = memory.read_u8(7)} end"}))
            _json(await call("run_lua", {"code": 'mcp.tool{name = "near_right_edge", description = "x past 200", '
                                                  'run = function() return memory.read_u8(6) > 200 end}'}))
            assert _json(await call("near_right_edge", {})) == {"result": False}
            waited = _json(await call("wait_until", {"frames": 600, "buttons": ["right"],
                                                     "lua": "memory.read_u8(6) > 200"}))
            assert waited["stopped"] == "lua" and _json(await call("near_right_edge", {})) == {"result": True}
            state = _json(await call("get_game_state", {}))["state"]
            assert state["x"] > 200 and state["y"] == reporter["state"]["y"]
            return recording, _json(await call("stop_movie", {}))

    recording, movie = asyncio.run(body())
    assert movie["movie"] == recording["recording"] and movie["frames"] >= 12
    verified = subprocess.run([games.binary, "movie", "verify", movie["movie"]], capture_output=True, text=True,
                              env=games.full_env, timeout=300, stdin=subprocess.DEVNULL)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    client = Retrolua.connect("unix:%s/%d.sock" % (games.runtime, run.pid))
    client.close()
    assert run.wait(timeout=60) == 0
