"""A reproduction's regime, reported: which traces ran outside the paper's regime, the
table of its Baselines, and its headline claims at each occupancy.

:func:`regime_report` reads a paper's tidy runs (its plan has a
:class:`~flashrr.reproduce.regime.Regime`) and returns a :class:`RegimeReport`; the runner
keeps the flagged traces out of the claims (:meth:`RegimeReport.claims_runs`), adds the
flag columns to ``claims.csv``, writes ``regime.csv`` and ``occupancy.csv``, and puts both
tables under the claims in ``claims.md``.

A plan with a regime gives ``traces``, ``regime``, ``replays_of(trace)`` and
``rr_target(trace)``; it may give ``paper_regime()`` (``{trace: {"rr_count": .., "rr_per_m_reads": ..,
"read_latency_us": ..}}``, the paper's own figures) and ``headline_claims()`` (tuples
``(claim, metric, scheme, ref, paper %)`` the occupancy group reports).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .regime import claims_runs, flag_columns, flag_traces, regime_markdown, regime_table
from .sweep_runs import FAILED_RUNS, relative_change

BASELINE = "Baseline"
OCCUPANCY_GROUP = "occupancy"
OCCUPANCY_COLUMNS = ["occupancy", "claim", "metric", "paper_value", "flashrr_value", "n_traces", "per_trace"]


@dataclass
class RegimeReport:
    """``flags``: ``{trace label: reason}``; ``table``: the regime table
    (:func:`~flashrr.reproduce.regime.regime_table`); ``occupancy``: the headline claims per
    occupancy (columns :data:`OCCUPANCY_COLUMNS`; empty without an occupancy group)."""

    flags: dict
    table: pd.DataFrame
    occupancy: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=OCCUPANCY_COLUMNS))

    def claims_runs(self, runs):
        return claims_runs(runs, self.flags)

    def mark(self, claims: pd.DataFrame) -> pd.DataFrame:
        return flag_columns(claims, self.flags)

    def write(self, out) -> list:
        out = Path(out)
        self.table.to_csv(out / "regime.csv", index=False)
        paths = [out / "regime.csv"]
        if len(self.occupancy):
            self.occupancy.to_csv(out / "occupancy.csv", index=False)
            paths.append(out / "occupancy.csv")
        else:
            (out / "occupancy.csv").unlink(missing_ok=True)
        return paths

    def markdown(self) -> str:
        """The regime table, the flags and the occupancy table, as ``claims.md`` sections."""
        lines = ["## Regime: Baseline on each trace", "",
                 "replays: the calibrated length; occupancy: share of the logical space filled before the replay; "
                 "rr_per_m_reads: RRs per million read requests (after RAF and replays); "
                 "busiest_die_busy: share of the run the busiest die is busy; flag: why a trace is kept out of the "
                 "claims.", "", regime_markdown(self.table), ""]
        if self.flags:
            lines += [f"{len(self.flags)} trace(s) kept out of the claims: "
                      + "; ".join(f"{t} ({r})" for t, r in self.flags.items()) + ".", ""]
        if len(self.occupancy):
            lines += ["## Headline claims at each occupancy", "",
                      "| occupancy | claim | paper | flashrr | traces | per trace |", "|---:|---|---:|---:|---:|---|"]
            for r in self.occupancy.itertuples(index=False):
                v = "n/a" if not math.isfinite(r.flashrr_value) else f"{r.flashrr_value:+.2f}"
                lines.append(f"| {r.occupancy:g} | {r.claim} | {r.paper_value:+.3g} | {v} | {r.n_traces} "
                             f"| {r.per_trace} |")
            lines.append("")
        return "\n".join(lines)


def failed_traces(out, label_of: dict, group: str = "main") -> set:
    """The labels of the traces with a failed run in ``group`` (from ``OUT/failed_runs.csv``;
    ``label_of``: trace spec -> label)."""
    path = Path(out) / FAILED_RUNS
    if not path.exists():
        return set()
    df = pd.read_csv(path)
    if "group" in df.columns:
        df = df[df["group"] == group]
    return {label_of[s] for s in df.get("trace_source", []) if s in label_of}


def occupancy_claims(frame: pd.DataFrame, headline, labels) -> pd.DataFrame:
    """Each headline claim ``(claim, metric, scheme, ref, paper %)`` at each occupancy of the
    occupancy group's tidy rows ``frame`` (devices named ``NAME@OCC``): the mean over
    ``labels`` of the per-trace change ``scheme / ref - 1`` in %."""
    rows = []
    if frame.empty or not headline:
        return pd.DataFrame(rows, columns=OCCUPANCY_COLUMNS)
    occ = frame["device"].astype(str).str.rsplit("@", n=1).str[-1].astype(float)
    for value in sorted(set(occ)):
        sub = frame[occ == value]
        for claim, metric, scheme, ref, paper in headline:
            rel = relative_change(sub, metric, labels, scheme, ref)
            rows.append({"occupancy": value, "claim": claim, "metric": metric, "paper_value": paper,
                         "flashrr_value": float(rel.mean()) if len(rel) else math.nan, "n_traces": len(rel),
                         "per_trace": "; ".join(f"{t} {v:+.1f}" for t, v in rel.items())})
    return pd.DataFrame(rows, columns=OCCUPANCY_COLUMNS)


def regime_report(runs, out) -> RegimeReport | None:
    """The regime report of a reproduction's ``runs`` (None when its plan has no regime)."""
    plan = runs.plan
    regime = getattr(plan, "regime", None)
    if regime is None:
        return None
    names = list(zip(plan.traces, runs.row_names()))
    main = runs.frame("main")
    base = main[main["scheme"] == BASELINE] if not main.empty else main
    label_of = {src: lab for df in runs.frames.values() if not df.empty
                for src, lab in zip(df["trace_source"], df["trace"])}  # a trace none of whose runs ended is unlabelled
    failed = failed_traces(out, label_of)  # and flagged for its missing Baseline
    flags = flag_traces(base, names, regime, failed)
    paper = plan.paper_regime() if hasattr(plan, "paper_regime") else {}
    table = regime_table(base, names, {t: plan.rr_target(t) for t, _ in names},
                         {t: plan.replays_of(t) for t, _ in names}, flags, paper)
    headline = plan.headline_claims() if hasattr(plan, "headline_claims") else ()
    occ = occupancy_claims(runs.frame(OCCUPANCY_GROUP), headline, [lab for _, lab in names])
    return RegimeReport(flags, table, occ)
