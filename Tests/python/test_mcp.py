"""`retrolua mcp` (python/retrolua/mcp/) driven by the MCP SDK's own client over stdio, as an agent's MCP
client drives it: the tools are listed and each is called; a screenshot decodes as a PNG of the game's size
(or scaled); stepping with Right held moves the Dodge demo's player (RAM $06, examples/roms/dodge/README.md);
bad arguments (no game open, a bad address, button, domain, frame count, state, core) are error results and
the server keeps answering; the emulator process is gone once the session closes. Plus the parts that need
no emulator: address and byte parsing, the fallback PNG encoder, the message without the SDK.
Run with build/venv's pytest (scripts/setup installs the pinned `mcp` there):
`build/venv/bin/python -m pytest Tests/python/test_mcp.py` (RETROLUA = the binary, else the tree's build)."""

import asyncio
import base64
import contextlib
import json
import os
import signal
import struct
import subprocess
import sys
import zlib

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON_PATH = os.path.join(ROOT, "python")
sys.path.insert(0, PYTHON_PATH)

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from processes import gone  # noqa: E402
from retrolua import mcp as server_module  # noqa: E402

DODGE = os.path.join(ROOT, "build", "roms", "dodge.nes")
PLAYER_X = 0x06  # Dodge's RAM: player x, 8..240, 2 px a frame with the d-pad

TOOLS = {"open_game", "step", "screenshot", "read_memory", "write_memory", "save_state", "load_state",
         "list_states", "run_lua", "complete_lua", "reset_game", "describe_game", "list_domains", "list_cores",
         # for play (python/retrolua/mcp/play.py, view.py, notes.py, lua_tools.py; Tests/python/test_mcp_play.py)
         "wait_until", "press_buttons", "snapshot_memory", "diff_memory", "search_start", "search_narrow",
         "capture_frames", "notes_read", "notes_write", "record_movie", "stop_movie", "get_game_state",
         "set_reporter", "lua_tools"}


def _environment():
    environment = dict(os.environ, PYTHONPATH=PYTHON_PATH)
    if not environment.get("RETROLUA"):
        for kind in ("debug", "release"):
            candidate = os.path.join(ROOT, ".build", kind, "retrolua")
            if os.access(candidate, os.X_OK):
                environment["RETROLUA"] = candidate
                break
    return environment


@contextlib.asynccontextmanager
async def _session(*arguments, cwd=ROOT, env=None):
    """A ClientSession with `python -m retrolua mcp ARGUMENTS…` (the console command's path to the server)."""
    parameters = StdioServerParameters(command=sys.executable, args=["-m", "retrolua", "mcp"] + list(arguments),
                                       env=dict(_environment(), **(env or {})), cwd=str(cwd))
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def _run(test):
    """Runs `test(session)` in a fresh server; returns what it returned."""
    async def body():
        async with _session() as session:
            return await test(session)
    return asyncio.run(body())


def _is_error(result):
    return bool(getattr(result, "isError", None) or getattr(result, "is_error", None))


def _json(result):
    """The tool's result as a dict (its text content), failing with the message on an error result."""
    texts = [content.text for content in result.content if content.type == "text"]
    assert not _is_error(result), texts
    return json.loads(texts[0])


def _error(result):
    """The message of an error result (failing when the call succeeded)."""
    texts = [content.text for content in result.content if content.type == "text"]
    assert _is_error(result), texts
    return " ".join(texts)


