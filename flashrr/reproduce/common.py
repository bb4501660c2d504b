"""Pieces every paper reproduction shares: sweeps run into one resumable store
and tidied into one frame per experiment group (:class:`SweepRuns`), traces x
schemes tables (:func:`pivot`), bar figures normalised to a reference scheme, a
figure that writes its PNG, PDF and CSV, the per-figure script entry point, and
the claims table (does flashrr's value point the paper's way, and how large is
it next to the paper's).

Claims tables have the columns :data:`CLAIM_COLUMNS`; ``holds`` comes from
:func:`holds` and ``magnitude`` from :func:`magnitude`.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from . import plots

PARITY_TOL_PCT = 1.0
#: The list of a reproduction's failed runs, in its output directory (see :func:`run_sweeps`).
FAILED_RUNS = "failed_runs.csv"
CLAIM_COLUMNS = ["figure", "claim", "metric", "aggregate", "paper_value", "flashrr_value", "unit", "expected",
                 "holds", "magnitude", "n_traces"]


class FigureDataError(ValueError):
    """A figure cannot be drawn because the runs hold no data for it."""


def need(ok, figure: str, what: str) -> None:
    """Raise :class:`FigureDataError` naming ``figure`` and ``what`` it lacks unless ``ok``."""
    if not ok:
        raise FigureDataError(f"{figure}: cannot be drawn: {what}")


def pivot(df: pd.DataFrame, metric: str, traces, schemes=None) -> pd.DataFrame:
    """Rows of tidy runs as a traces x schemes table of ``metric`` (mean over
    seeds); rows in ``traces`` order, columns in ``schemes`` order (if given)."""
    if df.empty or metric not in df.columns:
        return pd.DataFrame()
    t = df.pivot_table(index="trace", columns="scheme", values=metric, aggfunc="mean", sort=False)
    order = [s for s in (schemes or t.columns) if s in t.columns]
    return t.reindex(index=[x for x in traces if x in t.index], columns=order)


def relative_change(df: pd.DataFrame, metric: str, traces, scheme: str, ref: str) -> pd.Series:
    """Per-trace ``scheme / ref - 1`` of ``metric`` in % (traces where either is
    missing or ``ref`` is 0 are dropped)."""
    t = pivot(df, metric, traces, [scheme, ref])
    if t.empty or scheme not in t.columns or ref not in t.columns:
        return pd.Series(dtype=float)
    base = t[ref].where(t[ref] != 0)
    return (100.0 * (t[scheme] / base - 1.0)).dropna()


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


@dataclass
class SweepRuns:
    """The tidy results of a reproduction: ``frames[group]`` has one row per run
    (the sweep's columns plus ``group``, ``trace`` (preset name) and ``scheme``
    (display label)); ``store`` is the sweep store holding the kept events;
    ``plan`` is the paper module's plan (it has ``traces``)."""

    frames: dict
    store: Path
    plan: object
    _artifacts: dict = field(default_factory=dict)

    def frame(self, group: str) -> pd.DataFrame:
        return self.frames.get(group, pd.DataFrame())

    def artifacts(self, key: str) -> dict:
        """Kept ``rr_events`` / ``hist`` of run ``key`` (cached)."""
        if key not in self._artifacts:
            from ..sweep import load_run_artifacts

            self._artifacts[key] = load_run_artifacts(self.store, key)
        return self._artifacts[key]

    def row_names(self) -> list:
        """The trace names the tidy frames give the paper's rows, in plan order."""
        return list(self.plan.traces)

    def table(self, group: str, metric: str, device: str | None = None, schemes=None) -> pd.DataFrame:
        """``metric`` as traces x schemes (mean over seeds), traces in plan order
        (group :data:`REAL_GROUP`: its real-sample labels in plan order)."""
        df = self.frame(group)
        if device is not None and not df.empty:
            df = df[df["device"] == device]
        return pivot(df, metric, real_labels(self.plan) if group == REAL_GROUP else self.row_names(), schemes)


