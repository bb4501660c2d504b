"""Where a real sample's RRs come from, against its model: reads of never-written pages by block,
and re-accesses that replay a sequence.

``python experiments/workload_model/static_reads.py [--replays 16] [--seeds 3]``

On the ``cocktail`` device at an RR threshold of 1,000 reads (the model validation's,
docs/traces.md) the CloudPhysics VM sample (``tests/data``, credited in its README) makes 286
RRs in 16 replays and its model a few. Pages a trace never writes stay where preconditioning put
them, replay after replay, so their blocks add up the reads of every replay; pages it writes move
each replay.  Preconditioning fills the logical space in page order across the planes, so the
block of a never-written page ``p`` is (``p // (planes * pages_per_block)``, ``p % planes``).
For the sample and each model trace this prints Baseline's RR count and, from the trace alone,
the reads per replay of the busiest such blocks, the busiest span of ``planes * pages_per_block``
pages, and ``sum(floor(replays * reads / threshold))`` over those blocks: the RRs that reads of
never-written pages alone would make.

It then prints how re-accesses replay sequences: a re-access (a request that starts in a 4 KiB
unit one of the last 65,536 requests started in; its target the latest such request) *follows*
when its op's previous request was a re-access too and its target is the request of the
target's op right after that one's target.  Printed per op: the share of re-accesses after a
re-access that follow, after one that followed and after one that did not.
"""
from __future__ import annotations

import argparse

import numpy as np

import flashrr
from flashrr.simulate import resolve_source, simulate
from flashrr.trace.locality import expand_pages
from flashrr.trace.model import ModelSource, fit_model

SAMPLE = "tests/data/cloudphysics-io.mqsim.txt.gz?fold=modulo"
THRESHOLD = 1000
WINDOW = 65536
UNIT = 4096


def pages_of(trace, sel: np.ndarray, page: int) -> np.ndarray:
    """The page of every page access of the requests ``sel`` of ``trace``, in order."""
    off, size = trace.offset[sel], trace.size[sel]
    return expand_pages(off // page, (off + size - 1) // page)[1]


def static_blocks(trace, geometry, replays: int) -> tuple[np.ndarray, int, int]:
    """``(reads per block, busiest span's reads, RRs those blocks alone would make)`` for the pages
    ``trace`` reads and never writes, per replay."""
    g = geometry
    planes = g.channels * g.chips_per_channel * g.dies_per_chip * g.planes_per_die
    span = planes * g.pages_per_block
    reads = pages_of(trace, ~trace.is_write, g.page_size_bytes)
    static = reads[~np.isin(reads, pages_of(trace, trace.is_write, g.page_size_bytes))]
    _, per_block = np.unique(static // span * planes + static % planes, return_counts=True)
    _, per_span = np.unique(static // span, return_counts=True)
    return np.sort(per_block)[::-1], int(per_span.max(initial=0)), int((replays * per_block // THRESHOLD).sum())


def follow_shares(trace) -> dict:
    """Per op: ``(after a re-access, after one that followed, after one that did not)`` shares of
    re-accesses that follow (module docstring)."""
    units, w = trace.offset // UNIT, trace.is_write.astype(np.int64)
    n = units.size
    order = np.lexsort((np.arange(n), units))
    same = units[order][1:] == units[order][:-1]
    prev = np.full(n, -1, dtype=np.int64)
    prev[order[1:][same]] = order[:-1][same]
    reuse = (prev >= 0) & (np.arange(n) - prev <= WINDOW)
    of_op = [np.flatnonzero(w == op) for op in (0, 1)]
    follow = np.zeros(n, dtype=bool)
    out = {}
    for op in (0, 1):
        idx = of_op[op]
        cur, before = idx[1:], idx[:-1]
        pair = reuse[cur] & reuse[before]
        cur, before = cur[pair], before[pair]
        target = prev[before]
        nxt = np.full(cur.size, -1, dtype=np.int64)
        for t in (0, 1):
            m = w[target] == t
            k = np.searchsorted(of_op[t], target[m], side="right")
            ok = k < of_op[t].size
            nxt[np.flatnonzero(m)[ok]] = of_op[t][k[ok]]
        follow[cur] = prev[cur] == nxt
        was = follow[before]  # pairs in trace order, so a chain's earlier links are already marked
        f = follow[cur]
        out["read" if op == 0 else "write"] = (f.mean(), f[was].mean() if was.any() else np.nan,
                                               f[~was].mean() if (~was).any() else np.nan)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replays", type=int, default=16)
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args(argv)
    cfg = flashrr.SimConfig.preset("cocktail").replace(rr_threshold_reads=THRESHOLD)
    real = resolve_source(SAMPLE, cfg).to_trace()
    model = fit_model(real)
    traces = [("trace", real)] + [(f"model seed {s}", ModelSource(model, len(real), seed=s).to_trace())
                                  for s in range(1, args.seeds + 1)]
    print("| trace | Baseline RRs | never-written reads / all reads | busiest blocks (reads per replay) | "
          "busiest span | RRs from never-written pages |")
    print("|---|---:|---|---|---:|---:|")
    for name, tr in traces:
        rr = simulate(cfg, tr, policy="baseline", repeat=args.replays).summary["rr_count"]
        blocks, top_span, rrs = static_blocks(tr, cfg.geometry, args.replays)
        n_reads = pages_of(tr, ~tr.is_write, cfg.geometry.page_size_bytes).size
        print(f"| {name} | {rr:,} | {blocks.sum():,} / {n_reads:,} | {', '.join(str(b) for b in blocks[:4])} | "
              f"{top_span:,} | {rrs:,} |")
    print("\n| trace | op | follow after a re-access | after one that followed | after one that did not |")
    print("|---|---|---:|---:|---:|")
    for name, tr in traces:
        for op, (a, f, nf) in follow_shares(tr).items():
            print(f"| {name} | {op} | {a:.3f} | {f:.3f} | {nf:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
