"""stable-retro game integrations in Retrolua environments.

stable-retro ships about a thousand game integrations, one folder each: `data.json` (named RAM
variables: an address and a type such as ">u2" or "<d4"), `scenario.json` (the reward and the end of
an episode, as rules over those variables), `metadata.json` (the default start state) and gzipped
`.state` files. `load(folder)` reads one; `retrolua.make(rom, integration=folder)` runs it: the rules
become a Lua scenario in the emulator (`stable_retro_scenario.lua`), evaluated after every frame as
stable-retro evaluates them, `info` carries every variable, and the episode starts from the default
state. Only the files are read (stable-retro itself is not needed). Rules given as functions of the
integration's own Lua scripts (`"script": "lua:name"`) run those scripts in the emulator, with the
`data` and `scenario` tables stable-retro gives them.

An integration folder is untrusted input: only regular files are read (a FIFO or a device is
refused, never waited on), each within a size limit (JSON 16 MiB, a script 1 MiB, a state
`MAX_STATE` bytes once inflated, inflated a piece at a time), JSON nests at most 64 levels, states
and scripts are files inside the folder, and every problem is a RetroluaError naming the file.
"""

import hashlib
import importlib.util
import json
import os
import re
import stat
import warnings
import zlib
from typing import Any, Dict, List, Optional, Tuple

from .errors import RetroluaError

#: Where each system's RAM sits in stable-retro's addresses, and whether it is the 68000's RAM kept
#: as little-endian 16-bit words (read big-endian): facts of stable-retro's per-core settings, by
#: the content's extension (systems whose cores publish a memory map use the map's addresses).
SYSTEMS: Dict[str, Tuple[int, bool]] = {
    ".md": (0xFF0000, True), ".gen": (0xFF0000, True), ".smd": (0xFF0000, True), ".bin": (0xFF0000, True),
    ".32x": (0, True), ".scd": (0, True), ".chd": (0, True), ".zip": (0, True),
    ".sms": (0xC000, False), ".gg": (0xC000, False), ".gb": (0xC000, False), ".gbc": (0xC000, False),
    ".pce": (0xF80000, False), ".sfc": (0x7E0000, False), ".smc": (0x7E0000, False), ".a26": (0x80, False),
    ".nes": (0, False), ".gba": (0, False), ".nds": (0, False), ".n64": (0, False), ".z64": (0, False),
    ".v64": (0, False),
}

#: Core options stable-retro's runs end up with, where ours differ in a way games see: its frontend
#: leaves genesis_plus_gx's unanswered options holding the last answered value, which turns the
#: 68000's address-error emulation off (with it on, the same inputs take games elsewhere).
CORE_OPTIONS: Dict[str, Dict[str, str]] = {"genesis_plus_gx": {"genesis_plus_gx_addr_error": "disabled"}}

OPS = {"equal", "negative-equal", "not-equal", "less-than", "greater-than", "less-or-equal", "greater-or-equal",
       "nonzero", "zero", "negative", "positive", "sign"}
_TYPE = re.compile(r"^([<>=|])([uidn])([1-8])$")
#: The largest state `gunzip_state` inflates: past any system's (stable-retro's largest, N64's, are
#: about 17 MB): a gzip bomb stops here instead of filling memory.
MAX_STATE = 64 << 20
MAX_JSON = 16 << 20
MAX_SCRIPT = 1 << 20
MAX_DEPTH = 64
_SCENARIO_LUA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stable_retro_scenario.lua")


