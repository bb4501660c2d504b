"""The regime a paper's reproduction runs in: how its traces meet its device.

A paper's Baseline sets the regime in which its scheme is judged: a scheme's change on
an overloaded device, a device stuck in GC or a trace that never reclaims measures the
regime, not the scheme.  :class:`Regime` states the three settings that decide it, each
taken from the paper or from the simulator it used (each paper's ``plan`` module cites
them):

* **placement**: ``"pack"`` places a trace on its own footprint (the pipeline's
  ``pack=stripe``: the touched placement stripes renumbered from 0, each page keeping
  its component block, as a trace-driven simulator that writes only the touched pages
  places it); ``"fold"`` folds its addresses over the device (``fold=modulo``), for a
  trace larger than the device;
* **occupancy**: the share of the logical space preconditioning fills
  (``precondition.fill_ratio``): the packed trace's pages first, then cold pages up to
  the share; 0 fills the trace's footprint alone.  ``occupancies`` are the shares a
  paper's occupancy group runs its headline claims at, to show how much they lean on it;
* **length**: each trace is replayed the smallest number of times that brings Baseline
  to ``rr_target(trace)`` RRs: the count the paper states for the trace, or a floor
  where the paper only says the trace reclaims (:func:`replays_for_rr`, calibrated on
  Baseline alone, never on a scheme).

:func:`regime_table` is each paper's table of its Baselines beside the paper's figures,
and :func:`flag_traces` names the traces whose Baseline ran outside the paper's regime
(a failed run, a busiest die busy more than :data:`BUSY_LIMIT` of the run, no RR where
the paper has RR); their runs are kept out of the claims (:func:`claims_runs`).
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..regime_warning import BUSY_LIMIT

PLACEMENTS = ("pack", "fold")
#: the occupancy group's shares of the logical space
OCCUPANCIES = (0.5, 0.75, 0.9, 1.0)
#: the flags of :func:`flag_traces`
FLAG_FAILED, FLAG_OVERLOADED, FLAG_NO_RR = "run failed", "Baseline overloaded", "no RR where the paper has RR"


@dataclass(frozen=True)
class Regime:
    """How a paper's traces meet its device (see the module docstring).

    ``placement``: one of :data:`PLACEMENTS`; ``pack_unit``: what a packed trace keeps
    together (the pipeline's ``pack`` value: ``"stripe"``, ``"page"`` or a number of pages);
    ``occupancy``: share of the logical space
    filled before the replay (0: the trace's footprint only); ``warmup``: random page
    writes after the fill, as a share of the filled pages
    (``precondition.warmup_random_writes_ratio``); ``rr_floor``: Baseline RRs a trace the
    paper says reclaims must reach (0: no length calibration); ``rr_targets``: ``(trace,
    RRs)`` where the paper states a count (on the plan's device); ``no_rr``: traces the
    paper says do not reclaim (never lengthened, never flagged for it); ``max_replays``:
    the calibration's cap on replays; ``occupancies``: the occupancy group's shares."""

    placement: str = "pack"
    pack_unit: object = "stripe"
    occupancy: float = 0.0
    warmup: float = 0.0
    rr_floor: int = 0
    rr_targets: tuple = ()
    no_rr: tuple = ()
    max_replays: int = 256
    occupancies: tuple = OCCUPANCIES

    def __post_init__(self):
        if self.placement not in PLACEMENTS:
            raise ValueError(f"regime placement: expected one of {PLACEMENTS}, got {self.placement!r}")
        if not 0.0 <= self.occupancy <= 1.0:
            raise ValueError(f"regime occupancy: expected a share of the logical space in [0, 1], got "
                             f"{self.occupancy!r}")
        if self.max_replays < 1:
            raise ValueError(f"regime max_replays: expected a positive number of replays, got {self.max_replays!r}")

    def pipeline(self) -> dict:
        """The trace pipeline keys of the placement."""
        return {"pack": self.pack_unit} if self.placement == "pack" else {"fold": "modulo"}

    def device_fields(self, occupancy: float | None = None) -> dict:
        """The device fields of the occupancy (``occupancy`` overrides the regime's) and warm-up."""
        return {"fill_ratio": float(self.occupancy if occupancy is None else occupancy),
                "warmup_random_writes_ratio": float(self.warmup)}

    def rr_target(self, trace: str) -> int:
        """Baseline RRs ``trace`` must reach: the paper's count, else the floor (0 for a trace
        the paper says does not reclaim)."""
        stated = dict(self.rr_targets)
        if trace in stated:
            return int(stated[trace])
        return 0 if trace in self.no_rr else int(self.rr_floor)

    def expects_rr(self, trace: str) -> bool:
        """Whether the paper's Baseline reclaims on ``trace``."""
        return trace not in self.no_rr


def occupancy_devices(device: dict, regime: Regime) -> list:
    """The occupancy group's devices: ``device`` (a sweep device entry) at each of
    ``regime.occupancies``, named ``NAME@OCC`` (``phasedrr@0.75``)."""
    return [{**device, **regime.device_fields(occ), "name": f"{device.get('name', device.get('preset'))}@{occ:g}"}
            for occ in regime.occupancies]


def occupancy_group(fields: dict, traces: list, device: dict, regime: Regime, policies: dict) -> dict:
    """``{"occupancy": sweep spec}``: ``fields`` (seeds ...) with ``traces``, the ``device`` at each of the
    regime's occupancies (:func:`occupancy_devices`) and ``policies``; empty without traces."""
    if not traces:
        return {}
    return {"occupancy": {**fields, "traces": list(traces), "devices": occupancy_devices(device, regime),
                          "policies": policies}}


def scaled_target(rrs: int, paper_units: int, plan_units: int) -> int:
    """The paper's RR count ``rrs`` on ``paper_units`` planes, scaled to a device of
    ``plan_units`` planes (at least 1)."""
    return max(1, int(round(rrs * plan_units / paper_units)))


def replays_for_rr(rr_times: Callable[[int], tuple], target: int, max_replays: int) -> tuple[int, int]:
    """``(replays, rrs)``: the smallest number of replays at which Baseline makes ``target``
    RRs (or ``max_replays`` when it never does), and Baseline's RR count at it.

    ``rr_times(n)`` runs Baseline on up to ``n`` replays and returns ``(times, period)``: the
    time (ns) of every RR and the replays' period (ns); it may stop once the replay in which the
    ``target``-th RR fell has been played (:func:`flashrr.reproduce.calibration.stop_after_rr`).
    A replay count is a prefix of any larger one (the same requests in the same order), so the
    RRs of the first ``m`` replays are those of a longer run that fall before ``m * period``: one
    run of ``max_replays`` replays that stops there gives the answer, at the cost of about its
    replays.  An RR is decided at or after the arrival of the read that triggers it, so a late
    decision only counts it in a later replay: the answer never falls short of the target."""
    if target <= 0:
        return 1, 0
    n = int(max_replays)
    times, period = rr_times(n)
    if len(times) < target:
        return n, len(times)
    replay = np.minimum(np.asarray(times, np.int64) // max(int(period), 1), n - 1)
    per = np.bincount(replay, minlength=n).cumsum()
    m = int(np.searchsorted(per, target) + 1)
    return m, int(per[m - 1])


def busiest_die_busy(df) -> "np.ndarray":
    """Share of the run the busiest die is busy (``1 - die_idle_fraction_min``) of each row."""
    return 1.0 - np.asarray(df["die_idle_fraction_min"], float)


def _rows(baseline, label: str):
    return baseline[baseline["trace"] == label] if len(baseline) else baseline


def flag_traces(baseline, names, regime: Regime, failed=()) -> dict:
    """``{label: reason}`` for each trace whose Baseline ran outside the paper's regime: a run of
    the trace failed (``failed``: labels), its Baseline's busiest die was busy more than
    :data:`BUSY_LIMIT` of the run, or it made no RR on a trace the paper says reclaims.
    ``names``: ``(trace, label)`` pairs, the plan's trace name (the regime's key) and the
    name the tidy rows give it; ``baseline``: the tidy Baseline rows (``trace``,
    ``rr_count``, ``die_idle_fraction_min``; seeds averaged)."""
    flags = {}
    failed = set(failed)
    for name, label in names:
        rows = _rows(baseline, label)
        if label in failed or not len(rows):
            flags[label] = FLAG_FAILED
        elif float(busiest_die_busy(rows).mean()) > BUSY_LIMIT:
            flags[label] = FLAG_OVERLOADED
        elif regime.expects_rr(name) and float(rows["rr_count"].mean()) == 0:
            flags[label] = FLAG_NO_RR
    return flags


#: the regime table's columns: trace, then Baseline's measures (and the paper's, where it gives them)
REGIME_COLUMNS = ["trace", "replays", "occupancy", "rr_count", "rr_target", "paper_rr_count", "rr_per_m_reads",
                  "paper_rr_per_m_reads", "gc_count", "waf", "busiest_die_busy", "read_latency_mean_us",
                  "paper_read_latency_us", "flag"]


def regime_table(baseline, names, targets: dict, replays: dict, flags: dict, paper: dict | None = None):
    """Each trace's Baseline regime (columns :data:`REGIME_COLUMNS`): the replays it ran,
    the share of the logical space filled, its RR and GC counts, its RRs per million read
    requests (``rr_per_m_reads``: how much of the reads end in an RR, a measure that does not
    depend on the device's size), WAF, busiest-die busy share and mean read latency (µs), the
    RR target of its length (``targets``) and the paper's figure where it gives one (``paper``:
    ``{trace: {"rr_count": .., "rr_per_m_reads": .., "read_latency_us": ..}}``), and the
    trace's flag (empty when it is inside the regime).
    ``names``: ``(trace, label)`` pairs as for :func:`flag_traces`; the table's rows are
    labelled; ``targets``, ``replays`` and ``paper`` are keyed by trace name."""
    import pandas as pd

    paper = paper or {}
    rows = []
    for name, label in names:
        b = _rows(baseline, label)
        got = (lambda c: float(b[c].mean()) if len(b) and c in b.columns else math.nan)
        p = paper.get(name, {})
        reads = got("reads")
        rows.append({"trace": label, "replays": replays.get(name, math.nan), "occupancy": got("occupancy"),
                     "rr_count": got("rr_count"), "rr_target": targets.get(name, math.nan),
                     "paper_rr_count": p.get("rr_count", math.nan),
                     "rr_per_m_reads": got("rr_count") * 1e6 / reads if reads > 0 else math.nan,
                     "paper_rr_per_m_reads": p.get("rr_per_m_reads", math.nan),
                     "gc_count": got("gc_count"), "waf": got("waf"),
                     "busiest_die_busy": 1.0 - got("die_idle_fraction_min"),
                     "read_latency_mean_us": got("read_latency_mean_ns") / 1000.0,
                     "paper_read_latency_us": p.get("read_latency_us", math.nan), "flag": flags.get(label, "")})
    return pd.DataFrame(rows, columns=REGIME_COLUMNS)


def regime_markdown(table) -> str:
    """The regime table as Markdown (``-`` where a value is missing)."""
    def cell(c, v):
        if isinstance(v, str):
            return v or "-"
        if v is None or (isinstance(v, float) and not math.isfinite(v)):
            return "-"
        if c in ("occupancy", "busiest_die_busy", "waf"):
            return f"{v:.3f}"
        if c in ("read_latency_mean_us", "paper_read_latency_us", "rr_per_m_reads", "paper_rr_per_m_reads"):
            return f"{v:,.1f}"
        return f"{int(round(v)):,}"

    cols = list(table.columns)
    lines = ["| " + " | ".join(cols) + " |", "|---|" + "---:|" * (len(cols) - 2) + "---|"]
    lines += ["| " + " | ".join(cell(c, r[c]) for c in cols) + " |" for _, r in table.iterrows()]
    return "\n".join(lines)


def claims_runs(runs, flags: dict):
    """``runs`` (a :class:`~flashrr.reproduce.sweep_runs.SweepRuns`) with every row of a flagged
    trace dropped from every group, for the claims; the figures keep them."""
    if not flags:
        return runs
    kept = copy.copy(runs)  # a paper's runs may carry attributes of their own (Cocktail's ``out``)
    kept.frames = {g: (df[~df["trace"].isin(list(flags))] if not df.empty and "trace" in df.columns else df)
                   for g, df in runs.frames.items()}
    return kept


def flag_columns(table, flags: dict):
    """``table`` (a claims table) with ``n_flagged`` (how many traces were kept out of the
    claims) and ``flagged`` (``trace: reason``, ``; ``-separated)."""
    text = "; ".join(f"{t}: {r}" for t, r in flags.items())
    return table.assign(n_flagged=len(flags), flagged=text)
