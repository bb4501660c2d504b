"""How uneven are the component blocks of a superblock when Baseline reclaims it, on real traces?

``python experiments/shuffler/component_skew.py [SPEC ...]``

Shuffler exists for superblocks whose component blocks are read unevenly: one block
reaches the RR threshold while the others are far from it (the paper's Fig. 2). This
replays each trace (by default the real samples of ``tests/data`` that reclaim on the
``shuffler`` device) with Baseline on the ``shuffler`` preset at an RR threshold of
1,000 reads (the model validation's, docs/traces.md), packed in 4-page stripes as the
reproduction packs its traces, and prints, over Baseline's RRs, the least-read
component block's reads as a share of the threshold (median and 10th percentile).
At 1.0 every component block had reached the threshold (nothing to shuffle); Fig. 7's
model twins give 0.87-0.94 in the default plan, gen0 and gen1 0.18-0.20 (docs/shuffler.md).

Each sample is credited in ``tests/data/README.md``.
"""
from __future__ import annotations

import sys

import numpy as np

import flashrr
from flashrr.config import SimConfig

THRESHOLD = 1000
#: (spec, replays): the real samples that reclaim on this device (the others' reads hit its data cache:
#: docs/traces.md, the validation table's `shuffler` rows)
SAMPLES = (
    ("tests/data/cloudphysics-io.mqsim.txt.gz", 16),
    ("tests/data/tencent-cbs-sample.tencent.csv.gz?time_resolution_s=1", 64),
    ("tests/data/wsrch-small.mqsim.txt", 64),
)


def least_read_share(spec: str, replays: int, config: SimConfig) -> tuple[int, float, float]:
    """``(rrs, median, p10)`` of the least-read component block's reads / threshold at Baseline's RRs."""
    sep = "&" if "?" in spec else "?"
    res = flashrr.simulate(config, f"{spec}{sep}pack=stripe&repeat={replays}")
    ev = res.rr_events
    if not len(ev):
        return 0, float("nan"), float("nan")
    least = np.stack(ev["block_reads"].to_numpy()).min(axis=1) / THRESHOLD
    return len(ev), float(np.median(least)), float(np.quantile(least, 0.1))


def main(argv: list[str]) -> None:
    config = SimConfig.preset("shuffler").replace(rr_threshold_reads=THRESHOLD)
    samples = [(a, 16) for a in argv] or list(SAMPLES)
    print(f"Baseline on the shuffler preset, RR threshold {THRESHOLD}, packed in 4-page stripes")
    print("| trace | replays | RRs | least-read component / threshold, median | 10th percentile |")
    print("|---|---:|---:|---:|---:|")
    for spec, replays in samples:
        rrs, med, p10 = least_read_share(spec, replays, config)
        print(f"| {spec} | {replays} | {rrs:,} | {med:.3f} | {p10:.3f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
