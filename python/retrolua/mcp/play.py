"""Tools for play: wait for an event instead of polling (a memory condition, a Lua expression, a watched
address, or N frames, with buttons held), press sequences, and finding what in memory means what (named
snapshots, a diff between two, and the incremental RAM search of the RAM tools: `cheats.search`).

Waiting is the emulator's: one `step` request with stop conditions, checked after every frame in the run
(docs/guides/control-socket.md), so a wait costs one round trip whatever its length."""

from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import numpy as np

from .game import GameSession
from .parsing import parse_address

MAX_WAIT = 36000  # ten minutes of a 60 fps game in one wait
MAX_CONDITIONS = 16
MAX_SEQUENCE = 64
MAX_SNAPSHOTS = 32
MAX_SNAPSHOT_BYTES = 4 << 20  # one domain's snapshot
MAX_LISTED = 500

#: The comparisons an agent may write, as the step request names them.
OPERATORS = {"==": "eq", "=": "eq", "eq": "eq", "!=": "ne", "~=": "ne", "ne": "ne", "<": "lt", "lt": "lt",
             ">": "gt", "gt": "gt", "<=": "le", "le": "le", ">=": "ge", "ge": "ge", "changed": "changed",
             "increased": "increased", "decreased": "decreased", "bits_set": "bits_set", "bits_clear": "bits_clear"}
VALUE_FREE = {"changed", "increased", "decreased"}

#: Diff filters (RetroArch's cheat search): those after `=` need a value.
FILTERS = {"changed": False, "unchanged": False, "increased": False, "decreased": False, "equal": True,
           "not_equal": True, "increased_by": True, "decreased_by": True}


