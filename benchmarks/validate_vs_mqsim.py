"""flashrr against MQSim on the same requests and the same device; prints one table per case.

    python benchmarks/validate_vs_mqsim.py [--mqsim PATH] [--case NAME ...] [--n 700000]
        [--gap-us 100] [--footprint-gib 3] [--seed 1] [--timeout 1200] [--workdir DIR]

Without ``--mqsim`` only flashrr's side runs.  With it (a build of CMU-SAFARI/MQSim with the
patches of ``shared/mqsim/``, made outside this repository), every case also writes MQSim's
trace and XML under ``--workdir``, runs MQSim with a timeout, reads its per-request log and
output XML, and the table gives both sides and their ratio.  A run MQSim does not finish (a
crash, a timeout, requests it never completes) is reported as such; its latencies are then
from the requests it finished and are marked.

The device (docs/validate_vs_mqsim.md): MLC 75/750/3,800 us; 8 channels x 4 chips x 1 die x
4 planes; 256 pages of 8 KiB; 333 MT/s channels (24.6 us per page); block management (k = 1);
MQSim's over-provisioning (12.7%) and GC thresholds (0.05, hard 0.005), greedy victims, an
ideal mapping table, no suspension.  flashrr models MQSim's static CWDP plane allocation
(``page_placement.placement = "static_lane"``), its GC room (``mqsim_gc_threshold_ratio``) with its
GC frontier block taken at start (``gc.reserve_gc_frontier``), its pool of erased blocks
(``gc.free_pool = "erased"``), its refusal of writes to a plane whose pool is short
(``gc.write_stall``) and its GC page moves through the controller (``gc.copyback = false``).
Every run of flashrr is made three times: without ``timing.read_priority`` (MQSim's order of
a chip's reads before its writes), with it ("rp"),
and with it and MQSim's joins of user transactions into GC commands, ``timing.join_writes``
and ``timing.join_reads`` ("rpj"); with a cache only the first, since read priority does not
take one.

The trace: ``--n`` one-page (8 KiB) requests, Poisson arrivals with a ``--gap-us`` mean gap,
over a ``--footprint-gib`` footprint starting at LBA 0, uniform or Zipf-skewed.  MQSim's trace
starts with a prefix: a sequential write of the whole footprint in 32 KiB requests 50 us apart,
then (GC cases only) ``--warmup-ratio`` times the footprint in uniform random one-page writes
at ``--warmup-rate`` per second, so that the device is aged and GC is running when the
measured part starts, then 1.1 s of idle time; only the requests after it are measured.
The "filled" cases have no random writes and their own footprint and gap (``CASES``).
flashrr preconditions the same way, untimed: a sequential fill of the footprint, then the same
number of random writes (``precondition.warmup_random_writes_ratio``, drawn from its own seed,
so the two devices are aged alike, not page for page).  Without the random writes a
sequentially filled 3 GiB footprint leaves both simulators without a single GC in 700,000
requests: the 32-block device still has room for all the measured writes.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import flashrr
from flashrr.config import CacheConfig, GCConfig, GeometryConfig, ReadReclaimConfig, SimConfig, SuperblockConfig
from flashrr.config import TimingConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mqsim_side  # noqa: E402

PAGE_BYTES = 8192
PREFIX_REQUEST_BYTES, PREFIX_GAP_NS, PREFIX_IDLE_NS = 32 << 10, 50_000, 1_100_000_000
CACHE_BYTES = 64 << 20
MODES = {"gc-first": False, "user-first": True}  # flashrr scheduler -> MQSim's Preemptible_GC_Enabled
MQSIM_GC_RESERVE_BLOCKS = 10  # MQSim's floor on a plane's GC threshold: the GC erases a plane may have in flight
MQSIM_FRONTIERS, FLASHRR_FRONTIERS = 3, 2  # write frontiers per plane/lane kept outside the free pool


@dataclass(frozen=True)
class Case:
    """One comparison: the trace's read share and address skew (Zipf exponent, 0 = uniform),
    the blocks per plane of each run (two: heavy GC, then no GC; or one), the data cache in
    bytes, and the flashrr schedulers (MQSim modes) it runs under.  ``fill_only``: a GC case
    whose device is filled sequentially and not aged; ``gap_us`` and ``footprint_gib``: the
    case's own mean gap (us) and footprint (GiB) in place of ``--gap-us`` and
    ``--footprint-gib``."""

    read_share: float
    zipf: float = 0.0
    blocks: tuple = (128,)
    cache_bytes: int = 0
    modes: tuple = ("gc-first",)
    fill_only: bool = False
    gap_us: float | None = None
    footprint_gib: float | None = None

    @property
    def aged(self) -> bool:
        """GC cases age the device with random writes before the measured part, unless fill_only."""
        return len(self.blocks) > 1 and not self.fill_only


#: Two families.  "Aged" (the first six): the GC cases age the device with random writes
#: after the sequential fill.  "Filled": the footprint is written in order only, then the
#: 70/30 trace runs at a load far from saturation (100 us: the dies of the device without
#: GC about 10% busy) and near it (15 us: about 63%).  Its footprint is 3.5 GiB: with
#: 3 GiB, a device filled in order has room for every measured write and never collects;
#: with 3.5 GiB the 32-block device starts to collect at about 85% of the trace.
FILLED_GIB = 3.5
CASES = {
    "read-only": Case(1.0),
    "70/30": Case(0.7),
    "70/30 cached": Case(0.7, cache_bytes=CACHE_BYTES),
    "GC 70/30": Case(0.7, blocks=(32, 128), modes=tuple(MODES)),
    "GC 50/50": Case(0.5, blocks=(32, 128), modes=tuple(MODES)),
    "GC 70/30 zipf 0.8": Case(0.7, zipf=0.8, blocks=(32, 128), modes=tuple(MODES)),
    "filled 70/30 far": Case(0.7, blocks=(32, 128), modes=tuple(MODES), fill_only=True, gap_us=100.0,
                             footprint_gib=FILLED_GIB),
    "filled 70/30 near": Case(0.7, blocks=(32, 128), modes=tuple(MODES), fill_only=True, gap_us=15.0,
                              footprint_gib=FILLED_GIB),
}


def mqsim_gc_threshold_ratio(blocks_per_plane: int, nominal: float = 0.05) -> float:
    """flashrr's ``gc.gc_threshold_ratio`` that leaves a lane the room MQSim leaves a plane.

    MQSim runs GC while a plane's free pool is below max(floor(nominal * blocks), 10)
    blocks: it floors the threshold at the number of GC erases a plane may have in
    flight (10, fixed in its device setup).  Outside that pool it keeps three write
    frontiers per plane (user data, GC, and mapping pages, the last unused with an ideal
    mapping table); flashrr keeps two per lane (user, GC), so the same data area needs
    one more block in flashrr's threshold."""
    mqsim_pool = max(int(nominal * blocks_per_plane), MQSIM_GC_RESERVE_BLOCKS)
    return (mqsim_pool + MQSIM_FRONTIERS - FLASHRR_FRONTIERS) / blocks_per_plane