def plan_variant(plan, quick_changes: dict | None = None, repeat: int | None = None, **changes):
    """A paper plan (a frozen dataclass) with ``quick_changes`` (the quick plan,
    when given), then ``repeat`` (replays of each trace), then ``changes`` applied."""
    from dataclasses import replace

    if quick_changes is not None:
        plan = replace(plan, **quick_changes, quick=True)
    if repeat is not None:
        plan = replace(plan, repeat=int(repeat))
    return replace(plan, **changes) if changes else plan


#: the group of a reproduction's real-sample runs: the main group's policies on the shipped real samples
#: (:mod:`flashrr.trace.samples`) of its traces' families, each in its row's place
REAL_GROUP = "real"
REAL_SUFFIX = " (real sample)"


def real_label(row: str) -> str:
    """The trace name of the real sample standing in for paper row ``row``."""
    return row + REAL_SUFFIX


def real_rows(plan) -> list:
    """``(row, sample)`` pairs of the plan's real-sample group: its ``real_samples``
    whose row is one of its traces (none for a plan without ``real_samples``)."""
    return [(row, sample) for row, sample in getattr(plan, "real_samples", ()) if row in plan.traces]


def real_labels(plan) -> list:
    """The trace names of the plan's real-sample group, in plan order."""
    return [real_label(row) for row, _ in real_rows(plan)]


def real_group_spec(plan, fields: dict, policies: dict) -> dict:
    """``{REAL_GROUP: sweep spec}``: ``fields`` (seeds, devices ...) with the plan's real samples as traces
    and ``policies``; empty when the plan has no real sample for its traces."""
    labels = real_labels(plan)
    if not labels:
        return {}
    return {REAL_GROUP: {**fields, "traces": [plan.trace_spec(t) for t in labels], "policies": policies}}


def split_real(plan, name: str) -> tuple:
    """``(row, sample)`` for a real-sample trace name, ``(name, None)`` for a paper row."""
    for row, sample in real_rows(plan):
        if name == real_label(row):
            return row, sample
    return name, None


#: where a reproduction's traces come from: the workload model (``model:PRESET``, the default) or the synthetic
#: generator (``synth:PRESET``); see :func:`workload_spec`
WORKLOADS = ("model", "synth")


def workload_spec(preset: str, n_requests: int | None, trace_params=(), workload: str = "model",
                  pipeline: dict | None = None) -> str:
    """The trace spec of paper trace ``preset`` for ``workload``.

    ``"synth"``: ``synth:PRESET`` with ``trace_params`` (generator parameters) and ``pipeline`` (pipeline keys).
    ``"model"``: ``model:PRESET`` (:mod:`flashrr.trace.model.presets`) with the same request count, a mean
    arrival gap equal to the synthetic trace's (``interarrival_mean_ns`` plus the idle time per request of
    ON/OFF arrivals, from the preset and ``trace_params``), and ``pipeline`` with ``fold=modulo`` (a model
    preset meets the row's footprint, the pages it touches, but its addresses spread as its sample's did, so
    they may reach beyond a device the synthetic trace, laid out from LPN 0, fits; a trace that fits is left
    as it is); the synthetic generator's other parameters (alignment, footprint rules) have no model
    counterpart and are left out.  A row without a
    model preset (Shuffler's MQSim-generated gen0 and gen1) stays synthetic.
    """
    from urllib.parse import urlencode

    from ..trace.model.presets import PRESET_TEMPLATES

    if workload not in WORKLOADS:
        raise ValueError(f"workload: expected one of {', '.join(WORKLOADS)} (got {workload!r})")
    pipeline = dict(pipeline or {})
    if workload == "synth" or preset not in PRESET_TEMPLATES:
        params = {} if n_requests is None else {"n_requests": int(n_requests)}
        params.update(dict(trace_params))
        params.update(pipeline)
        return f"synth:{preset}" + (f"?{urlencode(params)}" if params else "")
    from ..trace.synth import synth_params

    p, _ = synth_params(preset, n_requests, **{k: v for k, v in dict(trace_params).items()
                                               if k in ("interarrival_mean_ns", "idle_period_mean_ns",
                                                        "burst_requests_mean")})
    gap = p.interarrival_mean_ns + (p.idle_period_mean_ns / p.burst_requests_mean if p.idle_period_mean_ns else 0)
    params = {} if n_requests is None else {"n_requests": int(n_requests)}
    params["mean_gap_ns"] = repr(float(gap))
    params.update(pipeline)
    params.setdefault("fold", "modulo")
    return f"model:{preset}?{urlencode(params)}"


