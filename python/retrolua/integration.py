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
import os
from typing import Any, Dict, List, Optional, Tuple

from ._integration_rules import (  # noqa: F401  (OPS: the ops the rules know, for callers)
    OPS, crop_of, object_at, player_reward, read_json, rewards_of, rule_tree, script_function, scripts_of, variables_of)
from ._safe_files import MAX_STATE, gunzip_state, inside_folder, read_file
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

_SCENARIO_LUA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stable_retro_scenario.lua")


class Integration:
    """One game integration: its variables, rules, default state and folder (see the module doc)."""

    def __init__(self, folder: str, variables: Dict[str, Dict[str, Any]], rules: Dict[str, Any],
                 default_state: Optional[str]) -> None:
        self.folder, self.variables, self.rules, self.default_state = folder, variables, rules, default_state
        # The rules as the Lua side reads them, made now so that a bad rule is refused at load.
        self._rewards, self._done = rewards_of(rules), rule_tree(object_at(rules, "done", "scenario"), "done")
        self._scripts = scripts_of(folder, rules)
        self._reward_script = script_function(player_reward(rules).get("script"))
        self._done_script = script_function(object_at(rules, "done", "scenario").get("script"))
        #: The scenario's screen crop (x, y, width, height), if it has one.
        self.crop = crop_of(rules.get("crop"))

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
        path = inside_folder(self.folder, name + ".state", "state %r" % name)
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
    data = read_json(os.path.join(folder, "data.json"))
    path = scenario if scenario.endswith(".json") else os.path.join(folder, scenario + ".json")
    # Without a scenario.json of its own, an integration has no rules (reward 0, no end but truncation).
    rules = {} if scenario == "scenario" and not os.path.exists(path) else read_json(path)
    metadata_path = os.path.join(folder, "metadata.json")
    metadata = read_json(metadata_path) if os.path.exists(metadata_path) else {}
    variables = variables_of(data, os.path.join(folder, "data.json"))
    default_state = metadata.get("default_state") if isinstance(metadata, dict) else None
    if isinstance(default_state, str) and default_state:
        inside_folder(folder, default_state + ".state", "metadata.json's default_state %r" % default_state[:100])
    game = Integration(folder, variables, rules, default_state if isinstance(default_state, str) else None)
    if (game._reward_script or game._done_script) and not game._scripts:
        raise RetroluaError('%s: its rules call a script function but "scripts" names no script' % path)
    for name in game._named():
        if name not in variables:
            raise RetroluaError("%s: the rules use variable %r, which data.json does not define" % (path, name))
    return game


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
