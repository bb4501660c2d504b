"""Reproduce the superblock process-variation paper (Tseng et al., "Are
Superpages Super-fast?"): Tables I, II and V and Figs. 6, 12-15.

The paper measured 24 dies (4 planes, 400 superblocks per die) at P/E points
0 to 3,000 in steps of 200.  We run every assembly configuration of
:data:`flashrr.pv.calibrate.CONFIGS` on the calibrated PV model with the same
shape, re-assembling at every P/E point, and pool all superblocks.
:func:`reproduce` writes into ``out``:

* ``table1_directions``, ``table2_str_rank_window``, ``table5_extra_latency``
  (``.csv`` and ``.md``, ours next to the paper's), ``overheads.csv`` (checks,
  metadata, wall time of every configuration);
* ``figNN_<name>.{png,pdf,csv}`` for Figs. 6, 12, 13, 14 and 15;
* ``claims.csv`` / ``claims.md`` and ``reproduce.json`` (plan, wall times in s).

``--quick`` uses 4 dies and the P/E points 0, 1,500 and 3,000 (seconds).
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ..pv.calibrate import (CONFIG_BY_LABEL, CONFIGS, PGM_IMPROVEMENT_PCT, PGM_REDUCTION_US, RANDOM_PGM_US,
                            TABLE_V, improvements)
from ..pv.evaluate import PAPER_PE_POINTS, evaluate_on
from ..pv.model import PVModel, PVParams

TABLE1 = ("Sequential", "ERS-LTN", "PGM-LTN", "Optimal (8)", "LWL-rank (8)", "PWL-rank (8)", "STR-rank (8)",
          "STR-MED (4)")
TABLE2 = ("STR-rank (8)", "STR-rank (6)", "STR-rank (4)", "STR-rank (2)")
TABLE5 = ("Random", "Sequential", "Optimal (8)", "QSTR-MED (4)", "STR-MED (4)")
# No traces: ``flashrr reproduce all --repeat N`` does not pass ``repeat`` here.
HAS_TRACES = False
TABLES = {"table1": ("table1_directions", TABLE1), "table2": ("table2_str_rank_window", TABLE2),
          "table5": ("table5_extra_latency", TABLE5)}


@dataclass(frozen=True)
class Plan:
    """What to run: ``dies`` modelled dies of ``planes`` x ``blocks``, drawn with
    ``seed``, at every P/E point of ``pe_points``; ``params`` = model parameters
    (None = the calibrated defaults)."""

    dies: int = 24
    planes: int = 4
    blocks: int = 400
    seed: int = 2024
    pe_points: tuple = PAPER_PE_POINTS
    params: PVParams | None = None
    quick: bool = False

    @classmethod
    def make(cls, quick: bool = False, **changes) -> "Plan":
        plan = replace(cls(), dies=4, pe_points=(0, 1500, 3000), quick=True) if quick else cls()
        return replace(plan, **changes) if changes else plan


@dataclass
class Runs:
    """``results[label]``: :func:`flashrr.pv.evaluate.evaluate_on` of that
    configuration, pooled over the plan's dies and P/E points."""

    plan: Plan
    results: dict = field(default_factory=dict)

    def per_sb(self, label: str) -> pd.DataFrame:
        r = self.results[label]["per_sb"]
        return pd.DataFrame(r).assign(label=label)

    def improvements(self) -> pd.DataFrame:
        return improvements(self.results)


def run(plan: Plan, labels=None, timings: dict | None = None) -> Runs:
    """Evaluate the configurations ``labels`` (default: all; Random always) on the plan's model."""
    labels = list(dict.fromkeys(["Random"] + list(labels or CONFIG_BY_LABEL)))
    unknown = [x for x in labels if x not in CONFIG_BY_LABEL]
    if unknown:
        raise ValueError(f"reproduce superblock-pv: unknown configuration(s) {unknown}")
    model = PVModel(plan.params, dies=plan.dies, planes=plan.planes, blocks=plan.blocks, seed=plan.seed)
    t0 = time.perf_counter()
    lats = [model.latencies(int(pe)) for pe in plan.pe_points]
    if timings is not None:
        timings["model_s"] = round(time.perf_counter() - t0, 2)
    runs = Runs(plan)
    for c in CONFIGS:
        if c.label in labels:
            t1 = time.perf_counter()
            runs.results[c.label] = evaluate_on(c.method, lats, seed=plan.seed, **c.kwargs)
            if timings is not None:
                timings[f"{c.method}{dict(c.params).get('window', '')}_s"] = round(time.perf_counter() - t1, 2)
    return runs