def synth_spec(preset: str, n_requests: int | None, trace_params) -> str:
    """The trace spec ``synth:PRESET?n_requests=…&KEY=VALUE…`` (no query without parameters)."""
    from urllib.parse import urlencode

    params = {} if n_requests is None else {"n_requests": int(n_requests)}
    params.update(dict(trace_params))
    return f"synth:{preset}" + (f"?{urlencode(params)}" if params else "")


def tidy_rows(group: str, df: pd.DataFrame, plan, scheme_label: Callable,
              trace_label: Callable | None = None) -> pd.DataFrame:
    """A sweep's result rows with ``group``, ``trace`` (the plan's trace name of
    ``trace_source``, or ``trace_label(name)`` when given) and ``scheme``
    (``scheme_label(group, row)``) columns added."""
    if df.empty:
        return df
    names = list(plan.traces) + real_labels(plan)
    label = {plan.trace_spec(t): trace_label(t) if trace_label else t for t in names}
    df = df.copy()
    df["group"] = group
    df["trace"] = [label.get(s, s) for s in df["trace_source"]]
    df["scheme"] = [scheme_label(group, r) for _, r in df.iterrows()]
    return df


def run_sweeps(all_specs: dict, groups, out, tidy: Callable, jobs: int | None = None, progress: bool = True,
               timings: dict | None = None) -> dict:
    """Run (or resume) the sweep spec of every group of ``groups`` into
    ``out/store``; returns ``{group: tidy(group, result rows)}``; the wall time
    (s) of each goes to ``timings[f"sweep_{group}_s"]``.

    A run that fails (the engine raised, or its result could not be stored) does
    not stop the reproduction: its group keeps the runs that finished, and
    ``out/FAILED_RUNS`` (``failed_runs.csv``: group, trace, policy, device, seed
    and the error) lists every failed run, so the figures and claims that need
    it say what they lack.  The file is removed when no run failed."""
    from ..sweep import SweepFailed, sweep

    store = Path(out) / "store"
    frames, failed = {}, []
    for g in groups:
        if g not in all_specs:  # a group the plan has nothing to run in (no real sample for its traces)
            continue
        t0 = time.perf_counter()
        try:
            rows = sweep(all_specs[g], store, jobs=jobs, progress=progress)
        except SweepFailed as e:
            rows = e.results
            failed.append(e.failures.assign(group=g))
        frames[g] = tidy(g, rows)
        if timings is not None:
            timings[f"sweep_{g}_s"] = round(time.perf_counter() - t0, 2)
    path = Path(out) / FAILED_RUNS
    if failed:
        cols = ["group", "trace_source", "policy_name", "device", "seed", "error"]
        table = pd.concat(failed, ignore_index=True)
        table[[c for c in cols if c in table.columns]].to_csv(path, index=False)
    else:
        path.unlink(missing_ok=True)
    return frames


