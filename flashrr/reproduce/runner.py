"""Turn a :class:`~flashrr.reproduce.paper.Paper` into its outputs: :func:`reproduce`.

For a paper with sweeps it runs (or resumes) the sweeps the wanted figures need
into ``OUT/store``, then writes into ``OUT``: ``runs.csv`` (one row per run), the
figures (``<stem>.{png,pdf,csv}``), ``claims.csv`` and ``claims.md`` (a full run
only; each claim names its overloaded runs) and ``reproduce.json`` (the plan, the wall time of every step in s, the
figures that could not be drawn and the count of failed runs).  A paper without
sweeps runs its own function (``Paper.reproduce``).
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from . import overload
from .claims import write_claims
from .figures import make_figures
from .paper import Paper, check_scale
from .regime_report import regime_report
from .sweep_runs import FAILED_RUNS
from ..sweep.driver import check_workers


def reproduce(paper: Paper, out, quick: bool = False, repeat: int | None = None, jobs: int | None = None,
              progress: bool = True, figures=None, plan=None, trace_params=(), device_overrides=(),
              workload: str = "model", paper_scale: bool = False, scheduler: str | None = None,
              snapshots: bool = True) -> dict:
    """Make ``paper``'s outputs in ``out``: the figures of ``figures`` (ids of
    ``paper.output_ids``), or every figure and the claims table when ``figures`` is
    None.  ``plan`` replaces the plan of the options (``quick``, ``paper_scale``,
    ``repeat``, ``trace_params``, ``device_overrides``, ``workload``: see
    :meth:`~flashrr.reproduce.paper.Paper.plan_from_options`).  The sweeps run on
    ``jobs`` local processes or on the Dask cluster whose scheduler is at ``scheduler``
    (``tcp://HOST:PORT``; not both), and so does the work of a paper without sweeps.  With
    ``snapshots``, runs that start from the same aged device restore it from one snapshot in
    ``out/store/snapshots`` (:mod:`flashrr.snapshots`; the same results).
    Returns ``{"figures": {id: [paths]}, "claims": DataFrame or None, "timings": {step: s}}``
    and, for a paper with sweeps, ``figures_not_drawn`` (id -> reason) and ``failed_runs``."""
    paper.check_options(repeat, trace_params, device_overrides)
    check_scale(quick, paper_scale)
    check_workers(jobs, scheduler, f"reproduce {paper.name}")
    if figures is not None:
        unknown = [f for f in figures if f not in paper.output_ids]
        if unknown:
            raise ValueError(f"reproduce {paper.name}: unknown figure(s) {unknown}; "
                             f"expected some of {paper.output_ids}")
    if plan is None:
        plan = paper.plan_from_options(quick, repeat, trace_params, device_overrides, workload, paper_scale)
    if paper.reproduce is not None:
        return paper.reproduce(paper, plan, Path(out), None if figures is None else list(figures), jobs=jobs,
                               scheduler=scheduler)
    return reproduce_sweeps(paper, plan, Path(out), figures, jobs, progress, scheduler, snapshots)


def reproduce_sweeps(paper: Paper, plan, out: Path, figures, jobs: int | None, progress: bool,
                     scheduler: str | None = None, snapshots: bool = True) -> dict:
    """The body of :func:`reproduce` for a paper with sweeps: run (or resume) the
    groups the ``figures`` need (all of them and the claims when ``figures`` is None)
    with ``paper.run`` (on ``jobs`` local processes or the Dask ``scheduler``), then
    write ``runs.csv``, the figures, the claims and the manifest."""
    with_claims = figures is None
    wanted = list(paper.figures) if with_claims else list(figures)
    out.mkdir(parents=True, exist_ok=True)
    groups = [g for g in paper.groups if with_claims or any(g in paper.figures[f].groups for f in wanted)]
    timings: dict = {}
    t0 = time.perf_counter()
    runs = paper.run(plan, out, groups, jobs=jobs, progress=progress, timings=timings, scheduler=scheduler,
                     snapshots=snapshots)
    frames = [runs.frame(g) for g in groups if not runs.frame(g).empty]
    if frames:
        pd.concat(frames, ignore_index=True).to_csv(out / "runs.csv", index=False)
    not_drawn: dict = {}
    written = make_figures(paper.figures, wanted, runs, out, timings, not_drawn)
    table = write_paper_claims(paper, runs, out, regime_report(runs, out)) if with_claims else None
    timings["total_s"] = round(time.perf_counter() - t0, 2)
    problems = {"figures_not_drawn": not_drawn, "failed_runs": _count_rows(out / FAILED_RUNS)}
    write_manifest(out, paper.name, {**asdict(plan), **(paper.manifest(runs) if paper.manifest else {})}, timings,
                   problems)
    return {"figures": written, "claims": table, "timings": timings, **problems}


def write_paper_claims(paper: Paper, runs, out, regime=None) -> pd.DataFrame:
    """Compute ``paper``'s claims table from ``runs`` and write ``claims.csv`` and ``claims.md`` into ``out``;
    the table names each claim's overloaded runs (:func:`~flashrr.reproduce.overload.mark_claims`).  With
    a :class:`~flashrr.reproduce.regime_report.RegimeReport`, the traces it flags are kept out of the claims
    (``n_flagged`` and ``flagged`` say which), and its tables go to ``regime.csv``, ``occupancy.csv`` and
    under the claims in ``claims.md``."""
    kept = regime.claims_runs(runs) if regime is not None else runs
    table = paper.claims(kept)
    if getattr(kept, "frames", None) is not None:
        table = overload.mark_claims(table, overload.overloaded_runs(kept.frames),
                                     {fid: f.groups for fid, f in paper.figures.items()})
    markdown = paper.claims_markdown(table, kept)
    if regime is not None:
        table = regime.mark(table)
        regime.write(out)
        markdown = markdown.rstrip("\n") + "\n\n" + regime.markdown()
    write_claims(table, out, markdown)
    return table


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
