"""The superblock PV paper's own run function (it has no sweeps): evaluate the
assembly configurations on the PV model, then write the tables, figures, claims
and manifest (:func:`reproduce`)."""
from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path

from ...pv.model import PVParams
from ...reproduce.figures import make_figures
from ...reproduce.runner import write_manifest, write_paper_claims
from .plan import run
from .tables import TABLES, overheads, write_tables


def reproduce(paper, plan, out: Path, figures=None, jobs: int | None = 1, scheduler: str | None = None) -> dict:
    """Evaluate what ``figures`` need (ids of ``paper.figures`` and the tables of
    :data:`~flashrr.papers.superblock_pv.tables.TABLES`; None: everything, with
    ``overheads.csv`` and the claims), one configuration per call on ``jobs`` processes
    or the Dask cluster at ``scheduler`` (:func:`~flashrr.papers.superblock_pv.plan.run`),
    and write it into ``out``.
    Returns ``{"figures": {id: [paths]}, "claims": DataFrame or None, "timings": {step: s}}``."""
    out.mkdir(parents=True, exist_ok=True)
    with_claims = figures is None
    wanted = paper.output_ids if with_claims else list(figures)
    labels = None if with_claims or any(f in TABLES for f in wanted) else \
        sorted({g for f in wanted for g in paper.figures[f].groups})
    timings: dict = {}
    t0 = time.perf_counter()
    runs = run(plan, labels, timings, jobs, scheduler)
    written = write_tables(runs, out, [f for f in wanted if f in TABLES])
    if with_claims:
        overheads(runs).to_csv(out / "overheads.csv", index=False)
    written.update(make_figures(paper.figures, wanted, runs, out, timings))
    table = write_paper_claims(paper, runs, out) if with_claims else None
    timings["total_s"] = round(time.perf_counter() - t0, 2)
    write_manifest(out, paper.name, {**asdict(plan), "params": (plan.params or PVParams()).to_dict()}, timings)
    return {"figures": written, "claims": table, "timings": timings}
