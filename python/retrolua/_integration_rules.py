"""An integration's JSON files read and checked (`retrolua.integration`): data.json's variables and
scenario.json's rules, turned into the plain tables the Lua scenario takes. Every problem is a
RetroluaError naming the file or the rule."""

import json
import os
import re
import warnings
from typing import Any, Dict, List, Optional, Tuple

from ._safe_files import read_file
from .errors import RetroluaError

OPS = {"equal", "negative-equal", "not-equal", "less-than", "greater-than", "less-or-equal", "greater-or-equal",
       "nonzero", "zero", "negative", "positive", "sign"}
_TYPE = re.compile(r"^([<>=|])([uidn])([1-8])$")
MAX_JSON = 16 << 20
MAX_SCRIPT = 1 << 20
MAX_DEPTH = 64


def read_json(path: str) -> Dict[str, Any]:
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


def variables_of(data: Dict[str, Any], path: str) -> Dict[str, Dict[str, Any]]:
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
        signed_mask = None if mask is None else mask - (1 << 64) if mask >= 1 << 63 else mask
        variables[name] = {"address": address, "width": int(width), "order": ">" if order == ">" else "<",
                           "repr": repr_, "mask": signed_mask}
    return variables


def crop_of(crop: Any) -> Optional[Tuple[int, int, int, int]]:
    if not crop:
        return None
    if not (isinstance(crop, list) and len(crop) == 4 and all(isinstance(c, int) and 0 <= c < 1 << 16 for c in crop)):
        raise RetroluaError("scenario: crop is [x, y, width, height], got %r" % (crop,))
    return (crop[0], crop[1], crop[2], crop[3])


def object_at(node: Any, key: str, where: str) -> Dict[str, Any]:
    """`node[key]` as an object ({} when absent): the files are untrusted, their shapes checked."""
    value = node.get(key) if isinstance(node, dict) else None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RetroluaError("scenario: %s.%s must be an object, got %r" % (where, key, value))
    return value


def player_reward(rules: Dict[str, Any]) -> Dict[str, Any]:
    """Player 1's reward rules: "reward", or the first of "rewards"."""
    rewards = rules.get("rewards")
    if rules.get("reward") is None and isinstance(rewards, list) and rewards:
        return object_at({"reward": rewards[0]}, "reward", "rewards[1]")
    if rewards is not None and not isinstance(rewards, list):
        raise RetroluaError("scenario: rewards must be a list, got %r" % (rewards,))
    return object_at(rules, "reward", "scenario")


def script_function(script: Any) -> Optional[str]:
    """The Lua function a rule's `"script": "lua:name"` names (None without one)."""
    if script is None:
        return None
    scope, _, name = script.rpartition(":") if isinstance(script, str) else ("", "", "")
    if scope not in ("", "lua") or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
        raise RetroluaError("scenario: a script rule names a Lua function as lua:name, got %r" % (script,))
    return name


def scripts_of(folder: str, rules: Dict[str, Any]) -> List[Dict[str, str]]:
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


def rewards_of(rules: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Player 1's reward rules, the time rule last."""
    reward = player_reward(rules)
    out = [_rule(name, spec, True) for name, spec in sorted(object_at(reward, "variables", "reward").items())]
    if reward.get("time"):
        out.append(_rule(None, reward["time"], True))
    return out


def rule_tree(node: Dict[str, Any], where: str, depth: int = 0) -> Dict[str, Any]:
    if depth > 32:
        raise RetroluaError("scenario: %s nests more than 32 levels" % where)
    variables = [_rule(name, spec, False) for name, spec in sorted(object_at(node, "variables", where).items())]
    children = sorted(object_at(node, "nodes", where).items())
    nodes = [rule_tree(child, where + "." + key, depth + 1) for key, child in children if isinstance(child, dict)]
    return {"condition": "all" if node.get("condition") == "all" else "any", "variables": variables,
            "nodes": nodes}
