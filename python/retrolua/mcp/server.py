"""The MCP server: the SDK's FastMCP (MCPServer in mcp 2) with the tools, one GameSession per MCP session."""

import contextlib
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from ..errors import RetroluaError
from . import lua_tools, notes, play, view
from .finding import installed_cores
from .game import GameSession

#: What `retrolua mcp` says when the SDK is missing.
MISSING_SDK = ("the MCP server needs the `mcp` package (the official Model Context Protocol SDK, Python 3.10+): "
               "pip install 'retrolua[mcp]'")


def create_server(rom: Optional[str] = None, core: Optional[str] = None, options: Optional[Dict[str, str]] = None,
                  binary: Optional[str] = None, attach: Optional[str] = None) -> Any:
    """The MCP server (the SDK's FastMCP, MCPServer in mcp 2) with its tools; `run()` serves stdio.
    ROM, core and options are open_game's defaults; `attach` (unix:PATH) drives that running game instead.
    Raises ImportError with MISSING_SDK without the SDK."""
    try:
        import anyio

        try:  # mcp 2 renamed FastMCP to MCPServer (same decorators, lifespan and Context)
            from mcp.server.mcpserver import Context, Image, MCPServer as Server
            from mcp.server.mcpserver.exceptions import ToolError
        except ImportError:
            from mcp.server.fastmcp import Context, FastMCP as Server, Image
            from mcp.server.fastmcp.exceptions import ToolError
    except ImportError as error:
        raise ImportError(MISSING_SDK) from error

    @contextlib.asynccontextmanager
    async def lifespan(_server: Any) -> Any:
        """One GameSession per MCP session; its emulator ends with it."""
        session = GameSession(rom, core, options, binary, attach)
        session.lock = anyio.Lock()
        try:
            yield session
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(session.close)

    server = Server("retrolua", lifespan=lifespan, instructions=ATTACHED if attach else INSTRUCTIONS,
                    log_level="WARNING")

    def tool(**options: Any) -> Any:
        """The SDK's tool decorator, results as text only: a structured result's schema check costs the SDK
        milliseconds a call (jsonschema), more than the work, and the JSON text says the same."""
        options.setdefault("structured_output", False)
        return server.tool(**options)

    async def run(session: GameSession, method: Callable[..., Any], *arguments: Any) -> Any:
        """Runs work on the session, one call at a time per session: quick requests in the event loop (a
        thread's hand-off would cost more than they do), the rest in a worker thread."""
        async with session.lock:
            if quick(method, arguments):
                return method(session, *arguments)
            return await anyio.to_thread.run_sync(method, session, *arguments)

    async def call(ctx: Any, method: Callable[..., Any], *arguments: Any) -> Any:
        """A tool's work: `method(session, *arguments)`; a bad argument or a refusal is the tool's error
        result (the server goes on). Attached, the window's OSD says what the agent does; when the Lua tools
        changed, the client is told."""
        session: GameSession = ctx.request_context.lifespan_context
        session.activity = activity(method, arguments)
        try:
            return await run(session, method, *arguments)
        except (ValueError, TypeError, RetroluaError, FileNotFoundError) as error:
            raise ToolError(str(error)) from None
        finally:
            try:
                tools_changed = await run(session, lua_tools.changed, method in LUA_RUNNING)
            except (ValueError, RetroluaError):
                tools_changed = False
            if tools_changed:
                await ctx.session.send_tool_list_changed()

    @tool()
    async def open_game(ctx: Context, rom: Optional[str] = None, core: Optional[str] = None,
                        options: Optional[Dict[str, Union[str, int, float, bool]]] = None) -> Dict[str, Any]:
        """Start a game (closing the one open, and forgetting its saved states). With no arguments it opens
        the server's default game: the bundled Dodge demo (NES) unless the server was started with --rom.
        `rom`: a bundled ROM by its name (demo.nes, dodge.nes, demo.gb, demo.sfc, …) or the path of a ROM
        file; `core`: a core name from list_cores (default: chosen from the ROM's extension); `options`: core options {"name": "value"}. Returns the core, content, screen size,
        fps, the buttons step accepts and the memory domains."""
        return await call(ctx, GameSession.open, rom, core, options)

    @tool()
    async def step(ctx: Context, frames: int = 1, buttons: Optional[Union[List[str], str]] = None) -> Dict[str, Any]:
        """Run the game for `frames` frames (1..3600; 60 is one second of most games) with `buttons` held
        on controller 1 the whole time (RetroPad names such as "right", "a", "start"; describe_game lists
        them; none: no button). To press and release, step a few frames with the button, then without.
        Returns the frame counter afterwards. Attached to a game a person plays: while they have it paused,
        nothing runs and the result says so ("paused": true)."""
        return await call(ctx, GameSession.step, frames, buttons)

    @tool()
    async def screenshot(ctx: Context, scale: int = 1, grid: Optional[int] = None) -> Any:
        """A PNG image of the current screen (what a player would see), each pixel enlarged `scale`×`scale`
        (1..4, nearest neighbour) for a closer look. `grid`: a tile size in game pixels (8 or 16 for most
        consoles): lines every `grid` pixels, labelled with x along the top and y down the left, so a position
        read from memory can be found on the picture. Step at least one frame after open_game first."""
        png, note = await call(ctx, view.take_screenshot, scale, grid)
        return [Image(data=png, format="png"), note]

    @tool()
    async def read_memory(ctx: Context, address: Union[int, str], length: int = 1, domain: Optional[str] = None,
                          format: str = "hex") -> Dict[str, Any]:
        """Read `length` bytes (1..4096) at `address` (an integer or "0x1F") of a memory domain (default:
        the core's main RAM; list_domains names them). `format`: "hex" (space-separated bytes) or
        "integers" (a list of 0..255)."""
        return await call(ctx, GameSession.read, address, length, domain, format)

    @tool()
    async def write_memory(ctx: Context, address: Union[int, str], data: Union[str, List[int]],
                           domain: Optional[str] = None) -> Dict[str, Any]:
        """Write bytes at `address` (an integer or "0x1F") of a memory domain (default: main RAM). `data`:
        a hex string ("0a ff 03") or a list of integers 0..255; at most 4096 bytes."""
        return await call(ctx, GameSession.write, address, data, domain)

    @tool()
    async def save_state(ctx: Context, name: str) -> Dict[str, Any]:
        """Save the whole emulator state under `name` (kept by this server until the game is closed; the
        same name again overwrites it). load_state goes back to it."""
        return await call(ctx, GameSession.save_state, name)

    @tool()
    async def load_state(ctx: Context, name: str) -> Dict[str, Any]:
        """Go back to the state saved under `name` with save_state."""
        return await call(ctx, GameSession.load_state, name)

    @tool()
    async def list_states(ctx: Context) -> Dict[str, Any]:
        """The states saved with save_state: name, frame and size."""
        return await call(ctx, GameSession.list_states)

    @tool()
    async def run_lua(ctx: Context, code: str) -> Dict[str, Any]:
        """Run Lua 5.4 in the emulator's console, between frames, with Retrolua's API (memory.read_u8(a),
        emu.framecount(), joypad, gui, …; complete_lua lists names). An expression returns its value
        (`memory.read_u8(6)`); statements run as typed and globals persist between calls;
        `emu.frameadvance()` runs one frame. Returns the values and what print() wrote. Sandboxed: no
        os.execute or file access beyond Retrolua's own folders."""
        return await call(ctx, GameSession.run_lua, code)

    @tool()
    async def complete_lua(ctx: Context, text: str) -> Dict[str, Any]:
        """Lua names that complete `text` in the console: API functions and module fields ("memory." lists
        the memory functions, "emu.fr" gives emu.frameadvance and emu.framecount)."""
        return await call(ctx, GameSession.complete, text)

    @tool()
    async def reset_game(ctx: Context) -> Dict[str, Any]:
        """Press the console's reset button (the saved states are kept)."""
        return await call(ctx, GameSession.reset)

    @tool()
    async def describe_game(ctx: Context) -> Dict[str, Any]:
        """The open game: core, content, screen size, fps, frame counter, buttons, memory domains, states."""
        return await call(ctx, GameSession.describe)

    @tool()
    async def list_domains(ctx: Context) -> Dict[str, Any]:
        """The open game's memory domains (name and size in bytes) and which is the default."""
        return await call(ctx, GameSession.domains)

    @tool()
    async def list_cores(ctx: Context) -> Dict[str, Any]:
        """The libretro cores installed on this machine: name (for open_game's `core`), systems and the
        ROM file extensions each opens."""
        return {"cores": await call(ctx, lambda session: installed_cores(session.binary))}

    @tool(name="lua_tools")
    async def lua_tools_tool(ctx: Context, name: Optional[str] = None,
                             arguments: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """The tools written in Lua for this game (by you through run_lua, by a script, or by the person at
        the console): with no `name`, lists them with their parameters; with `name`, calls that tool with
        `arguments` and returns its result. They also appear in the tool list itself. Write one with run_lua:
        mcp.tool{name="player", description="the player's position", run=function() return {x =
        memory.read_u8(6)} end}."""
        return await call(ctx, lua_tools.lua_tools, name, arguments)

    play.register(tool, call, Context)
    view.register(tool, call, Context, Image)
    notes.register(tool, call, Context)
    if hasattr(server, "_mcp_server") and hasattr(server, "_tool_manager"):
        lua_tools.install(server, run)  # else (another SDK's internals) the lua_tools tool reaches them
    return server


#: Work short enough to run in the event loop: one small request.
QUICK = {GameSession.read, GameSession.write, GameSession.describe, GameSession.domains, GameSession.list_states,
         lua_tools.changed, view.take_screenshot}


def quick(method: Callable[..., Any], arguments: Sequence[Any]) -> bool:
    """Whether `method(*arguments)` is one small request (a step of one slice of frames at most, a 1× picture)."""
    if method is GameSession.step:
        return not arguments or (isinstance(arguments[0], int) and arguments[0] <= 60)
    if method is view.take_screenshot:
        return len(arguments) >= 2 and arguments[0] == 1 and not arguments[1]
    return method in QUICK

#: The tools' work that may register Lua tools (checked for a change after every such call).
LUA_RUNNING = {GameSession.run_lua, lua_tools.call, lua_tools.lua_tools, notes.load_reporter, play.wait}


def activity(method: Callable[..., Any], arguments: Sequence[Any]) -> str:
    """What a tool call does, in a few words, for the window's OSD line ("wait 600 frames", "read_memory")."""
    name = getattr(method, "__name__", "call").strip("_")
    if method in (GameSession.step, play.wait, view.capture) and arguments and isinstance(arguments[0], int):
        return "%s %d frames" % (name, arguments[0])
    return name.replace("_", " ")


PLAYING = """ Read the game's state with get_game_state (a reporter: Lua that reads
memory; write one with set_reporter) rather than the screen; wait_until an event (a memory condition, a Lua
expression, a watched address) rather than stepping and polling; press_buttons for sequences. To find what an
address means: search_start, change the game, search_narrow; or snapshot_memory and diff_memory. notes_read at
the start and notes_write what you learn: the notepad is this game's and survives restarts. Write your own
tools in Lua (mcp.tool{...} through run_lua). record_movie / stop_movie keep a verifiable record."""

INSTRUCTIONS = """Plays games in Retrolua, a libretro emulator frontend. Call open_game first (no arguments: the
Dodge demo, where you move a face with the d-pad to collect coins and dodge falling blocks). Then step frames
with buttons held, look with screenshot, and inspect or poke memory (read_memory, write_memory, run_lua).
The game only advances when you step it. save_state/load_state let you try something and go back.""" + PLAYING

ATTACHED = """Plays a game already running in Retrolua (a libretro emulator frontend), shared with the person who
started it: describe_game says what it is; step frames with buttons held, look with screenshot, inspect or
poke memory (read_memory, write_memory, run_lua). open_game is not available. While the person has the game
paused, step runs nothing and says so: wait and try again.""" + PLAYING
