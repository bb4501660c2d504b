"""flashrr's side of the engine issue's three comparisons with MQSim; prints tables.

    python benchmarks/validate_vs_mqsim.py [--case 1|2|3|all] [--n 700000] [--rate 20000] [--seed 1]
        [--write-traces DIR] [--mqsim-dir DIR] [--working-fraction 0.35]

MQSim (CMU-SAFARI/MQSim) is never vendored here; ``docs/validate_vs_mqsim.md`` says how
to build it from its public snapshot and run it on the traces this script writes with
``--write-traces DIR`` (MQSim's ASCII trace format; ``flashrr trace convert`` reads it).

Device, as in the issue: MLC 75/750/3,800 us, 8 channels x 4 chips x 1 die x 4 planes,
256 pages of 8 KiB, 333 MT/s channels (24.6 us per page), block management (k = 1),
MQSim's over-provisioning (12.7%) and GC thresholds (0.05 and hard 0.005).

Cases:
1. GC interference on matched work: 32 against 128 blocks per plane, both simulators on
   the same requests after the same warm-up (a fill of the working set, then random
   writes of twice it), flashrr with MQSim's static plane allocation
   (``superblock.placement = "static_lane"``), effective GC room (see
   ``mqsim_gc_threshold_ratio``), pool of erased blocks (``gc.free_pool = "erased"``)
   and write refusal (``gc.write_stall``); the other rows each change one of these.  With ``--mqsim-dir`` the instrumented MQSim's logs
   give the MQSim rows: GCs, page moves, mean/read/write/p99 latency, growth.
2. No data cache, a mixed trace (``--n`` one-page requests, Poisson at ``--rate``/s,
   uniform over the small device's logical space, 70% reads): mean latency.
   MQSim (the issue's run): 0.66 ms.
3. Write cache with clean room: a write-only trace far below the device's program rate
   on a 64 MiB write cache: mean write latency.  MQSim: 0.5 us (DRAM speed).

Case 1 runs under "gc-first" (MQSim's default) and "user-first" (MQSim's preemptible GC);
cases 2 and 3 also under flashrr 0.1's model ("fcfs" scheduler, busy-until channels,
writes waiting for their evictions' programs), so what moved is visible.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import flashrr
from flashrr.config import CacheConfig, GCConfig, GeometryConfig, ReadReclaimConfig, SimConfig, SuperblockConfig
from flashrr.config import TimingConfig
from flashrr._core.layout import build_layout

MQSIM = {"nocache_mean_ms": 0.66, "write_cache_us": 0.5}  # the MQSim figures for cases 2 and 3
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
    """One run's summary, with ``gc_intervals``: (die, trigger ns, erase end ns) of every GC."""
    cfg = cfg.replace(**pre) if pre else cfg
    t0 = time.perf_counter()
    res = flashrr.simulate(cfg, trace)
    s = res.summary
    s["wall"] = time.perf_counter() - t0
    layout, ev = build_layout(cfg), res.gc_events
    die = np.asarray(layout.comp_die)[ev["lane"].to_numpy().astype(np.int64) * layout.k]
    start = ev["time_ns"].to_numpy()
    s["gc_intervals"] = list(zip(die.tolist(), start.tolist(), (start + ev["trigger_to_erase_ns"].to_numpy()).tolist()))
    return s


# ---------------------------------------------------------------------------
# Case 1, matched work (2026-11-23).  MQSim's preconditioning cannot set up these
# small devices (docs/validate_vs_mqsim.md, "Case 1"), so both simulators age the
# device the same way: a sequential write of the working set, then uniform random
# writes of WARM_RATIO times it; the measured mixed trace follows.  MQSim runs the
# whole sequence as one trace (warm-up timed, then an idle gap); flashrr runs the
# warm-up as its untimed precondition (fill to the trace's top LPN, then
# precondition.warmup_random_writes_ratio).

