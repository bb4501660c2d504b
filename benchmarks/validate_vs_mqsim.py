"""flashrr's side of the engine issue's three comparisons with MQSim; prints a table.

    python benchmarks/validate_vs_mqsim.py [--n 700000] [--rate 20000] [--seed 1]

The MQSim side is the issue's record (CMU-SAFARI/MQSim, run by hand with the
device below; ``MQSIM`` in this file).  To rerun it, see ``docs/validate_vs_mqsim.md``:
it builds MQSim from its public snapshot (never vendored here) and runs the same
traces, which this script can write with ``--write-traces DIR`` (MQSim's ASCII trace
format, ``flashrr trace convert`` understands it too).

Device, as in the issue: MLC 75/750/3,800 us, 8 channels x 4 chips x 1 die x 4 planes,
256 pages of 8 KiB, 333 MT/s channels (24.6 us per page), block management (k = 1),
MQSim's over-provisioning (12.7%) and GC thresholds (0.05 and hard 0.005).

Traces (synthetic, seeded): ``--n`` requests of one 8 KiB page, Poisson arrivals at
``--rate`` requests/s, uniform random LPNs over the logical space of the small device,
70% reads unless a case says otherwise.

Cases:
1. GC interference: the same mixed trace on 32 blocks per plane and on 128 (a quarter
   full: no GC).  The small device is filled and then aged with random writes of twice
   its logical space, so GC starts from a steady state, as MQSim's preconditioning
   aims to (a sequential fill would leave every victim fully valid at first).  Growth of mean,
   read and p99 latency, heavy over none.  MQSim: 35.6x mean, 64x read, 157x p99.
2. No data cache, mixed trace at ``--rate``: mean latency.  MQSim: 0.66 ms.
3. Write cache with clean room: a write-only trace far below the device's program rate
   on a 64 MiB write cache: mean write latency.  MQSim: 0.5 us (DRAM speed).

Each case runs under "gc-first" (MQSim's default), "user-first" (MQSim's preemptible
GC), and flashrr 0.1's model ("fcfs" scheduler, busy-until channels, writes waiting for
their evictions' programs), so what moved is visible.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import flashrr
from flashrr.config import CacheConfig, GCConfig, GeometryConfig, ReadReclaimConfig, SimConfig, SuperblockConfig
from flashrr.config import TimingConfig

MQSIM = {"gc_mean_x": 35.6, "gc_read_x": 64.0, "gc_p99_x": 157.0, "nocache_mean_ms": 0.66, "write_cache_us": 0.5}
MODELS = {
    "gc-first": dict(scheduler="gc-first"),
    "user-first": dict(scheduler="user-first"),
    "0.1 model": dict(scheduler="fcfs", channel_model="busy-until", write_ack="program"),
}


def device(blocks_per_plane: int, cache_bytes: int = 0, **changes) -> SimConfig:
    cfg = SimConfig(
        name=f"mqsim-mlc-{blocks_per_plane}",
        geometry=GeometryConfig(8, 4, 1, 4, blocks_per_plane, 256, 8192),
        timing=TimingConfig(75_000, 750_000, 3_800_000, 24_600, 500),  # DRAM 0.5 us: MQSim's page write
        cache=CacheConfig(cache_bytes, read_allocate=False),  # MQSim's WRITE_CACHE mode
        gc=GCConfig(0.05, 0.127, 0.005),
        read_reclaim=ReadReclaimConfig(rr_enabled=False),
        superblock=SuperblockConfig(sb_planes=1),
    )
    return cfg.replace(**changes) if changes else cfg


def mixed_trace(n: int, rate: float, lpns: int, read_ratio: float, seed: int) -> flashrr.Trace:
    rng = np.random.default_rng(seed)
    gaps = rng.exponential(1e9 / rate, n).astype(np.int64)
    t = np.cumsum(gaps) - gaps[0]
    lpn = rng.integers(0, lpns, n)
    return flashrr.Trace(t, lpn * 8192, np.full(n, 8192), rng.random(n) >= read_ratio, name="mqsim-mix")


def run(cfg: SimConfig, trace: flashrr.Trace, **pre) -> dict:
    t0 = time.perf_counter()
    s = flashrr.simulate(cfg.replace(**pre) if pre else cfg, trace).summary
    s["wall"] = time.perf_counter() - t0
    return s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=700_000, help="requests per trace")
    ap.add_argument("--rate", type=float, default=20_000, help="arrivals per second")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write-traces", type=Path, help="also write the traces here, in MQSim's format")
    a = ap.parse_args()
    small = device(32)
    mixed = mixed_trace(a.n, a.rate, small.logical_pages, 0.7, a.seed)
    writes = mixed_trace(a.n // 7, 1_000, small.logical_pages, 0.0, a.seed + 1)
    if a.write_traces:
        a.write_traces.mkdir(parents=True, exist_ok=True)
        flashrr.write_trace(mixed, a.write_traces / "mixed.mqsim.txt", fmt="mqsim")
        flashrr.write_trace(writes, a.write_traces / "writes.mqsim.txt", fmt="mqsim")
    print(f"{a.n:,d} mixed requests at {a.rate:,.0f}/s; MQSim's figures from the engine issue\n")
    print(f"{'case':<44}{'gc-first':>12}{'user-first':>12}{'0.1 model':>12}{'MQSim':>10}")
    rows = {}
    for name, model in MODELS.items():
        heavy = run(device(32, **model), mixed, fill_ratio=1.0, warmup_random_writes_ratio=2.0)
        light = run(device(128, **model), mixed)
        nocache = light  # case 2 runs on the roomy device: no GC, no cache
        cached = run(device(128, 64 << 20, **model), writes)
        rows[name] = {
            "gc_mean_x": heavy["io_latency_mean_ns"] / light["io_latency_mean_ns"],
            "gc_read_x": heavy["read_latency_mean_ns"] / light["read_latency_mean_ns"],
            "gc_p99_x": heavy["io_latency_p99_ns"] / light["io_latency_p99_ns"],
            "gc_count": heavy["gc_count"],
            "nocache_mean_ms": nocache["io_latency_mean_ns"] / 1e6,
            "write_cache_us": cached["write_latency_mean_ns"] / 1e3,
        }
    labels = [("gc_mean_x", "1. GC interference: mean latency growth (x)"),
              ("gc_read_x", "1. GC interference: read latency growth (x)"),
              ("gc_p99_x", "1. GC interference: p99 latency growth (x)"),
              ("gc_count", "1. GCs in the heavy run"),
              ("nocache_mean_ms", "2. no cache, mixed: mean latency (ms)"),
              ("write_cache_us", "3. write cache, clean room: write mean (us)")]
    for key, label in labels:
        ref = MQSIM.get(key)
        vals = "".join(f"{rows[m][key]:>12.4g}" for m in MODELS)
        print(f"{label:<44}{vals}{(f'{ref:>10.4g}' if ref is not None else f'{chr(8212):>10}')}")
    print("\nWithin 25% of MQSim (gc-first):",
          {k: abs(rows["gc-first"][k] / MQSIM[k] - 1) <= 0.25 for k in MQSIM})


if __name__ == "__main__":
    main()
