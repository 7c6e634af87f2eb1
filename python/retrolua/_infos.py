"""Infos as arrays (EnvPool's and Gymnasium's batched form: a key's values over the envs, and `_key` marking the
envs that have it) and back as one dict per env: the vector env's, the pool's and SB3's, from the per-env info()
objects the lanes replied with (python/retrolua/_lanes.py reads them; libRetroluaBatch reads the numeric ones in C)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np


#: info() columns: each key's values over the rows and which rows have it (None: all of them).
Columns = Dict[str, Tuple[np.ndarray, Optional[np.ndarray]]]
#: Keys every batched info has, from the reply headers, not the scenario's info().
COUNTERS = ("frame", "lag")


def columns_of(infos: List[Dict[str, Any]]) -> Columns:
    """Per-env info dicts as columns: a key every env reports as a number is one array made at once
    (numpy's types: bool, int64 or float64), any other one filled row by row with its mask."""
    count = len(infos)
    columns: Columns = {}
    keys = infos[0].keys() if infos else {}.keys()
    if all(info.keys() == keys for info in infos):
        for key in keys:
            values = np.array([info[key] for info in infos])
            if values.ndim == 1 and values.dtype != object and values.dtype.kind in "biuf":
                columns[key] = (values, None)
    for row, info in enumerate(infos):
        for key, value in info.items():
            if key in columns and columns[key][1] is None:
                continue
            if key not in columns:
                columns[key] = (_blank(value, count), np.zeros(count, dtype=bool))
            values, present = columns[key]
            columns[key] = (_put(values, row, value), present)
            assert present is not None
            present[row] = True
    return columns


def _blank(value: Any, count: int) -> np.ndarray:
    sample = np.asarray(value)
    if sample.ndim == 0 and sample.dtype.kind in "biuf":
        return np.zeros(count, dtype=sample.dtype)
    return np.full(count, None, dtype=object)


def _put(values: np.ndarray, row: int, value: Any) -> np.ndarray:
    """`values` with `value` at `row`, widened (bool → int → float → object) where it does not fit."""
    if values.dtype != object:
        sample = np.asarray(value)
        if sample.ndim != 0 or sample.dtype.kind not in "biuf":
            values = values.astype(object)
        else:
            wider = np.result_type(values.dtype, sample.dtype)
            if wider != values.dtype:
                values = values.astype(wider if wider.kind in "biuf" else object)
    try:
        values[row] = value
    except (TypeError, ValueError, OverflowError):
        values = values.astype(object)
        values[row] = value
    return values


def _numeric_keys(infos: List[Dict[str, Any]]) -> Optional[List[str]]:
    """The keys of `infos` when rb_infos can read them: the same names in the same order in every one,
    none needing an escape in JSON, every value a bool, an int of 64 bits or a float."""
    if not infos:
        return None
    keys = list(infos[0])
    for info in infos:
        if list(info) != keys:
            return None
        for value in info.values():
            if type(value) not in (bool, int, float) or (type(value) is int and not -2**63 <= value < 2**63):
                return None
    if any('"' in key or "\\" in key or "\0" in key or not key.isprintable() for key in keys):
        return None
    return keys


def _typed_columns(keys: List[str], ints: np.ndarray, reals: np.ndarray, kinds: np.ndarray, ranges: List[int]
                   ) -> Columns:
    """rb_infos' cells (a key's values a row each; `ranges`: each key's highest kind, then its lowest) as
    columns typed as numpy types a list of the Python values: any real makes a column float64, else any
    integer int64, else bool."""
    width = len(keys)
    columns: Columns = {}
    for column, key in enumerate(keys):
        top, low = ranges[column], ranges[width + column]
        if top == 2:
            values = reals[column] if low == 2 else np.where(kinds[column] == 2, reals[column], ints[column])
        elif top == 1:
            values = ints[column]
        else:
            values = ints[column] != 0
        columns[key] = (values, None)
    return columns


def assemble_infos(count: int, rows: Optional[np.ndarray], columns: Columns, counters: np.ndarray
                   ) -> Dict[str, Any]:
    """Gymnasium's batched `info` for `count` envs: `frame` and `lag` for every env (`counters`, n x 2),
    each key of `columns` (the rows `rows` have, None: every row in order) an array and `_key` saying
    which envs have it."""
    everyone = np.ones(count, dtype=bool)
    info: Dict[str, Any] = {"frame": counters[:, 0].copy(), "_frame": everyone,
                            "lag": counters[:, 1].copy(), "_lag": everyone.copy()}
    for key, (values, present) in columns.items():
        if key in COUNTERS:
            continue
        if rows is None:
            info[key], info["_" + key] = values, everyone.copy() if present is None else present
            continue
        whole = np.zeros(count, dtype=values.dtype) if values.dtype != object else np.full(count, None, dtype=object)
        mask = np.zeros(count, dtype=bool)
        whole[rows] = values
        mask[rows] = True if present is None else present
        info[key], info["_" + key] = whole, mask
    return info


def full_infos(columns: Columns, frames: np.ndarray, lags: np.ndarray, everyone: np.ndarray) -> Dict[str, Any]:
    """`assemble_infos` for a batch of every env (`everyone`: True for each), `frame` and `lag` arrays of its own."""
    info: Dict[str, Any] = {"frame": frames, "_frame": everyone.copy(), "lag": lags, "_lag": everyone.copy()}
    for key, (values, present) in columns.items():
        if key not in COUNTERS:
            info[key], info["_" + key] = values, everyone.copy() if present is None else present
    return info


def set_row(info: Dict[str, Any], row: int, values: Dict[str, Any]) -> None:
    """Row `row` of a batched `info` becomes `values` (an env's own dict: a reset's), `frame` and `lag` too."""
    for key in list(info):
        if not key.startswith("_") and key not in values and "_" + key in info and key not in COUNTERS:
            info["_" + key][row] = False
    for key, value in values.items():
        if key not in info:
            info[key], info["_" + key] = _blank(value, len(info["frame"])), np.zeros(len(info["frame"]), dtype=bool)
        info[key] = _put(info[key], row, value)
        if "_" + key in info:
            info["_" + key][row] = True


def per_env(info: Dict[str, Any], count: int, skip: Sequence[str] = ()) -> List[Dict[str, Any]]:
    """A batched `info` as one dict per env (the form Gymnasium's single-env checkers and SB3 know):
    each key an env has, its value as a Python scalar where it is one."""
    rows: List[Dict[str, Any]] = [{} for _ in range(count)]
    for key, values in info.items():
        if key.startswith("_") or key in skip:
            continue
        present = info.get("_" + key)
        listed = values.tolist() if isinstance(values, np.ndarray) and values.dtype != object else list(values)
        for row in range(count) if present is None else np.flatnonzero(present).tolist():
            rows[row][key] = listed[row]
    return rows


def batch_infos(infos: List[Dict[str, Any]], counters: np.ndarray) -> Dict[str, Any]:
    """Gymnasium's batched `info` of per-env dicts: each key an array over the envs and `_key` saying
    which have it; `frame` and `lag` for every env."""
    return assemble_infos(len(infos), None, columns_of(infos), counters)
