"""Validate the workload model on every real trace sample, in sample and held out: the tables of docs/traces.md.

For each sample of ``tests/data`` (see its README for where each comes from and
its licence) and each device, replay the sample and three traces generated from
its model (seeds 1-3) with Baseline (``flashrr.model_validation``), three ways:

* **in sample**: the model fitted on the whole sample, checked on it;
* **held out, 1st -> 2nd** and **2nd -> 1st**: the model fitted on one half of
  the sample (by request count), checked on the other half
  (:func:`flashrr.model_validation.validate_holdout`).

Each cell is *trace / model* with ✓ or ✗ for the goals (RR count, mean read
latency and read cache hit ratio within 25%, region top-10% share within 5
points), plus the page-level LRU hit ratio at 1,024 pages of the requests
checked (the device's 8 KiB pages, reads only; goal: within 25%), the
validation's own ``lru_hit_1024`` row.  A held-out row's last column is the
reference: the goals that the fitted half itself, replayed in the model's
place, meets against the half checked (the four goals, then the LRU goal).

Replays: 16, or, where Baseline does not reclaim on the sample in 16 replays,
4 times as many until it does (at most 4,096 replays and 4M requests, and
never past a replay where every read hits the cache, since then no flash read
comes back); a half is replayed twice as often as its whole sample.

The devices follow the experiments that first compared real traces with their
synthetic twins: ``shuffler`` with a 1,000-read RR threshold, ``cocktail``
with 1,000 and ``phasedrr`` with 2,500.  Traces are folded onto each device
(``?fold=modulo``); Tencent CBS's whole-second timestamps are spread over their
second first (``?time_resolution_s=1``, ``SAMPLE_STEPS``).  After the tables, a summary per device counts the goals
met on the rows where Baseline reclaims.

    python benchmarks/model_validation_table.py [--seeds 3] [--devices shuffler,cocktail,phasedrr] [--samples a,b]
                                                [--fit-param KEY=VALUE ...]

``--fit-param`` fits every model with a setting other than the default (a
:class:`~flashrr.trace.model.FitSettings` field, e.g. ``near_window_requests=0``).

Prints the tables on stdout and the wall time of each sample on stderr.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import flashrr
from flashrr.model_validation import GOALS, HOLDOUT_SPLITS, trace_halves, validate_holdout, validate_model
from flashrr.simulate import resolve_source, simulate

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SAMPLES = (  # file, label
    ("cloudphysics-io.mqsim.txt.gz", "CloudPhysics VM"),
    ("cloudphysics-w106-sample.csv.gz", "CloudPhysics w106"),
    ("tencent-cbs-sample.tencent.csv.gz", "Tencent CBS"),
    ("wsrch-small.mqsim.txt", "web search"),
    ("tpcc-small.mqsim.txt", "TPC-C"),
    ("msr-hm_0-sample.msr.csv.gz", "MSR hm_0"),
    ("systor17-traces-sample.systor.csv.gz", "SYSTOR'17"),
    ("systor17-additional-sample.systor.csv.gz", "SYSTOR'17 (additional)"),
    ("lirs-cpp.csv.gz", "LIRS cpp"),
    ("lirs-cs.csv.gz", "LIRS cs"),
    ("lirs-gli.csv.gz", "LIRS glimpse"),
    ("lirs-ps.csv.gz", "LIRS postgres"),
    ("lirs-sprite.csv.gz", "LIRS sprite"),
)
# pipeline steps a sample needs before anything else: Tencent CBS's timestamps are whole seconds, so its
# requests of one second are spread over it (docs/traces.md, "Transformations")
SAMPLE_STEPS = {"tencent-cbs-sample.tencent.csv.gz": "time_resolution_s=1&"}
DEVICES = (("shuffler", 1000, {}), ("cocktail", 1000, {}), ("phasedrr", 2500, {}))  # preset, RR threshold
COLUMNS = (("rr_count", "RRs"), ("gc_count", "GCs"), ("cache_read_hit_ratio", "hit"),
           ("read_latency_mean_ns", "read mean us"), ("region_top10_share", "region top-10%"),
           ("lru_hit_1024", "LRU 1,024 pages"))
# the LRU goal is counted on every row, the others on the rows where Baseline reclaims
LRU_GOAL = "lru_hit_1024"
PAGE_BYTES = 8192
MAX_REPLAYS, MAX_REPLAYED_REQUESTS = 4096, 4_000_000


def replays_until_reclaim(trace, cfg, start: int = 16) -> tuple[int, bool]:
    """``(replays, reclaims)``: 16, or 4 times as many until Baseline reclaims on ``trace`` (see the module
    docstring for the bounds)."""
    r = start
    while True:
        s = simulate(cfg, trace, policy="baseline", repeat=r).summary
        if s["rr_count"] > 0:
            return r, True
        if r * 4 > MAX_REPLAYS or r * 4 * len(trace) > MAX_REPLAYED_REQUESTS or s["cache_read_hit_ratio"] >= 0.9999:
            return r, False
        r *= 4


def page_read_reuse(trace, capacities) -> tuple[np.ndarray, float]:
    """The reads of ``trace`` as 8 KiB pages in order: the hit ratios of LRU caches of ``capacities`` pages
    (first touches miss) and the median stack distance of the re-read pages (pages; nan with no re-read)."""
    from flashrr.model_validation import read_page_stack_distances
    from flashrr.trace.locality import lru_hit_ratios

    d = read_page_stack_distances(trace, PAGE_BYTES)
    reuse = d[d >= 0]
    return lru_hit_ratios(d, capacities), float(np.median(reuse)) if reuse.size else float("nan")


def _fmt(metric: str, v: float) -> str:
    if v != v:  # nan
        return "n/a"
    if metric.endswith("_ns"):
        return f"{v / 1e3:,.0f}"
    if metric.endswith("_count"):
        return f"{v:,.0f}" if abs(v - round(v)) < 1e-9 else f"{v:,.1f}"
    return f"{v:.3f}"


def _mark(ok: bool) -> str:
    return " ✓" if ok else " ✗"


def _rows(table, source: str = "model") -> tuple[list[str], dict, bool]:
    """The cells of one validation (Baseline rows of ``table``, trace against ``source``: "model" or
    "reference"), the goals met by metric, and whether Baseline reclaims on the trace checked."""
    rows = {r.metric: r for r in table[table.policy == "baseline"].itertuples()}
    cells, met = [], {}
    for m, _ in COLUMNS:
        r = rows[m]
        text = f"{_fmt(m, r.real)} / {_fmt(m, getattr(r, source))}"
        if m in GOALS:
            met[m] = getattr(r, "met" if source == "model" else "reference_met") is True
            text += _mark(met[m])
        cells.append(text)
    return cells, met, rows["rr_count"].real > 0


def _reference_cell(met: dict) -> str:
    """The goals the fitted half meets: the four of the summary, then the LRU goal."""
    four = sum(met[g] for g in GOALS if g != LRU_GOAL)
    return f"{four}/4, LRU{_mark(met[LRU_GOAL])}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--devices", default=",".join(d[0] for d in DEVICES),
                    help="comma-separated device presets to run (default: all)")
    ap.add_argument("--samples", default=None, help="comma-separated sample files (default: all)")
    ap.add_argument("--fit-param", action="append", default=[], metavar="KEY=VALUE",
                    help="a fit setting for every model (repeatable)")
    args = ap.parse_args(argv)
    from flashrr.trace.model.fit import fit_settings_from
    from flashrr.trace.model import fit_model as fit_default

    settings = fit_settings_from(args.fit_param)

    def fit_model(trace):
        return fit_default(trace, settings)

    wanted = set(args.devices.split(","))
    samples = [s for s in SAMPLES if args.samples is None or s[0] in args.samples.split(",")]
    seeds = tuple(range(1, args.seeds + 1))
    summary = []
    for preset, rr, params in (d for d in DEVICES if d[0] in wanted):
        cfg = flashrr.SimConfig.preset(preset).replace(rr_threshold_reads=rr)
        print(f"\n#### `{preset}` device, RR threshold {rr:,}, Baseline, model = mean of seeds 1-{args.seeds}\n")
        heads = ["trace", "requests", "replays", "model"] + [h for _, h in COLUMNS] + ["fitted half"]
        print("| " + " | ".join(heads) + " |")
        print("|" + "---|" * len(heads))
        for name, label in samples:
            t0 = time.perf_counter()
            trace = resolve_source(f"{DATA / name}?{SAMPLE_STEPS.get(name, '')}fold=modulo", cfg).to_trace()
            replays, _ = replays_until_reclaim(trace, cfg)
            model = fit_model(trace)
            rep = validate_model(trace, model, cfg, ("baseline",), replays, seeds, policy_params=params)
            cells, met, reclaims = _rows(rep.table)
            print(f"| {label} | {len(trace):,} | {replays:,} | in sample | " + " | ".join(cells) + " | |")
            summary.append((preset, label, "in sample", reclaims, met))
            hold = validate_holdout(trace, cfg, ("baseline",), 2 * replays, seeds, params, settings)
            halves = trace_halves(trace)
            for label_split, fitted, checked in HOLDOUT_SPLITS:
                split = "1st → 2nd" if fitted == 0 else "2nd → 1st"
                table = hold.table[hold.table.split == label_split]
                cells, met, reclaims = _rows(table)
                _, ref_met, _ = _rows(table, "reference")
                print(f"| {label} | {len(halves[checked]):,} | {2 * replays:,} | held out, {split} | "
                      + " | ".join(cells) + f" | {_reference_cell(ref_met)} |")
                summary.append((preset, label, f"held out {split}", reclaims, met))
                summary.append((preset, label, f"fitted half {split}", reclaims, ref_met))
            print(f"{preset} {label}: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    _print_summary(summary)
    return 0


def _print_summary(summary) -> None:
    """Per device and kind of row: of the rows where Baseline reclaims on the trace checked, how many meet each
    goal and all four; and on every row, the LRU goal.  The "fitted half" rows count the held-out rows' goals
    met by the fitted half itself in the model's place."""
    print("\n#### Goals met\n")
    goals = [g for g in GOALS if g != LRU_GOAL]
    print("| device | rows | Baseline reclaims | " + " | ".join(goals) + " | all four | LRU 1,024 (every row) |")
    print("|" + "---|" * (len(goals) + 5))
    for device in dict.fromkeys(s[0] for s in summary):
        for kind in ("in sample", "held out", "fitted half"):
            rows = [s for s in summary if s[0] == device and s[2].startswith(kind)]
            rec = [s for s in rows if s[3]]
            counts = [sum(s[4][g] for s in rec) for g in goals]
            both = sum(all(s[4][g] for g in goals) for s in rec)
            lru = sum(s[4][LRU_GOAL] for s in rows)
            print(f"| {device} | {kind} | {len(rec)} of {len(rows)} | "
                  + " | ".join(f"{c}/{len(rec)}" for c in counts)
                  + f" | {both}/{len(rec)} | {lru}/{len(rows)} |")


if __name__ == "__main__":
    sys.exit(main())
