"""MCP round trips: a 1-frame step, a 16-byte read and a 1x screenshot through `retrolua mcp` over stdio (the
SDK's own client, as an agent's), standalone (the server launched the game) and attached (the server drives a
headless run through its control socket), beside a bare control-socket client doing the same requests.
Best of 3 rounds of CALLS calls each. Usage: mcp_bench.py RETROLUA ROM [CALLS]  (build/venv's python: the SDK)"""

import asyncio
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from retrolua.control import Retrolua  # noqa: E402

binary, rom = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
calls = int(sys.argv[3]) if len(sys.argv) > 3 else 300
CASES = [("step", {"frames": 1}), ("read_memory", {"address": 0, "length": 16}), ("screenshot", {"scale": 1})]


async def mcp_times(*arguments):
    """Milliseconds per call of each case, best of 3 rounds."""
    env = dict(os.environ, RETROLUA=binary, PYTHONPATH=os.path.join(ROOT, "python"))
    parameters = StdioServerParameters(command=sys.executable, args=["-m", "retrolua", "mcp", *arguments], env=env)
    best = {}
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            if "--attach" not in arguments:
                await session.call_tool("open_game", {"rom": rom, "core": "nestopia"})
            await session.call_tool("step", {"frames": 10})
            for _ in range(3):
                for name, arguments_ in CASES:
                    start = time.perf_counter()
                    for _ in range(calls):
                        result = await session.call_tool(name, arguments_)
                        assert not result.isError, result
                    best[name] = min(best.get(name, 1e9), (time.perf_counter() - start) / calls * 1e3)
    return best


def bare_times(address):
    """The same three requests from a bare control-socket client (JSON door)."""
    client = Retrolua.connect(address)
    best = {}
    try:
        asks = {"step": lambda: client.step(1), "read_memory": lambda: client.read(0, 16),
                "screenshot": lambda: client.png(1)}
        for _ in range(3):
            for name, ask in asks.items():
                start = time.perf_counter()
                for _ in range(calls):
                    ask()
                best[name] = min(best.get(name, 1e9), (time.perf_counter() - start) / calls * 1e3)
    finally:
        client.disconnect()
    return best


def main():
    folder = tempfile.mkdtemp()
    socket = os.path.join(folder, "game.sock")
    run = subprocess.Popen([binary, "run", rom, "--core", "nestopia", "--headless", "--control", "unix:" + socket],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(socket) and time.monotonic() < deadline:
            time.sleep(0.05)
        bare = bare_times("unix:" + socket)
        attached = asyncio.run(mcp_times("--attach", "unix:" + socket))
        standalone = asyncio.run(mcp_times())
    finally:
        run.kill()
        run.wait()
    for name, target in (("step", 2.0), ("read_memory", 2.0), ("screenshot", 5.0)):
        print("mcp_%s standalone_ms %.3f attached_ms %.3f bare_ms %.3f target_ms %.1f"
              % (name, standalone[name], attached[name], bare[name], target))


main()
