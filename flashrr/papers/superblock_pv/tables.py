"""Tables I, II and V of the superblock PV paper, ours next to the paper's
(:func:`table`, written as CSV and Markdown by :func:`write_tables`), and the
paper's own numbers for a configuration (:func:`paper_values`).  Latencies in
µs per superblock, improvements in % of Random, gaps in percentage points.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...pv.calibrate import PGM_IMPROVEMENT_PCT, PGM_REDUCTION_US, RANDOM_PGM_US, TABLE_V
from .plan import Plan, Runs

TABLE1 = ("Sequential", "ERS-LTN", "PGM-LTN", "Optimal (8)", "LWL-rank (8)", "PWL-rank (8)", "STR-rank (8)",
          "STR-MED (4)")
TABLE2 = ("STR-rank (8)", "STR-rank (6)", "STR-rank (4)", "STR-rank (2)")
TABLE5 = ("Random", "Sequential", "Optimal (8)", "QSTR-MED (4)", "STR-MED (4)")
#: table id (what ``--figure`` accepts) -> (file stem, the configurations it shows)
TABLES = {"table1": ("table1_directions", TABLE1), "table2": ("table2_str_rank_window", TABLE2),
          "table5": ("table5_extra_latency", TABLE5)}


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