class Integration:
    """One game integration: its variables, rules, default state and folder (see the module doc)."""

    def __init__(self, folder: str, variables: Dict[str, Dict[str, Any]], rules: Dict[str, Any],
                 default_state: Optional[str]) -> None:
        self.folder, self.variables, self.rules, self.default_state = folder, variables, rules, default_state
        # The rules as the Lua side reads them, made now so that a bad rule is refused at load.
        self._rewards, self._done = _rewards(rules), _node(_object(rules, "done", "scenario"), "done")
        self._scripts = _scripts(folder, rules)
        self._reward_script = _function(_player_reward(rules).get("script"))
        self._done_script = _function(_object(rules, "done", "scenario").get("script"))
        #: The scenario's screen crop (x, y, width, height), if it has one.
        self.crop = _crop(rules.get("crop"))

    def _named(self) -> List[str]:
        """The variables the rules name (each must be defined)."""
        names = [rule["variable"] for rule in self._rewards if "variable" in rule]

        def walk(node: Dict[str, Any]) -> None:
            names.extend(rule["variable"] for rule in node["variables"])
            for child in node["nodes"]:
                walk(child)
        walk(self._done)
        return names

    def rom_mismatch(self, content: str) -> Optional[str]:
        """Why `content` may not be the game the integration was made for (its rom.sha), or None."""
        try:
            text = read_file(os.path.join(self.folder, "rom.sha"), 1 << 20).decode("utf-8", errors="replace")
            expected = {line.split()[0].lower() for line in text.splitlines() if line.strip()}
            data = read_file(content, 64 << 20, cut=True)
        except (OSError, RetroluaError):
            return None  # nothing to compare with
        seen = {hashlib.sha1(data).hexdigest(), hashlib.sha1(data[16:]).hexdigest()}  # .nes: without its header
        if expected & seen:
            return None
        return ("%s: SHA-1 %s is not the integration's (%s): its RAM addresses may not fit this game"
                % (content, hashlib.sha1(data).hexdigest(), ", ".join(sorted(expected))))

    def states(self) -> List[str]:
        """The names of the integration's start states."""
        return sorted(name[:-6] for name in os.listdir(self.folder) if name.endswith(".state"))

    def state(self, name: Optional[str] = None) -> bytes:
        """A start state's bytes (gunzipped): `name` (default: metadata's default_state)."""
        name = name or self.default_state
        if not name:
            raise RetroluaError("%s: no state named and no default_state in metadata.json" % self.folder)
        path = _inside(self.folder, name + ".state", "state %r" % name)
        try:
            return gunzip_state(read_file(path, MAX_STATE), path)
        except OSError as error:
            raise RetroluaError("%s: %s (states here: %s)" % (path, error.strerror, ", ".join(self.states()))) from None

    @staticmethod
    def core_options(core: Optional[str]) -> List[str]:
        """`retrolua run` arguments giving core `core` (a name or a path) stable-retro's settings."""
        name = os.path.basename(core or "").split("_libretro")[0]
        return [arg for key, value in CORE_OPTIONS.get(name, {}).items() for arg in ("--option", "%s=%s" % (key, value))]

    def lua(self, content: str) -> str:
        """The Lua scenario for content `content` (its extension names the system's RAM layout)."""
        extension = os.path.splitext(content)[1].lower()
        if extension not in SYSTEMS:
            raise RetroluaError("stable-retro integration: no RAM layout known for %s files (known: %s)"
                                % (extension or "extension-less", " ".join(sorted(SYSTEMS))))
        rambase, swap = SYSTEMS[extension]
        spec = {"rambase": rambase, "swap": swap, "variables": self.variables, "rewards": self._rewards,
                "done": self._done, "scripts": self._scripts,
                "reward_script": self._reward_script, "done_script": self._done_script}
        with open(_SCENARIO_LUA, encoding="utf-8") as file:
            return "local SPEC = %s\n%s" % (_lua(spec), file.read())


def search_path() -> List[str]:
    """Where integrations are looked for by name: $RETROLUA_INTEGRATIONS (folders separated by
    os.pathsep), then an installed stable-retro's data folders (its files only; it is not imported)."""
    folders = [f for f in os.environ.get("RETROLUA_INTEGRATIONS", "").split(os.pathsep) if f]
    spec = importlib.util.find_spec("stable_retro")
    for root in (spec.submodule_search_locations or []) if spec else []:
        folders += [os.path.join(root, "data", kind) for kind in ("stable", "experimental", "contrib")]
    return folders


def list_games() -> List[str]:
    """The names of the integrations `search_path` holds (a folder with data.json each), sorted."""
    names = set()
    for root in search_path():
        if os.path.isdir(root):
            names.update(entry.name for entry in os.scandir(root)
                         if os.path.isfile(os.path.join(entry.path, "data.json")))
    return sorted(names)