def device(blocks_per_plane: int, cache_bytes: int = 0, scheduler: str = "gc-first") -> SimConfig:
    """flashrr's model of the MQSim device (module docstring)."""
    return SimConfig(
        name=f"mqsim-mlc-{blocks_per_plane}",
        geometry=GeometryConfig(8, 4, 1, 4, blocks_per_plane, 256, PAGE_BYTES),
        timing=TimingConfig(75_000, 750_000, 3_800_000, 24_600, 500),  # DRAM 0.5 us: MQSim's page write
        cache=CacheConfig(cache_bytes, read_allocate=False),  # MQSim's WRITE_CACHE mode
        gc=GCConfig(mqsim_gc_threshold_ratio(blocks_per_plane), 0.127, 0.005),
        read_reclaim=ReadReclaimConfig(rr_enabled=False),
        superblock=SuperblockConfig(sb_planes=1),
    ).replace(scheduler=scheduler, placement="static_lane", free_pool="erased", reserve_gc_frontier=True,
              copyback=False,  # MQSim's Use_Copyback_for_GC = false: moved pages cross the channel
              write_stall=cache_bytes == 0)  # with a cache, the destage buffer throttles writes instead


def measured_trace(n: int, gap_ns: float, footprint_pages: int, read_share: float, zipf: float,
                   seed: int) -> flashrr.Trace:
    """``n`` one-page requests, Poisson arrivals (mean gap ``gap_ns``), from t = 0.  Pages are
    uniform over ``[0, footprint_pages)``, or Zipf(``zipf``) by rank with the ranks scattered
    over the footprint by a seeded permutation."""
    rng = np.random.default_rng(seed)
    gaps = rng.exponential(gap_ns, n).astype(np.int64)
    t = np.cumsum(gaps) - gaps[0]
    if zipf > 0:
        w = 1.0 / np.arange(1, footprint_pages + 1, dtype=float) ** zipf
        lpn = rng.permutation(footprint_pages)[rng.choice(footprint_pages, n, p=w / w.sum())]
    else:
        lpn = rng.integers(0, footprint_pages, n)
    is_write = rng.random(n) >= read_share
    return flashrr.Trace(t, lpn * PAGE_BYTES, np.full(n, PAGE_BYTES), is_write, name="mqsim-validate")


