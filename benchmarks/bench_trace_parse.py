"""Trace parsing speed: cold parse (no cache) and reload from the parse cache; and
the speed of ``trace_stats``.

Writes a random trace of N lines (default 1,000,000) in the mqsim and msr
formats into a temporary directory, then prints for each format:

* cold parse: lines/s of ``read_trace(path, cache=False)`` (best of 3);
* first cached read: the parse plus writing ``<file>.flashrr-cache.parquet``;
* cache reload: seconds for ``read_trace(path)`` when the cache is valid.

Then ``trace_stats`` of a trace of 2N requests (30% writes of 1-8 pages over 16 GiB):
seconds, best of 3, and requests/s.

Run: ``python benchmarks/bench_trace_parse.py [N]``.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from flashrr.trace import Trace
from flashrr.trace.io import cache_path, read_trace, read_trace_report, write_trace
from flashrr.trace.stats import trace_stats


def random_trace(n: int, seed: int = 1) -> Trace:
    rng = np.random.default_rng(seed)
    time_ns = np.cumsum(rng.integers(0, 200_000, n) // 100 * 100)  # 100-ns multiples: exact in msr
    sectors = rng.integers(0, 1 << 27, n)
    size = rng.choice([8, 16, 32, 64, 128], n) * 512
    return Trace(time_ns, sectors * 512, size, rng.random(n) < 0.3, name="bench")


def best_of(k: int, fn) -> float:
    best = float("inf")
    for _ in range(k):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(n: int = 1_000_000) -> None:
    trace = random_trace(n)
    with tempfile.TemporaryDirectory() as d:
        for fmt, name in (("mqsim", "bench.mqsim.txt"), ("msr", "bench.msr.csv")):
            path = Path(d) / name
            t0 = time.perf_counter()
            write_trace(trace, path, fmt)
            t_write = time.perf_counter() - t0
            size_mb = path.stat().st_size / 1e6
            t_cold = best_of(3, lambda: read_trace(path, fmt=fmt, cache=False))
            assert read_trace(path, fmt=fmt, cache=False) == trace
            t0 = time.perf_counter()
            read_trace(path, fmt=fmt)  # parses and writes the cache
            t_first = time.perf_counter() - t0
            t_reload = best_of(3, lambda: read_trace(path, fmt=fmt))
            tr, report = read_trace_report(path, fmt=fmt)
            assert report.from_cache and tr == trace
            print(f"{fmt:6s} {n:,} lines, {size_mb:.1f} MB: write {t_write:.2f} s; cold parse {t_cold:.3f} s "
                  f"= {n / t_cold / 1e6:.2f} M lines/s; first cached read {t_first:.3f} s; "
                  f"cache reload {t_reload * 1e3:.1f} ms ({cache_path(path).stat().st_size / 1e6:.1f} MB cache)")
    rng = np.random.default_rng(0)
    m = 2 * n
    stats_trace = Trace(np.arange(m), rng.integers(0, 1 << 22, m) * 4096, rng.integers(1, 9, m) * 4096,
                        rng.random(m) < 0.3)
    t_stats = best_of(3, lambda: trace_stats(stats_trace))
    print(f"trace_stats of {m:,} requests: {t_stats:.3f} s = {m / t_stats / 1e6:.2f} M requests/s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
