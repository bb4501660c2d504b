"""Streaming replay of a large trace file: parse speed, replay speed, peak memory.

Writes a generated MSR Cambridge file of N requests (default 20,000,000, and
2N to show that memory does not grow with length), then runs, each in a fresh
process so peak RSS is the run's own:

* ``first``: no parse cache yet; the file is parsed (streaming) into
  ``<file>.flashrr-cache.parquet`` and replayed from it in chunks;
* ``cached``: the cache exists; the trace is replayed from it in chunks;
* ``memory`` (N only): the whole trace loaded into memory, then replayed in
  one engine call (the pre-streaming path);
* ``speed`` (N only): in-memory and streamed replay alternately in one
  process, best of three each, by wall time and by CPU time (the process's
  user + system time of the whole ``simulate`` call, trace reading included),
  which other jobs on a shared machine disturb much less than wall time.

For each it prints parse lines/s (first run), replay requests/s (requests /
the engine's ``sim_wall_s``, which covers precondition and replay) and peak
RSS (``ru_maxrss``).  The trace is read-mostly (95% reads of 4 KiB over an
8 GiB footprint) on the ``shuffler`` device, so the engine is fast and the
trace handling is a visible share of the time.

Run: ``python benchmarks/bench_trace_stream.py [N] [--dir DIR] [--keep]``
(about 10 minutes for N = 20M on the project's 2-core machine).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from flashrr.trace import Trace
from flashrr.trace.source import SourceInfo, TraceSource

DEVICE = "shuffler"
SPEED_ROUNDS = 3
GEN_CHUNK = 1 << 20


class GeneratedTrace(TraceSource):
    """``n`` random requests produced chunk by chunk (never all in memory):
    gaps of 0-20 us in 100-ns steps (exact in MSR's FILETIME ticks), 4 KiB
    requests at random 4 KiB-aligned offsets in the first 8 GiB, 5% writes."""

    name = "bench"

    def __init__(self, n: int, seed: int = 1):
        self.n, self.seed = n, seed

    def chunks(self, chunk_requests=None):
        rng = np.random.default_rng(self.seed)
        t0 = 0
        for start in range(0, self.n, GEN_CHUNK):
            k = min(GEN_CHUNK, self.n - start)
            t = t0 + np.cumsum(rng.integers(0, 200, k) * 100)
            t0 = int(t[-1])
            yield Trace(t, rng.integers(0, (8 << 30) // 4096, k) * 4096, np.full(k, 4096),
                        rng.random(k) < 0.05, name=self.name, rebase=False)

    def _compute_info(self) -> SourceInfo:  # not needed for writing; avoid a second generation pass
        raise NotImplementedError


def child(mode: str, path: str) -> None:
    """One measured run in this process; prints a JSON line."""
    from flashrr.simulate import simulate
    from flashrr.trace.io import open_trace

    t0 = time.perf_counter()
    source, report = open_trace(path)
    t_open = time.perf_counter() - t0
    n = source.info().n_requests
    if mode == "memory":
        trace = source.to_trace()
        del source
        res = simulate(DEVICE, trace, chunk_requests=len(trace))
    elif mode == "speed":  # in-memory and streamed replay alternately in one process, best of SPEED_ROUNDS each
        trace = source.to_trace()
        best = {}
        for _ in range(SPEED_ROUNDS):
            for kind, tr, chunk in (("memory", trace, len(trace)), ("stream", source, None)):
                cpu0 = time.process_time()
                wall = simulate(DEVICE, tr, chunk_requests=chunk).summary["sim_wall_s"]
                cpu = time.process_time() - cpu0
                best[f"{kind}_wall_s"] = min(best.get(f"{kind}_wall_s", wall), wall)
                best[f"{kind}_cpu_s"] = min(best.get(f"{kind}_cpu_s", cpu), cpu)
        print(json.dumps({"mode": mode, "n": n, "from_cache": report.from_cache, "open_s": t_open, **best}))
        return
    else:
        res = simulate(DEVICE, source)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"mode": mode, "n": n, "from_cache": report.from_cache, "open_s": t_open,
                      "sim_wall_s": res.summary["sim_wall_s"], "requests": res.summary["requests"],
                      "peak_rss_mb": rss_mb}))


def run_child(mode: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", mode, str(path)], check=True, capture_output=True,
                         text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=20_000_000)
    ap.add_argument("--dir", default=None, help="where to write the trace files (default: a temporary directory)")
    ap.add_argument("--keep", action="store_true", help="keep the trace files")
    ap.add_argument("--child", nargs=2, metavar=("MODE", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    from flashrr.trace.io import cache_path, write_trace

    d = Path(args.dir or tempfile.mkdtemp(prefix="flashrr-bench-"))
    d.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        for n in (args.n, 2 * args.n):
            path = d / f"bench_{n}.msr.csv"
            t0 = time.perf_counter()
            write_trace(GeneratedTrace(n), path, "msr")
            print(f"wrote {path.name}: {n:,} requests, {path.stat().st_size / 1e9:.2f} GB in "
                  f"{time.perf_counter() - t0:.0f} s", flush=True)
            modes = ("first", "cached", "memory") if n == args.n else ("first", "cached")
            for mode in modes:
                if mode == "first":
                    cache_path(path).unlink(missing_ok=True)
                r = run_child(mode, path)
                assert r["requests"] == n and r["from_cache"] == (mode != "first")
                r["parse_lines_s"] = n / r["open_s"] if mode == "first" else None
                r["replay_req_s"] = n / r["sim_wall_s"]
                rows.append(r)
                print(f"{n:>12,} {mode:7s} parse {r['open_s']:7.1f} s"
                      + (f" ({r['parse_lines_s'] / 1e6:.2f} M lines/s)" if mode == "first" else " " * 19)
                      + f"  replay {r['replay_req_s'] / 1e6:.2f} M req/s  peak RSS {r['peak_rss_mb']:.0f} MB",
                      flush=True)
            if n == args.n:
                speed = run_child("speed", path)
            if not args.keep:
                path.unlink()
                cache_path(path).unlink(missing_ok=True)
        for what in ("wall", "cpu"):
            mem_s, str_s = speed[f"memory_{what}_s"], speed[f"stream_{what}_s"]
            print(f"replay speed by {what} time, streamed vs in-memory, best of {SPEED_ROUNDS} alternating runs in "
                  f"one process ({args.n:,} requests): {mem_s / str_s:.1%} (in-memory {args.n / mem_s / 1e6:.2f} M "
                  f"req/s, streamed {args.n / str_s / 1e6:.2f} M req/s)")
    finally:
        if args.dir is None and not args.keep:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
