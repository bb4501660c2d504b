"""HotR under another reading of the paper (its parameters changed) against the default, on the main
group's traces of a ``flashrr reproduce hotr`` output.

    python experiments/hotr/readings.py OUT KEY=VALUE [KEY=VALUE ...] [--jobs 2]

e.g. ``staging_full=stop`` (a full staging space refuses new replicas) or ``rlru_track=blocked`` (only
blocked reads train the R-LRU).  OUT's ``runs.csv`` gives each trace spec (with its calibrated arrival
factor) and HotR's parameters; the device is the ``hotr`` preset at the regime's occupancy (the
footprint alone), as the main group's; Baseline and HotR with its defaults are read from it, and HotR
is run again on the same trace and device with the given parameters changed.  Prints, per trace and on
their mean, the mean response time against Baseline (%), the flash-read pages redirected, the replica
programs, and the replicas given up or refused.
"""
from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

import pandas as pd

import flashrr
from flashrr.simulate import resolve_source


def run_changed(changes: dict, row: dict) -> dict:
    """HotR with ``changes`` on the trace and device of a main-group HotR row."""
    params = {**json.loads(row["policy_params"]), **changes}
    cfg = flashrr.SimConfig.preset("hotr").replace(fill_ratio=0.0, warmup_random_writes_ratio=0.0)
    trace = resolve_source(row["trace_source"], cfg)
    return flashrr.simulate(cfg, trace, policy="hotr", **params).summary


def parse_change(text: str) -> tuple:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("changes", nargs="+", type=parse_change, metavar="KEY=VALUE")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    changes = dict(args.changes)
    label = ", ".join(f"{k}={v}" for k, v in changes.items())
    runs = pd.read_csv(args.out / "runs.csv")
    main_runs = runs[runs.group == "main"]
    hotr = main_runs[main_runs.scheme == "HotR"].set_index("trace")
    base = main_runs[main_runs.scheme == "Baseline"].set_index("trace")
    rows = [dict(r, trace=t) for t, r in hotr.iterrows()]
    with ProcessPoolExecutor(args.jobs) as pool:
        changed = dict(zip(hotr.index, pool.map(partial(run_changed, changes), rows)))
    out = []
    for t in hotr.index:
        b = base.loc[t, "io_latency_mean_ns"]
        for name, s in (("default", hotr.loc[t]), (label, changed[t])):
            out.append({"trace": t, "hotr": name,
                        "response_vs_baseline_pct": 100 * (s["io_latency_mean_ns"] / b - 1),
                        "redirected_pages": int(s["redirected_pages"]),
                        "replica_writes": int(s["replica_writes"]),
                        "replica_drops": int(s.get("replica_drops", 0) or 0),
                        "replica_refusals": int(s.get("replica_refusals", 0) or 0)})
    df = pd.DataFrame(out)
    print(df.to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    print(df.groupby("hotr", sort=False).response_vs_baseline_pct.mean().round(1).to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
