"""Engine speed and memory: prints requests/s and peak memory.

    python benchmarks/bench_engine.py [--n 1000000] [--reference-n 20000] [--scheduler S]

Workload (the engine issue's): the ``shuffler`` device preset with ``gc.copyback``
on and ``gc.aligned_moves`` off (the workload of the stress figures in docs/model.md;
``--moves aligned`` keeps the preset's aligned moves) and the Baseline
policy on a synthetic trace of 70% reads, 4-32 KiB requests, a hot set over a
8 GiB footprint (the synthetic generator touches every extent of its footprint, and 1M requests of 4-32 KiB cannot cover 16 GiB).  Reported:

* compiled engine requests/s on N requests (engine time only: preconditioning
  and the replay loop, not trace generation), and per CPU second of the whole
  ``simulate`` call, which a shared machine disturbs less than wall time;
* the same with RR and GC active (best of ``--rounds`` fresh processes, with
  the median and worst beside it): the logical space is filled first
  (``precondition.fill_ratio = 1``), so the trace's writes drive greedy GC, and
  the trace is replayed 8 times, so its hot blocks reach the 10K-read RR
  threshold; only the replay loop is timed.  Each request then carries about 3.3
  GC page moves (write amplification near 6), so the line after it also gives
  flash page operations per second (docs/model.md section 7);
* reference (pure-Python) engine requests/s on a prefix of the same trace;
* peak resident memory of a fresh process that replays the trace 1x and 10x
  (``repeat``, streamed), and of one that replays a 10x longer trace, so
  the growth with trace length is visible (the trace arrays themselves take
  33 bytes per request).

Each memory figure comes from a child process (``ru_maxrss``), so runs do not
share a heap.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

CHILD = r"""
import json, resource, sys, time
import flashrr
from flashrr.trace.synth import synth_trace
n, n_use, repeat, engine = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
full, scheduler, moves = sys.argv[5] == "full", sys.argv[6], sys.argv[7]
trace = synth_trace(None, n_requests=n, seed=1, read_ratio=0.7, read_size_mean_bytes=16384, read_size_cv=0.5,
                    write_size_mean_bytes=16384, write_size_cv=0.5, max_size_bytes=32768,
                    footprint_bytes=8 << 30, write_region_fraction=0.3, hot_set_ratio=0.2, hot_skew=1.0, interarrival_mean_ns=20_000)
trace = trace.slice(0, n_use)
rss_trace = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
cfg = flashrr.SimConfig.preset("shuffler")
if hasattr(cfg.gc, "copyback"):  # copyback moves: the workload of the stress figures in docs/model.md
    cfg = cfg.replace(copyback=True)
if hasattr(cfg.gc, "aligned_moves"):  # per-block write points (the stress figures') unless --moves aligned
    cfg = cfg.replace(aligned_moves=moves == "aligned")
if scheduler != "preset":  # engines before 0.2 have no scheduler setting
    cfg = cfg.replace(scheduler=scheduler)
