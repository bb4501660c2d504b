"""End-to-end effect of process-variation-aware superblock assembly on I/O latency
(issue 12 item 3; docs/superblock-pv.md section 6).  The paper reports no I/O
latency: this is our own measurement, on our model.

    python experiments/superblock_pv/end_to_end.py [--quick] [--seeds 3] [--out DIR]

Device: the ``shuffler`` preset's timing (350 µs program, 3.5 ms erase, MQSim-like
gc-first scheduling, 64 MB write-back cache) on a small geometry with the paper's
block: 2 channels x 2 chips x 4 planes x 64 blocks x 1,152 pages of 8 KB (4 dies, one
4-plane superblock per die row), filled to 90% of the logical space.  PV model:
``pv_scale = 'relative'``, so a block's mean LWL latency maps to 350 µs and the model's
spread shrinks by the same factor (1665 µs -> 350 µs).

Variants: ``off`` (today's engine, every block 350 µs / 3.5 ms), and with the PV model
``sequential``, ``random``, ``optimal``, ``qstr_med`` (static assembly, all fast SBs)
and ``qstr_med`` with ``pv_reassembly`` (fast SBs for user writes, slow ones for GC).
Each PV variant runs on ``--seeds`` model seeds; the table shows the mean over seeds
and the change against ``random`` (the paper's baseline).

Workloads (100,000 requests; ``--quick``: 30,000):
* ``light-200us`` / ``light-100us``: a synthetic trace, 30% reads, 16 KB mean requests
  over 512 MB, mean gap 200 or 100 µs (dies about 43% and 86% busy), on the device
  filled to 90% without warm-up: little GC runs;
* ``gc-600us``: the same trace at a 600 µs gap after one random rewrite of every filled
  page (``warmup_random_writes_ratio = 1``): GC in steady state (WAF about 3);
* ``wsrch``: the real MQSim web-search sample ``/work/shared/traces/wsrch-small.mqsim.txt``
  (24,782 requests, 4 of them writes), folded onto the device.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import pandas as pd

import flashrr
from flashrr.config import GeometryConfig
from flashrr.trace.synth import synth_trace

WSRCH = "/work/shared/traces/wsrch-small.mqsim.txt"
VARIANTS = {
    "off": {},
    "sequential": {"pv_model": "generative", "assembly": "sequential"},
    "random": {"pv_model": "generative", "assembly": "random"},
    "optimal": {"pv_model": "generative", "assembly": "optimal"},
    "qstr_med": {"pv_model": "generative", "assembly": "qstr_med"},
    "qstr_med+reassembly": {"pv_model": "generative", "assembly": "qstr_med", "pv_reassembly": True},
}
METRICS = ("write_latency_mean_ns", "write_latency_p99_ns", "read_latency_mean_ns", "io_latency_mean_ns",
           "io_latency_p99_ns", "busy_flush_ns", "busy_gc_ns", "die_idle_fraction_mean", "gc_count")


def device() -> flashrr.SimConfig:
    return flashrr.SimConfig.preset("shuffler").replace(
        geometry=GeometryConfig(2, 2, 1, 4, 64, 1152, 8192), name="shuffler-pv-small")


def _synth(n: int, gap_us: int, footprint_mb: int):
    return synth_trace(None, n_requests=n, seed=1, read_ratio=0.3, read_size_mean_bytes=16384, read_size_cv=0.5,
                       write_size_mean_bytes=16384, write_size_cv=0.5, max_size_bytes=65536,
                       footprint_bytes=footprint_mb << 20, write_region_fraction=0.5, hot_set_ratio=0.2,
                       hot_skew=1.0, interarrival_mean_ns=gap_us * 1000)


def workloads(quick: bool) -> dict:
    """name -> (trace, precondition changes).  ``light``: filled to 90%, no warm-up, so
    little GC runs; ``gc``: 90% plus one random rewrite of every filled page before the
    trace, so GC (and, with pv_reassembly, the reassembly of every recycled superblock)
    is in steady state."""
    n, fp = (30_000, 256) if quick else (100_000, 512)
    light = {"fill_ratio": 0.9, "warmup_random_writes_ratio": 0.0}
    steady = {"fill_ratio": 0.9, "warmup_random_writes_ratio": 1.0}
    out = {f"light-{g}us": (_synth(n, g, fp), light) for g in ((200,) if quick else (200, 100))}
    out["gc-600us"] = (_synth(n, 600, fp), steady)
    if os.path.exists(WSRCH):
        out["wsrch"] = (WSRCH + "?fold=modulo", light)
    return out


def run(quick: bool, seeds: int) -> pd.DataFrame:
    base = device()
    rows = []
    for wname, (trace, pre) in workloads(quick).items():
        for vname, changes in VARIANTS.items():
            for seed in (range(seeds) if changes else [0]):
                cfg = base.replace(**pre, **changes, **({"pv_seed": seed} if changes else {}))
                s = flashrr.simulate(cfg, trace).summary
                rows.append({"workload": wname, "variant": vname, "pv_seed": seed, **{m: s[m] for m in METRICS}})
                print(f"  {wname:12s} {vname:20s} seed {seed}: write {s['write_latency_mean_ns'] / 1e3:10.1f} µs, "
                      f"io {s['io_latency_mean_ns'] / 1e3:10.1f} µs", file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def table(df: pd.DataFrame) -> pd.DataFrame:
    """Mean over PV seeds, and the change of each metric against ``random`` (%)."""
    mean = df.groupby(["workload", "variant"], sort=False)[list(METRICS)].mean().reset_index()
    out = []
    for wname, g in mean.groupby("workload", sort=False):
        ref = g[g["variant"] == "random"].iloc[0]
        for _, r in g.iterrows():
            row = {"workload": wname, "variant": r["variant"],
                   "write_mean_us": r["write_latency_mean_ns"] / 1e3, "write_p99_us": r["write_latency_p99_ns"] / 1e3,
                   "read_mean_us": r["read_latency_mean_ns"] / 1e3, "io_mean_us": r["io_latency_mean_ns"] / 1e3,
                   "io_p99_us": r["io_latency_p99_ns"] / 1e3, "die_busy": 1 - r["die_idle_fraction_mean"]}
            for key, m in (("d_write_mean_%", "write_latency_mean_ns"), ("d_io_mean_%", "io_latency_mean_ns"),
                           ("d_flush_busy_%", "busy_flush_ns")):
                row[key] = 100.0 * (r[m] / ref[m] - 1.0) if ref[m] else 0.0
            out.append(row)
    return pd.DataFrame(out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="shorter traces, two loads")
    ap.add_argument("--seeds", type=int, default=3, help="PV model seeds per variant (default 3)")
    ap.add_argument("--out", type=Path, default=None, help="write end_to_end.csv and end_to_end.md here")
    a = ap.parse_args(argv)
    df = run(a.quick, a.seeds)
    t = table(df)
    text = t.to_markdown(index=False, floatfmt=".2f") if _has_tabulate() else t.to_string(index=False)
    print(text)
    if a.out:
        a.out.mkdir(parents=True, exist_ok=True)
        df.to_csv(a.out / "end_to_end_runs.csv", index=False)
        t.to_csv(a.out / "end_to_end.csv", index=False)
        (a.out / "end_to_end.md").write_text(text + "\n")


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    main()
