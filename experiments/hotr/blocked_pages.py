"""Why HotR's blocked reads are or are not redirected: each flash-read page of a HotR run, classified.

    python experiments/hotr/blocked_pages.py OUT TRACE [--requests 200000]

OUT is a ``flashrr reproduce hotr`` output (its ``runs.csv`` gives the trace spec, with the
calibrated arrival factor, and HotR's parameters); TRACE one of its traces (fin2, msr_hm,
hpc_46, hpc_28).  The first ``--requests`` requests run on the pure-Python twin with HotR's
``redirect`` step wrapped, so each flash-read page is counted, before HotR handles it, as
unblocked (with or without an R-LRU entry) or blocked with no entry (a first read, or its entry
evicted), an entry but no replica (the read that makes the replica, or makes it again after a full
staging space gave it up), a replica not yet programmed, or redirected (the R-LRU as it stands
before the page is read).  The device is the ``hotr`` preset at the regime's occupancy (the
footprint alone).  Also prints the median page-level stack distance of the trace's re-read pages
(4 KiB pages) beside the R-LRU's length.
"""
from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

import numpy as np
import pandas as pd

import flashrr
from flashrr._core.mechanisms import hot_replicas_py
from flashrr.model_validation import read_page_stack_distances
from flashrr.simulate import resolve_source


def classify(counts: collections.Counter):
    """Wrap ``HotReplicas.redirect`` so every flash-read page it is given is counted in ``counts``."""
    cls = hot_replicas_py.HotReplicas
    original = cls.redirect

    def redirect(self, misses, ppns, where, extras, t):
        for i, lpn in enumerate(misses):
            e = self.rlru.get(lpn)
            if not self.blocked(self.die_of(where[i]), t):
                counts["unblocked, entry" if e is not None else "unblocked, no entry"] += 1
            elif e is None:
                counts["blocked, no entry"] += 1
            elif e.rep == -1:
                counts["blocked, entry, no replica"] += 1
            elif e.rep < 0 or e.ready > t:
                counts["blocked, replica not programmed"] += 1
            else:
                counts["blocked, redirected"] += 1
        return original(self, misses, ppns, where, extras, t)

    cls.redirect = redirect
    return lambda: setattr(cls, "redirect", original)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("trace")
    ap.add_argument("--requests", type=int, default=200_000)
    args = ap.parse_args(argv)
    runs = pd.read_csv(args.out / "runs.csv")
    row = runs[(runs.group == "main") & (runs.trace == args.trace) & (runs.scheme == "HotR")].iloc[0]
    params = json.loads(row.policy_params)
    cfg = flashrr.SimConfig.preset("hotr").replace(fill_ratio=0.0, warmup_random_writes_ratio=0.0)
    trace = resolve_source(row.trace_source, cfg).to_trace()
    part = trace.slice(0, min(args.requests, len(trace)), name=args.trace)
    counts = collections.Counter()
    restore = classify(counts)
    try:
        summary = flashrr.simulate(cfg, part, policy="hotr", engine="reference", **params).summary
    finally:
        restore()
    blocked = sum(v for k, v in counts.items() if k.startswith("blocked"))
    unblocked = counts["unblocked, entry"] + counts["unblocked, no entry"]
    print(f"{args.trace}: {len(part):,} requests, staging {summary['staging_pages']:,.0f} pages, R-LRU "
          f"{summary['rlru_entries']:,.0f} entries, redirected pages {summary['redirected_pages']:,}, "
          f"replicas given up for room {summary['replica_drops']:,}")
    for k in ("blocked, no entry", "blocked, entry, no replica", "blocked, replica not programmed",
              "blocked, redirected"):
        print(f"  {k}: {counts[k]:,} ({counts[k] / max(blocked, 1):.1%} of {blocked:,} blocked pages)")
    print(f"  unblocked, no entry: {counts['unblocked, no entry']:,} ({counts['unblocked, no entry'] / max(unblocked, 1):.1%}"
          f" of {unblocked:,} unblocked pages)")
    d = read_page_stack_distances(trace, cfg.geometry.page_size_bytes)
    print(f"  whole trace: median re-read distance {np.median(d[d >= 0]):,.0f} pages of {cfg.geometry.page_size_bytes:,} B")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