if full:  # time the replay only: the fill of 7.3M pages would dominate
    from flashrr._core import load_compiled_engine
    from flashrr._core.layout import build_layout
    from flashrr.policy import Baseline
    import numpy as np
    cfg = cfg.replace(fill_ratio=1.0)
    eng = load_compiled_engine()(build_layout(cfg), Baseline().hooks(), 0, False)
    eng.precondition(cfg.logical_pages, np.zeros(0, np.int64))
    t0, c0 = time.perf_counter(), time.process_time()
    eng.run(trace.time_ns, trace.offset, trace.size, trace.is_write, repeat)
    if hasattr(eng, "finish"):
        eng.finish()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    c = eng.results()["counters"]
    print(json.dumps({"requests": c["requests"], "wall_s": wall, "cpu_s": cpu, "rr_count": c["rr_count"],
                      "gc_count": c["gc_count"], "moves": c["gc_page_moves"] + c["rr_page_moves"],
                      "flash_pages": c["flash_read_pages"] + c["flash_pages_programmed"]
                                     + c["gc_page_moves"] + c["rr_page_moves"],
                      "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
    sys.exit(0)
c0 = time.process_time()
res = flashrr.simulate(cfg, trace, policy="baseline", engine=engine, repeat=repeat)
cpu = time.process_time() - c0
s = res.summary
print(json.dumps({"requests": s["requests"], "wall_s": s["sim_wall_s"], "cpu_s": cpu, "rr_count": s["rr_count"],
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "rss_after_trace_mib": rss_trace / 1024}))
"""


def child(n: int, repeat: int, engine: str, n_use: int | None = None, full: bool = False,
          scheduler: str = "preset", moves: str = "per-block") -> dict:
    """Run one simulation in a fresh process on the first ``n_use`` requests of an ``n``-request trace."""
    argv = [sys.executable, "-c", CHILD, str(n), str(n_use or n), str(repeat), engine, "full" if full else "fresh",
            scheduler, moves]
    out = subprocess.run(argv, capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"benchmark child failed (n={n}, repeat={repeat}, {engine}):\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="requests in the trace")
    ap.add_argument("--reference-n", type=int, default=20_000, help="requests for the reference engine")
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument("--rounds", type=int, default=3,
                    help="fresh processes for the RR and GC line: the best is reported, with the median and worst, "
                         "since a shared machine only ever slows a run down")
    ap.add_argument("--scheduler", default="preset",
                    help="timing.scheduler to run (default: the preset's; 'preset' also runs engines without one)")
    ap.add_argument("--moves", default="per-block", choices=("per-block", "aligned"),
                    help="gc.aligned_moves off (the stress figures' workload) or on (the shuffler preset's)")
    args = ap.parse_args()

    t0 = time.perf_counter()
    c = child(args.n, 1, "compiled", scheduler=args.scheduler, moves=args.moves)
    print(f"compiled  : {c['requests']:>10,d} requests in {c['wall_s']:.3f} s = "
          f"{c['requests'] / c['wall_s'] / 1e6:.2f} M requests/s  ({c['requests'] / c['cpu_s'] / 1e6:.2f} M per CPU "
          f"second of the whole simulate call; rr_count {c['rr_count']})")
    runs = sorted((child(args.n, 8, "compiled", full=True, scheduler=args.scheduler, moves=args.moves)
                   for _ in range(args.rounds)),
                  key=lambda r: r["cpu_s"])
    f, med = runs[0], runs[len(runs) // 2]
    print(f"RR and GC : {f['requests']:>10,d} requests in {f['wall_s']:.3f} s = "
          f"{f['requests'] / f['wall_s'] / 1e6:.2f} M requests/s  ({f['requests'] / f['cpu_s'] / 1e6:.2f} M per CPU "
          f"second; full device: rr_count {f['rr_count']}, "
          f"gc_count {f['gc_count']}; replay only)")
    if len(runs) > 1:
        print(f"            best of {len(runs)} fresh processes by CPU time; median "
              f"{med['requests'] / med['cpu_s'] / 1e6:.2f}, worst {runs[-1]['requests'] / runs[-1]['cpu_s'] / 1e6:.2f} "
              f"M per CPU second")
    print(f"            {f['moves'] / f['requests']:.1f} pages moved per request; "
          f"{f['flash_pages'] / f['cpu_s'] / 1e6:.1f} M flash page operations per CPU second "
          f"(user and moved pages read, pages programmed)")
    r = child(args.n, 1, "reference", n_use=args.reference_n)
    print(f"reference : {r['requests']:>10,d} requests in {r['wall_s']:.3f} s = "
          f"{r['requests'] / r['wall_s'] / 1e3:.1f} K requests/s")
    print(f"speed-up  : {(c['requests'] / c['wall_s']) / (r['requests'] / r['wall_s']):.0f}x")
    if not args.skip_memory:
        one = child(args.n, 1, "compiled")
        ten = child(args.n, 10, "compiled")
        long_ = child(10 * args.n, 1, "compiled")
        print(f"peak RSS  : {one['peak_rss_mib']:.0f} MiB at {one['requests']:,d} requests (1 x {args.n:,d})")
        print(f"peak RSS  : {ten['peak_rss_mib']:.0f} MiB at {ten['requests']:,d} requests (10 x {args.n:,d}, "
              f"streamed repeat) -> {ten['requests'] / ten['wall_s'] / 1e6:.2f} M requests/s")
        print(f"peak RSS  : {long_['peak_rss_mib']:.0f} MiB at {long_['requests']:,d} requests (one "
              f"{10 * args.n:,d}-request trace; {long_['rss_after_trace_mib']:.0f} MiB after building the trace)")
    print(f"(benchmark wall time {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