def with_prefix(tr: flashrr.Trace, footprint_pages: int, warmup_ratio: float = 0.0,
                warmup_rate: float = 2_500.0, seed: int = 0) -> tuple:
    """(time, offset, size, is_write) of MQSim's whole trace: the sequential write of the
    footprint, ``warmup_ratio`` x footprint random one-page writes at ``warmup_rate`` per s,
    the idle time, then ``tr``; and the time (ns) the measured part starts."""
    per = PREFIX_REQUEST_BYTES // PAGE_BYTES
    n_pre = -(-footprint_pages // per)
    off = np.arange(n_pre, dtype=np.int64) * PREFIX_REQUEST_BYTES
    size = np.minimum(PREFIX_REQUEST_BYTES, footprint_pages * PAGE_BYTES - off)
    t_pre = np.arange(n_pre, dtype=np.int64) * PREFIX_GAP_NS
    n_warm = int(round(warmup_ratio * footprint_pages))
    rng = np.random.default_rng(seed + 100)
    t_warm = int(t_pre[-1]) + PREFIX_GAP_NS + np.arange(n_warm, dtype=np.int64) * int(1e9 / warmup_rate)
    off = np.concatenate([off, rng.integers(0, footprint_pages, n_warm) * PAGE_BYTES])
    size = np.concatenate([size, np.full(n_warm, PAGE_BYTES)])
    t_pre = np.concatenate([t_pre, t_warm])
    t0 = int(t_pre[-1]) + PREFIX_IDLE_NS
    return (np.concatenate([t_pre, tr.time_ns + t0]), np.concatenate([off, tr.offset]),
            np.concatenate([size, tr.size]), np.concatenate([np.ones(len(t_pre), bool), tr.is_write]), t0)


def latency_stats(is_write: np.ndarray, lat_ns: np.ndarray) -> dict:
    """Mean, read mean, write mean and p99 (ns) of per-request latencies, in flashrr's summary names."""
    def mean(x):
        return float(x.mean()) if len(x) else float("nan")

    return {"io_latency_mean_ns": mean(lat_ns), "read_latency_mean_ns": mean(lat_ns[~is_write]),
            "write_latency_mean_ns": mean(lat_ns[is_write]),
            "io_latency_p99_ns": float(np.percentile(lat_ns, 99)) if len(lat_ns) else float("nan")}


def flashrr_side(case: Case, blocks: int, mode: str, tr: flashrr.Trace, warmup_ratio: float,
                 read_priority: bool = False, join_writes: bool = False, join_reads: bool = False) -> dict:
    t = time.perf_counter()
    cfg = device(blocks, case.cache_bytes, mode).replace(
        fill_ratio=0.0, warmup_random_writes_ratio=warmup_ratio if case.aged else 0.0, read_priority=read_priority,
        join_writes=join_writes, join_reads=join_reads)
    s = flashrr.simulate(cfg, tr).summary
    out = {k: s[k] for k in ("io_latency_mean_ns", "read_latency_mean_ns", "write_latency_mean_ns",
                             "io_latency_p99_ns", "gc_count", "gc_page_moves", "requests")}
    if not tr.is_write.any():  # no write, no write mean (the summary says 0)
        out["write_latency_mean_ns"] = float("nan")
    out["wall_s"] = time.perf_counter() - t
    return out


@dataclass(frozen=True)
class MQSimTraces:
    """One case's MQSim trace files, written once for all its runs: ``full`` (prefix and measured
    requests), ``prefix`` (the prefix alone, for an aged case; else None), and ``t0``, the
    arrival time (ns) from which requests are measured."""

    full: Path
    prefix: Path | None
    t0: int


def write_mqsim_traces(a, name: str, case: Case, tr: flashrr.Trace, footprint: int) -> MQSimTraces:
    warm = a.warmup_ratio if case.aged else 0.0
    t, off, size, w, t0 = with_prefix(tr, footprint, warm, a.warmup_rate, a.seed)
    a.workdir.mkdir(parents=True, exist_ok=True)
    stem = a.workdir / name.replace("/", "-").replace(" ", "_")
    full = stem.with_name(stem.name + ".trace")
    mqsim_side.write_trace(full, t, off, size, w)
    prefix = None
    if warm:
        n = len(t) - len(tr)
        prefix = stem.with_name(stem.name + "_prefix.trace")
        mqsim_side.write_trace(prefix, t[:n], off[:n], size[:n], w[:n])
    return MQSimTraces(full, prefix, t0)


def mqsim_side_run(a, name: str, case: Case, blocks: int, mode: str, traces: MQSimTraces) -> dict:
    """One MQSim run of the case's trace, measured after its prefix.  MQSim's XML counts GC over
    the whole run; for an aged case a second run of the prefix alone gives the GCs of the prefix,
    which are subtracted (both runs are deterministic and identical up to the prefix's end)."""
    tag = f"{name.replace('/', '-').replace(' ', '_')}_{blocks}b_{mode}"
    dev = mqsim_side.device_xml(blocks, MODES[mode], case.cache_bytes)

    def one(tag, path):
        return mqsim_side.run(a.mqsim, a.workdir, tag, dev, mqsim_side.workload_xml(path, case.cache_bytes > 0),
                              a.timeout)

    r = one(tag, traces.full)
    keep = r.arrival_ns >= traces.t0
    out = latency_stats(r.is_write[keep], (r.finish_ns - r.arrival_ns)[keep].astype(float))
    out.update(requests=int(keep.sum()), gc_count=r.gc_count, gc_page_moves=r.gc_page_moves, wall_s=r.wall_s,
               failure=r.failure)
    if traces.prefix is not None and r.gc_count is not None:
        pre = one(tag + "_prefix", traces.prefix)
        if pre.gc_count is None:
            out.update(gc_count=None, gc_page_moves=None)
        else:
            out.update(gc_count=r.gc_count - pre.gc_count, gc_page_moves=r.gc_page_moves - pre.gc_page_moves)
        out["wall_s"] += pre.wall_s
    return out


ROWS = (("mean (us)", "io_latency_mean_ns", 1e3), ("read mean (us)", "read_latency_mean_ns", 1e3),
        ("write mean (us)", "write_latency_mean_ns", 1e3), ("p99 (us)", "io_latency_p99_ns", 1e3),
        ("GCs", "gc_count", 1), ("GC page moves", "gc_page_moves", 1), ("requests measured", "requests", 1))


def _cell(v, div) -> str:
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return "-"
    return f"{v / div:,.1f}" if div != 1 else f"{int(v):,}"


def _ratio(a, b) -> str:
    if a is None or b is None or not b or not np.isfinite(a) or not np.isfinite(b):
        return "-"
    return f"{a / b:.2f}"


#: flashrr without timing.read_priority, with it, and with it and MQSim's joins (join_writes, join_reads)
SIDES = ("flashrr", "flashrr rp", "flashrr rpj")
SIDE_CHANGES = {"flashrr": {}, "flashrr rp": {"read_priority": True},
                "flashrr rpj": {"read_priority": True, "join_writes": True, "join_reads": True}}


def _within(f: float, q: float, limit: float) -> str:
    return "yes" if abs(f / q - 1) <= limit else "no"


def print_case(name: str, case: Case, runs: dict, n: int) -> None:
    """``runs``: {(mode, blocks): {side: stats for side in SIDES (None for "flashrr rp" and
    "flashrr rpj" with a cache), "MQSim": stats or None}}.  One table per mode: each run's
    flashrr sides, MQSim, and each side's ratio to MQSim."""
    gap = f", mean gap {case.gap_us:g} us" if case.gap_us else ""
    print(f"\n## {name}: {case.read_share:.0%} reads, "
          f"{'Zipf %g' % case.zipf if case.zipf else 'uniform'}, cache {case.cache_bytes >> 20} MiB{gap}, "
          f"{'aged by random writes' if case.aged else 'filled in order only'}")
    for mode in case.modes:
        cols = [b for m, b in runs if m == mode]
        head = ["measure"] + [f"{b}b {who}" for b in cols
                              for who in SIDES + ("MQSim", "ratio", "ratio rp", "ratio rpj")]
        print(f"\n{mode}:\n\n| " + " | ".join(head) + " |")
        print("|---" + "|---:" * (len(head) - 1) + "|")
        for label, key, div in ROWS:
            cells = [label]
            for b in cols:
                r = runs[(mode, b)]
                q = r["MQSim"]
                cells += [_cell(r[w][key], div) if r[w] else "-" for w in SIDES]
                cells += [_cell(q[key], div) if q else "-"]
                cells += [_ratio(r[w][key], q[key]) if r[w] and q and key != "requests" else "" for w in SIDES]
            print("| " + " | ".join(cells) + " |")
    for (mode, b), r in runs.items():
        q = r["MQSim"]
        if q and (q["failure"] or q["requests"] < n):
            why = q["failure"] or "exited normally"
            print(f"\nMQSim {mode} {b}b: {why}; {n - q['requests']:,} of {n:,} measured requests never "
                  "completed (its latencies above are over those it finished)")
    light = max(case.blocks)
    if all(runs[(m, light)]["MQSim"] for m in case.modes):
        print(f"\nWithout GC ({light} blocks per plane), flashrr / flashrr rp / flashrr rpj against MQSim (mean "
              "within 15%, p99 within 25%?):")
        for mode in case.modes:
            r = runs[(mode, light)]
            q = r["MQSim"]
            parts = [f"{who} mean {_within(r[who]['io_latency_mean_ns'], q['io_latency_mean_ns'], 0.15)}, "
                     f"p99 {_within(r[who]['io_latency_p99_ns'], q['io_latency_p99_ns'], 0.25)}"
                     for who in SIDES if r[who]]
            print(f"- {mode}: " + "; ".join(parts))
    if len(case.blocks) == 2:
        heavy, light = case.blocks
        print(f"\nGC interference, {heavy} over {light} blocks per plane (flashrr, flashrr rp, flashrr rpj / "
              "MQSim; each within 25%, p99 50%?):")
        for mode in case.modes:
            parts = []
            for label, key, _ in ROWS[:4]:
                grow = {w: runs[(mode, heavy)][w][key] / runs[(mode, light)][w][key]
                        for w in SIDES if runs[(mode, heavy)][w]}
                q = runs[(mode, heavy)]["MQSim"], runs[(mode, light)]["MQSim"]
                part = f"{label.split(' (')[0]} " + ", ".join(f"{g:.3g}x" for g in grow.values())
                if all(q) and not any(x["failure"] for x in q):
                    g = q[0][key] / q[1][key]
                    limit = 0.5 if key == "io_latency_p99_ns" else 0.25
                    part += f" / {g:.3g}x ({', '.join(_within(f, g, limit) for f in grow.values())})"
                else:
                    part += " / -"
                parts.append(part)
            print(f"- {mode}: " + "; ".join(parts))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mqsim", type=Path, help="a built, patched MQSim binary; without it only flashrr runs")
    ap.add_argument("--case", action="append", choices=list(CASES), help="a case to run (repeatable; default all)")
    ap.add_argument("--n", type=int, default=700_000, help="measured requests per trace")
    ap.add_argument("--gap-us", type=float, default=100.0, help="mean gap between arrivals (us)")
    ap.add_argument("--footprint-gib", type=float, default=3.0, help="footprint of the trace (GiB, from LBA 0)")
    ap.add_argument("--warmup-ratio", type=float, default=2.0,
                    help="GC cases: random writes before the measured part, per footprint page")
    ap.add_argument("--warmup-rate", type=float, default=2_500.0, help="MQSim's random warm-up writes per second")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=1200.0, help="seconds before an MQSim run is stopped")
    ap.add_argument("--workdir", type=Path, default=Path("out/mqsim"), help="MQSim's traces, XML and logs")
    a = ap.parse_args(argv)
    if a.mqsim is not None and not a.mqsim.is_file():
        ap.error(f"--mqsim {a.mqsim}: no such file (build MQSim as shared/mqsim/README.md says)")
    print(f"{a.n:,d} requests per case, mean gap {a.gap_us:g} us (unless the case has its own), footprint "
          f"{a.footprint_gib:g} GiB; aged GC cases aged by {a.warmup_ratio:g}x footprint random writes; "
          f"MQSim: {a.mqsim or 'not run'}")
    for name in a.case or list(CASES):
        case = CASES[name]
        footprint = int((case.footprint_gib or a.footprint_gib) * (1 << 30)) // PAGE_BYTES
        tr = measured_trace(a.n, (case.gap_us or a.gap_us) * 1e3, footprint, case.read_share, case.zipf, a.seed)
        traces = write_mqsim_traces(a, name, case, tr, footprint) if a.mqsim else None
        runs = {}
        for mode in case.modes:
            for b in case.blocks:
                q = mqsim_side_run(a, name, case, b, mode, traces) if a.mqsim else None
                runs[(mode, b)] = {"MQSim": q}
                for side, changes in SIDE_CHANGES.items():
                    runs[(mode, b)][side] = (None if case.cache_bytes and changes else
                                             flashrr_side(case, b, mode, tr, a.warmup_ratio, **changes))
        print_case(name, case, runs, a.n)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