def run_plan(runs_cls: type, all_specs: dict, tidy: Callable, plan, out, groups, jobs: int | None = None,
             progress: bool = True, timings: dict | None = None):
    """Run (or resume) the sweeps of ``groups`` into ``out/store`` and return
    ``runs_cls(frames, store, plan)``; ``tidy(group, rows, plan)`` labels the rows."""
    frames = run_sweeps(all_specs, groups, out, lambda g, df: tidy(g, df, plan), jobs, progress, timings)
    return runs_cls(frames, Path(out) / "store", plan)


def normalized(runs, group: str, metric: str, device: str | None, ref: str, schemes, with_real: bool = False):
    """(table normalised to the ``ref`` column, ``ref``'s absolute values, long
    data with ``normalized``) of ``metric`` as traces x ``schemes``; ``with_real``
    appends the rows of group :data:`REAL_GROUP` (the real samples), if it ran."""
    t = runs.table(group, metric, device, schemes)
    need(not t.empty and ref in t.columns, f"{metric} of group {group!r}",
         f"no {metric} runs of {ref} on device {device!r} (is group {group!r} in the runs?)")
    if with_real:
        real = runs.table(REAL_GROUP, metric, device, schemes)
        if not real.empty:
            t = pd.concat([t, real.reindex(columns=t.columns)])
    norm = t.div(t[ref].where(t[ref] != 0), axis=0)
    long = t.reset_index().melt(id_vars="trace", var_name="scheme", value_name=metric)
    long["normalized"] = norm.reset_index().melt(id_vars="trace", value_name="n")["n"].to_numpy()
    return norm, t[ref], long


def bar_figure(runs, group, device, metrics, ylabels, ref, schemes, titles=None, scale=None, with_real=False):
    """One panel of bars normalised to ``ref`` per metric (reference's absolute
    value under each trace, divided by ``scale[i]`` if given); data in long form
    with columns trace, scheme, value, normalized, metric, device.  ``with_real``:
    the real samples' bars follow the traces' (:func:`normalized`)."""
    tables = [normalized(runs, group, metric, device, ref, schemes, with_real) for metric in metrics]
    fig, axes = plots.figure(ncols=1, nrows=len(metrics), width_in=8.0)
    frames = []
    for i, (metric, ylabel, (norm, absolute, long)) in enumerate(zip(metrics, ylabels, tables)):
        shown = absolute / scale[i] if scale else absolute
        plots.normalized_bars(axes[i, 0], norm, ref, shown, ylabel=ylabel, title=(titles or [""] * len(metrics))[i])
        frames.append(long.assign(metric=metric, device=device).rename(columns={metric: "value"}))
    return fig, pd.concat(frames, ignore_index=True)


def tail_cdf(hist: np.ndarray, from_q: float = 0.99) -> tuple[np.ndarray, np.ndarray]:
    """(latency ns, CDF) of the slowest ``1 - from_q`` of a latency histogram."""
    from .._core.layout import hist_bucket_bounds

    nz = np.flatnonzero(hist)
    if nz.size == 0:
        return np.zeros(0), np.zeros(0)
    _, hi = hist_bucket_bounds(nz)
    cdf = np.cumsum(hist[nz]) / hist.sum()
    keep = cdf >= from_q
    first = max(int(np.argmax(keep)) - 1, 0)
    return (hi[first:] - 1).astype(float), cdf[first:]


def tail_cdf_figure(runs, rows: pd.DataFrame, traces, schemes, fid: str):
    """One panel per trace: the CDF of the slowest 1% of I/O response times (x
    in ms) of each scheme of ``schemes``, from the kept ``hist`` of the runs
    ``rows``; data columns trace, scheme, latency_ns, cdf."""
    by_trace: dict = {}
    data = []
    for _, r in rows.iterrows():
        h = runs.artifacts(r["key"]).get("hist")
        if h is None:
            continue
        x, y = tail_cdf(np.asarray(h["io"]))
        by_trace.setdefault(r["trace"], {})[r["scheme"]] = (x / 1e6, y)
        data += [{"trace": r["trace"], "scheme": r["scheme"], "latency_ns": a, "cdf": b} for a, b in zip(x, y)]
    shown = [t for t in traces if t in by_trace]
    need(shown, fid, "no latency histograms in the 'main' runs")
    fig, axes = plots.panel_grid(len(shown))
    for ax, trace in zip(axes, shown):
        series = {s: by_trace[trace][s] for s in schemes if s in by_trace[trace]}
        plots.lines(ax, series, xlabel="response time (ms)", ylabel="CDF", title=trace, step=True)
        ax.set_ylim(0.99, 1.0005)
    axes[0].legend(fontsize=5, frameon=False)
    return fig, pd.DataFrame(data, columns=["trace", "scheme", "latency_ns", "cdf"])