# --------------------------------------------------------------------------------- tables
def paper_values(label: str) -> dict:
    """The paper's numbers for a configuration (NaN where it gives none)."""
    pgm = TABLE_V[label][0] if label in TABLE_V else (
        RANDOM_PGM_US - PGM_REDUCTION_US[label] if label in PGM_REDUCTION_US else np.nan)
    ers = TABLE_V[label][1] if label in TABLE_V else np.nan
    red = PGM_REDUCTION_US.get(label, RANDOM_PGM_US - pgm if label != "Random" else 0.0)
    imp = PGM_IMPROVEMENT_PCT.get(label, 0.0 if label == "Random" else np.nan)
    return {"paper_extra_pgm_us": pgm, "paper_extra_ers_us": ers, "paper_pgm_reduction_us": red,
            "paper_pgm_improvement_pct": imp}


def table(runs: Runs, labels) -> pd.DataFrame:
    """Ours next to the paper's for ``labels``: extra latencies (µs), reduction vs
    Random (µs), improvements (%) and the gap (percentage points)."""
    imp = runs.improvements().set_index("label")
    rows = []
    for label in labels:
        if label not in imp.index:
            continue
        r, p = imp.loc[label], paper_values(label)
        rand_ers = TABLE_V["Random"][1]
        rows.append({"method": label, "paper_extra_pgm_us": p["paper_extra_pgm_us"], "extra_pgm_us": r.extra_pgm_us,
                     "paper_pgm_reduction_us": p["paper_pgm_reduction_us"], "pgm_reduction_us": r.pgm_reduction_us,
                     "paper_pgm_improvement_pct": p["paper_pgm_improvement_pct"],
                     "pgm_improvement_pct": r.pgm_improvement_pct,
                     "pgm_gap_pp": r.pgm_improvement_pct - p["paper_pgm_improvement_pct"],
                     "paper_extra_ers_us": p["paper_extra_ers_us"], "extra_ers_us": r.extra_ers_us,
                     "paper_ers_improvement_pct": 100 * (1 - p["paper_extra_ers_us"] / rand_ers),
                     "ers_improvement_pct": r.ers_improvement_pct})
    t = pd.DataFrame(rows)
    if len(t):
        t["ers_gap_pp"] = t["ers_improvement_pct"] - t["paper_ers_improvement_pct"]
    return t


def _fmt(v, nd=2):
    return "–" if v is None or not np.isfinite(v) else f"{v:,.{nd}f}"


