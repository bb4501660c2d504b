"""Arrival-time calibration shared by the papers whose arrival intensity is
unknown: a bisection on the log of the time factor (:func:`bisect_time_scale`)
and a resumable table of the factors found (:func:`calibration_table`).
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Callable

import pandas as pd


def bisect_time_scale(load: Callable[[float], float], target: float, scale_range: tuple = (1 / 64, 64.0),
                      steps: int = 9, tol: float = 0.0) -> tuple[float, float]:
    """The arrival time factor whose ``load(factor)`` comes nearest ``target``: a
    bisection on the log of the factor within ``scale_range``, at most ``steps``
    evaluations, stopping early once ``|load - target| <= tol``.  ``load`` must
    fall as the factor grows (sparser arrivals: a blocked share, a busy fraction).
    Returns ``(factor, load)`` of the nearest evaluation; factors are rounded to 6
    decimals so they print and parse back exactly."""
    lo, hi = math.log(scale_range[0]), math.log(scale_range[1])
    best = None
    for _ in range(steps):
        mid = (lo + hi) / 2
        f = round(math.exp(mid), 6)
        value = load(f)
        if best is None or abs(value - target) < abs(best[1] - target):
            best = (f, value)
        if abs(value - target) <= tol:
            break
        if value > target:
            lo = mid
        else:
            hi = mid
    return best


def calibration_table(path, key: dict, traces, calibrate: Callable[[str], tuple], value: str,
                      progress: bool = True) -> dict:
    """``{trace: factor}`` for every trace of ``traces``, reusing the rows of the
    CSV ``path`` made with the same ``key`` (a dict of everything the calibration
    depends on) and calling ``calibrate(trace) -> (factor, load)`` for the others.
    Rewrites ``path`` with the columns ``trace, scale_time, <value>, plan_key``."""
    path = Path(path)
    key = json.dumps(key, sort_keys=True)
    done = {}
    if path.exists():
        old = pd.read_csv(path)
        if {"trace", "scale_time", value, "plan_key"} <= set(old.columns):
            done = {r["trace"]: (float(r["scale_time"]), float(r[value])) for _, r in old.iterrows()
                    if r["plan_key"] == key}
    rows = []
    for name in traces:
        if name not in done:
            if progress:
                print(f"calibrating the time scale of {name} ...", flush=True)
        f, load = done[name] if name in done else calibrate(name)
        rows.append({"trace": name, "scale_time": f, value: load, "plan_key": key})
    pd.DataFrame(rows, columns=["trace", "scale_time", value, "plan_key"]).to_csv(path, index=False)
    return {r["trace"]: r["scale_time"] for r in rows}