def find(name: str) -> str:
    """The folder of integration `name` ("Airstriker-Genesis-v0"), or a folder path as it is."""
    if os.path.isdir(name):
        return name
    if os.sep not in name and name not in ("", ".", ".."):
        for root in search_path():
            candidate = os.path.join(root, name)
            if os.path.isfile(os.path.join(candidate, "data.json")):
                return candidate
    raise RetroluaError("no integration %r (looked in: %s; set RETROLUA_INTEGRATIONS to add folders)"
                        % (name, ", ".join(search_path()) or "nowhere: no stable-retro installed"))


def load(folder: str, scenario: str = "scenario") -> Integration:
    """Reads integration `folder` with scenario `scenario` (a name in the folder or a .json path)."""
    try:
        return _load(folder, scenario)
    except RecursionError:  # what the depth check let through, should any code still recurse
        raise RetroluaError("%s: nested too deeply" % folder) from None


def _load(folder: str, scenario: str) -> Integration:
    data = _read_json(os.path.join(folder, "data.json"))
    path = scenario if scenario.endswith(".json") else os.path.join(folder, scenario + ".json")
    # Without a scenario.json of its own, an integration has no rules (reward 0, no end but truncation).
    rules = {} if scenario == "scenario" and not os.path.exists(path) else _read_json(path)
    metadata_path = os.path.join(folder, "metadata.json")
    metadata = _read_json(metadata_path) if os.path.exists(metadata_path) else {}
    variables = _variables(data, os.path.join(folder, "data.json"))
    default_state = metadata.get("default_state") if isinstance(metadata, dict) else None
    if isinstance(default_state, str) and default_state:
        _inside(folder, default_state + ".state", "metadata.json's default_state %r" % default_state[:100])
    game = Integration(folder, variables, rules, default_state if isinstance(default_state, str) else None)
    if (game._reward_script or game._done_script) and not game._scripts:
        raise RetroluaError('%s: its rules call a script function but "scripts" names no script' % path)
    for name in game._named():
        if name not in variables:
            raise RetroluaError("%s: the rules use variable %r, which data.json does not define" % (path, name))
    return game


def gunzip_state(data: bytes, where: str = "the state", limit: int = MAX_STATE) -> bytes:
    """A state's bytes, gunzipped when they are gzip's (stable-retro's `.state` files are): inflated a
    piece at a time, refused past `limit` bytes (a gzip bomb never fills memory)."""
    data = bytes(data)
    if data[:2] != b"\x1f\x8b":
        if len(data) > limit:
            raise RetroluaError("%s: %d bytes, more than a state can be (%d MiB)" % (where, len(data), limit >> 20))
        return data
    out = bytearray()
    rest = data
    try:
        while rest[:2] == b"\x1f\x8b":  # gzip members one after another, as gzip reads them
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            pending = rest
            while not inflater.eof:
                piece = inflater.decompress(pending, min(limit + 1 - len(out), 1 << 20))
                out += piece
                if len(out) > limit:
                    raise RetroluaError("%s: inflates past %d MiB, more than a state can be (a gzip bomb?)"
                                        % (where, limit >> 20))
                pending = inflater.unconsumed_tail
                if not piece and not pending:
                    raise RetroluaError("%s: a damaged gzip file (it ends early)" % where)
            rest = inflater.unused_data.lstrip(b"\0")  # zero padding after the last member is allowed
    except zlib.error as error:
        raise RetroluaError("%s: a damaged gzip file (%s)" % (where, error)) from None
    if rest:
        raise RetroluaError("%s: a damaged gzip file (%d bytes of something else after it)" % (where, len(rest)))
    return bytes(out)


def read_file(path: str, limit: int, cut: bool = False) -> bytes:
    """The bytes of regular file `path`, at most `limit` of them (RetroluaError past it, or with `cut`
    its first `limit`): a FIFO, a device or a folder is refused without waiting on it. OSError as open
    raises it."""
    if "\0" in path:
        raise RetroluaError("%r: not a file name (a NUL byte)" % path[:200])
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RetroluaError("%s: not a regular file" % path)
        if info.st_size > limit and not cut:
            raise RetroluaError("%s: %d bytes, more than the %d MiB such a file may have"
                                % (path, info.st_size, max(1, limit >> 20)))
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit and cut:
        return data[:limit]
    if len(data) > limit:  # it grew since
        raise RetroluaError("%s: more than the %d MiB such a file may have" % (path, max(1, limit >> 20)))
    return data


