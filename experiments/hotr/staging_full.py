"""HotR with a full staging space giving up its least recent replica (``evict_lru``, the default) or
refusing new ones (``stop``), on the main group's traces of a ``flashrr reproduce hotr`` output.

    python experiments/hotr/staging_full.py OUT [--jobs 2]

OUT's ``runs.csv`` gives each trace spec (with its calibrated arrival factor) and HotR's parameters;
the device is the ``hotr`` preset at the regime's occupancy (the footprint alone), as the main group's; Baseline and HotR with ``evict_lru`` are read from it, and HotR is run again on the same
trace and device with ``staging_full="stop"``.  Prints, per trace and on their mean, the mean
response time against Baseline (%), the share of flash-read pages redirected, and the replicas given
up or refused.
"""
from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

import flashrr
from flashrr.simulate import resolve_source


def run_stop(row: dict) -> dict:
    """HotR with ``staging_full="stop"`` on the trace and device of a main-group HotR row."""
    params = {**json.loads(row["policy_params"]), "staging_full": "stop"}
    cfg = flashrr.SimConfig.preset("hotr").replace(fill_ratio=0.0, warmup_random_writes_ratio=0.0)
    trace = resolve_source(row["trace_source"], cfg)
    return flashrr.simulate(cfg, trace, policy="hotr", **params).summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    runs = pd.read_csv(args.out / "runs.csv")
    main_runs = runs[runs.group == "main"]
    hotr = main_runs[main_runs.scheme == "HotR"].set_index("trace")
    base = main_runs[main_runs.scheme == "Baseline"].set_index("trace")
    rows = [dict(r, trace=t) for t, r in hotr.iterrows()]
    with ProcessPoolExecutor(args.jobs) as pool:
        stops = dict(zip(hotr.index, pool.map(run_stop, rows)))
    out = []
    for t in hotr.index:
        b = base.loc[t, "io_latency_mean_ns"]
        for name, s in (("evict_lru", hotr.loc[t]), ("stop", stops[t])):
            out.append({"trace": t, "staging_full": name,
                        "response_vs_baseline_pct": 100 * (s["io_latency_mean_ns"] / b - 1),
                        "redirected_pages": int(s["redirected_pages"]),
                        "replica_writes": int(s["replica_writes"]),
                        "replica_drops": int(s.get("replica_drops", 0)),
                        "replica_refusals": int(s.get("replica_refusals", 0) or 0)})
    df = pd.DataFrame(out)
    print(df.to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    print(df.groupby("staging_full").response_vs_baseline_pct.mean().round(1).to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