CASE1_WORKING_FRACTION = 0.35  # of the small device's logical space: MQSim's 32-block planes can hold it
WARM_RATIO = 2.0  # random warm-up writes per working-set page
FILL_RATE, WARM_RATE, GAP_NS = 20_000, 2_500, 10_000_000_000  # warm-up pacing for MQSim (writes/s) and idle gap
MQSIM_GC_RESERVE_BLOCKS = 10  # MQSim's floor on a plane's GC threshold: the GC erases a plane may have in flight
MQSIM_FRONTIERS, FLASHRR_FRONTIERS = 3, 2  # write frontiers per plane/lane kept outside the free pool
# flashrr's runs: (superblock.placement, MQSim's GC room?, gc.free_pool, gc.write_stall).  "matched" is
# MQSim's device: its static CWDP plane allocation ("static_lane"), its GC room, its pool of erased blocks
# (which starts a victim at an erase that leaves the plane short) and its refusal of writes to a plane
# whose pool is short; each other row changes one of the four.
CASE1_VARIANTS = {"matched": ("static_lane", True, "erased", True),
                  "no write stall": ("static_lane", True, "erased", False),
                  "decided pool": ("static_lane", True, "decided", False),
                  "round-robin placement": ("dynamic", True, "erased", True),
                  "nominal 0.05": ("static_lane", False, "erased", True)}
MQSIM_RUNS = {(32, "gc-first"): "b32_gcfirst", (128, "gc-first"): "b128_gcfirst",
              (32, "user-first"): "b32_userfirst", (128, "user-first"): "b128_userfirst"}


def mqsim_gc_threshold_ratio(blocks_per_plane: int, nominal: float = 0.05) -> float:
    """flashrr's ``gc.gc_threshold_ratio`` that leaves a lane the room MQSim leaves a plane.

    MQSim runs GC while a plane's free pool is below max(floor(nominal * blocks), 10)
    blocks: it floors the threshold at the number of GC erases a plane may have in
    flight (10, fixed in its device setup), so with 32 blocks per plane GC runs below
    10 free blocks, not below 5%.  Outside that pool it keeps three write frontiers
    per plane (user data, GC, and mapping pages, the last unused with an ideal mapping
    table); flashrr keeps two per lane (user, GC).  The same data area therefore needs
    one more block in flashrr's threshold.  flashrr's rule is "fewer free than this
    fraction", as MQSim's."""
    mqsim_pool = max(int(nominal * blocks_per_plane), MQSIM_GC_RESERVE_BLOCKS)
    return (mqsim_pool + MQSIM_FRONTIERS - FLASHRR_FRONTIERS) / blocks_per_plane