def _inside(folder: str, name: str, what: str) -> str:
    """`folder`/`name`, refused when it resolves outside `folder` (.., an absolute name, a symlink)."""
    path = os.path.join(folder, name)
    if "\0" in path or not os.path.realpath(path).startswith(os.path.realpath(folder) + os.sep):
        raise RetroluaError("%s: %s is outside the integration's folder" % (folder, what))
    return path


# -- reading the JSON files ---------------------------------------------------------------------


def _read_json(path: str) -> Dict[str, Any]:
    try:
        value = json.loads(read_file(path, MAX_JSON))
    except OSError as error:
        raise RetroluaError("%s: %s" % (path, error.strerror)) from None
    except ValueError as error:
        raise RetroluaError("%s: not JSON (%s)" % (path, error)) from None
    except RecursionError:
        raise RetroluaError("%s: JSON nested more than %d levels" % (path, MAX_DEPTH)) from None
    if not isinstance(value, dict):
        raise RetroluaError("%s: a JSON object is expected" % path)
    _check_depth(value, path)
    return value


def _check_depth(value: Any, path: str) -> None:
    """Refuses JSON nested past MAX_DEPTH levels (walked without recursion): nothing after recurses deep."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise RetroluaError("%s: JSON nested more than %d levels" % (path, MAX_DEPTH))
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


def _variables(data: Dict[str, Any], path: str) -> Dict[str, Dict[str, Any]]:
    info = data.get("info")
    if not isinstance(info, dict):
        raise RetroluaError('%s: no "info" object of variables' % path)
    variables = {}
    for name, variable in info.items():
        if not isinstance(variable, dict) or not isinstance(variable.get("address"), int) \
                or not isinstance(variable.get("type"), str):
            raise RetroluaError('%s: variable %r needs an integer "address" and a "type"' % (path, name))
        match = _TYPE.match(variable["type"])
        if not match:  # stable-retro skips a variable it cannot parse; rules naming it are refused below
            warnings.warn("%s: variable %r has type %r (expected like >u2, <d4, |i1): left out, as stable-retro "
                          "leaves it out" % (path, name, variable["type"]))
            continue
        address, mask = variable["address"], variable.get("mask")
        if not 0 <= address < 1 << 48 or (mask is not None and (not isinstance(mask, int) or
                                                                not -(1 << 63) <= mask < 1 << 64)):
            raise RetroluaError("%s: variable %r has a bad address or mask" % (path, name))
        order, repr_, width = match.groups()
        # The mask applies to the decoded value as a 64-bit pattern (stable-retro reads it as uint64).
        variables[name] = {"address": address, "width": int(width), "order": ">" if order == ">" else "<",
                           "repr": repr_, "mask": None if mask is None else mask - (1 << 64) if mask >= 1 << 63 else mask}
    return variables


def _crop(crop: Any) -> Optional[Tuple[int, int, int, int]]:
    if not crop:
        return None
    if not (isinstance(crop, list) and len(crop) == 4 and all(isinstance(c, int) and 0 <= c < 1 << 16 for c in crop)):
        raise RetroluaError("scenario: crop is [x, y, width, height], got %r" % (crop,))
    return (crop[0], crop[1], crop[2], crop[3])


def _object(node: Any, key: str, where: str) -> Dict[str, Any]:
    """`node[key]` as an object ({} when absent): the files are untrusted, their shapes checked."""
    value = node.get(key) if isinstance(node, dict) else None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RetroluaError("scenario: %s.%s must be an object, got %r" % (where, key, value))
    return value


def _player_reward(rules: Dict[str, Any]) -> Dict[str, Any]:
    """Player 1's reward rules: "reward", or the first of "rewards"."""
    rewards = rules.get("rewards")
    if rules.get("reward") is None and isinstance(rewards, list) and rewards:
        return _object({"reward": rewards[0]}, "reward", "rewards[1]")
    if rewards is not None and not isinstance(rewards, list):
        raise RetroluaError("scenario: rewards must be a list, got %r" % (rewards,))
    return _object(rules, "reward", "scenario")


def _function(script: Any) -> Optional[str]:
    """The Lua function a rule's `"script": "lua:name"` names (None without one)."""
    if script is None:
        return None
    scope, _, name = script.rpartition(":") if isinstance(script, str) else ("", "", "")
    if scope not in ("", "lua") or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
        raise RetroluaError("scenario: a script rule names a Lua function as lua:name, got %r" % (script,))
    return name


