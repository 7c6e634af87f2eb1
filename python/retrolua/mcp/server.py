"""The MCP server: the SDK's FastMCP (MCPServer in mcp 2) with the tools, one GameSession per MCP session."""

import contextlib
from typing import Any, Callable, Dict, List, Optional, Union

from ..errors import RetroluaError
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

    async def call(ctx: Any, method: Callable[..., Any], *arguments: Any) -> Any:
        """Runs a blocking GameSession method in a worker thread, one at a time per session; a bad
        argument or a refusal is the tool's error result (the server goes on)."""
        session: GameSession = ctx.request_context.lifespan_context
        async with session.lock:
            try:
                return await anyio.to_thread.run_sync(method, session, *arguments)
            except (ValueError, TypeError, RetroluaError, FileNotFoundError) as error:
                raise ToolError(str(error)) from None

    @server.tool()
    async def open_game(ctx: Context, rom: Optional[str] = None, core: Optional[str] = None,
                        options: Optional[Dict[str, Union[str, int, float, bool]]] = None) -> Dict[str, Any]:
        """Start a game (closing the one open, and forgetting its saved states). With no arguments it opens
        the server's default game: the bundled Dodge demo (NES) unless the server was started with --rom.
        `rom`: a bundled ROM by its name (demo.nes, dodge.nes, demo.gb, demo.sfc, …) or the path of a ROM
        file; `core`: a core name from list_cores (default: chosen from the ROM's extension); `options`: core options {"name": "value"}. Returns the core, content, screen size,
        fps, the buttons step accepts and the memory domains."""
        return await call(ctx, GameSession.open, rom, core, options)

    @server.tool()
    async def step(ctx: Context, frames: int = 1, buttons: Optional[Union[List[str], str]] = None) -> Dict[str, Any]:
        """Run the game for `frames` frames (1..3600; 60 is one second of most games) with `buttons` held
        on controller 1 the whole time (RetroPad names such as "right", "a", "start"; describe_game lists
        them; none: no button). To press and release, step a few frames with the button, then without.
        Returns the frame counter afterwards. Attached to a game a person plays: while they have it paused,
        nothing runs and the result says so ("paused": true)."""
        return await call(ctx, GameSession.step, frames, buttons)

    @server.tool(structured_output=False)
    async def screenshot(ctx: Context, scale: int = 1) -> Any:
        """A PNG image of the current screen (what a player would see), each pixel enlarged `scale`×`scale`
        (1..4, nearest neighbour) for a closer look. Step at least one frame after open_game first."""
        width, height, png = await call(ctx, GameSession.screenshot, scale)
        return [Image(data=png, format="png"), "%dx%d screenshot" % (width, height)]

    @server.tool()
    async def read_memory(ctx: Context, address: Union[int, str], length: int = 1, domain: Optional[str] = None,
                          format: str = "hex") -> Dict[str, Any]:
        """Read `length` bytes (1..4096) at `address` (an integer or "0x1F") of a memory domain (default:
        the core's main RAM; list_domains names them). `format`: "hex" (space-separated bytes) or
        "integers" (a list of 0..255)."""
        return await call(ctx, GameSession.read, address, length, domain, format)

    @server.tool()
    async def write_memory(ctx: Context, address: Union[int, str], data: Union[str, List[int]],
                           domain: Optional[str] = None) -> Dict[str, Any]:
        """Write bytes at `address` (an integer or "0x1F") of a memory domain (default: main RAM). `data`:
        a hex string ("0a ff 03") or a list of integers 0..255; at most 4096 bytes."""
        return await call(ctx, GameSession.write, address, data, domain)

    @server.tool()
    async def save_state(ctx: Context, name: str) -> Dict[str, Any]:
        """Save the whole emulator state under `name` (kept by this server until the game is closed; the
        same name again overwrites it). load_state goes back to it."""
        return await call(ctx, GameSession.save_state, name)

    @server.tool()
    async def load_state(ctx: Context, name: str) -> Dict[str, Any]:
        """Go back to the state saved under `name` with save_state."""
        return await call(ctx, GameSession.load_state, name)

    @server.tool()
    async def list_states(ctx: Context) -> Dict[str, Any]:
        """The states saved with save_state: name, frame and size."""
        return await call(ctx, GameSession.list_states)

    @server.tool()
    async def run_lua(ctx: Context, code: str) -> Dict[str, Any]:
        """Run Lua 5.4 in the emulator's console, between frames, with Retrolua's API (memory.read_u8(a),
        emu.framecount(), joypad, gui, …; complete_lua lists names). An expression returns its value
        (`memory.read_u8(6)`); statements run as typed and globals persist between calls;
        `emu.frameadvance()` runs one frame. Returns the values and what print() wrote. Sandboxed: no
        os.execute or file access beyond Retrolua's own folders."""
        return await call(ctx, GameSession.run_lua, code)

    @server.tool()
    async def complete_lua(ctx: Context, text: str) -> Dict[str, Any]:
        """Lua names that complete `text` in the console: API functions and module fields ("memory." lists
        the memory functions, "emu.fr" gives emu.frameadvance and emu.framecount)."""
        return await call(ctx, GameSession.complete, text)

    @server.tool()
    async def reset_game(ctx: Context) -> Dict[str, Any]:
        """Press the console's reset button (the saved states are kept)."""
        return await call(ctx, GameSession.reset)

    @server.tool()
    async def describe_game(ctx: Context) -> Dict[str, Any]:
        """The open game: core, content, screen size, fps, frame counter, buttons, memory domains, states."""
        return await call(ctx, GameSession.describe)

    @server.tool()
    async def list_domains(ctx: Context) -> Dict[str, Any]:
        """The open game's memory domains (name and size in bytes) and which is the default."""
        return await call(ctx, GameSession.domains)

    @server.tool()
    async def list_cores(ctx: Context) -> Dict[str, Any]:
        """The libretro cores installed on this machine: name (for open_game's `core`), systems and the
        ROM file extensions each opens."""
        return {"cores": await call(ctx, lambda session: installed_cores(session.binary))}

    return server


INSTRUCTIONS = """Plays games in Retrolua, a libretro emulator frontend. Call open_game first (no arguments: the
Dodge demo, where you move a face with the d-pad to collect coins and dodge falling blocks). Then step frames
with buttons held, look with screenshot, and inspect or poke memory (read_memory, write_memory, run_lua).
The game only advances when you step it. save_state/load_state let you try something and go back."""

ATTACHED = """Plays a game already running in Retrolua (a libretro emulator frontend), shared with the person who
started it: describe_game says what it is; step frames with buttons held, look with screenshot, inspect or
poke memory (read_memory, write_memory, run_lua). open_game is not available. While the person has the game
paused, step runs nothing and says so: wait and try again."""
