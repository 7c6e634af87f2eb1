"""What an agent keeps beyond one call: a notepad per game (a Markdown file keyed by the content's SHA-1 in the
data folder, so it survives restarts and follows the game, not its file name), the session recorded as a
`.rlm` movie (a verifiable record of what it did: `retrolua movie verify`), and the game's state from a
**reporter** — a Lua file whose `state()` returns a table, which the server returns as JSON.

A reporter is found, first match wins: the one the agent set (set_reporter, a path or Lua source); beside
the ROM (`GAME.reporter.lua` for `GAME.nes`); in the data folder (`reporters/SHA1.lua`, then
`reporters/GAME.lua`); among the bundled examples (`examples/reporters/GAME.lua`: Dodge's ships there). It
runs in the game's Lua console (the scripts' sandbox), loaded once; `state()` is called for each request."""

import json
import os
import re
import subprocess
import tempfile
from typing import Any, Callable, Dict, Optional

from .._binary import find_binary, launch_environment
from ..errors import RetroluaError
from .game import GameSession

MAX_NOTES = 256 << 10  # one game's notepad
MAX_REPORTER = 256 << 10


def folders(session: GameSession) -> Dict[str, str]:
    """Retrolua's folders, asked once a session: the game's own (`emu.paths()`: data, saves, …, which an attached
    game may have elsewhere than this process would) over the binary's (`retrolua paths --json`: lua, examples)."""
    if "folders" not in session.extras:
        executable = find_binary(session.binary)
        try:
            result = subprocess.run([executable, "paths", "--json"], capture_output=True, text=True, timeout=60,
                                    stdin=subprocess.DEVNULL, env=launch_environment(), check=True)
            found = json.loads(result.stdout)
        except (OSError, subprocess.SubprocessError, ValueError) as error:
            raise RetroluaError("cannot ask %s for its folders: %s" % (executable, error)) from None
        game = session.lua_value("return emu.paths()")
        if isinstance(game, dict):
            found.update({key: value for key, value in game.items() if isinstance(value, str)})
        session.extras["folders"] = found
    return session.extras["folders"]


def _identity(session: GameSession) -> str:
    sha1 = str(session.info().get("content_sha1") or "")
    if not re.fullmatch(r"[0-9a-f]{40}", sha1):
        raise RetroluaError("the game has no content identity (no content loaded): notes need one")
    return sha1


def _notes_path(session: GameSession) -> str:
    return os.path.join(folders(session)["data"], "agent-notes", _identity(session) + ".md")


def read_notes(session: GameSession) -> Dict[str, Any]:
    path = _notes_path(session)
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            text = file.read(MAX_NOTES)
    except FileNotFoundError:
        text = ""
    return {"notes": text, "content": session.info().get("content"), "file": path}


def write_notes(session: GameSession, text: str, append: bool = True) -> Dict[str, Any]:
    """Adds `text` to the game's notepad (or replaces it), written whole or not at all."""
    if not isinstance(text, str):
        raise ValueError('"text" must be a string, got %r' % (text,))
    if not isinstance(append, bool):
        raise ValueError('"append" must be true or false')
    path = _notes_path(session)
    old = read_notes(session)["notes"] if append else ""
    joined = old + ("" if not old or old.endswith("\n") else "\n") + text if append else text
    if len(joined.encode()) > MAX_NOTES:
        raise ValueError("the notepad would hold %d bytes; at most %d (rewrite it shorter with append=false)"
                         % (len(joined.encode()), MAX_NOTES))
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".notes-")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(joined)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    return {"bytes": len(joined.encode()), "file": path}


# -- the session as a movie ----------------------------------------------------------------------------------

def record(session: GameSession, path: Optional[str] = None) -> Dict[str, Any]:
    """Starts recording from the current state to `path` (default: a new file in the data folder)."""
    if path is None:
        folder = os.path.join(folders(session)["data"], "agent-movies")
        os.makedirs(folder, mode=0o700, exist_ok=True)
        stem = os.path.splitext(str(session.info().get("content") or "game"))[0] or "game"
        number = 1
        while os.path.exists(os.path.join(folder, "%s-%d.rlm" % (stem, number))):
            number += 1
        path = os.path.join(folder, "%s-%d.rlm" % (stem, number))
    if not isinstance(path, str) or not path.endswith(".rlm"):
        raise ValueError('"path" must name a new .rlm file, got %r' % (path,))
    started = session.lua_value('local ok, why = movie.record(%s, {from = "now", verify = true, author = "agent"}) '
                                'return {ok = ok or false, why = why}' % _lua_string(os.path.abspath(path)))
    if not started.get("ok"):
        raise RetroluaError("movie.record: %s" % started.get("why"))
    session.extras["movie"] = os.path.abspath(path)
    return {"recording": os.path.abspath(path), "frame": session.request("info").get("frame")}


def stop_recording(session: GameSession) -> Dict[str, Any]:
    path = session.extras.get("movie")
    stopped = session.lua_value("local length = movie.length() local ok, why = movie.stop() "
                                "return {ok = ok or false, why = why, length = length}")
    if not stopped.get("ok"):
        raise RetroluaError("movie.stop: %s" % stopped.get("why"))
    session.extras.pop("movie", None)
    return {"movie": path, "frames": stopped.get("length"),
            "verify": "retrolua movie verify %s" % path if path else None}


# -- the reporter ----------------------------------------------------------------------------------------------

def _lua_string(text: str) -> str:
    """A Lua long string holding `text` exactly (its level chosen so the text cannot end it)."""
    level = 0
    while "]" + "=" * level + "]" in text:
        level += 1
    return "[%s[\n%s]%s]" % ("=" * level, text, "=" * level)