def case1_traces(n: int, rate: float, seed: int, working_pages: int):
    """(warm-up writes, measured mixed trace) on LPNs [0, working_pages).

    The warm-up writes every working-set page once in order, then ``WARM_RATIO``
    times as many uniform random pages, paced at FILL_RATE and WARM_RATE writes/s."""
    rng = np.random.default_rng(seed + 100)
    n_warm = int(round(WARM_RATIO * working_pages))
    lpn = np.concatenate([np.arange(working_pages), rng.integers(0, working_pages, n_warm)])
    t = np.concatenate([np.arange(working_pages) * (10**9 // FILL_RATE),
                        working_pages * (10**9 // FILL_RATE) + np.arange(n_warm) * (10**9 // WARM_RATE)])
    warm = flashrr.Trace(t, lpn * 8192, np.full(len(lpn), 8192), np.ones(len(lpn), bool), name="mqsim-warmup")
    return warm, mixed_trace(n, rate, working_pages, 0.7, seed)


def mqsim_case1_trace(warm: flashrr.Trace, measured: flashrr.Trace) -> tuple[flashrr.Trace, int]:
    """One trace for MQSim: the warm-up, an idle gap, then the measured trace; and
    the arrival time (ns) where the measured part starts."""
    t0 = int(warm.time_ns[-1]) + GAP_NS
    tr = flashrr.Trace(np.concatenate([warm.time_ns, measured.time_ns + t0]),
                       np.concatenate([warm.offset, measured.offset]), np.concatenate([warm.size, measured.size]),
                       np.concatenate([warm.is_write, measured.is_write]), name="mqsim-case1", rebase=False)
    return tr, t0


def latency_stats(is_read: np.ndarray, lat_ns: np.ndarray) -> dict:
    """Mean, read mean, write mean and p99 (ns) of per-request latencies, in flashrr's summary names."""
    return {"io_latency_mean_ns": float(lat_ns.mean()), "read_latency_mean_ns": float(lat_ns[is_read].mean()),
            "write_latency_mean_ns": float(lat_ns[~is_read].mean()),
            "io_latency_p99_ns": float(np.percentile(lat_ns, 99))}


def read_mqsim_logs(stem: Path, t0: int) -> dict:
    """MQSim's side of one run from the logs of the instrumented build (see the doc):
    ``stem.rt`` lines "R|W enqueue_ns response_ns"; ``stem.gc`` lines "G time_ns valid_pages
    [channel chip plane block]" when a victim starts and, from the second build,
    "E time_ns 0 channel chip plane block" when its erase ends.  Only requests enqueued
    at or after ``t0`` (the measured part) and GCs from ``t0`` count.  With erase lines,
    ``gc_intervals`` holds (chip, start, erase end) of every victim started from ``t0``,
    chips numbered ``channel + 8 * chip`` (flashrr's lane order mod 32), and
    ``gc_on_erase`` counts the victims that started when an erase on their plane ended."""
    rt = np.loadtxt(stem.with_suffix(".rt"), dtype=str, ndmin=2)
    enq, lat = rt[:, 1].astype(np.int64), rt[:, 2].astype(np.int64)
    keep = enq >= t0
    out = latency_stats(rt[keep, 0] == "R", lat[keep].astype(float))
    out["requests"] = int(keep.sum())
    out["warmup_done_ns"] = int((enq[~keep] + lat[~keep]).max()) if (~keep).any() else 0
    gc_path = stem.with_suffix(".gc")
    rows = [line.split() for line in gc_path.read_text().splitlines() if line.strip()] if gc_path.exists() else []
    starts = [(int(r[1]), int(r[2])) for r in rows if r[0] == "G" and int(r[1]) >= t0]
    out["gc_count"], out["gc_page_moves"] = len(starts), sum(v for _, v in starts)
    if any(r[0] == "E" for r in rows):
        open_gc, erased, intervals, on_erase = {}, set(), [], 0
        for r in rows:
            t, plane = int(r[1]), tuple(int(x) for x in r[3:7])
            if r[0] == "E":
                erased.add((t, plane[:3]))
                if plane in open_gc and open_gc[plane] >= t0:
                    intervals.append((plane[0] + 8 * plane[1], open_gc[plane], t))
                open_gc.pop(plane, None)
            else:
                open_gc[plane] = t
                on_erase += t >= t0 and (t, plane[:3]) in erased
        out["gc_intervals"], out["gc_on_erase"] = intervals, on_erase
    return out


def gc_sessions(intervals) -> dict:
    """GC sessions per chip from (chip, start_ns, erase_end_ns) victims: a session is a run of
    victims on one chip whose trigger-to-erase intervals overlap.  Returns the victims'
    mean trigger-to-erase time, the number of sessions, victims per session and the
    session length a random GC-blocked instant falls in (length-weighted mean), in ns."""
    by_chip: dict = {}
    for chip, s, e in intervals:
        by_chip.setdefault(chip, []).append((s, e))
    lengths, victims = [], []
    for ivs in by_chip.values():
        ivs.sort()
        s0, e0, n = ivs[0][0], ivs[0][1], 1
        for s, e in ivs[1:]:
            if s <= e0:
                e0, n = max(e0, e), n + 1
            else:
                lengths.append(e0 - s0)
                victims.append(n)
                s0, e0, n = s, e, 1
        lengths.append(e0 - s0)
        victims.append(n)
    L = np.asarray(lengths, float)
    return {"trigger_to_erase_ns": float(np.mean([e - s for _, s, e in intervals])), "sessions": len(L),
            "victims_per_session": float(np.mean(victims)), "blocked_session_ns": float((L * L).sum() / L.sum())}


def growth(heavy: dict, light: dict) -> dict:
    """Heavy-GC over no-GC ratios of mean, read mean and p99 latency."""
    return {"mean": heavy["io_latency_mean_ns"] / light["io_latency_mean_ns"],
            "read": heavy["read_latency_mean_ns"] / light["read_latency_mean_ns"],
            "p99": heavy["io_latency_p99_ns"] / light["io_latency_p99_ns"]}


def case1(a) -> None:
    """The GC-interference comparison on matched work; prints one table."""
    working = int(a.working_fraction * device(32).logical_pages)
    warm, measured = case1_traces(a.n, a.rate, a.seed, working)
    full, t0 = mqsim_case1_trace(warm, measured)
    if a.write_traces:
        a.write_traces.mkdir(parents=True, exist_ok=True)
        flashrr.write_trace(full, a.write_traces / "case1.mqsim.txt", fmt="mqsim")
        print(f"wrote {a.write_traces / 'case1.mqsim.txt'}: {len(warm):,d} warm-up writes, measured part from {t0} ns")
    pre = dict(fill_ratio=0.0, warmup_random_writes_ratio=WARM_RATIO)
    print(f"case 1: {a.n:,d} mixed requests at {a.rate:,.0f}/s on {working:,d} LPNs, after a fill and "
          f"{WARM_RATIO:g}x random writes\n")
    print(f"{'run':<52}{'GCs':>7}{'moves':>9}{'moves/GC':>9}{'mean ms':>9}{'read ms':>9}{'write ms':>9}{'p99 ms':>9}")
    rows: dict = {}
    for sched in ("gc-first", "user-first"):
        for variant, (placement, matched_room, pool, stall) in CASE1_VARIANTS.items():
            rows[("flashrr", sched, variant)] = {
                b: run(device(b, scheduler=sched, placement=placement, free_pool=pool, write_stall=stall,
                              gc_threshold_ratio=mqsim_gc_threshold_ratio(b) if matched_room else 0.05),
                       measured, **pre) for b in (32, 128)}
        if a.mqsim_dir:
            rows[("MQSim", sched, "")] = {b: read_mqsim_logs(a.mqsim_dir / MQSIM_RUNS[(b, sched)], t0) for b in (32, 128)}
    for (who, sched, thr_name), runs in rows.items():
        for b, s in runs.items():
            label = f"{who} {sched} {b}b" + (f" ({thr_name})" if thr_name else "")
            per = s["gc_page_moves"] / s["gc_count"] if s["gc_count"] else 0.0
            lost = f"  ({a.n - s['requests']} never completed)" if who == "MQSim" and s["requests"] < a.n else ""
            print(f"{label:<52}{s['gc_count']:>7,d}{s['gc_page_moves']:>9,d}{per:>9.1f}"
                  + "".join(f"{s[k] / 1e6:>9.3f}" for k in ("io_latency_mean_ns", "read_latency_mean_ns",
                                                             "write_latency_mean_ns", "io_latency_p99_ns")) + lost)
    print(f"\n{'growth, 32 over 128 blocks/plane':<52}{'mean':>9}{'read':>9}{'p99':>9}   within 25% of MQSim?")
    for sched in ("gc-first", "user-first"):
        ref = growth(rows[("MQSim", sched, "")][32], rows[("MQSim", sched, "")][128]) if a.mqsim_dir else None
        for key, runs in rows.items():
            if key[1] != sched:
                continue
            g = growth(runs[32], runs[128])
            ok = ("" if ref is None or key[0] == "MQSim"
                  else " ".join(f"{k}:{'yes' if abs(g[k] / ref[k] - 1) <= 0.25 else 'no'}" for k in g))
            label = f"{key[0]} {sched}" + (f" ({key[2]})" if key[2] else "")
            print(f"{label:<52}{g['mean']:>9.3g}{g['read']:>9.3g}{g['p99']:>9.3g}   {ok}")
    print(f"\n{'GC sessions per die, 32 blocks/plane':<52}{'GCs':>7}{'t2e ms':>9}{'sessions':>9}{'GC/sess':>9}"
          f"{'blk ms':>9}{'on erase':>9}")
    for (who, sched, variant), runs in rows.items():
        s = runs[32]
        if s.get("gc_intervals"):
            g = gc_sessions(s["gc_intervals"])
            label = f"{who} {sched}" + (f" ({variant})" if variant else "")
            on_erase = s["gc_on_erase"] if who == "MQSim" else s["gc_at_erase"]
            print(f"{label:<52}{s['gc_count']:>7,d}{g['trigger_to_erase_ns'] / 1e6:>9.1f}{g['sessions']:>9,d}"
                  f"{g['victims_per_session']:>9.2f}{g['blocked_session_ns'] / 1e6:>9.1f}{on_erase:>9,d}")
    print("t2e: mean trigger-to-erase time of a victim; blk: length-weighted mean session length (the session\n"
          "a GC-blocked instant falls in); on erase: victims started when an erase on their plane (lane) ended")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", choices=("1", "2", "3", "all"), default="all",
                    help="1: GC interference on matched work (its own table); 2, 3: the issue's other cases")
    ap.add_argument("--n", type=int, default=700_000, help="requests per trace")
    ap.add_argument("--rate", type=float, default=20_000, help="arrivals per second")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write-traces", type=Path, help="also write the traces here, in MQSim's format")
    ap.add_argument("--working-fraction", type=float, default=CASE1_WORKING_FRACTION,
                    help="case 1: working set as a fraction of the 32-block device's logical space")
    ap.add_argument("--mqsim-dir", type=Path,
                    help="case 1: directory of the instrumented MQSim's logs (b32_gcfirst.rt/.gc, ...)")
    a = ap.parse_args()
    if a.case in ("1", "all"):
        case1(a)
    if a.case in ("2", "3", "all"):
        cases23(a)


def cases23(a) -> None:
    """Cases 2 and 3 under each model; prints a table."""
    small = device(32)
    mixed = mixed_trace(a.n, a.rate, small.logical_pages, 0.7, a.seed)
    writes = mixed_trace(a.n // 7, 1_000, small.logical_pages, 0.0, a.seed + 1)
    if a.write_traces:
        a.write_traces.mkdir(parents=True, exist_ok=True)
        flashrr.write_trace(mixed, a.write_traces / "mixed.mqsim.txt", fmt="mqsim")
        flashrr.write_trace(writes, a.write_traces / "writes.mqsim.txt", fmt="mqsim")
    print(f"\ncases 2 and 3: {a.n:,d} mixed requests at {a.rate:,.0f}/s; MQSim's figures from the engine issue\n")
    print(f"{'case':<44}{'gc-first':>12}{'user-first':>12}{'0.1 model':>12}{'MQSim':>10}")
    rows = {}
    for name, model in MODELS.items():
        nocache = run(device(128, **model), mixed)  # the roomy device: no GC, no cache
        cached = run(device(128, 64 << 20, **model), writes)
        rows[name] = {"nocache_mean_ms": nocache["io_latency_mean_ns"] / 1e6,
                      "write_cache_us": cached["write_latency_mean_ns"] / 1e3}
    labels = [("nocache_mean_ms", "2. no cache, mixed: mean latency (ms)"),
              ("write_cache_us", "3. write cache, clean room: write mean (us)")]
    for key, label in labels:
        vals = "".join(f"{rows[m][key]:>12.4g}" for m in MODELS)
        print(f"{label:<44}{vals}{MQSIM[key]:>10.4g}")
    print("\nWithin 25% of MQSim (gc-first):", {k: abs(rows["gc-first"][k] / MQSIM[k] - 1) <= 0.25 for k, _ in labels})


if __name__ == "__main__":
    main()