def figure_main(paper: str, figures: dict, reproduce: Callable, default_out: str, fid: str, argv=None) -> None:
    """Entry point of a per-figure script under ``experiments/<paper>/``:
    ``python figNN_name.py [--quick] [--repeat N] [--jobs J] [--out DIR]``."""
    import argparse

    ap = argparse.ArgumentParser(description=f"{paper} paper, {figures[fid].title}")
    ap.add_argument("--quick", action="store_true", help="small, fast run (a few minutes)")
    ap.add_argument("--repeat", type=int, default=None, help="replays of each trace")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes")
    ap.add_argument("--out", default=default_out, help="output directory")
    a = ap.parse_args(argv)
    res = reproduce(a.out, quick=a.quick, repeat=a.repeat, jobs=a.jobs, figures=[fid])
    for p in res["figures"][fid]:
        print(p)


@dataclass(frozen=True)
class Figure:
    """A paper figure: ``fn(data)`` returns ``(matplotlib figure, data DataFrame)``;
    ``groups`` names the experiment groups it needs."""

    stem: str
    title: str
    groups: tuple
    fn: Callable

    def make(self, runs, out) -> list:
        """Draw the figure and write its PNG, PDF and CSV into ``out``; returns the paths."""
        fig, data = self.fn(runs)
        fig.suptitle(self.title, fontsize=9)
        paths = plots.save(fig, out, self.stem)
        csv = Path(out) / f"{self.stem}.csv"
        data.to_csv(csv, index=False)
        return paths + [csv]


def make_figures(figures: dict, wanted, runs, out, timings: dict, not_drawn: dict | None = None) -> dict:
    """Make every figure id of ``wanted`` found in ``figures``; its wall time (s)
    goes to ``timings[f"{id}_s"]``.  Returns ``{id: [paths]}``.  A figure whose
    data is missing (:class:`FigureDataError`) is left out, with its reason in
    ``not_drawn[id]`` when ``not_drawn`` is given, and otherwise raises."""
    written = {}
    for fid in wanted:
        if fid in figures:
            t1 = time.perf_counter()
            try:
                written[fid] = figures[fid].make(runs, out)
            except FigureDataError as e:
                if not_drawn is None:
                    raise
                not_drawn[fid] = str(e)
                for old in Path(out).glob(f"{figures[fid].stem}.*"):  # no stale drawing of an earlier run
                    old.unlink()
            timings[f"{fid}_s"] = round(time.perf_counter() - t1, 2)
    return written