def find_reporter(session: GameSession) -> Optional[str]:
    """The first reporter file of the search order, or None."""
    content = str(session.info().get("content") or "")
    stem = os.path.splitext(os.path.basename(content))[0]
    places = []
    if session.rom:
        places.append(os.path.splitext(session.rom)[0] + ".reporter.lua")
    where = folders(session)
    if stem:
        places += [os.path.join(where["data"], "reporters", _identity(session) + ".lua"),
                   os.path.join(where["data"], "reporters", stem + ".lua"),
                   os.path.join(where["examples"], "reporters", stem + ".lua")]
    return next((place for place in places if os.path.isfile(place)), None)


def load_reporter(session: GameSession, path: Optional[str] = None, code: Optional[str] = None) -> Dict[str, Any]:
    """Loads a reporter from `path` or `code` (or, with neither, the one found for the game)."""
    if path is not None and code is not None:
        raise ValueError('give "path" or "code", not both')
    origin = "code"
    if code is None:
        path = path if path is not None else find_reporter(session)
        if path is None:
            raise ValueError("no reporter for this game: write one (set_reporter with `code`: Lua defining "
                             "state() that returns a table) or put one in %s"
                             % os.path.join(folders(session)["data"], "reporters"))
        if not isinstance(path, str) or not os.path.isfile(os.path.expanduser(path)):
            raise ValueError('"path": no such file: %r' % (path,))
        with open(os.path.expanduser(path), encoding="utf-8", errors="replace") as file:
            code = file.read(MAX_REPORTER + 1)
        origin = os.path.abspath(os.path.expanduser(path))
    if not isinstance(code, str) or not code.strip() or len(code) > MAX_REPORTER:
        raise ValueError('"code" must be Lua source of at most %d characters' % MAX_REPORTER)
    # The file may define a global state() or return a table with one; its globals are its own (a table over the
    # console's), so an earlier reporter's state() never answers for this one.
    loaded = session.lua_value(
        "local env = setmetatable({}, {__index = _ENV}) "
        "local chunk, why = load(%s, %s, 't', env) if not chunk then return {why = why} end "
        "local ok, made = pcall(chunk) if not ok then return {why = tostring(made)} end "
        "local state = type(made) == 'table' and made.state or rawget(env, 'state') "
        "if type(state) ~= 'function' then return {why = 'it defines no state() function'} end "
        "__retrolua_reporter = state return {ok = true}"
        % (_lua_string(code), _lua_string("=" + os.path.basename(origin))))
    if not loaded.get("ok"):
        raise RetroluaError("the reporter (%s) did not load: %s" % (origin, loaded.get("why")))
    session.extras["reporter"] = origin
    return {"reporter": origin, "state": game_state(session)["state"]}


def game_state(session: GameSession) -> Dict[str, Any]:
    """The reporter's state() as JSON (the reporter found for the game is loaded on first use)."""
    if "reporter" not in session.extras:
        return load_reporter(session)
    state = session.lua_value("if not __retrolua_reporter then error('the reporter is gone (the console was reset):"
                              " set_reporter loads it again', 0) end return __retrolua_reporter()")
    return {"state": state, "frame": session.request("info").get("frame"), "reporter": session.extras["reporter"]}


def register(tool: Callable[..., Any], call: Callable[..., Any], context: Any) -> None:
    """The notepad, movie and reporter tools, on the server's `tool` decorator."""
    Context = context

    @tool()
    async def notes_read(ctx: Context) -> Dict[str, Any]:
        """Read this game's notepad: what you (or an earlier session) wrote with notes_write. It is kept per
        game (by the content's SHA-1) in Retrolua's data folder and survives restarts. Read it at the start."""
        return await call(ctx, read_notes)

    @tool()
    async def notes_write(ctx: Context, text: str, append: bool = True) -> Dict[str, Any]:
        """Write to this game's notepad (appended; append=false replaces it): addresses you found, what the
        game's screens mean, plans. Example: notes_write("player x: RAM 0x06 (8..240)")."""
        return await call(ctx, write_notes, text, append)

    @tool()
    async def record_movie(ctx: Context, path: Optional[str] = None) -> Dict[str, Any]:
        """Start recording the session as a Retrolua movie (.rlm) from the current state: every frame's input
        from now on, with hashes so `retrolua movie verify` can check a replay. Default file: a new one in the
        data folder's agent-movies/ (the game's Lua sandbox writes only inside the data folder unless the run
        has --allow-files). stop_movie writes it."""
        return await call(ctx, record, path)

    @tool()
    async def stop_movie(ctx: Context) -> Dict[str, Any]:
        """Stop recording and write the movie: its path, length in frames and the command that verifies it."""
        return await call(ctx, stop_recording)

    @tool()
    async def get_game_state(ctx: Context) -> Dict[str, Any]:
        """The game's state as data, read from its memory by the game's reporter (a Lua file whose state()
        returns a table): positions, lives, score… far more reliable than reading the screen. Dodge ships
        one; for another game, write one with set_reporter."""
        return await call(ctx, game_state)

    @tool()
    async def set_reporter(ctx: Context, path: Optional[str] = None, code: Optional[str] = None) -> Dict[str, Any]:
        """Load the game's reporter: Lua `code` (or a file at `path`) defining state() — a function that
        returns a table of what matters, read from memory — or returning {state = function() … end}. Example
        code: "function state() return {x = memory.read_u8(6), lives = memory.read_u8(8)} end". get_game_state
        calls it. With no arguments, loads the reporter found for the game."""
        return await call(ctx, load_reporter, path, code)
