"""`retrolua mcp` (or `python -m retrolua.mcp`): a Model Context Protocol server over stdio, so that an
LLM agent (Claude Desktop, Claude Code, any MCP client) can play a game: open it, step frames with
buttons held, look at the screen, read and write memory, keep named states and run Lua in the
emulator's console. Built on the official `mcp` SDK (`pip install 'retrolua[mcp]'`); see
docs/guides/mcp.md for the clients' configuration.

    retrolua mcp [--rom ROM] [--core CORE] [--option KEY=VALUE]…
    retrolua mcp --attach [PID|unix:PATH]

One emulator per MCP session (a stdio server serves one client): `open_game` launches it (the ROM and
core given on the command line are its defaults, else the bundled Dodge demo), and it ends with the
session — when the client closes the pipe, or when this process dies (the emulator quits when its
connection closes and, with --die-with-parent, when its parent is gone).

With --attach the session drives a game already running instead (windowed or headless), through its
control socket: the one this user's runs open in the runtime folder ($XDG_RUNTIME_DIR/retrolua/PID.sock, as
`retrolua attach` finds them; the run checks the peer's uid) or the unix:PATH given. The game is the
person's: closing the session only disconnects (no quit is sent), open_game refuses, and step refuses while
the game is paused (by the person, or a script's emu.pause()) rather than stepping it.

It drives the emulator with `retrolua.control.Retrolua`, the JSON client, rather than the binary door of
`retrolua.Emulator`: an agent makes a few calls a second, so shared memory buys nothing, while the JSON
socket alone has the requests this server needs (`info`, the console evaluator, completions, PNG frames).

The `mcp` package is imported only when the server is made (`create_server`), so the rest of `retrolua`
never needs it.
"""

import argparse
import os
import sys
from typing import Optional, Sequence

from .._binary import shipped_file
from ..errors import RetroluaError
from .finding import attached_pid, find_game, installed_cores, runtime_folder
from .game import GameSession
from .parsing import core_options, parse_address, parse_bytes
from .pictures import encode_png, scaled
from .server import MISSING_SDK, create_server

__all__ = ["GameSession", "MISSING_SDK", "RetroluaError", "attached_pid", "create_server", "encode_png", "find_game",
           "installed_cores", "main", "parse_address", "parse_bytes", "runtime_folder", "scaled"]


def main(argv: Optional[Sequence[str]] = None) -> None:
    """`retrolua mcp …` / `python -m retrolua.mcp …`: serves MCP on stdin and stdout until the client leaves."""
    parser = argparse.ArgumentParser(
        prog="retrolua mcp", description="A Model Context Protocol server over stdio: an agent plays games in "
        "Retrolua through its tools (see docs/guides/mcp.md). One emulator per session, launched by open_game.")
    parser.add_argument("--rom", help="the game open_game opens when given no ROM (default: the Dodge demo)")
    parser.add_argument("--core", help="the core for it (a name, or a path: only here, never from the agent)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a core option for every game (repeatable)")
    parser.add_argument("--attach", nargs="?", const="", metavar="PID|unix:PATH",
                        help="drive a running game over its control socket instead (default: the one this user "
                        "runs); closing the session leaves it running")
    parser.add_argument("--http", metavar="[HOST:]PORT",
                        help="serve Streamable HTTP on loopback instead of stdio (with --attach; every request "
                        "needs Authorization: Bearer $RETROLUA_MCP_TOKEN): what `retrolua run --mcp` starts")
    arguments = parser.parse_args(argv)
    if arguments.http is not None:
        if arguments.attach is None:
            parser.error("--http serves a running game: give --attach too")
        from .http import parse_listen

        try:
            parse_listen(arguments.http)
        except ValueError as error:
            parser.error(str(error))
    attach = None
    if arguments.attach is not None:
        if arguments.rom or arguments.core or arguments.option:
            parser.error("--attach drives a running game: --rom, --core and --option are for launched ones")
        try:
            attach = find_game(arguments.attach)
        except ValueError as error:
            sys.stderr.write("retrolua mcp: %s\n" % error)
            sys.exit(1)
    options = {}
    for pair in arguments.option:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            parser.error("--option: %r is not KEY=VALUE" % pair)
        options[key] = value
    rom = None
    if arguments.rom:
        try:
            rom = shipped_file(os.path.expanduser(arguments.rom))
        except FileNotFoundError as error:
            parser.error("--rom: %s" % error)
        if not os.path.isfile(rom):
            parser.error("--rom: no such file: %s" % rom)
    try:
        server = create_server(rom, arguments.core, core_options(options), attach=attach)
    except ImportError as error:
        sys.stderr.write("retrolua mcp: %s\n" % error)
        sys.exit(1)
    except ValueError as error:
        parser.error(str(error))
    try:
        if arguments.http is not None:
            from .http import serve

            serve(server, arguments.http)
        else:
            server.run()  # stdio
    except KeyboardInterrupt:
        pass
    except ValueError as error:
        sys.stderr.write("retrolua mcp: %s\n" % error)
        sys.exit(2)


