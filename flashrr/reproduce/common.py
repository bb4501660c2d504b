"""Pieces every paper reproduction shares: a figure that writes its PNG, PDF
and CSV, and the claims table (does flashrr's value point the paper's way, and
how large is it next to the paper's).

Claims tables have the columns :data:`CLAIM_COLUMNS`; ``holds`` comes from
:func:`holds` and ``magnitude`` from :func:`magnitude`.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from . import plots

PARITY_TOL_PCT = 1.0
CLAIM_COLUMNS = ["figure", "claim", "metric", "aggregate", "paper_value", "flashrr_value", "unit", "expected",
                 "holds", "magnitude", "n_traces"]


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


def run_groups(all_specs: dict, tidy: Callable, plan, out, groups, jobs: int | None = None,
               progress: bool = True, timings: dict | None = None) -> dict:
    """Run (or resume) the sweep ``all_specs[g]`` of every group ``g`` into ``out/store``;
    returns ``{group: tidy(group, rows, plan)}`` and puts each group's wall time (s) in
    ``timings[f"sweep_{g}_s"]``."""
    from ..sweep import sweep

    store = Path(out) / "store"
    frames = {}
    for g in groups:
        t0 = time.perf_counter()
        frames[g] = tidy(g, sweep(all_specs[g], store, jobs=jobs, progress=progress), plan)
        if timings is not None:
            timings[f"sweep_{g}_s"] = round(time.perf_counter() - t0, 2)
    return frames


def figure_cli(paper: str, fid: str, figures: dict, reproduce: Callable, argv=None,
               repeat_help: str = "replays of each trace") -> None:
    """The command line of a per-figure script: ``[--quick] [--repeat N] [--jobs J] [--out DIR]``;
    runs ``reproduce(out, ..., figures=[fid])`` and prints the files written."""
    import argparse

    ap = argparse.ArgumentParser(description=f"{paper.capitalize()} paper, {figures[fid].title}")
    ap.add_argument("--quick", action="store_true", help="small, fast run (a few minutes)")
    ap.add_argument("--repeat", type=int, default=None, help=repeat_help)
    ap.add_argument("--jobs", type=int, default=None, help="worker processes")
    ap.add_argument("--out", default=f"out/reproduce-{paper}", help="output directory")
    a = ap.parse_args(argv)
    res = reproduce(a.out, quick=a.quick, repeat=a.repeat, jobs=a.jobs, figures=[fid])
    for p in res["figures"][fid]:
        print(p)


def make_figures(figures: dict, wanted, runs, out, timings: dict) -> dict:
    """Make every figure id of ``wanted`` found in ``figures``; its wall time (s)
    goes to ``timings[f"{id}_s"]``.  Returns ``{id: [paths]}``."""
    written = {}
    for fid in wanted:
        if fid in figures:
            t1 = time.perf_counter()
            written[fid] = figures[fid].make(runs, out)
            timings[f"{fid}_s"] = round(time.perf_counter() - t1, 2)
    return written


def write_manifest(out, paper: str, plan: dict, timings: dict) -> Path:
    """Write ``reproduce.json``: the paper, its plan and the wall times (s)."""
    path = Path(out) / "reproduce.json"
    path.write_text(json.dumps({"paper": paper, "plan": plan, "timings_s": timings}, indent=1, default=str))
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


def claims_markdown(table: pd.DataFrame, head: list) -> str:
    """The claims table as Markdown under the lines ``head``, with a count of the claims that hold."""
    lines = ["| figure | claim | paper | flashrr | unit | aggregate | holds | magnitude |",
             "|---|---|---:|---:|---|---|---|---|"]
    for r in table.itertuples(index=False):
        paper = "" if not np.isfinite(r.paper_value) else f"{r.paper_value:+.3g}" if r.unit == "% change" \
            else f"{r.paper_value:g}"
        mine = "n/a" if not np.isfinite(r.flashrr_value) else f"{r.flashrr_value:+.2f}" if r.unit == "% change" \
            else f"{r.flashrr_value:.4g}"
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