def _count(value: Any, argument: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError('"%s" must be an integer in %d..%d, got %r' % (argument, low, high, value))
    return value


def _condition(session: GameSession, given: Any, index: int) -> Dict[str, Any]:
    """A memory condition from the agent ({"address": "0x06", "op": ">=", "value": 100, "size": 1}) as the
    step request's; the emulator checks the rest (domain, range) and names the field."""
    where = "until[%d]" % index
    if not isinstance(given, dict):
        raise ValueError('"%s" must be an object such as {"address": "0x06", "op": ">=", "value": 100}' % where)
    unknown = set(given) - {"address", "op", "value", "size", "domain", "big_endian"}
    if unknown:
        raise ValueError('"%s": unknown field %s (fields: address, op, value, size, domain, big_endian)'
                         % (where, sorted(unknown)[0]))
    op = OPERATORS.get(str(given.get("op", "")).strip().lower()) if isinstance(given.get("op"), str) else None
    if op is None:
        raise ValueError('"%s.op" must be one of %s, got %r' % (where, ", ".join(sorted(set(OPERATORS))),
                                                                  given.get("op")))
    condition: Dict[str, Any] = {"address": parse_address(given.get("address"), where + ".address"), "op": op,
                                 "size": _count(given.get("size", 1), where + ".size", 1, 4)}
    if op not in VALUE_FREE:
        if "value" not in given:
            raise ValueError('"%s.value" is needed with op %s' % (where, given["op"]))
        condition["value"] = parse_address(given["value"], where + ".value")
    if given.get("domain") not in (None, ""):
        condition["domain"] = session.domain(given["domain"])
    if "big_endian" in given:
        if not isinstance(given["big_endian"], bool):
            raise ValueError('"%s.big_endian" must be true or false' % where)
        condition["big_endian"] = given["big_endian"]
    return condition


def _watch(session: GameSession, given: Any, index: int) -> Dict[str, Any]:
    """A watched range: an address, or {"address":, "length":, "domain":}."""
    if not isinstance(given, dict):
        given = {"address": given}
    where = "watch[%d]" % index
    watch: Dict[str, Any] = {"address": parse_address(given.get("address"), where + ".address"),
                             "length": _count(given.get("length", 1), where + ".length", 1, 256)}
    if given.get("domain") not in (None, ""):
        watch["domain"] = session.domain(given["domain"])
    return watch


def wait(session: GameSession, frames: int = 600, buttons: Union[Sequence[str], str, None] = None,
         until: Optional[Sequence[Any]] = None, lua: Optional[str] = None,
         watch: Optional[Sequence[Any]] = None) -> Dict[str, Any]:
    """Runs up to `frames` frames with `buttons` held until a condition holds (checked after each frame)."""
    session.info()
    frames = _count(frames, "frames", 1, MAX_WAIT)
    conditions: Dict[str, Any] = {}
    for name, given, make in (("until", until, _condition), ("watch", watch, _watch)):
        if given is None:
            continue
        if isinstance(given, (str, bytes, dict)) or not isinstance(given, (list, tuple)):
            given = [given]
        if not 1 <= len(given) <= MAX_CONDITIONS:
            raise ValueError('"%s" holds 1..%d entries, got %d' % (name, MAX_CONDITIONS, len(given)))
        conditions[name] = [make(session, entry, index) for index, entry in enumerate(given)]
    if lua is not None:
        if not isinstance(lua, str) or not lua.strip() or len(lua) > 4096:
            raise ValueError('"lua" must be a Lua expression of at most 4096 characters, got %r' % (lua,))
        conditions["until_lua"] = lua
    result = session.run_frames(frames, session.buttons(buttons), **conditions)
    if "until_index" in result:
        result["condition"] = (until if isinstance(until, (list, tuple)) else [until])[result["until_index"]]
    return result


def _segment(given: Any, index: int) -> Dict[str, Any]:
    """A press: {"buttons": ["right", "a"] | "right+a", "frames": 3}, or "right+a:3" ("-:10" or "wait:10"
    holds nothing for 10 frames; no ":N" is one frame)."""
    if isinstance(given, str):
        held, _, count = given.partition(":")
        given = {"buttons": None if held.strip() in ("", "-", "wait", "none") else held,
                 "frames": int(count) if count.strip().isdigit() else (1 if not count else count)}
    if not isinstance(given, dict) or set(given) - {"buttons", "frames"}:
        raise ValueError('"sequence[%d]" must be {"buttons": [...], "frames": N} or "right+a:3"' % index)
    return {"buttons": given.get("buttons"), "frames": _count(given.get("frames", 1), "sequence[%d].frames" % index,
                                                              1, 3600)}


def press(session: GameSession, sequence: Sequence[Any]) -> Dict[str, Any]:
    """Runs each press of `sequence` in turn (buttons held for its frames, then the next)."""
    if isinstance(sequence, (str, dict)):
        sequence = [sequence]
    if not isinstance(sequence, (list, tuple)) or not 1 <= len(sequence) <= MAX_SEQUENCE:
        raise ValueError('"sequence" is a list of 1..%d presses' % MAX_SEQUENCE)
    segments = [_segment(given, index) for index, given in enumerate(sequence)]
    total = sum(segment["frames"] for segment in segments)
    if total > MAX_WAIT:
        raise ValueError('"sequence" runs %d frames; at most %d' % (total, MAX_WAIT))
    held = [session.buttons(segment["buttons"]) for segment in segments]  # every name checked before a frame runs
    ran, result = 0, {}
    for segment, buttons in zip(segments, held):
        result = session.run_frames(segment["frames"], buttons)
        if result.get("paused"):
            result["frames_run"] = ran
            result["message"] = "the game was paused by the user after %d of %d frames" % (ran, total)
            return result
        ran += result.get("frames_run") or 0
    return {"frame": result.get("frame"), "frames_run": ran, "presses": len(segments)}


# -- memory: snapshots, diffs, the RAM search ----------------------------------------------------------------

def _snapshots(session: GameSession) -> Dict[str, Dict[str, Any]]:
    return session.extras.setdefault("snapshots", {})


def snapshot(session: GameSession, name: str, domain: Optional[str] = None) -> Dict[str, Any]:
    """Keeps a copy of a whole domain under `name`."""
    if not isinstance(name, str) or not name.strip() or len(name) > 64:
        raise ValueError('"name" must be a non-empty string of at most 64 characters, got %r' % (name,))
    name = name.strip()
    kept = _snapshots(session)
    if name not in kept and len(kept) >= MAX_SNAPSHOTS:
        raise ValueError('"name": %d snapshots are kept already (overwrite one: %s)'
                         % (MAX_SNAPSHOTS, ", ".join(sorted(kept))))
    domain = session.domain(domain)
    size = session.domain_size(domain)
    if size > MAX_SNAPSHOT_BYTES:
        raise ValueError('"domain": %s is %d bytes; a snapshot holds at most %d (pick a smaller domain)'
                         % (domain, size, MAX_SNAPSHOT_BYTES))
    data = session.read_all(domain, size)
    frame = session.request("info").get("frame")
    kept[name] = {"domain": domain, "bytes": data, "frame": frame}
    return {"name": name, "domain": domain, "bytes": len(data), "frame": frame, "snapshots": sorted(kept)}


def diff(session: GameSession, before: str, after: str = "now", filter: str = "changed",
         value: Optional[Union[int, str]] = None, size: int = 1, limit: int = 100) -> Dict[str, Any]:
    """The addresses whose value passes `filter` between snapshot `before` and `after` ("now": memory now)."""
    kept = _snapshots(session)
    if before not in kept:
        raise ValueError('"before": no snapshot %r (snapshots: %s)' % (before, ", ".join(sorted(kept)) or "none yet"))
    old = kept[before]
    if after == "now":
        new = {"domain": old["domain"], "bytes": session.read_all(old["domain"], len(old["bytes"]))}
    elif after in kept:
        new = kept[after]
        if new["domain"] != old["domain"]:
            raise ValueError('"after": %r is of %s, %r of %s' % (after, new["domain"], before, old["domain"]))
    else:
        raise ValueError('"after": no snapshot %r ("now" compares with memory now)' % (after,))
    if filter not in FILTERS:
        raise ValueError('"filter" must be one of %s, got %r' % (", ".join(FILTERS), filter))
    if size not in (1, 2, 4) or isinstance(size, bool):
        raise ValueError('"size" must be 1, 2 or 4, got %r' % (size,))
    limit = _count(limit, "limit", 1, MAX_LISTED)
    operand = parse_address(value, "value") if FILTERS[filter] else None
    if FILTERS[filter] and value is None:
        raise ValueError('"value" is needed with filter %s' % filter)
    a, b = (_values(entry["bytes"], size) for entry in (old, new))
    passes = {"changed": b != a, "unchanged": b == a, "increased": b > a, "decreased": b < a,
              "equal": b == operand, "not_equal": b != operand,
              "increased_by": (b - a) % (1 << (8 * size)) == operand if operand is not None else None,
              "decreased_by": (a - b) % (1 << (8 * size)) == operand if operand is not None else None}[filter]
    where = np.flatnonzero(passes)
    listed = [{"address": "0x%X" % int(address), "old": int(a[address]), "new": int(b[address])}
              for address in where[:limit]]
    return {"domain": old["domain"], "filter": filter, "count": int(where.size), "addresses": listed,
            "truncated": int(where.size) > limit}


def _values(data: bytes, size: int) -> Any:
    """Every address's little-endian value of `size` bytes (the last size-1 addresses read past the end as 0)."""
    padded = np.frombuffer(data + b"\x00" * (size - 1), dtype=np.uint8).astype(np.int64)
    values = padded[:len(data)].copy()
    for index in range(1, size):
        values += padded[index:index + len(data)] << (8 * index)
    return values


def start_search(session: GameSession, domain: Optional[str] = None, size: int = 8, signed: bool = False
                 ) -> Dict[str, Any]:
    """Starts the RAM search (every address a candidate) on a domain, values of `size` bits."""
    domain = session.domain(domain)
    if size not in (1, 2, 4, 8, 16, 32) or isinstance(size, bool):
        raise ValueError('"size" must be 1, 2, 4, 8, 16 or 32 (bits), got %r' % (size,))
    if not isinstance(signed, bool):
        raise ValueError('"signed" must be true or false')
    count = session.lua_value("return cheats.search_start{domain=%s, size=%d, signed=%s}"
                              % (_lua_string(domain), size, "true" if signed else "false"))
    return {"domain": domain, "bits": size, "candidates": count}


def narrow_search(session: GameSession, comparison: str, value: Optional[int] = None, limit: int = 20
                  ) -> Dict[str, Any]:
    """Keeps the candidates whose value compares true now; lists the first `limit` with values."""
    comparisons = ("equal", "not_equal", "less", "greater", "less_equal", "greater_equal", "changed", "unchanged",
                   "increased", "decreased", "increased_by", "decreased_by")
    if comparison not in comparisons:
        raise ValueError('"comparison" must be one of %s, got %r' % (", ".join(comparisons), comparison))
    limit = _count(limit, "limit", 1, MAX_LISTED)
    operand = ""
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) > 0xFFFFFFFF:
            raise ValueError('"value" must be an integer, got %r' % (value,))
        operand = ", %d" % value
    if not session.lua_value("return cheats.search_count()"):
        raise ValueError("no search started: call search_start first")
    count = session.lua_value("return cheats.search(%s%s)" % (_lua_string(comparison), operand))
    results = session.lua_value("return cheats.search_results(%d)" % limit) or []
    return {"candidates": count,
            "addresses": [{"domain": entry.get("domain"), "address": "0x%X" % entry.get("address", 0),
                           "value": entry.get("value"), "previous": entry.get("previous")} for entry in results]}