def _png_size(data):
    """(width, height) of a PNG, checked: signature, IHDR first, each chunk's CRC, and the inflated IDAT
    holding exactly one filter byte and width × pixel size bytes per row."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    offset, chunks = 8, []
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length:offset + 12 + length])
        assert zlib.crc32(kind + body) & 0xFFFFFFFF == crc, kind
        chunks.append((kind, body))
        offset += 12 + length
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND"
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert depth == 8 and interlace == 0 and colour in (2, 6)
    pixels = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    assert len(pixels) == height * (1 + width * (3 if colour == 2 else 4))
    return width, height


def test_the_tools_are_listed_with_descriptions():
    async def test(session):
        return (await session.list_tools()).tools

    tools = _run(test)
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        assert len(tool.description or "") > 40, tool.name
    schema = {tool.name: getattr(tool, "inputSchema", None) or getattr(tool, "input_schema") for tool in tools}
    assert set(schema["step"]["properties"]) == {"frames", "buttons"}
    assert set(schema["wait_until"]["properties"]) == {"frames", "buttons", "until", "lua", "watch"}
    assert schema["read_memory"]["required"] == ["address"]


def test_an_agent_plays_dodge_through_every_tool():
    async def test(session):
        call = session.call_tool
        seen = {}
        seen["cores"] = _json(await call("list_cores", {}))
        game = seen["open"] = _json(await call("open_game", {}))
        assert game["core"] == "nestopia" and game["content"] == "dodge.nes"
        assert "right" in game["buttons"] and {"name": "system_ram", "size": 2048} in game["memory_domains"]
        seen["domains"] = _json(await call("list_domains", {}))
        start = _json(await call("read_memory", {"address": PLAYER_X, "format": "integers"}))["values"][0]
        stepped = _json(await call("step", {"frames": 30, "buttons": ["right"]}))
        assert stepped["frame"] == 30 and stepped["buttons_held"] == ["right"]
        moved = _json(await call("read_memory", {"address": "0x06", "format": "integers"}))["values"][0]
        assert moved > start, (start, moved)  # the square went right
        _json(await call("step", {"frames": 10, "buttons": "left"}))
        back = _json(await call("read_memory", {"address": "$06"}))["hex"]
        assert int(back, 16) < moved
        seen["describe"] = _json(await call("describe_game", {}))
        shot = await call("screenshot", {})
        big = await call("screenshot", {"scale": 2})
        seen["saved"] = _json(await call("save_state", {"name": "start"}))
        _json(await call("write_memory", {"address": PLAYER_X, "data": "40"}))
        assert _json(await call("read_memory", {"address": PLAYER_X}))["hex"] == "40"
        _json(await call("write_memory", {"address": "0x06", "data": [100]}))
        assert _json(await call("read_memory", {"address": PLAYER_X, "format": "integers"}))["values"] == [100]
        seen["states"] = _json(await call("list_states", {}))
        _json(await call("load_state", {"name": "start"}))
        assert _json(await call("read_memory", {"address": PLAYER_X, "format": "hex"}))["hex"] == back
        seen["lua"] = _json(await call("run_lua", {"code": "print('x is', memory.read_u8(6)) return 1 + 1"}))
        seen["lua_state"] = _json(await call("run_lua", {"code": "counter = (counter or 0) + 41"}))
        seen["lua_again"] = _json(await call("run_lua", {"code": "counter + 1"}))
        seen["complete"] = _json(await call("complete_lua", {"text": "emu.fr"}))
        seen["reset"] = _json(await call("reset_game", {}))
        return seen, shot, big

    seen, shot, big = _run(test)
    assert {"nestopia", "gambatte"} <= {core["name"] for core in seen["cores"]["cores"]}
    nestopia = [core for core in seen["cores"]["cores"] if core["name"] == "nestopia"][0]
    assert ".nes" in nestopia["extensions"]
    assert seen["domains"]["default"] == "system_ram"
    size = seen["describe"]["size"]
    assert seen["open"]["size"] is None and size["width"] > 0 and size["height"] > 0
    (image,) = [content for content in shot.content if content.type == "image"]
    assert image.mimeType == "image/png" if hasattr(image, "mimeType") else image.mime_type == "image/png"
    assert _png_size(base64.b64decode(image.data)) == (size["width"], size["height"])
    (image,) = [content for content in big.content if content.type == "image"]
    assert _png_size(base64.b64decode(image.data)) == (2 * size["width"], 2 * size["height"])
    assert seen["saved"]["name"] == "start" and seen["saved"]["bytes"] > 0
    assert [state["name"] for state in seen["states"]["states"]] == ["start"]
    assert seen["lua"]["values"] == ["2"] and seen["lua"]["output"][0].startswith("x is")
    assert seen["lua_again"]["values"] == ["42"]  # globals persist between calls
    assert {"emu.frameadvance", "emu.framecount"} <= set(seen["complete"]["matches"])


def test_bad_arguments_are_error_results_and_the_server_keeps_answering():
    async def test(session):
        call = session.call_tool
        messages = {"no game": _error(await call("step", {"frames": 1})),
                    "no game shot": _error(await call("screenshot", {}))}
        _json(await call("open_game", {}))
        messages["no frame"] = _error(await call("screenshot", {}))
        bad = {
            "address": ("read_memory", {"address": 0x10000}),
            "address text": ("read_memory", {"address": "sixty"}),
            "negative": ("read_memory", {"address": -1}),
            "length": ("read_memory", {"address": 0, "length": 100000}),
            "format": ("read_memory", {"address": 0, "format": "octal"}),
            "domain": ("read_memory", {"address": 0, "domain": "vram"}),
            "button": ("step", {"frames": 1, "buttons": ["jump"]}),
            "frames": ("step", {"frames": 0}),
            "too many frames": ("step", {"frames": 100000}),
            "hex": ("write_memory", {"address": 0, "data": "zz"}),
            "byte": ("write_memory", {"address": 0, "data": [256]}),
            "write outside": ("write_memory", {"address": 0x7FF, "data": "01 02"}),
            "state": ("load_state", {"name": "nothing"}),
            "scale": ("screenshot", {"scale": 9}),
            "core path": ("open_game", {"core": "/tmp/evil_libretro.so"}),
            "rom": ("open_game", {"rom": "/nonexistent/game.nes"}),
            "option": ("open_game", {"options": {"--trust": "1"}}),
            "lua error": ("run_lua", {"code": "error('boom')"}),
            "lua incomplete": ("run_lua", {"code": "for i = 1, 2 do"}),
        }
        for key, (name, arguments) in bad.items():
            messages[key] = _error(await call(name, arguments))
            alive = _json(await call("describe_game", {}))  # still answering, the same game still open
            assert alive["content"] == "dodge.nes", key
        _json(await call("step", {"frames": 2}))
        return messages

    messages = _run(test)
    assert "no game is open" in messages["no game"] and "open_game" in messages["no game"]
    assert "no game is open" in messages["no game shot"]
    assert "step at least one frame first" in messages["no frame"]
    assert "outside" in messages["address"] and "system_ram" in messages["address"]
    assert "not a number" in messages["address text"]
    assert "address" in messages["negative"]
    assert '"length"' in messages["length"] and '"format"' in messages["format"]
    assert "unknown memory domain 'vram'" in messages["domain"] and "system_ram" in messages["domain"]
    assert "unknown button 'jump'" in messages["button"] and "right" in messages["button"]
    assert "1..3600" in messages["frames"] and "1..3600" in messages["too many frames"]
    assert "not hex" in messages["hex"] and "0..255" in messages["byte"]
    assert "outside" in messages["write outside"]
    assert "no state 'nothing'" in messages["state"] and '"scale"' in messages["scale"]
    assert "core name" in messages["core path"] and "no such file" in messages["rom"]
    assert "core option name" in messages["option"]
    assert "boom" in messages["lua error"] and "unfinished" in messages["lua incomplete"]


def test_the_emulator_ends_with_the_session():
    async def test(session):
        return _json(await session.call_tool("open_game", {"rom": DODGE, "core": "nestopia"}))["process_id"]

    pid = _run(test)
    assert pid and gone(pid, 30), "emulator %d outlived its MCP session" % pid


def test_a_new_open_game_replaces_the_emulator_and_its_states():
    async def test(session):
        first = _json(await session.call_tool("open_game", {}))["process_id"]
        _json(await session.call_tool("step", {"frames": 1}))
        _json(await session.call_tool("save_state", {"name": "one"}))
        second = _json(await session.call_tool("open_game", {"rom": DODGE}))
        return first, second

    first, second = _run(test)
    assert gone(first, 30) and second["process_id"] != first and second["states"] == []
    assert second["frame"] == 0


@pytest.mark.parametrize("tool, arguments", [("step", {"frames": 1}), ("screenshot", {}), ("run_lua", {"code": "1"}),
                                             ("read_memory", {"address": 0})])
def test_an_emulator_that_dies_is_reported_and_open_game_starts_a_new_one(tool, arguments):
    async def test(session):
        pid = _json(await session.call_tool("open_game", {"rom": DODGE, "core": "nestopia"}))["process_id"]
        _json(await session.call_tool("step", {"frames": 1}))
        os.kill(pid, signal.SIGKILL)
        assert gone(pid, 30)
        first = _error(await session.call_tool(tool, arguments))
        second = _error(await session.call_tool("step", {"frames": 1}))
        reopened = _json(await session.call_tool("open_game", {"rom": DODGE, "core": "nestopia"}))
        stepped = _json(await session.call_tool("step", {"frames": 2}))
        return pid, first, second, reopened, stepped

    pid, first, second, reopened, stepped = _run(test)
    # Was "Error executing tool step: [Errno 32] Broken pipe": closing the dead emulator raised again.
    assert "the emulator (process %d) is gone" % pid in first and "open_game starts a new one" in first, first
    assert "no game is open" in second and "open_game" in second, second
    assert reopened["frame"] == 0 and stepped["frame"] == 2


def test_the_command_line_sets_open_games_defaults_and_checks_its_arguments():
    async def test():
        async with _session("--rom", os.path.join(ROOT, "build", "roms", "demo.nes"), "--core", "nestopia") as session:
            return _json(await session.call_tool("open_game", {}))

    assert asyncio.run(test())["content"] == "demo.nes"
    result = subprocess.run([sys.executable, "-m", "retrolua", "mcp", "--rom", "/nonexistent.nes"],
                            capture_output=True, text=True, env=_environment(), timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 2 and "--rom: /nonexistent.nes: no such file" in result.stderr, result.stderr


def test_open_game_finds_a_bundled_rom_by_its_bare_name_from_any_folder(tmp_path):
    """`open_game {"rom": "demo.nes"}` finds the bundled ROM as `retrolua run demo.nes` does, from a server whose
    working folder holds nothing of ours; a name found nowhere is an error that lists the places looked at."""
    async def test():
        async with _session(cwd=tmp_path) as session:
            opened = _json(await session.call_tool("open_game", {"rom": "demo.nes", "core": "nestopia"}))
            missing = _error(await session.call_tool("open_game", {"rom": "nothing.nes"}))
            default = _json(await session.call_tool("open_game", {}))
            return opened, missing, default

    opened, missing, default = asyncio.run(test())
    assert opened["content"] == "demo.nes" and os.path.isabs(opened["rom"]), opened
    with open(opened["rom"], "rb") as bundled, open(os.path.join(ROOT, "build", "roms", "demo.nes"), "rb") as tree:
        assert bundled.read() == tree.read()
    assert '"rom": nothing.nes: no such file' in missing and str(tmp_path / "nothing.nes") in missing, missing
    assert "/nothing.nes," in missing or missing.count("nothing.nes") >= 3, "the bundled ROMs were looked in: " + missing
    assert default["content"] == "dodge.nes"
    assert os.listdir(tmp_path) == [], "nothing is written to the working folder"


def test_without_the_sdk_the_command_says_what_to_install():
    code = ("import sys; sys.modules['mcp'] = None; from retrolua._cli import main; "
            "sys.argv = ['retrolua', 'mcp']; main()")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_environment(),
                            timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 1, result.stderr
    assert "pip install 'retrolua[mcp]'" in result.stderr and "Traceback" not in result.stderr


def test_importing_retrolua_never_imports_the_sdk():
    code = "import sys, retrolua, retrolua.control, retrolua.mcp; print('mcp' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_environment(),
                            timeout=60)
    assert result.stdout.strip() == "False", result.stderr


@pytest.mark.parametrize("text, number", [(0, 0), (31, 31), ("31", 31), ("0x1F", 31), ("0X1f", 31), ("$1F", 31),
                                          (" 0x8000 ", 0x8000), ("0x_FF", 255)])
def test_addresses_parse(text, number):
    assert server_module.parse_address(text, "address") == number


@pytest.mark.parametrize("text", [-1, "x", "", "0x", "$", True, None, 1.5, "0x1000000000000"])
def test_bad_addresses_name_the_argument(text):
    with pytest.raises(ValueError, match='"address"'):
        server_module.parse_address(text, "address")


@pytest.mark.parametrize("data, expected", [("0a ff", b"\x0a\xff"), ("0aff", b"\x0a\xff"), ("0x0a 0xff", b"\x0a\xff"),
                                            ("0a,ff", b"\x0a\xff"), ([1, 2, 255], b"\x01\x02\xff"),
                                            ("0x0aff", b"\x0a\xff")])
def test_bytes_parse(data, expected):
    assert server_module.parse_bytes(data) == expected


@pytest.mark.parametrize("data", ["", "0", "zz", "0a 1ff", [], [-1], [256], [True], "00" * 4097, 7])
def test_bad_bytes_name_the_argument(data):
    with pytest.raises(ValueError, match='"data"'):
        server_module.parse_bytes(data)


def test_the_fallback_png_encoder_writes_a_valid_png():
    width, height = 5, 3
    rgb = bytes(range(width * height * 3))
    png = server_module.encode_png(width, height, rgb)
    assert _png_size(png) == (width, height)
    chunk = png[8 + 25:]  # after the signature and IHDR: the IDAT
    length = struct.unpack(">I", chunk[:4])[0]
    rows = zlib.decompress(chunk[8:8 + length])
    assert rows[0] == 0 and rows[1:16] == rgb[:15]
    with pytest.raises(ValueError, match="encode_png"):
        server_module.encode_png(width, height, rgb[:-1])
    scaled = server_module.scaled(b"\x01\x02\x03\x04\x05\x06", 2, 1, 2)
    assert scaled == b"\x01\x02\x03" * 2 + b"\x04\x05\x06" * 2 + b"\x01\x02\x03" * 2 + b"\x04\x05\x06" * 2


class _OlderEmulator:
    """A stand-in for a retrolua without PNG frames (nor the console): refuses them as such a one does."""

    pid = None

    def __init__(self):
        self.requests = []

    def request(self, cmd, **fields):
        self.requests.append((cmd, fields.get("format")))
        if cmd == "frame" and fields["format"] == "png":
            raise server_module.RetroluaError('"format" is rgb, rgba or native')
        if cmd == "frame":
            return {"ok": True, "width": 2, "height": 1, "data": base64.b64encode(b"\xff\0\0\0\xff\0")}
        raise server_module.RetroluaError("unknown command '%s' (commands: hello, step, …)" % cmd)

    def png(self, scale):
        return self.request("frame", format="png", scale=scale)

    def console(self, lua):
        return self.request("console", lua=lua)

    def close(self):
        pass


def test_screenshots_are_encoded_here_when_the_emulator_has_no_png_frames():
    session = server_module.GameSession(binary=sys.executable)
    session.emulator = _OlderEmulator()
    assert _png_size(session.screenshot()[2]) == (2, 1)
    assert _png_size(session.screenshot(3)[2]) == (6, 3)
    session.screenshot()
    # Asked once; then RGB frames only.
    assert session.emulator.requests == [("frame", "png"), ("frame", "rgb"), ("frame", "rgb"), ("frame", "rgb")]
    with pytest.raises(server_module.RetroluaError, match="no Lua console request: update retrolua"):
        session.run_lua("1 + 1")


def test_the_binary_hands_mcp_to_the_python_server():
    """`retrolua mcp` from the binary (the .deb, scripts/install): python3 -m retrolua.mcp with itself as the emulator."""
    environment = _environment()
    binary = environment["RETROLUA"]
    environment.pop("RETROLUA")
    environment["PATH"] = os.path.dirname(sys.executable) + os.pathsep + environment.get("PATH", "")

    async def body():
        parameters = StdioServerParameters(command=binary, args=["mcp"], env=environment, cwd=ROOT)
        async with stdio_client(parameters) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                opened = await session.call_tool("open_game", {})
                stepped = await session.call_tool("run_lua", {"code": "emu.frameadvance(); return emu.framecount()"})
                return opened, stepped

    opened, stepped = asyncio.run(body())
    assert not _is_error(opened), opened
    assert not _is_error(stepped), stepped
    assert json.loads(stepped.content[0].text)["values"] == ["1"], stepped.content[0].text
