"""A paper's sweeps, run into one resumable store and tidied into one frame per
experiment group (:class:`SweepRuns`), and their rows as traces x schemes tables
(:func:`pivot`, :func:`relative_change`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from .trace_specs import REAL_GROUP, real_labels

#: The list of a reproduction's failed runs, in its output directory (see :func:`run_sweeps`).
FAILED_RUNS = "failed_runs.csv"


def store_dir(out) -> Path:
    """The sweep store of a reproduction in ``out``."""
    return Path(out) / "store"


def snapshot_dir(out) -> str:
    """The snapshot directory of a reproduction in ``out``: its sweeps' (``out/store/snapshots``),
    so a paper's own runs (its load calibration) and its sweeps' runs share each aged device."""
    from ..sweep.store import SNAPSHOTS_DIR

    return str(store_dir(out) / SNAPSHOTS_DIR)


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


@dataclass
class SweepRuns:
    """The tidy results of a reproduction: ``frames[group]`` has one row per run
    (the sweep's columns plus ``group``, ``trace`` (preset name) and ``scheme``
    (display label)); ``store`` is the sweep store holding the kept events;
    ``plan`` is the paper's plan (it has ``traces``)."""

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


def tidy_rows(group: str, df: pd.DataFrame, plan, scheme_label: Callable,
              trace_label: Callable | None = None, more_specs: dict | None = None) -> pd.DataFrame:
    """A sweep's result rows with ``group``, ``trace`` (the plan's trace name of
    ``trace_source``, or ``trace_label(name)`` when given) and ``scheme``
    (``scheme_label(group, row)``) columns added.  ``more_specs`` maps the trace specs of a
    group that runs its traces otherwise than ``plan.trace_spec`` (another length, say) to
    their trace names."""
    if df.empty:
        return df
    names = list(plan.traces) + real_labels(plan)
    specs = {**{plan.trace_spec(t): t for t in names}, **(more_specs or {})}
    label = {spec: trace_label(t) if trace_label else t for spec, t in specs.items()}
    df = df.copy()
    df["group"] = group
    df["trace"] = [label.get(s, s) for s in df["trace_source"]]
    df["scheme"] = [scheme_label(group, r) for _, r in df.iterrows()]
    return df


def run_sweeps(all_specs: dict, groups, out, tidy: Callable, jobs: int | None = None, progress: bool = True,
               timings: dict | None = None, scheduler: str | None = None, snapshots: bool = True) -> dict:
    """Run (or resume) the sweep spec of every group of ``groups`` into
    ``out/store``, on ``jobs`` local processes or on the Dask cluster at
    ``scheduler`` (:func:`flashrr.sweep.run_sweeps`: the groups' runs on one set of
    workers, with no wait between groups; ``snapshots``: runs on one aged device
    restore it from ``out/store/snapshots``); returns ``{group: tidy(group,
    result rows)}``; the wall time (s) of all of them goes to ``timings["sweeps_s"]``, and the worker time
    of each group's runs (the sum of their ``call_wall_s``, s; a run two groups share counts in both, a run
    stored by an earlier call with that call's time) to ``timings[f"runs_{group}_s"]``.

    A run that fails (the engine raised, or its result could not be stored) does
    not stop the reproduction: its group keeps the runs that finished, and
    ``out/FAILED_RUNS`` (``failed_runs.csv``: group, trace, policy, device, seed
    and the error) lists every failed run, so the figures and claims that need
    it say what they lack.  The file is removed when no run failed."""
    from ..sweep import run_sweeps as run_together

    store = store_dir(out)
    wanted = [g for g in groups if g in all_specs]  # a group the plan has nothing to run in has no spec
    t0 = time.perf_counter()
    outcomes = run_together([all_specs[g] for g in wanted], store, jobs=jobs, scheduler=scheduler,
                            progress=progress, snapshots=snapshots) if wanted else []
    frames, failed = {}, []
    for g, outcome in zip(wanted, outcomes):
        if len(outcome.failures):
            failed.append(outcome.failures.assign(group=g))
        frames[g] = tidy(g, outcome.results)
        if timings is not None and "call_wall_s" in outcome.results.columns:
            timings[f"runs_{g}_s"] = round(float(outcome.results["call_wall_s"].sum()), 2)
    if timings is not None and wanted:
        timings["sweeps_s"] = round(time.perf_counter() - t0, 2)
    path = Path(out) / FAILED_RUNS
    if failed:
        cols = ["group", "trace_source", "policy_name", "device", "seed", "error"]
        table = pd.concat(failed, ignore_index=True)
        table[[c for c in cols if c in table.columns]].to_csv(path, index=False)
    else:
        path.unlink(missing_ok=True)
    return frames


def run_plan(runs_cls: type, all_specs: dict, tidy: Callable, plan, out, groups, jobs: int | None = None,
             progress: bool = True, timings: dict | None = None, scheduler: str | None = None,
             snapshots: bool = True):
    """Run (or resume) the sweeps of ``groups`` into ``out/store`` (:func:`run_sweeps`) and return
    ``runs_cls(frames, store, plan)``; ``tidy(group, rows, plan)`` labels the rows."""
    frames = run_sweeps(all_specs, groups, out, lambda g, df: tidy(g, df, plan), jobs, progress, timings,
                        scheduler, snapshots)
    return runs_cls(frames, store_dir(out), plan)