def reproduce_groups(paper: str, out, plan, figures: dict, wanted, groups, run: Callable, claims: Callable,
                     write_claims: Callable, jobs: int | None = None, progress: bool = True,
                     claims_need_runs: bool = False, manifest_extra: Callable | None = None) -> dict:
    """The body of every paper's ``reproduce``: run (or resume) the sweeps the
    ``wanted`` figures need (all ``groups`` and the claims when ``wanted`` is
    None) with ``run(plan, out, groups, jobs=, progress=, timings=)``, then write
    ``runs.csv``, the figures, ``claims.{csv,md}`` (``claims(runs)`` and
    ``write_claims(table, out, plan)``, or ``write_claims(table, out, runs)``
    with ``claims_need_runs``) and ``reproduce.json`` into ``out`` (the plan,
    plus ``manifest_extra(runs)`` when given).
    Returns ``{"figures": {id: [paths]}, "claims": DataFrame or None, "timings": {...}}``."""
    from dataclasses import asdict

    with_claims = wanted is None
    wanted = list(figures) if wanted is None else list(wanted)
    unknown = [f for f in wanted if f not in figures]
    if unknown:
        raise ValueError(f"reproduce {paper}: unknown figure(s) {unknown}; expected some of {list(figures)}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    groups = [g for g in groups if with_claims or any(g in figures[f].groups for f in wanted)]
    timings: dict = {}
    t0 = time.perf_counter()
    runs = run(plan, out, groups, jobs=jobs, progress=progress, timings=timings)
    frames = [runs.frame(g) for g in groups if not runs.frame(g).empty]
    if frames:
        pd.concat(frames, ignore_index=True).to_csv(out / "runs.csv", index=False)
    not_drawn: dict = {}
    written = make_figures(figures, wanted, runs, out, timings, not_drawn)
    table = None
    if with_claims:
        table = claims(runs)
        write_claims(table, out, runs if claims_need_runs else plan)
    timings["total_s"] = round(time.perf_counter() - t0, 2)
    problems = {"figures_not_drawn": not_drawn, "failed_runs": _count_rows(out / FAILED_RUNS)}
    write_manifest(out, paper, {**asdict(plan), **(manifest_extra(runs) if manifest_extra else {})}, timings,
                   problems)
    return {"figures": written, "claims": table, "timings": timings, **problems}


def _count_rows(csv: Path) -> int:
    return len(pd.read_csv(csv)) if csv.exists() else 0


def write_manifest(out, paper: str, plan: dict, timings: dict, problems: dict | None = None) -> Path:
    """Write ``reproduce.json``: the paper, its plan, the wall times (s) and, when given, ``problems``
    (``figures_not_drawn``: id -> reason; ``failed_runs``: how many runs failed, listed in
    ``failed_runs.csv``)."""
    path = Path(out) / "reproduce.json"
    path.write_text(json.dumps({"paper": paper, "plan": plan, "timings_s": timings, **(problems or {})}, indent=1,
                               default=str))
    return path


def holds(expect: str, value: float, paper: float) -> object:
    """Whether ``value`` points the paper's way: ``lower`` (< 0), ``higher`` (> 0),
    ``parity`` (within ±PARITY_TOL_PCT), ``below`` (< the paper's bound), ``zero``;
    ``"n/a"`` without a value."""
    if value is None or not np.isfinite(value):
        return "n/a"
    return {"lower": value < 0, "higher": value > 0, "parity": abs(value) <= PARITY_TOL_PCT,
            "below": value < paper, "zero": value == 0}[expect]


def magnitude(expect: str, value: float, paper: float, holds) -> str:
    """How flashrr's value compares in size with the paper's, for a claim whose
    direction holds: ``weaker`` (< half the paper's change), ``similar`` (half to
    twice), ``stronger`` (> twice); ``opposite`` when the direction fails; ``-``
    when the claim has no size (parity, bounds, counts) or no value."""
    if holds == "n/a":
        return "-"
    if expect not in ("lower", "higher") or not np.isfinite(paper) or paper == 0:
        return "-" if holds else "opposite" if expect in ("lower", "higher") else "-"
    if not holds:
        return "opposite"
    ratio = value / paper
    return "weaker" if ratio < 0.5 else "stronger" if ratio > 2 else "similar"


def value_row(figure: str, claim: str, metric: str, aggregate: str, paper: float, value: float, unit: str,
              expected: str = "-", ok: object = None, n: int = 0, sized: bool = False,
              n_key: str = "n_traces") -> dict:
    """A claims-table row (columns :data:`CLAIM_COLUMNS`, with the count under
    ``n_key``).  ``holds`` is ``ok`` when given (a paper-specific test, such as a
    share of traces above 50%); otherwise :func:`holds` of ``expected`` (one of
    its rules), or ``"-"`` when ``expected`` is ``"-"`` (a value reported without
    a direction to check).  ``magnitude`` is :func:`magnitude` for a ``sized``
    claim (a change whose size the paper states), else ``"-"``."""
    if ok is None:
        ok = "-" if expected == "-" else holds(expected, value, paper)
    return {"figure": figure, "claim": claim, "metric": metric, "aggregate": aggregate, "paper_value": paper,
            "flashrr_value": value, "unit": unit, "expected": expected, "holds": ok,
            "magnitude": magnitude(expected, value, paper, ok) if sized else "-", n_key: n}


def change_row(figure: str, claim: str, metric: str, aggregate: str, paper: float, value: float, expect: str,
               n_traces: int, n_key: str = "n_traces") -> dict:
    """A claims-table row for a relative change in % (``holds`` and ``magnitude`` filled in)."""
    return value_row(figure, claim, metric, aggregate, paper, value, "% change", expect, n=n_traces, sized=True,
                     n_key=n_key)


def reduce_changes(changes: pd.Series, how: str = "mean") -> float:
    """Per-trace changes reduced the way the paper words the claim (``mean``, ``min``
    for "up to" a reduction, ``max``), as a float; NaN when there are none."""
    return float(getattr(changes, how)()) if len(changes) else np.nan


def format_claim_values(paper: float, value: float, unit: str) -> tuple:
    """The paper's and flashrr's value of a claim as table text: signed for a
    ``% change``, blank / ``n/a`` when missing."""
    pct = unit == "% change"
    p = "" if not np.isfinite(paper) else f"{paper:+.3g}" if pct else f"{paper:g}"
    v = "n/a" if not np.isfinite(value) else f"{value:+.2f}" if pct else f"{value:.4g}"
    return p, v


def claims_head(title: str, context, method: str) -> list:
    """The lines above a paper's claims table in ``claims.md``: ``# <title>: paper
    claims vs flashrr``, then each paragraph of ``context`` (what was run; a str, a
    list of str, or None when the plan is unknown), then ``method`` (how the values
    were computed)."""
    paragraphs = [context] if isinstance(context, str) else list(context or [])
    head = [f"# {title}: paper claims vs flashrr", ""]
    for p in paragraphs + [method]:
        head += [p, ""]
    return head


def claims_markdown(table: pd.DataFrame, head: list) -> str:
    """The claims table as Markdown under the lines ``head`` (see :func:`claims_head`),
    with a count of the claims that hold."""
    lines = ["| figure | claim | paper | flashrr | unit | aggregate | holds | magnitude |",
             "|---|---|---:|---:|---|---|---|---|"]
    for r in table.itertuples(index=False):
        paper, mine = format_claim_values(r.paper_value, r.flashrr_value, r.unit)
        lines.append(f"| {r.figure} | {r.claim} | {paper} | {mine} | {r.unit} | {r.aggregate} | {r.holds} "
                     f"| {r.magnitude} |")
    n_yes = int((table["holds"] == True).sum())  # noqa: E712  (column holds bools and "n/a")
    n_similar = int(table["magnitude"].isin(["similar", "stronger"]).sum())
    return "\n".join(list(head) + lines + ["", f"Direction holds for {n_yes} of {len(table)} claims; for "
                                           f"{n_similar} the change is at least half the paper's.", ""])


def write_claims(table: pd.DataFrame, out, markdown: str) -> list:
    """Write ``claims.csv`` and ``claims.md`` (the text ``markdown``) into ``out``."""
    out = Path(out)
    table.to_csv(out / "claims.csv", index=False)
    (out / "claims.md").write_text(markdown)
    return [out / "claims.csv", out / "claims.md"]
