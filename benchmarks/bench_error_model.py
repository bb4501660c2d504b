"""Request-loop speed with the error model off and on: prints requests/s per variant.

    python benchmarks/bench_error_model.py [--n 400000] [--repeat 8] [--rounds 5] [--pe 0] [--no-cache]

Workload: the ``shuffler`` device preset, the Baseline policy, the synthetic trace of
``bench_engine.py`` (70% reads, 4-32 KiB requests) over a 2 GiB footprint.  Variants:

* ``off``: the preset as it is (the error model off);
* ``on-count``: the model on (TLC fitted to Cocktail's table, blocks at ``--pe`` P/E
  cycles, sd a tenth of it, data 90 days old), RR still by count and retry by the
  preset's table: what tracking the blocks' state costs;
* ``on-rber``: the same model with ``read_reclaim.trigger = "rber"`` and
  ``read_retry.retry_model = "rber"`` (Cocktail's step latencies): every read looks
  up its block's state and takes its steps from the model.  At 0 P/E cycles and 90
  days the model's RR threshold is about the preset's (10,241 reads against 10,000,
  docs/reliability.md), so the variants do about the same RR work; ``--pe 1000`` makes
  the model reclaim far more often (about 445 reads).

Each run is a fresh process that builds the engine, preconditions it (untimed) and
times the replay loop alone (``eng.run`` and ``eng.finish``), in wall and CPU time.
The variants run in alternating rounds (off, on-count, on-rber, off, ...), so a load
change on a shared machine hits them alike; the load average is printed before and
after.  Reported per variant: best, median and worst requests/s over the rounds, and
the median's ratio to ``off``.  Different RR counts change the work done, so the RR
count of each variant is printed too.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy as np
import flashrr
from flashrr.config import ReadRetryConfig
from flashrr.trace.synth import synth_trace
from flashrr._core import load_compiled_engine
from flashrr.engine_layout import engine_layout
from flashrr.policy import Baseline
n, repeat, variant, pe_mean, cache = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), sys.argv[5]
trace = synth_trace(None, n_requests=n, seed=1, read_ratio=0.7, read_size_mean_bytes=16384, read_size_cv=0.5,
                    write_size_mean_bytes=16384, write_size_cv=0.5, max_size_bytes=32768,
                    footprint_bytes=2 << 30, write_region_fraction=0.3, hot_set_ratio=0.2, hot_skew=1.0,
                    interarrival_mean_ns=20_000)
cfg = flashrr.SimConfig.preset("shuffler")
if cache == "off":
    cfg = cfg.replace(capacity_bytes=0)
if variant != "off":
    cfg = cfg.replace(error_model={"enabled": True, "rber_preset": "fit-cocktail", "initial_pe_mean": pe_mean,
                                   "initial_pe_sd": pe_mean / 10, "data_age_s": 90 * 86400.0})
if variant == "on-rber":
    cfg = cfg.replace(trigger="rber", read_retry=ReadRetryConfig.from_model(ReadRetryConfig.cocktail(95_000)))
fill = int(trace.offset.max() // cfg.geometry.page_size_bytes) + 64
eng = load_compiled_engine()(engine_layout(cfg), Baseline().hooks(), 0, False)
eng.precondition(min(fill, cfg.logical_pages), np.zeros(0, np.int64))
t0, c0 = time.perf_counter(), time.process_time()
eng.run(trace.time_ns, trace.offset, trace.size, trace.is_write, repeat)
eng.finish()
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
r = eng.results()
c = r["counters"]
em = r.get("error_model")
print(json.dumps({"requests": c["requests"], "wall_s": wall, "cpu_s": cpu, "rr_count": c["rr_count"],
                  "uncorrectable": em["uncorrectable_reads"] if em else 0,
                  "flash_reads": c["flash_read_pages"] / c["requests"]}))
"""

VARIANTS = ("off", "on-count", "on-rber")


def run(n: int, repeat: int, variant: str, pe_mean: float, cache: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(repeat), variant, str(pe_mean), cache], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=400_000, help="trace requests (default 400,000)")
    ap.add_argument("--repeat", type=int, default=8, help="replays of the trace per run (default 8)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    ap.add_argument("--pe", type=float, default=0.0,
                    help="mean initial P/E cycles of the model's blocks (sd a tenth of it; default 0)")
    ap.add_argument("--no-cache", action="store_true", help="no DRAM cache: every read goes to flash")
    a = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} CPUs")
    rates: dict = {v: [] for v in VARIANTS}
    cpu_rates: dict = {v: [] for v in VARIANTS}
    last: dict = {}
    for _ in range(a.rounds):
        for v in VARIANTS:
            r = last[v] = run(a.n, a.repeat, v, a.pe, "off" if a.no_cache else "on")
            rates[v].append(r["requests"] / r["wall_s"])
            cpu_rates[v].append(r["requests"] / r["cpu_s"])
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{a.n:,} requests x {a.repeat} replays, {a.rounds} alternating rounds, cache {'off' if a.no_cache else 'on'}, "
          f"{last['off']['flash_reads']:.2f} flash page reads per request; requests/s of the replay loop")
    base, base_cpu = statistics.median(rates["off"]), statistics.median(cpu_rates["off"])
    print(f"{'variant':<9} {'best':>10} {'median':>10} {'worst':>10} {'median/off':>10} "
          f"{'cpu median':>11} {'cpu/off':>8} {'RRs':>6} {'uncorrectable':>13}")
    for v in VARIANTS:
        med, cmed = statistics.median(rates[v]), statistics.median(cpu_rates[v])
        print(f"{v:<9} {max(rates[v]):>10,.0f} {med:>10,.0f} {min(rates[v]):>10,.0f} {med / base:>10.1%} "
              f"{cmed:>11,.0f} {cmed / base_cpu:>8.1%} {last[v]['rr_count']:>6} {last[v]['uncorrectable']:>13,}")


if __name__ == "__main__":
    main()
