"""Result digests: one SHA-256 per run over a fixed matrix of devices, schedulers and
policies, to show that a speed change leaves every result bit-identical.

    python benchmarks/result_digests.py --save before.json     # on the old build
    python benchmarks/result_digests.py --compare before.json  # on the new one

Each run replays a small synthetic trace (70% reads, a hot set, 4-32 KiB requests)
several times on a filled device with the RR threshold lowered to 1,000 reads,
so that GC, RR, retries, idle moves and the policies' own work all happen in a few
seconds.  The digest covers the engine's counters, the latency histograms, the RR and
GC event tables and the erases per block (``Result`` and its summary, wall-clock
fields left out).  The matrix: every scheduler on the ``shuffler`` device under
Baseline, Shuffler, PhasedRR and ``shuffler+phasedrr``; every scheduler on the
``cocktail`` device under Cocktail and redFTL; ``gc-first`` and ``user-first`` on
``hotr`` under HotR.  Prints one line per run and, with ``--compare``, the runs whose
digest changed; exits 1 if any did.  A change that adds a metric (a summary key, an
event column) changes every digest by design: compare such a change field by field.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time

import numpy as np

import flashrr
from flashrr.trace.synth import synth_trace

SCHEDULERS = ("user-first", "gc-first", "fcfs")
#: (device preset, policies, schedulers)
MATRIX = (
    ("shuffler", ("baseline", "shuffler", "phasedrr", "shuffler+phasedrr"), SCHEDULERS),
    ("cocktail", ("cocktail", "redftl"), SCHEDULERS),
    ("hotr", ("hotr",), ("gc-first", "user-first")),
)
#: policy parameters: PhasedRR's phases (Delta x 10 reads) must fit below the threshold
PARAMS = {"phasedrr": {"delta_reads": 64}, "shuffler+phasedrr": {"phasedrr.delta_reads": 64}}
#: summary fields that measure the host, not the simulation
WALL_FIELDS = ("sim_wall_s", "policy_time_s")


def trace(n: int) -> flashrr.Trace:
    return synth_trace(None, n_requests=n, seed=3, read_ratio=0.7, read_size_mean_bytes=16384, read_size_cv=0.5,
                       write_size_mean_bytes=16384, write_size_cv=0.5, max_size_bytes=32768,
                       footprint_bytes=n * 2048, write_region_fraction=0.3, hot_set_ratio=0.1, hot_skew=1.0,
                       interarrival_mean_ns=20_000)


def device(preset: str, scheduler: str) -> flashrr.SimConfig:
    """The preset shrunk to 32 blocks of 64 pages per plane and filled, with RR at
    1,000 reads and at most 1 MiB of cache."""
    cfg = flashrr.SimConfig.preset(preset)
    cache = min(cfg.cache.capacity_bytes, 1 << 20)  # a cache as large as the trace would take every request
    return cfg.replace(scheduler=scheduler, blocks_per_plane=32, pages_per_block=64, fill_ratio=1.0,
                       rr_threshold_reads=1_000, capacity_bytes=cache)


def digest(res) -> str:
    """SHA-256 (hex) of everything a run computes."""
    h = hashlib.sha256()
    summary = {k: v for k, v in res.summary.items() if k not in WALL_FIELDS}
    h.update(json.dumps(summary, sort_keys=True, default=str).encode())
    for name in sorted(res.hist):
        h.update(np.ascontiguousarray(res.hist[name]).tobytes())
    h.update(repr(res.rr_events).encode())
    h.update(repr(res.gc_events).encode())
    h.update(np.ascontiguousarray(res.block_erases).tobytes())
    return h.hexdigest()


def run_all(n: int, repeat: int) -> dict:
    tr = trace(n)
    out = {}
    for preset, policies, schedulers in MATRIX:
        for scheduler in schedulers:
            cfg = device(preset, scheduler)
            for policy in policies:
                key = f"{preset}/{scheduler}/{policy}"
                t0 = time.perf_counter()
                res = flashrr.simulate(cfg, tr, policy, repeat=repeat, **PARAMS.get(policy, {}))
                out[key] = digest(res)
                print(f"{key:42s} {out[key][:16]}  rr {res.summary['rr_count']:>5}  gc {res.summary['gc_count']:>5}"
                      f"  ({time.perf_counter() - t0:.1f} s)", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000, help="requests in the trace")
    ap.add_argument("--repeat", type=int, default=8, help="replays of the trace")
    ap.add_argument("--save", help="write the digests to this JSON file")
    ap.add_argument("--compare", help="compare with the digests in this JSON file")
    args = ap.parse_args()
    got = run_all(args.n, args.repeat)
    if args.save:
        with open(args.save, "w") as f:
            json.dump({"n": args.n, "repeat": args.repeat, "digests": got}, f, indent=1, sort_keys=True)
    if args.compare:
        with open(args.compare) as f:
            old = json.load(f)
        if (old["n"], old["repeat"]) != (args.n, args.repeat):
            sys.exit(f"{args.compare} was made with --n {old['n']} --repeat {old['repeat']}")
        changed = sorted(k for k in got if old["digests"].get(k) != got[k])
        missing = sorted(set(old["digests"]) - set(got))
        print(f"{len(got) - len(changed)} of {len(got)} runs identical; changed: {changed or 'none'}"
              + (f"; not run now: {missing}" if missing else ""))
        if changed:
            sys.exit(1)


if __name__ == "__main__":
    main()
