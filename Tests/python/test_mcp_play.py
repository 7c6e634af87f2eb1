"""`retrolua mcp`'s tools for play, driven by the MCP SDK's own client on the Dodge demo (its RAM layout:
examples/roms/dodge/README.md): wait_until stops on the frame a memory condition first holds (checked by
replaying from a state) and at its cap; a RAM search finds the player's x byte (and its sprite's copy) in at most 4 narrowing steps;
snapshots and their diff agree with direct reads; the reporter's state matches memory; a tool written in Lua
is announced (notifications/tools/list_changed), listed and run; the notepad survives a restart of the server;
a recorded session verifies with `retrolua movie verify`; a grid screenshot and a capture are valid PNGs of the
right size. Run by the Swift suite (Tests/HostTests/PythonPackageTests.swift)."""

import asyncio
import base64
import contextlib
import os
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from test_mcp import PLAYER_X, _environment, _error, _json, _png_size

PLAYER_Y, FRAME = 0x07, 0x00


@contextlib.asynccontextmanager
async def _client(home, *arguments, notes=None):
    """A session with `retrolua mcp` whose HOME (so data folder) is `home`; `notes` collects notifications."""
    async def on_message(message):
        if notes is not None and isinstance(message, types.ServerNotification):
            notes.append(message.root)

    env = dict(_environment(), HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"))
    parameters = StdioServerParameters(command=sys.executable, args=["-m", "retrolua", "mcp", *arguments], env=env)
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()
            _json(await session.call_tool("open_game", {}))
            yield session


def _play(tmp_path, body, notes=None):
    async def main():
        async with _client(tmp_path, notes=notes) as session:
            return await body(session)
    return asyncio.run(main())


async def _byte(session, address):
    return _json(await session.call_tool("read_memory", {"address": address, "format": "integers"}))["values"][0]


def test_wait_until_stops_on_the_frame_the_condition_first_holds_and_at_its_cap(tmp_path):
    async def body(session):
        call = session.call_tool
        _json(await call("step", {"frames": 10}))
        start = await _byte(session, PLAYER_X)
        target = start + 21  # an odd distance: 2 px a frame passes it, never lands on it
        _json(await call("save_state", {"name": "start"}))
        waited = _json(await call("wait_until", {"frames": 600, "buttons": ["right"],
                                                  "until": [{"address": "0x06", "op": ">=", "value": target}]}))
        assert waited["stopped"] == "until" and waited["until_index"] == 0, waited
        ran = waited["frames_run"]
        assert await _byte(session, PLAYER_X) >= target
        # Replayed: one frame short of it the condition did not hold yet.
        _json(await call("load_state", {"name": "start"}))
        _json(await call("step", {"frames": ran - 1, "buttons": ["right"]}))
        assert await _byte(session, PLAYER_X) < target
        # The same wait by a Lua expression and by a watch.
        _json(await call("load_state", {"name": "start"}))
        by_lua = _json(await call("wait_until", {"frames": 600, "buttons": ["right"],
                                                 "lua": "memory.read_u8(6) >= %d" % target}))
        assert by_lua["stopped"] == "lua" and by_lua["frames_run"] == ran
        watched = _json(await call("wait_until", {"frames": 50, "buttons": ["left"], "watch": ["0x06"]}))
        assert watched["stopped"] == "watch" and watched["frames_run"] == 1
        assert watched["watch_hit"]["new"] == watched["watch_hit"]["old"] - 2
        # A condition that never holds: the wait runs to its cap.
        capped = _json(await call("wait_until", {"frames": 45, "until": [{"address": 6, "op": ">", "value": 250}]}))
        assert capped["stopped"] == "frames" and capped["frames_run"] == 45

    _play(tmp_path, body)


def test_a_search_finds_the_players_x_in_four_narrowing_steps(tmp_path):
    async def body(session):
        call = session.call_tool
        _json(await call("step", {"frames": 10}))
        started = _json(await call("search_start", {}))
        assert started["candidates"] == 2048
        steps = [("right", "increased"), ("left", "decreased"), ("right", "increased"), (None, "unchanged")]
        for count, (button, comparison) in enumerate(steps, start=1):
            _json(await call("press_buttons", {"sequence": [{"buttons": [button] if button else [], "frames": 3}]}))
            narrowed = _json(await call("search_narrow", {"comparison": comparison}))
            if narrowed["candidates"] <= 2:
                break
        # Two bytes follow the player's x exactly: its own ($06) and the sprite's copy the NMI puts in OAM ($0203).
        assert count <= 4 and {entry["address"] for entry in narrowed["addresses"]} == {"0x6", "0x203"}, narrowed
        x = await _byte(session, PLAYER_X)
        assert [entry["value"] for entry in narrowed["addresses"]] == [x, x]

    _play(tmp_path, body)


def test_snapshots_and_their_diff_agree_with_direct_reads(tmp_path):
    async def body(session):
        call = session.call_tool
        _json(await call("step", {"frames": 10}))
        before_x, before_frame = await _byte(session, PLAYER_X), await _byte(session, FRAME)
        assert _json(await call("snapshot_memory", {"name": "a"}))["bytes"] == 2048
        _json(await call("press_buttons", {"sequence": ["right:5"]}))
        _json(await call("snapshot_memory", {"name": "b"}))
        after_x, after_frame = await _byte(session, PLAYER_X), await _byte(session, FRAME)
        changed = _json(await call("diff_memory", {"before": "a", "after": "b", "limit": 500}))
        by_address = {entry["address"]: entry for entry in changed["addresses"]}
        assert by_address["0x6"] == {"address": "0x6", "old": before_x, "new": after_x}
        assert by_address["0x0"]["old"] == before_frame and by_address["0x0"]["new"] == after_frame
        assert "0x7" not in by_address  # the player's y did not move
        increased_by = _json(await call("diff_memory", {"before": "a", "after": "b", "filter": "increased_by",
                                                         "value": 10}))
        assert "0x6" in {entry["address"] for entry in increased_by["addresses"]}
        equal = _json(await call("diff_memory", {"before": "a", "filter": "equal", "value": after_x}))
        assert "0x6" in {entry["address"] for entry in equal["addresses"]}

    _play(tmp_path, body)


def test_the_reporter_and_a_tool_written_in_lua(tmp_path):
    notes = []

    async def body(session):
        call = session.call_tool
        _json(await call("step", {"frames": 10}))
        state = _json(await call("get_game_state", {}))
        assert state["state"]["player"] == {"x": await _byte(session, PLAYER_X), "y": await _byte(session, PLAYER_Y)}
        assert state["state"]["lives"] == 3 and state["reporter"].endswith(os.path.join("reporters", "dodge.lua"))
        _json(await call("run_lua", {"code": 'mcp.tool{name = "player_x", description = "the player\'s x", '
                                              'run = function() return {x = memory.read_u8(6)} end}'}))
        assert any(isinstance(note, types.ToolListChangedNotification) for note in notes), notes
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert "player_x" in names
        assert _json(await call("player_x", {})) == {"x": await _byte(session, PLAYER_X)}
        listed = _json(await call("lua_tools", {}))
        assert [tool["name"] for tool in listed["tools"]] == ["player_x"]
        assert _json(await call("lua_tools", {"name": "player_x"}))["result"]["x"] == await _byte(session, PLAYER_X)
        # The agent's own reporter replaces the shipped one.
        mine = _json(await call("set_reporter", {"code": "function state() return {y = memory.read_u8(7)} end"}))
        assert mine["state"] == {"y": await _byte(session, PLAYER_Y)}

    _play(tmp_path, body, notes)


def test_the_notepad_survives_a_restart_and_a_recorded_session_verifies(tmp_path):
    async def first(session):
        call = session.call_tool
        assert _json(await call("notes_read", {}))["notes"] == ""
        _json(await call("notes_write", {"text": "player x: RAM 0x06"}))
        _json(await call("step", {"frames": 5}))
        recording = _json(await call("record_movie", {}))
        assert recording["recording"].endswith(".rlm")
        _json(await call("press_buttons", {"sequence": ["right:10", "-:5", "left+up:7", "-:3"]}))
        return _json(await call("stop_movie", {}))

    movie = _play(tmp_path, first)
    assert movie["frames"] == 25 and os.path.isfile(movie["movie"])

    async def second(session):
        return _json(await session.call_tool("notes_read", {}))

    assert _play(tmp_path, second)["notes"] == "player x: RAM 0x06"
    env = dict(_environment(), HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    verified = subprocess.run([env["RETROLUA"], "movie", "verify", movie["movie"]], env=env, capture_output=True,
                              text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_grid_screenshot_and_a_capture_are_pictures_of_the_right_size(tmp_path):
    async def body(session):
        call = session.call_tool
        _json(await call("step", {"frames": 10}))
        plain = await call("screenshot", {"scale": 2})
        gridded = await call("screenshot", {"scale": 2, "grid": 16})
        sheet = await call("capture_frames", {"frames": 6, "every": 2, "buttons": ["right"]})
        animated = await call("capture_frames", {"frames": 3, "every": 1, "animated": True})
        return plain, gridded, sheet, animated

    plain, gridded, sheet, animated = _play(tmp_path, body)
    width, height = _png_size(base64.b64decode(plain.content[0].data))
    grid_width, grid_height = _png_size(base64.b64decode(gridded.content[0].data))
    assert grid_width > width and grid_height > height and grid_width - width < 40 and grid_height - height < 20
    sheet_width, sheet_height = _png_size(base64.b64decode(sheet.content[0].data))
    assert (sheet_width, sheet_height) == (4 * (width // 2) + 6, 2 * (height // 2) + 2)
    assert "6 frames" in sheet.content[1].text
    picture = base64.b64decode(animated.content[0].data)
    assert b"acTL" in picture and picture.count(b"fcTL") == 3
    assert _png_size(picture) == (width // 2, height // 2)


def test_every_play_tool_refuses_bad_arguments_and_the_game_goes_on(tmp_path):
    async def body(session):
        call = session.call_tool
        _json(await call("step", {"frames": 1}))
        refused = {
            "huge wait": ("wait_until", {"frames": 10 ** 12}),
            "negative wait": ("wait_until", {"frames": -1}),
            "op": ("wait_until", {"until": [{"address": 6, "op": "≈", "value": 1}]}),
            "value": ("wait_until", {"until": [{"address": 6, "op": ">="}]}),
            "until": ("wait_until", {"until": [{"address": 6, "op": "changed"}] * 17}),
            "address": ("wait_until", {"until": [{"address": "0x7FFFFFFF", "op": "changed"}]}),
            "domain": ("wait_until", {"watch": [{"address": 0, "domain": "nowhere"}]}),
            "length": ("wait_until", {"watch": [{"address": 0, "length": 10 ** 9}]}),
            "until_lua": ("wait_until", {"lua": "memory.read_u8(6) >=", "frames": 5}),
            "runaway": ("wait_until", {"lua": "(function() while true do end end)()", "frames": 5}),
            "sequence": ("press_buttons", {"sequence": ["a:1"] * 65}),
            "button": ("press_buttons", {"sequence": ["jump:2"]}),
            "3600": ("press_buttons", {"sequence": ["a:99999"]}),
            "before": ("diff_memory", {"before": "nothing"}),
            "snapshot": ("snapshot_memory", {"name": ""}),
            "search": ("search_narrow", {"comparison": "increased"}),
            "comparison": ("search_narrow", {"comparison": "bigger"}),
            "grid": ("screenshot", {"grid": 1}),
            "capture": ("capture_frames", {"frames": 1000}),
            "tool": ("lua_tools", {"name": "no_such_tool"}),
            "path": ("record_movie", {"path": "/tmp/not-a-movie.txt"}),
            "reporter errors": ("set_reporter", {"code": "function state() error('broken reporter') end"}),
            "cycle": ("set_reporter", {"code": "function state() local t = {} t.t = t return t end"}),
            "nothing": ("set_reporter", {"code": "x = 1"}),
            "notes": ("notes_write", {"text": "x" * (300 << 10)}),
        }
        messages = {}
        for label, (tool, arguments) in refused.items():
            messages[label] = _error(await call(tool, arguments))
        # Hostile Lua tools: 10,000 registrations, a clash with another script's name, one that never returns.
        flood = _json(await call("run_lua", {"code": 'local ok = 0 for i = 1, 10000 do if mcp.tool{name = "t" .. i, '
                                                      'description = "", run = function() end} then ok = ok + 1 end '
                                                      'end return ok'}))
        assert flood["values"] == ["256"], flood
        _json(await call("run_lua", {"code": "for i = 1, 10000 do mcp.remove('t' .. i) end"}))
        _json(await call("run_lua", {"code": 'mcp.tool{name = "spin", description = "never returns", '
                                              'run = function() while true do end end}'}))
        messages["spin"] = _error(await call("lua_tools", {"name": "spin"}))
        # A Lua tool named as one of the server's own: the list keeps the server's; lua_tools reaches the Lua one.
        _json(await call("run_lua", {"code": 'mcp.tool{name = "step", description = "mine", run = function() '
                                              'return "lua step" end}'}))
        assert [tool.name for tool in (await session.list_tools()).tools].count("step") == 1
        assert _json(await call("lua_tools", {"name": "step"}))["result"] == "lua step"
        assert _json(await call("step", {"frames": 1}))["frames_run"] == 1
        # After all of it the game still steps and reads.
        assert _json(await call("step", {"frames": 2}))["frames_run"] == 2
        return messages

    messages = _play(tmp_path, body)
    assert "until[0].op" in messages["op"] and "value" in messages["value"]
    assert "runaway" in messages["runaway"] or "instructions" in messages["runaway"] or "seconds" in messages["runaway"]
    assert "broken reporter" in messages["reporter errors"] and "itself" in messages["cycle"]
    assert "no state() function" in messages["nothing"] and "at most" in messages["notes"]
    assert "no search started" in messages["search"] and "unknown button" in messages["button"]
