"""A running game serving MCP itself over Streamable HTTP (`retrolua run … --mcp PORT`): the SDK's HTTP client
with the run's bearer token plays it; a request without the token, or with another, gets 401 and reaches
nothing; the server is never bound to a non-loopback address (the run and `retrolua mcp --http` both refuse);
the server ends with the run. Run by the Swift suite (Tests/HostTests/PythonPackageTests.swift)."""

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

from test_mcp import DODGE, PLAYER_X, ROOT, _environment, _json


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _environment_for(tmp_path):
    """The run's: its own HOME and runtime folder, and a python3 on PATH that has the SDK (build/venv's)."""
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    env = dict(_environment(), HOME=str(tmp_path), XDG_RUNTIME_DIR=str(runtime), SDL_AUDIODRIVER="dummy")
    env.pop("XDG_DATA_HOME", None)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def _post(url, headers):
    request = urllib.request.Request(url, data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode(),
                                     headers=dict({"Content-Type": "application/json",
                                                   "Accept": "application/json, text/event-stream"}, **headers))
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status
    except urllib.error.HTTPError as error:
        return error.code
    except urllib.error.URLError:
        return None  # nothing listens yet


def test_a_running_game_serves_mcp_over_http_to_the_holder_of_its_token(tmp_path):
    port = _free_port()
    env = _environment_for(tmp_path)
    run = subprocess.Popen([env["RETROLUA"], "run", DODGE, "--headless", "--mcp", str(port)], env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = "http://127.0.0.1:%d/mcp" % port
    token_file = tmp_path / ".local" / "share" / "retrolua" / ("mcp-%d.token" % port)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert run.poll() is None, run.stderr.read().decode(errors="replace")
            assert time.monotonic() < deadline, "the MCP server never answered on port %d" % port
            if token_file.exists() and _post(url, {}) == 401:
                break
            time.sleep(0.1)
        token = token_file.read_text().strip()
        assert len(token) >= 32 and (token_file.stat().st_mode & 0o077) == 0
        assert _post(url, {}) == 401
        assert _post(url, {"Authorization": "Bearer " + "0" * len(token)}) == 401
        assert _post(url, {"Authorization": token}) == 401  # the scheme is part of it

        async def play():
            async with streamablehttp_client(url, headers={"Authorization": "Bearer " + token}) as (read, write, _):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    described = _json(await session.call_tool("describe_game", {}))
                    assert described["core"] == "nestopia" and described["content"] == "dodge.nes"
                    _json(await session.call_tool("step", {"frames": 10}))  # the game has begun
                    before = _json(await session.call_tool("read_memory", {"address": PLAYER_X,
                                                                            "format": "integers"}))["values"][0]
                    stepped = _json(await session.call_tool("step", {"frames": 6, "buttons": ["right"]}))
                    after = _json(await session.call_tool("read_memory", {"address": PLAYER_X,
                                                                           "format": "integers"}))["values"][0]
                    return stepped, before, after

        stepped, before, after = asyncio.run(play())
        assert stepped["frames_run"] == 6 and after == before + 12
        assert run.poll() is None  # the client left; the game goes on
    finally:
        run.terminate()
        run.wait(timeout=60)
        run.stderr.close()
    assert not token_file.exists()
    with socket.socket() as probe:  # the server ended with the run: the port is free again
        deadline = time.monotonic() + 30
        while probe.connect_ex(("127.0.0.1", port)) == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert probe.connect_ex(("127.0.0.1", port)) != 0


def test_mcp_is_never_served_on_a_non_loopback_address(tmp_path):
    env = _environment_for(tmp_path)
    for address in ("0.0.0.0:7000", "10.0.0.1", "[::]:7000"):
        refused = subprocess.run([env["RETROLUA"], "run", DODGE, "--headless", "--mcp", address], env=env,
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        assert refused.returncode == 2 and "loopback only" in refused.stderr, (address, refused.stderr)
    for address in ("0.0.0.0:7000", "192.168.1.2:7000"):
        refused = subprocess.run([sys.executable, "-m", "retrolua", "mcp", "--attach", "unix:/nonexistent.sock",
                                  "--http", address], env=env, stdin=subprocess.DEVNULL, capture_output=True,
                                 text=True, timeout=120, cwd=ROOT)
        assert refused.returncode == 2 and "loopback only" in refused.stderr, (address, refused.stderr)