def table_markdown(name: str, t: pd.DataFrame, plan: Plan) -> str:
    titles = {"table1": "Table I: the eight directions (improvement over Random)",
              "table2": "Table II: STR-rank with different window sizes",
              "table5": "Table V: extra program and erase latency per superblock"}
    head = [f"# {titles[name]}", "",
            f"Model: {plan.dies} dies x {plan.planes} planes x {plan.blocks} blocks, seed {plan.seed}, "
            f"P/E points {list(plan.pe_points)}; all superblocks pooled. µs per superblock; "
            "improvement = 1 - method / Random; gap = ours - paper (percentage points).", ""]
    if name == "table5":
        lines = ["| method | extra PGM paper | extra PGM ours | PGM imp. paper | PGM imp. ours | extra ERS paper "
                 "| extra ERS ours | ERS imp. paper | ERS imp. ours |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in t.itertuples(index=False):
            lines.append(f"| {r.method} | {_fmt(r.paper_extra_pgm_us)} | {_fmt(r.extra_pgm_us)} | "
                         f"{_fmt(r.paper_pgm_improvement_pct)}% | {_fmt(r.pgm_improvement_pct)}% | "
                         f"{_fmt(r.paper_extra_ers_us)} | {_fmt(r.extra_ers_us)} | "
                         f"{_fmt(r.paper_ers_improvement_pct)}% | {_fmt(r.ers_improvement_pct)}% |")
    else:
        lines = ["| method | PGM LTN reduction paper | ours | imp. paper | imp. ours | gap (pp) | ERS imp. ours |",
                 "|---|---:|---:|---:|---:|---:|---:|"]
        for r in t.itertuples(index=False):
            lines.append(f"| {r.method} | {_fmt(r.paper_pgm_reduction_us)} | {_fmt(r.pgm_reduction_us)} | "
                         f"{_fmt(r.paper_pgm_improvement_pct)}% | {_fmt(r.pgm_improvement_pct)}% | "
                         f"{r.pgm_gap_pp:+.2f} | {_fmt(r.ers_improvement_pct)}% |")
    return "\n".join(head + lines + [""])


def write_tables(runs: Runs, out, names=tuple(TABLES)) -> dict:
    out = Path(out)
    written = {}
    for name in names:
        stem, labels = TABLES[name]
        t = table(runs, labels)
        t.to_csv(out / f"{stem}.csv", index=False)
        (out / f"{stem}.md").write_text(table_markdown(name, t, runs.plan))
        written[name] = [out / f"{stem}.csv", out / f"{stem}.md"]
    return written


def overheads(runs: Runs) -> pd.DataFrame:
    """Checks (actual, nominal), metadata bytes per block and wall time of every configuration."""
    cols = ["label", "method", "checks_per_sb", "checks_nominal_per_sb", "metadata_bytes_per_block", "wall_s",
            "wall_per_sb_us"]
    return runs.improvements()[cols]


# ------------------------------------------------------------------------------ reproduce
def reproduce(out, quick: bool = False, figures=None, plan: Plan | None = None, repeat=None, jobs=None,
              progress: bool = True, trace_params=(), device_overrides=(), **_ignored) -> dict:
    """Run the evaluation and write the tables, figures and claims into ``out``.
    ``figures``: a subset of the ids of
    :data:`~flashrr.reproduce.superblock_pv_figures.FIGURES` and ``table1``,
    ``table2``, ``table5`` (default: everything, with claims).  ``repeat``,
    ``trace_params`` and ``device_overrides`` do not apply (no traces): giving
    one is an error.  Returns ``{"figures": {id: [paths]}, "claims": DataFrame
    or None, "timings": {...}}``."""
    from .common import make_figures, write_manifest
    from .superblock_pv_claims import claims, write_claims
    from .superblock_pv_figures import FIGURES

    if repeat is not None or trace_params or device_overrides:
        raise ValueError("reproduce superblock-pv: --repeat, --trace-param and --device-param do not apply "
                         "(this paper has no traces)")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    plan = plan or Plan.make(quick=quick)
    known = list(FIGURES) + list(TABLES)
    wanted = known if figures is None else list(figures)
    unknown = [f for f in wanted if f not in known]
    if unknown:
        raise ValueError(f"reproduce superblock-pv: unknown figure(s) {unknown}; expected some of {known}")
    with_claims = figures is None
    labels = None if with_claims or any(f in TABLES for f in wanted) else \
        sorted({g for f in wanted for g in FIGURES[f].groups})
    timings: dict = {}
    t0 = time.perf_counter()
    runs = run(plan, labels, timings)
    written = write_tables(runs, out, [f for f in wanted if f in TABLES])
    if with_claims:
        overheads(runs).to_csv(out / "overheads.csv", index=False)
    written.update(make_figures(FIGURES, wanted, runs, out, timings))
    table_ = None
    if with_claims:
        table_ = claims(runs)
        write_claims(table_, out, runs)
    timings["total_s"] = round(time.perf_counter() - t0, 2)
    write_manifest(out, "superblock-pv", {**asdict(plan), "params": (plan.params or PVParams()).to_dict()}, timings)
    return {"figures": written, "claims": table_, "timings": timings}


def figure_main(fid: str, argv=None) -> None:
    """Entry point of the scripts in ``experiments/superblock_pv/``:
    ``python <script>.py [--quick] [--dies N] [--seed S] [--out DIR]``."""
    import argparse

    ap = argparse.ArgumentParser(description=f"Superblock PV paper: {fid}")
    ap.add_argument("--quick", action="store_true", help="4 dies, 3 P/E points (seconds)")
    ap.add_argument("--dies", type=int, default=None, help="modelled dies (paper: 24)")
    ap.add_argument("--seed", type=int, default=None, help="model seed")
    ap.add_argument("--out", default="out/reproduce-superblock-pv", help="output directory")
    a = ap.parse_args(argv)
    changes = {k: v for k, v in (("dies", a.dies), ("seed", a.seed)) if v is not None}
    res = reproduce(a.out, plan=Plan.make(quick=a.quick, **changes), figures=[fid])
    for p in res["figures"][fid]:
        print(p)