def _lua_string(text: str) -> str:
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def register(tool: Callable[..., Any], call: Callable[..., Any], context: Any) -> None:
    """The play tools, on the server's `tool` decorator; `call` runs a function in the session's worker."""
    Context = context

    @tool()
    async def wait_until(ctx: Context, frames: int = 600, buttons: Optional[Union[List[str], str]] = None,
                         until: Optional[List[Dict[str, Any]]] = None, lua: Optional[str] = None,
                         watch: Optional[List[Union[int, str, Dict[str, Any]]]] = None) -> Dict[str, Any]:
        """Run the game until something happens, instead of stepping and polling: up to `frames` frames
        (1..36000) with `buttons` held, stopping after the first frame at which a memory condition holds
        (`until`: [{"address": "0x06", "op": ">=", "value": 100, "size": 1}], ops ==, !=, <, >, <=, >=, changed,
        increased, decreased, bits_set, bits_clear), a Lua expression is true (`lua`: "memory.read_u8(5) ~= 0",
        run in the console, so your run_lua globals work), or a watched address changes (`watch`: ["0x06",
        {"address": "0x20", "length": 6}]). Returns the frame, frames run and `stopped` ("until", "lua",
        "watch" with what changed, or "frames" when none held). Example: wait_until(frames=300,
        buttons=["right"], until=[{"address": "0x06", "op": ">=", "value": 200}])."""
        return await call(ctx, wait, frames, buttons, until, lua, watch)

    @tool()
    async def press_buttons(ctx: Context, sequence: List[Union[str, Dict[str, Any]]]) -> Dict[str, Any]:
        """Press buttons in sequence, each held for some frames and released before the next: items are
        {"buttons": ["right", "a"], "frames": 3} or "right+a:3"; "-:10" holds nothing for 10 frames, "a" taps A
        for one frame. Up to 64 presses, 36000 frames in all. Example: ["start:2", "-:30", "a:1", "-:5", "a:1"]
        presses Start, waits half a second, and taps A twice."""
        return await call(ctx, press, sequence)

    @tool()
    async def snapshot_memory(ctx: Context, name: str, domain: Optional[str] = None) -> Dict[str, Any]:
        """Keep a copy of a whole memory domain (default: main RAM) under `name`, to compare later with
        diff_memory. Example: snapshot_memory("before_jump"), press a button, then diff_memory("before_jump")."""
        return await call(ctx, snapshot, name, domain)

    @tool()
    async def diff_memory(ctx: Context, before: str, after: str = "now", filter: str = "changed",
                          value: Optional[Union[int, str]] = None, size: int = 1, limit: int = 100) -> Dict[str, Any]:
        """The addresses whose value differs between snapshot `before` and `after` (another snapshot, or "now"),
        with old and new values, kept by `filter` as a cheat search does: changed, unchanged, increased,
        decreased, equal / not_equal (the new value to `value`), increased_by / decreased_by (`value`).
        `size`: 1, 2 or 4 bytes (little-endian). Lists up to `limit` (the count is of all)."""
        return await call(ctx, diff, before, after, filter, value, size, limit)

    @tool()
    async def search_start(ctx: Context, domain: Optional[str] = None, size: int = 8,
                           signed: bool = False) -> Dict[str, Any]:
        """Start a RAM search (the RAM tools' cheat finder): every address of the domain (default main RAM)
        is a candidate, values of `size` bits (1..32). Then narrow it with search_narrow after the game
        changes. Shares the one search with the window's RAM search panel."""
        return await call(ctx, start_search, domain, size, signed)

    @tool()
    async def search_narrow(ctx: Context, comparison: str, value: Optional[int] = None,
                            limit: int = 20) -> Dict[str, Any]:
        """Keep the search's candidates whose value now compares true: against `value` (equal, not_equal,
        less, greater, less_equal, greater_equal), against the last search (changed, unchanged, increased,
        decreased) or by an amount (increased_by, decreased_by). Returns how many remain and the first
        `limit`. Example: find the player's x: search_start(); hold right a few frames; search_narrow("increased");
        hold left; search_narrow("decreased"); repeat until one is left."""
        return await call(ctx, narrow_search, comparison, value, limit)
