"""Calibrations shared by the papers, each run on Baseline alone: the arrival-time
factor of a paper whose arrival intensity is unknown (a bisection on the log of the
factor, :func:`bisect_time_scale`), the RR times of Baseline behind a trace's
replay count (:func:`baseline_rr_times`, for :func:`flashrr.reproduce.regime.replays_for_rr`),
and a resumable table of the values found (:func:`calibration_table`).
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from ..atomic_file import atomic_open


def bisect_time_scale(load: Callable[[float], float], target: float, scale_range: tuple = (1 / 64, 64.0),
                      steps: int = 9, tol: float = 0.0, probe_after: int | None = 4) -> tuple[float, float]:
    """The arrival time factor whose ``load(factor)`` comes nearest ``target``: a
    bisection on the log of the factor within ``scale_range``, at most ``steps``
    evaluations, stopping early once ``|load - target| <= tol``.  ``load`` must
    fall as the factor grows (sparser arrivals: a blocked share, a busy fraction).
    Returns ``(factor, load)`` of the nearest evaluation; factors are rounded to 6
    decimals so they print and parse back exactly.

    A target the range cannot reach costs ``steps`` evaluations that all move one way.  Once the
    first ``probe_after`` evaluations have all moved the same way, the point the search would end
    on if every later one did too (the last of its ``steps``, nearest that end of the range) is
    evaluated; if its load is still beyond the target by more than ``tol``, it is the answer: a
    load that falls strictly with the factor puts every point the search has left on the same side,
    so the full search ends on it too.  Otherwise the search goes on as without the probe (a
    point it reaches that was probed is not evaluated again).  ``probe_after=None``: no probe."""
    lo, hi = math.log(scale_range[0]), math.log(scale_range[1])
    best = None
    probed = {}
    moves = []  # +1: the load was above the target (the factor grows), -1: below

    def evaluate(f: float) -> float:
        return probed.pop(f) if f in probed else load(f)

    for i in range(steps):
        if probe_after and len(moves) == probe_after and i < steps - 1 and abs(sum(moves)) == probe_after:
            edge_lo, edge_hi = lo, hi
            for _ in range(steps - i):  # the remaining steps, every one moving as the first did
                edge = (edge_lo + edge_hi) / 2
                edge_lo, edge_hi = (edge, edge_hi) if moves[0] > 0 else (edge_lo, edge)
            f = round(math.exp(edge), 6)
            value = probed[f] = load(f)
            if (value - target) * moves[0] > tol:
                return (f, value) if abs(value - target) < abs(best[1] - target) else best
        mid = (lo + hi) / 2
        f = round(math.exp(mid), 6)
        value = evaluate(f)
        if best is None or abs(value - target) < abs(best[1] - target):
            best = (f, value)
        if abs(value - target) <= tol:
            break
        if value > target:
            lo = mid
        else:
            hi = mid
        moves.append(1 if value > target else -1)
    return best


def cached_trace(spec: str, config):
    """The trace ``spec`` for ``config``, its base generated (or opened) once per process (the sweep
    workers' trace cache) and its pipeline applied as streaming stages."""
    from ..sweep.worker import cached_source
    from ..trace.pipeline import parse_trace_spec

    return cached_source(parse_trace_spec(spec).canonical(), spec, config)[0]


def baseline_summary(config, spec: str, snapshot=None) -> dict:
    """Baseline's summary on ``config`` and the trace ``spec`` (:func:`cached_trace`); ``snapshot``
    (a snapshot directory) restores the aged device after the first run."""
    from ..simulate import simulate

    return simulate(config, cached_trace(spec, config), "baseline", snapshot=snapshot).summary


def baseline_rr_times(config, spec: str, replays: int, unit: int = 1, snapshot=None, target: int | None = None) -> tuple:
    """``(times, period)`` for :func:`~flashrr.reproduce.regime.replays_for_rr`: the time (ns) of
    every RR of Baseline on ``config`` with the trace ``spec`` (a trace spec without ``repeat``)
    played ``replays * unit`` times back to back, and the period (ns) of ``unit`` plays.  The trace
    before its pipeline is generated once per process (the sweep workers' trace cache), and
    ``snapshot`` (a snapshot directory) restores the aged device after the first run.

    With ``target``, the run stops at the end of the first chunk that ends after the length unit in
    which the ``target``-th RR fell (:func:`stop_after_rr`): every RR before that unit's end is
    among ``times``, and a longer run adds only later ones."""
    from ..simulate import simulate
    from ..trace.stages import Repeat
    from ..trace.transform import repeat_period

    source = cached_trace(spec, config)
    info = source.info()
    plays = int(replays) * int(unit)
    period = repeat_period(info.n_requests, info.duration_ns, plays) * int(unit)
    stop = None if target is None else stop_after_rr(target, period)
    res = simulate(config, Repeat(source, plays) if plays > 1 else source, "baseline", snapshot=snapshot,
                   stop_when=stop)
    return res.rr_events["time_ns"].to_numpy(), period


def stop_after_rr(target: int, period: int):
    """A ``stop_when`` for :func:`flashrr.simulate`: True once the engine has made ``target`` RRs
    and the replay has reached the end of the period (ns) in which the ``target``-th earliest of
    them fell.  The engine has booked every RR decided before the last arrival it replayed, and an
    RR is decided at or after the arrival of the read that triggers it, so the RRs of every period
    up to that one are then all known."""
    end = None

    def stop(eng, last_arrival_ns: int) -> bool:
        nonlocal end
        if end is None:
            times = eng.rr_times()
            if len(times) < target:
                return False
            nth = int(np.partition(times, target - 1)[target - 1])
            end = (nth // max(int(period), 1) + 1) * int(period)
        return last_arrival_ns >= end
    return stop


def calibration_table(path, key: dict, traces, calibrate: Callable[[str], tuple], value: str,
                      progress: bool = True, jobs: int | None = 1, scheduler: str | None = None,
                      factor: str = "scale_time") -> dict:
    """``{trace: factor}`` for every trace of ``traces``, reusing the rows of the
    CSV ``path`` made with the same ``key`` (a dict of everything the calibration
    depends on) and calling ``calibrate(trace) -> (factor, load)`` for the others:
    in this process, or, one trace per call, on ``jobs`` local processes or the Dask
    cluster at ``scheduler`` (:func:`flashrr.sweep.calls.call_each`; ``calibrate``
    must then pickle).  ``path`` has the columns ``trace, scale_time, <value>,
    plan_key`` (``factor`` names the second column).  It is rewritten after every trace calibrated, so an interrupted
    calibration keeps the traces it finished; the rows of another key stay until
    every trace of this one is done, and then the table holds this key's rows, in
    ``traces`` order."""
    from ..sweep.calls import call_each

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    key = json.dumps(key, sort_keys=True)
    traces = list(traces)
    cols = ["trace", factor, value, "plan_key"]
    done, others = {}, pd.DataFrame(columns=cols)
    if path.exists():
        old = pd.read_csv(path)
        if set(cols) <= set(old.columns):
            mine = old["plan_key"] == key
            done = {r["trace"]: (float(r[factor]), float(r[value])) for _, r in old[mine].iterrows()
                    if r["trace"] in traces}
            others = old.loc[~mine, cols]
    todo = [t for t in traces if t not in done]
    if progress and todo:
        where = f" on the Dask cluster at {scheduler}" if scheduler else ""
        print(f"calibrating {factor} of {len(todo)} trace(s){where} ...", flush=True)
    for name, (f, load) in call_each(calibrate, todo, jobs, scheduler):
        done[name] = (f, load)
        if len(done) < len(traces):
            _write_calibration(path, cols, key, traces, done, others)
        if progress:
            print(f"  {name}: {factor} {f:g} ({value} {load:.4g})", flush=True)
    _write_calibration(path, cols, key, traces, done, None)
    return {t: done[t][0] for t in traces}


def _write_calibration(path: Path, cols: list, key: str, traces: list, done: dict, others) -> None:
    """The rows of the traces in ``done`` (then ``others``, a table of other keys' rows),
    written whole (:func:`~flashrr.atomic_file.atomic_open`)."""
    df = pd.DataFrame([(t, *done[t], key) for t in traces if t in done], columns=cols)
    if others is not None and len(others):
        df = pd.concat([df, others], ignore_index=True)
    with atomic_open(path) as f:
        df.to_csv(f, index=False)


def calibrate_length(plan, trace: str, snapshot=None) -> tuple[int, int]:
    """``(replays, rrs)`` of ``trace``: the smallest number of length units (``plan.length_unit(trace)``
    plays each) that brings Baseline to ``plan.rr_target(trace)`` RRs, at most
    ``plan.regime.max_replays`` (:func:`~flashrr.reproduce.regime.replays_for_rr`), on
    ``plan.length_device()`` with the trace ``plan.base_spec(trace)``; Baseline only."""
    from .regime import replays_for_rr

    config, spec, unit = plan.length_device(), plan.base_spec(trace), plan.length_unit(trace)
    target = plan.rr_target(trace)
    return replays_for_rr(lambda n: baseline_rr_times(config, spec, n, unit, snapshot, target), target,
                          plan.regime.max_replays)


def calibrated_lengths(plan, out, traces, key: dict, progress: bool = True, jobs: int | None = 1,
                       scheduler: str | None = None, snapshot=None) -> dict:
    """``{trace: replays}`` for ``traces`` (:func:`calibrate_length`), from and into
    ``OUT/lengths.csv`` (reused for the same ``key``: everything the lengths depend on), one
    trace per call on ``jobs`` processes or the Dask cluster at ``scheduler``."""
    from functools import partial

    found = calibration_table(Path(out) / "lengths.csv", key, traces, partial(calibrate_length, plan, snapshot=snapshot),
                              "baseline_rr_count", progress, jobs, scheduler, factor="replays")
    return {t: int(v) for t, v in found.items()}