def _scripts(folder: str, rules: Dict[str, Any]) -> List[Dict[str, str]]:
    """The integration's Lua scripts ("scripts": ["script.lua", "lua:other.lua"]), their text."""
    out = []
    entries = rules.get("scripts") or []
    if not isinstance(entries, (str, list)):
        raise RetroluaError("scenario: scripts is a list of Lua files, got %r" % (entries,))
    for entry in [entries] if isinstance(entries, str) else entries:
        scope, _, name = entry.rpartition(":") if isinstance(entry, str) else ("", "", "")
        if (scope or os.path.splitext(name)[1].lstrip(".")) != "lua" or not name:
            raise RetroluaError("scenario: scripts are Lua files (name.lua or lua:name), got %r" % (entry,))
        path = os.path.join(folder, name.lstrip("/"))
        if "\0" in path or not os.path.realpath(path).startswith(os.path.realpath(folder) + os.sep):
            raise RetroluaError("scenario: script %r is outside the integration's folder" % (entry,))
        try:
            text = read_file(path, MAX_SCRIPT)
        except OSError as error:
            raise RetroluaError("%s: %s" % (path, error.strerror)) from None
        out.append({"name": os.path.basename(name), "text": text.decode("utf-8", errors="replace")})
    return out


def _number(spec: Dict[str, Any], key: str, kind: type) -> Any:
    value = spec.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise RetroluaError("scenario: %r must be a number, got %r" % (key, value))
    if kind is int and not -(1 << 63) <= value < 1 << 63:
        raise RetroluaError("scenario: %r is out of range: %r" % (key, value))
    return kind(value)


def _rule(name: Optional[str], spec: Any, default_delta: bool) -> Dict[str, Any]:
    if not isinstance(spec, dict):
        raise RetroluaError("scenario: the rule for %r must be an object" % (name or "time"))
    op, measurement = spec.get("op") or "", spec.get("measurement")
    if not isinstance(op, str) or not isinstance(measurement, (str, type(None))):
        raise RetroluaError("scenario: the rule for %r has a non-text op or measurement" % (name or "time"))
    if op and op not in OPS:  # stable-retro reads an unknown op as none: the value itself
        warnings.warn("scenario: unknown op %r for %r is read as no op, as stable-retro reads it" % (op, name))
    rule = {"op": op if op in OPS else "", "reference": _number(spec, "reference", int),
            "reward": _number(spec, "reward", float), "penalty": _number(spec, "penalty", float),
            "delta": default_delta if measurement not in ("absolute", "delta") else measurement == "delta"}
    if name is not None:
        rule["variable"] = name
    return rule


def _rewards(rules: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Player 1's reward rules, the time rule last."""
    reward = _player_reward(rules)
    out = [_rule(name, spec, True) for name, spec in sorted(_object(reward, "variables", "reward").items())]
    if reward.get("time"):
        out.append(_rule(None, reward["time"], True))
    return out


def _node(node: Dict[str, Any], where: str, depth: int = 0) -> Dict[str, Any]:
    if depth > 32:
        raise RetroluaError("scenario: %s nests more than 32 levels" % where)
    variables = [_rule(name, spec, False) for name, spec in sorted(_object(node, "variables", where).items())]
    nodes = [_node(child, where + "." + key, depth + 1) for key, child in sorted(_object(node, "nodes", where).items())
             if isinstance(child, dict)]
    return {"condition": "all" if node.get("condition") == "all" else "any", "variables": variables,
            "nodes": nodes}


# -- the Lua literal ----------------------------------------------------------------------------


def _lua(value: Any) -> str:
    """`value` (dicts, lists, strings, numbers, booleans, None) as a Lua expression."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if value == value and abs(value) != float("inf") else "0.0"
    if isinstance(value, str):  # every byte that is not plain becomes a decimal escape
        return '"' + "".join(chr(b) if b < 128 and (chr(b).isalnum() or chr(b) in " _-.:/") else "\\%03d" % b
                             for b in value.encode("utf-8")) + '"'
    if isinstance(value, dict):
        return "{" + ", ".join("[%s] = %s" % (_lua(str(k)), _lua(v)) for k, v in value.items()) + "}"
    return "{" + ", ".join(_lua(v) for v in value) + "}"
