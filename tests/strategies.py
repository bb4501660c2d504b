"""Hypothesis strategies shared by the tests: small devices with traces and policies
for the engine tests (twin equivalence, invariants, placement), traces without a
device for the trace readers, writers and transformations, and hand-built workload
models.

Each ``*_case`` draws a tuple the test that uses it unpacks; its docstring says what.
The ``draw_*`` functions are pieces of those strategies, to be called with the
``draw`` of an ``st.composite``.  The tests keep their own ``settings``
(``max_examples``, health checks); a strategy here fixes only what is drawn.  A
strategy that serves one test file and is bound to that file's checks stays there
(README.md names them)."""
import numpy as np
from hypothesis import strategies as st

import flashrr
from engine_helpers import page_trace, tiny_config
from flashrr.config import ASSEMBLY_METHODS, WINDOWED_ASSEMBLY, ReadRetryConfig
from flashrr.papers.phasedrr.policies import PhasedRR, Reallocation, RlRR
from flashrr.papers.cocktail.readbalance import IPR, RedFTL
from flashrr.trace.model import Arrivals, HeatMap, OpModel, WorkloadModel
from flashrr.trace.model.schema import KINDS, SIZE_LEVELS, Places, TimePhase

# ------------------------------------------------------------------------------ device shapes

SUPERBLOCK_SHAPES = [  # (channels, chips, dies, planes, sb_planes, sb_dies, sb_chips, sb_channels)
    (1, 1, 1, 1, 1, 1, 1, 1), (1, 1, 1, 2, 2, 1, 1, 1), (1, 1, 1, 4, 4, 1, 1, 1), (2, 1, 1, 2, 2, 1, 1, 1),
    (2, 2, 1, 2, 2, 1, 1, 2), (1, 2, 2, 2, 2, 2, 1, 1), (2, 1, 2, 1, 1, 2, 1, 2), (2, 2, 1, 4, 4, 1, 1, 1),
    (1, 1, 1, 4, 2, 1, 1, 1), (2, 2, 2, 2, 2, 1, 2, 1),
]

BLOCK_SHAPES = [  # superblock size 1: (channels, chips, dies, planes, then 1, 1, 1, 1)
    (1, 1, 1, 1, 1, 1, 1, 1), (1, 1, 1, 2, 1, 1, 1, 1), (2, 1, 1, 2, 1, 1, 1, 1), (1, 2, 2, 1, 1, 1, 1, 1),
    (2, 2, 1, 2, 1, 1, 1, 1),
]

# the same devices as (channels, chips, dies, planes): every lane is one plane
LANE_SHAPES = [shape[:4] for shape in BLOCK_SHAPES]

# (channels, chips, planes, sb_planes): superblocks across the planes of one die
PLANE_SHAPES = [(1, 1, 2, 2), (1, 1, 4, 4), (2, 1, 2, 2), (2, 2, 4, 4), (1, 1, 4, 2), (1, 1, 1, 1)]


# ------------------------------------------------------------------------------ pieces of cases


def draw_page_trace(draw, cfg, gap_ns: int, max_requests: int = 150):
    """A trace of 1..max_requests reads and writes of 1-4 pages that fits ``cfg``,
    arriving every ``gap_ns``."""
    n = draw(st.integers(1, max_requests))
    span = draw(st.integers(4, cfg.logical_pages - 4))
    lpn = np.array(draw(st.lists(st.integers(0, span - 1), min_size=n, max_size=n)), np.int64)
    pages = np.minimum(np.array(draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))), cfg.logical_pages - lpn)
    wr = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    ps = cfg.geometry.page_size_bytes
    return flashrr.Trace(np.arange(n, dtype=np.int64) * gap_ns, lpn * ps, pages * ps, wr)


def draw_read_heavy_case(draw, shapes, retry):
    """A small device (any superblock shape of ``shapes``, e.g. :data:`SUPERBLOCK_SHAPES`,
    any scheduler, cache off or 4 pages, RR threshold 10/20/40, read retry None or ``retry``)
    and a trace of 50..400 mostly-read requests of 1-3 pages over a few blocks' worth of
    LPNs, so blocks reach early-reclaim windows and the RR threshold.  Gaps are 0, 50 or
    5000 ns.  Returns (cfg, trace)."""
    ch, chips, dies, planes, sp, sd, sc, sch = draw(st.sampled_from(shapes))
    cfg = tiny_config(channels=ch, chips=chips, dies=dies, planes=planes, sb_planes=sp, sb_dies=sd, sb_chips=sc,
                      sb_channels=sch, blocks=draw(st.integers(16, 32)), pages=draw(st.sampled_from([4, 8, 16])),
                      rr=draw(st.sampled_from([10, 20, 40])), gc_ratio=0.1, op=0.4,
                      cache_pages=draw(st.sampled_from([0, 4])), retry=draw(st.sampled_from([None, retry])),
                      warmup_random_writes_ratio=draw(st.sampled_from([0.0, 0.5])),
                      ).replace(scheduler=draw(st.sampled_from(["user-first", "gc-first", "fcfs"])))
    n = draw(st.integers(50, 400))
    span = draw(st.integers(4, min(cfg.logical_pages - 4, 4 * cfg.geometry.pages_per_block)))
    lpn = np.array(draw(st.lists(st.integers(0, span - 1), min_size=n, max_size=n)), np.int64)
    pages = np.minimum(np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))), cfg.logical_pages - lpn)
    wr = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))) < draw(st.sampled_from([0.0, 0.1, 0.3]))
    gaps = np.array(draw(st.lists(st.sampled_from([0, 0, 50, 5000]), min_size=n, max_size=n)), np.int64)
    ps = cfg.geometry.page_size_bytes
    return cfg, flashrr.Trace(np.cumsum(gaps), lpn * ps, pages * ps, wr)


# ------------------------------------------------------------------------------ Baseline and engine options


@st.composite
def any_device_case(draw):
    """A device of any superblock shape with every engine option drawn (read retry,
    scheduler, channel model, write acknowledgement, destage buffer, urgent-GC threshold,
    placement, GC free pool, write stall, read priority, GC frontier reservation), two in
    three "pressed" towards GC, and a trace;
    returns (cfg, trace, repeat, seed).  The steering is described in
    test_engine_equivalence.py."""
    ch, chips, dies, planes, sp, sd, sc, sch = draw(st.sampled_from(SUPERBLOCK_SHAPES))
    retry = draw(st.sampled_from([None, ReadRetryConfig.cocktail(37), ReadRetryConfig.ldpc(11)]))
    pressed = draw(st.integers(0, 2)) > 0  # two in three: steer towards GC: full device, warmed up, few spare blocks, mostly writes
    if pressed:
        space = dict(blocks=draw(st.integers(24, 30)), op=0.35,
                     gc_ratio=draw(st.sampled_from([0.08, 0.15])), fill_ratio=1.0,
                     warmup_random_writes_ratio=draw(st.sampled_from([0.5, 1.0])))
        write_share = draw(st.sampled_from([0.5, 0.8]))
    else:
        space = dict(blocks=draw(st.integers(24, 40)), op=draw(st.sampled_from([0.35, 0.5])),
                     gc_ratio=draw(st.sampled_from([0.02, 0.08, 0.15])),
                     warmup_random_writes_ratio=draw(st.sampled_from([0.0, 0.5])))
        write_share = 0.5
    cfg = tiny_config(
        channels=ch, chips=chips, dies=dies, planes=planes, sb_planes=sp, sb_dies=sd, sb_chips=sc, sb_channels=sch,
        pages=draw(st.sampled_from([4, 8, 16])), cache_pages=draw(st.sampled_from([0, 1, 3, 8, 32])),
        read_allocate=draw(st.booleans()), rr=draw(st.sampled_from([2, 3, 4, 6, 9, 25])), retry=retry,
        t_read=draw(st.integers(50, 500)), t_prog=draw(st.integers(200, 3000)), t_erase=draw(st.integers(500, 9000)),
        t_xfer=draw(st.integers(0, 60)), t_dram=draw(st.integers(0, 20)), **space,
    ).replace(scheduler=draw(st.sampled_from(["user-first", "gc-first", "fcfs"])),
              channel_model=draw(st.sampled_from(["gap-fill", "busy-until"])),
              write_ack=draw(st.sampled_from(["insert", "program"])),
              destage_buffer_pages=draw(st.sampled_from([0, 1, 3])),
              gc_hard_threshold_ratio=draw(st.sampled_from([0.005, 0.05, 0.15])),
              placement=draw(st.sampled_from(["dynamic", "dynamic", "static_lane"])),
              free_pool=draw(st.sampled_from(["decided", "decided", "erased"])),
              max_victims_in_flight=draw(st.sampled_from([1, 2, 10])))
    if cfg.gc.free_pool == "erased" and cfg.cache.capacity_bytes == 0:
        cfg = cfg.replace(write_stall=draw(st.booleans()))
    if cfg.cache.capacity_bytes == 0 and cfg.timing.scheduler != "fcfs":
        cfg = cfg.replace(read_priority=draw(st.booleans()))
        if cfg.timing.read_priority:
            cfg = cfg.replace(join_writes=draw(st.booleans()))
    cfg = cfg.replace(reserve_gc_frontier=draw(st.booleans()), copyback=draw(st.booleans()),
                      aligned_moves=draw(st.booleans()), join_reads=draw(st.booleans()))
    n = draw(st.integers(20, 60) if pressed else st.integers(1, 120))
    span = draw(st.integers(1, cfg.logical_pages - 4))
    lpn = np.array(draw(st.lists(st.integers(0, span - 1), min_size=n, max_size=n)), np.int64)
    pages = np.array(draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), np.int64)
    pages = np.minimum(pages, cfg.logical_pages - lpn)
    wr = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)), float) < write_share
    gaps = np.array(draw(st.lists(st.integers(0, 5000), min_size=n, max_size=n)), np.int64)
    ps = cfg.geometry.page_size_bytes
    trace = flashrr.Trace(np.cumsum(gaps), lpn * ps, pages * ps, wr)
    return cfg, trace, draw(st.integers(1, 3)), draw(st.integers(0, 2**16))


@st.composite
def pv_case(draw):
    """:func:`any_device_case` with superblocks within a die and the process-variation
    model on (any assembly method, window, scale, P/E count, seed and row order);
    returns (cfg, trace, repeat, seed, check_invariants)."""
    cfg, trace, repeat, seed = draw(any_device_case())
    assembly = draw(st.sampled_from(ASSEMBLY_METHODS))
    cfg = cfg.replace(sb_dies=1, sb_chips=1, sb_channels=1, pv_model="generative", assembly=assembly,
                      pv_reassembly=assembly == "qstr_med" and draw(st.booleans()),
                      pv_window=draw(st.sampled_from([0, 1, 3])) if assembly in WINDOWED_ASSEMBLY else 0,
                      pv_scale=draw(st.sampled_from(["relative", "absolute"])),
                      pv_pe=draw(st.sampled_from([0, 1500, 3000])), pv_seed=draw(st.integers(0, 50)),
                      pv_row_order=draw(st.sampled_from(["shuffled", "assembly"])))
    return cfg, trace, repeat, seed, draw(st.booleans())


@st.composite
def gappy_workload(draw):
    """A two-plane device and 600 single-page requests 10 ms apart; returns (cfg, trace)."""
    # 600 requests over 100 LPNs: hundreds of writes to a device of 24 superblocks of 16 pages (GC),
    # and reads that reach an RR threshold of 3-6 on a cache of at most 2 pages (RR)
    cfg = tiny_config(planes=2, sb_planes=2, blocks=24, pages=8, op=0.4, rr=draw(st.integers(3, 6)),
                      cache_pages=draw(st.sampled_from([0, 2])), gc_ratio=0.1)
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    n = 600
    lpn = rng.integers(0, 100, n)
    # gaps far longer than any migration: every background job ends before the next arrival
    return cfg, page_trace(lpn, writes=rng.random(n) < draw(st.sampled_from([0.4, 0.7])), gap_ns=10**7)


@st.composite
def static_lane_case(draw):
    """A device of any superblock shape under ``placement = "static_lane"``, with few spare
    blocks, and a trace of 10..150 reads and writes 500 ns apart; returns (cfg, trace)."""
    ch, chips, dies, planes, sp, sd, sc, sch = draw(st.sampled_from(SUPERBLOCK_SHAPES))
    cfg = tiny_config(channels=ch, chips=chips, dies=dies, planes=planes, sb_planes=sp, sb_dies=sd, sb_chips=sc,
                      sb_channels=sch, blocks=draw(st.integers(24, 32)), pages=draw(st.sampled_from([4, 8])),
                      op=0.4, gc_ratio=0.1, rr=draw(st.sampled_from([3, 9, 40])),
                      warmup_random_writes_ratio=draw(st.sampled_from([0.0, 0.5])),
                      ).replace(placement="static_lane", scheduler=draw(st.sampled_from(["user-first", "gc-first"])))
    n = draw(st.integers(10, 150))
    span = draw(st.integers(4, cfg.logical_pages - 4))
    lpn = np.array(draw(st.lists(st.integers(0, span - 1), min_size=n, max_size=n)), np.int64)
    pages = np.minimum(np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))), cfg.logical_pages - lpn)
    wr = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    ps = cfg.geometry.page_size_bytes
    return cfg, flashrr.Trace(np.arange(n, dtype=np.int64) * 500, lpn * ps, pages * ps, wr)


# ------------------------------------------------------------------------------ policies


@st.composite
def page_case(draw):
    """A device with superblocks across planes, a trace (:func:`draw_page_trace`), one of
    Page, Page-8 and Page-64, and a repeat; returns (cfg, trace, policy name, repeat)."""
    planes, sp = draw(st.sampled_from([(2, 2), (4, 4), (4, 2), (1, 1)]))
    cfg = tiny_config(planes=planes, sb_planes=sp, channels=draw(st.sampled_from([1, 2])),
                      blocks=draw(st.integers(24, 36)), pages=draw(st.sampled_from([4, 8, 16])),
                      cache_pages=draw(st.sampled_from([0, 4, 16])), gc_ratio=0.08, op=0.4,
                      rr=draw(st.integers(2, 20))).replace(aligned_moves=draw(st.booleans()))
    trace = draw_page_trace(draw, cfg, gap_ns=900)
    return cfg, trace, draw(st.sampled_from(["page", "page-8", "page-64"])), draw(st.integers(1, 2))


@st.composite
def shuffler_case(draw):
    """A device of :data:`PLANE_SHAPES`, a trace (:func:`draw_page_trace`), a repeat, a seed
    and Shuffler's parameters; returns (cfg, trace, repeat, seed, params)."""
    ch, chips, planes, sp = draw(st.sampled_from(PLANE_SHAPES))
    cfg = tiny_config(channels=ch, chips=chips, planes=planes, sb_planes=sp, blocks=draw(st.integers(24, 36)),
                      pages=draw(st.sampled_from([4, 8, 16])), cache_pages=draw(st.sampled_from([0, 2, 8])),
                      gc_ratio=0.08, op=draw(st.sampled_from([0.35, 0.5])), rr=draw(st.integers(2, 20))
                      ).replace(aligned_moves=draw(st.booleans()))
    trace = draw_page_trace(draw, cfg, gap_ns=700)
    params = draw(st.sampled_from([{}, {"delta_f": 0.2, "delta_p": 0.05}, {"cards": "contiguous"}]))
    return cfg, trace, draw(st.integers(1, 2)), draw(st.integers(0, 1000)), params


@st.composite
def phasedrr_case(draw):
    """:func:`draw_read_heavy_case`, with PhasedRR at a Delta and phase split that
    fit the RR threshold and a pool of 1, 4 or 64 blocks; returns (cfg, trace, policy)."""
    cfg, trace = draw_read_heavy_case(draw, SUPERBLOCK_SHAPES, ReadRetryConfig.ldpc_progressive(50, 7, 4))
    mult = draw(st.sampled_from([(1, 2, 4, 2, 1), (1, 2, 4, 1, 2), (1, 1, 1, 1, 1)]))
    delta = draw(st.integers(1, max(1, cfg.read_reclaim.rr_threshold_reads // sum(mult))))
    return cfg, trace, PhasedRR(delta_reads=delta, phase_mult=mult, max_blocks=draw(st.sampled_from([1, 4, 64])))


@st.composite
def counter_rr_case(draw):
    """:func:`draw_read_heavy_case` (with a retry table whose savings can beat
    Reallocation's move cost), one of RL-RR and Reallocation, and a seed; returns
    (cfg, trace, policy, seed).  Reallocation's destination matching (n_dest > 0) needs
    superblock size 1; larger superblocks run it with n_dest=0
    (:func:`reallocation_matching_case` draws block-level shapes)."""
    cfg, trace = draw_read_heavy_case(draw, SUPERBLOCK_SHAPES, ReadRetryConfig.ldpc_progressive(100, 2000, 4))
    start = draw(st.integers(1, cfg.read_reclaim.rr_threshold_reads))
    n_dest = draw(st.integers(0, 4)) if cfg.superblock.k == 1 else 0
    pol = draw(st.sampled_from([RlRR(start_reads=start, epsilon=draw(st.sampled_from([0.05, 0.5]))),
                                Reallocation(start_reads=start, n_dest=n_dest)]))
    return cfg, trace, pol, draw(st.integers(0, 3))


@st.composite
def reallocation_matching_case(draw):
    """:func:`draw_read_heavy_case` on :data:`BLOCK_SHAPES`, Reallocation with 1-8
    destination blocks, and a seed; returns (cfg, trace, policy, seed)."""
    cfg, trace = draw_read_heavy_case(draw, BLOCK_SHAPES, ReadRetryConfig.ldpc_progressive(100, 2000, 4))
    pol = Reallocation(start_reads=draw(st.integers(1, cfg.read_reclaim.rr_threshold_reads)),
                       n_dest=draw(st.integers(1, 8)))
    return cfg, trace, pol, draw(st.integers(0, 3))


@st.composite
def cocktail_case(draw):
    """A block-level device (:data:`LANE_SHAPES`), Cocktail's pool parameters and a
    trace of 100..300 single-page requests, three in four on a few hot pages; returns
    (cfg, trace, Cocktail's parameters, repeat)."""
    ch, chips, dies, planes = draw(st.sampled_from(LANE_SHAPES))
    pages = draw(st.sampled_from([4, 8, 16]))
    cfg = tiny_config(channels=ch, chips=chips, dies=dies, planes=planes, blocks=draw(st.integers(24, 36)),
                      pages=pages, rr=draw(st.sampled_from([3, 6, 12, 30])), op=0.4,
                      gc_ratio=draw(st.sampled_from([0.1, 0.2])), cache_pages=draw(st.sampled_from([0, 4])),
                      read_allocate=False, fill_ratio=draw(st.sampled_from([0.5, 1.0])),
                      warmup_random_writes_ratio=draw(st.sampled_from([0.0, 0.5]))
                      ).replace(scheduler=draw(st.sampled_from(["user-first", "gc-first", "fcfs"])))
    lo = draw(st.integers(1, 3))
    pol = dict(pool_min_blocks=lo, pool_max_blocks=draw(st.integers(lo, 5)),
               ratio=draw(st.sampled_from([0.0, 0.25, 0.5, 1.0])), n=draw(st.sampled_from([None, 2, 3, 5])),
               gc_writes=draw(st.sampled_from(["internal", "separate"])),
               cap_reset=draw(st.sampled_from(["page", "rr"])), target_key=draw(st.sampled_from(["factor", "reads"])))
    n = draw(st.integers(100, 300))
    hot = draw(st.integers(2, 3 * pages))
    lpn = np.array(draw(st.lists(st.integers(0, cfg.logical_pages - 1), min_size=n, max_size=n)), np.int64)
    lpn = np.where(np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))) > 0, lpn % hot, lpn)  # 3/4 hot
    wr = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))) < draw(st.sampled_from([0.2, 0.5]))
    gaps = np.array(draw(st.lists(st.sampled_from([0, 100, 3000]), min_size=n, max_size=n)), np.int64)
    ps = cfg.geometry.page_size_bytes
    trace = flashrr.Trace(np.cumsum(gaps), lpn * ps, np.full(n, ps, np.int64), wr)
    return cfg, trace, pol, draw(st.integers(1, 2))


@st.composite
def rr_streams_case(draw):
    """The device and trace of :func:`cocktail_case` with redFTL or IPR (their RR
    destination streams); returns (cfg, trace, policy, repeat)."""
    cfg, trace, _, repeat = draw(cocktail_case())
    if draw(st.booleans()):
        pol = RedFTL(n_open=draw(st.integers(1, 3)), mults=draw(st.sampled_from([(2, 5), (3, 4)])))
    else:
        pol = IPR(mult=draw(st.sampled_from([2, 10])), density=draw(st.sampled_from([0.5, 2 / 3, 1.0])),
                  max_fraction=draw(st.sampled_from([0.04, 0.15])))
    return cfg, trace, pol, repeat


@st.composite
def hotr_case(draw, distinct_reads=False):
    """A device of 1-4 channels (dynamic or static-die placement), a trace of 5..150
    requests (with ``distinct_reads``, no page read twice) and HotR's parameters (an
    R-LRU as long as the staging space or longer, a full staging space evicting or
    refusing, every read or only blocked ones tracked); returns (cfg, trace, params)."""
    ch, planes = draw(st.sampled_from([(1, 1), (2, 1), (2, 2), (4, 1)]))
    cfg = tiny_config(channels=ch, planes=planes, blocks=draw(st.integers(24, 32)), pages=draw(st.sampled_from([4, 8])),
                      op=0.4, gc_ratio=0.1, rr=draw(st.sampled_from([5, 40])), rr_enabled=draw(st.booleans()),
                      cache_pages=draw(st.sampled_from([0, 0, 4])), t_read=draw(st.integers(50, 300)),
                      t_prog=draw(st.integers(300, 3000)), t_erase=draw(st.integers(500, 6000)),
                      t_xfer=draw(st.integers(0, 40)), warmup_random_writes_ratio=draw(st.sampled_from([0.0, 0.5])))
    cfg = cfg.replace(placement=draw(st.sampled_from(["dynamic", "static_die"])),
                      scheduler=draw(st.sampled_from(["user-first", "gc-first", "fcfs"])))
    n = draw(st.integers(5, 150))
    span = draw(st.integers(4, min(64, cfg.logical_pages - 4)))
    wr = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    pages = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)), np.int64)
    lpn = np.array(draw(st.lists(st.integers(0, span - 1), min_size=n, max_size=n)), np.int64)
    if distinct_reads:  # every read touches pages no other read touches
        nxt = 0
        for i in np.flatnonzero(~wr):
            lpn[i] = nxt
            nxt += pages[i]
        keep = lpn + pages <= cfg.logical_pages
        lpn, pages, wr = lpn[keep], pages[keep], wr[keep]
    pages = np.minimum(pages, cfg.logical_pages - lpn)
    gaps = np.array(draw(st.lists(st.sampled_from([0, 50, 500, 3000]), min_size=len(lpn), max_size=len(lpn))))
    ps = cfg.geometry.page_size_bytes
    trace = flashrr.Trace(np.cumsum(gaps), lpn * ps, pages * ps, wr)
    params = dict(hot_threshold=draw(st.integers(1, 3)), staging_pages=draw(st.integers(1, 8)),
                  staging_dies=draw(st.integers(1, 2)), staging=draw(st.sampled_from(["dedicated", "overprovision"])),
                  erase_blocks=draw(st.booleans()), rlru_factor=draw(st.sampled_from([1, 1.5, 4, 10])),
                  staging_full=draw(st.sampled_from(["evict_lru", "evict_lru", "stop"])),
                  rlru_track=draw(st.sampled_from(["all", "all", "blocked"])))
    return cfg, trace, params


@st.composite
def redundancy_case(draw):
    """A device of 4 or 8 channels with RR off, a trace of 5..120 requests of 1-6 pages,
    and one of Rails, TTFlash and the optimal redirection; returns (cfg, trace, policy
    name, params)."""
    ch = draw(st.sampled_from([4, 8]))
    cfg = tiny_config(channels=ch, planes=draw(st.sampled_from([1, 2])), blocks=draw(st.integers(24, 32)),
                      pages=draw(st.sampled_from([4, 8])), op=0.4, gc_ratio=0.1, rr_enabled=False,
                      t_read=draw(st.integers(50, 300)), t_prog=draw(st.integers(300, 3000)),
                      t_erase=draw(st.integers(500, 6000)), t_xfer=draw(st.integers(0, 40)),
                      warmup_random_writes_ratio=draw(st.sampled_from([0.0, 0.5])))
    cfg = cfg.replace(scheduler=draw(st.sampled_from(["user-first", "gc-first", "fcfs"])))
    n = draw(st.integers(5, 120))
    span = draw(st.integers(8, min(96, cfg.logical_pages - 8)))
    lpn = np.array(draw(st.lists(st.integers(0, span - 1), min_size=n, max_size=n)), np.int64)
    pages = np.minimum(np.array(draw(st.lists(st.integers(1, 6), min_size=n, max_size=n))), cfg.logical_pages - lpn)
    wr = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    gaps = np.array(draw(st.lists(st.sampled_from([0, 50, 500, 3000]), min_size=n, max_size=n)))
    ps = cfg.geometry.page_size_bytes
    trace = flashrr.Trace(np.cumsum(gaps), lpn * ps, pages * ps, wr)
    pol = draw(st.sampled_from(["rails", "ttflash", "optimal"]))
    params = {"rails_period_ns": draw(st.sampled_from([1000, 7000, 10**9]))} if pol == "rails" else {}
    return cfg, trace, pol, params


# ------------------------------------------------------------------------------ combined schemes

# pairs that compose, with what each needs of the device: "block" = superblock size 1
COMBINED_PAIRS = [
    ("shuffler+phasedrr", None), ("page+phasedrr", None), ("phasedrr+rl-rr", None), ("shuffler+rl-rr", None),
    ("hotr+phasedrr", None), ("hotr+reallocation", "block"), ("cocktail+phasedrr", "block"),
    ("hotr+cocktail", "block"), ("redftl+phasedrr", "block"), ("ipr+hotr", "block"), ("page+rl-rr", None),
    ("phasedrr+read-exposure", None), ("rl-rr+read-exposure", None), ("phasedrr+optimal", None),
    ("shuffler+patrol", None), ("phasedrr+patrol", None),
]


def draw_part_params(draw, name: str, cfg) -> dict:
    """Parameters of the combined scheme ``name`` that fit a tiny device, per part (PART.PARAM)."""
    thr = cfg.read_reclaim.rr_threshold_reads
    out = {}
    for part in name.split("+"):
        if part == "phasedrr":
            mult = draw(st.sampled_from([(1, 2, 4, 2, 1), (1, 1, 1, 1, 1)]))
            out.update({"phasedrr.delta_reads": draw(st.integers(1, max(1, thr // sum(mult)))),
                        "phasedrr.phase_mult": mult, "phasedrr.max_blocks": draw(st.sampled_from([1, 4, 64]))})
        elif part in ("rl-rr", "reallocation"):
            out[f"{part}.start_reads"] = draw(st.integers(1, max(1, thr - 1)))
        elif part == "hotr":
            out.update({"hotr.hot_threshold": draw(st.integers(1, 3)), "hotr.staging_pages": draw(st.integers(1, 8))})
        elif part == "cocktail":
            out.update({"cocktail.pool_min_blocks": 1, "cocktail.pool_max_blocks": draw(st.integers(1, 3))})
        elif part == "patrol":
            out.update({"patrol.scan_interval_ns": draw(st.sampled_from([1_000, 20_000, 1_000_000])),
                        "patrol.ahead": draw(st.sampled_from([0.3, 0.8]))})
    return out


@st.composite
def combined_pair_case(draw):
    """One of :data:`COMBINED_PAIRS` on :func:`draw_read_heavy_case` (block-level shapes
    where the pair needs them), with its parts' parameters; returns (cfg, trace, name,
    params)."""
    name, needs = draw(st.sampled_from(COMBINED_PAIRS))
    shapes = [s for s in SUPERBLOCK_SHAPES if needs != "block" or s[4] * s[5] * s[6] * s[7] == 1]
    cfg, trace = draw_read_heavy_case(draw, shapes, ReadRetryConfig.ldpc_progressive(50, 7, 4))
    if needs == "block":
        cfg = cfg.replace(read_allocate=False)
    return cfg, trace, name, draw_part_params(draw, name, cfg)


# ------------------------------------------------------------------------------ traces without a device


@st.composite
def grid_traces(draw, time_unit: int, offset_unit: int, size_unit: int, max_n: int = 25):
    """0..max_n requests whose times, offsets and sizes are multiples of ``time_unit`` ns,
    ``offset_unit`` and ``size_unit`` bytes (what a trace format stores exactly): gaps up to
    10**15 ns, offsets up to 2**44 bytes, sizes up to 2**24 bytes; unnamed."""
    n = draw(st.integers(0, max_n))
    gaps = draw(st.lists(st.integers(0, 10**15 // time_unit), min_size=n, max_size=n))
    time = np.cumsum(np.array(gaps, dtype=np.int64)) * time_unit
    offset = np.array(draw(st.lists(st.integers(0, 2**44 // offset_unit), min_size=n, max_size=n)),
                      dtype=np.int64) * offset_unit
    size = np.array(draw(st.lists(st.integers(1, 2**24 // size_unit), min_size=n, max_size=n)),
                    dtype=np.int64) * size_unit
    is_write = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return flashrr.Trace(time, offset, size, np.array(is_write, dtype=bool))


@st.composite
def byte_traces(draw, max_n: int, max_gap_ns: int, max_offset: int, max_size: int):
    """1..max_n requests at byte offsets 0..max_offset, of 1..max_size bytes, gaps of
    0..max_gap_ns, reads and writes; named "h"."""
    n = draw(st.integers(1, max_n))
    gaps = draw(st.lists(st.integers(0, max_gap_ns), min_size=n, max_size=n))
    offset = draw(st.lists(st.integers(0, max_offset), min_size=n, max_size=n))
    size = draw(st.lists(st.integers(1, max_size), min_size=n, max_size=n))
    w = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return flashrr.Trace(np.cumsum(gaps), offset, size, w, name="h")


def busy_traces(max_n: int = 300):
    """:func:`byte_traces` of up to 300 requests at most 1 ms apart, within 1 GiB, of up to
    64 KiB: many requests, for stages read in chunks."""
    return byte_traces(max_n, max_gap_ns=10**6, max_offset=1 << 30, max_size=1 << 16)


def wide_traces(max_n: int = 40, max_offset: int = 1 << 40):
    """:func:`byte_traces` of up to 40 requests at most 1 s apart, within ``max_offset``
    bytes (1 TiB), of up to 128 KiB: few requests spread far in time and space."""
    return byte_traces(max_n, max_gap_ns=10**9, max_offset=max_offset, max_size=1 << 17)


# ------------------------------------------------------------------------------ workload models


# a probability: 0 or 1 (where the generator's choice is certain) or anything between
probabilities = st.one_of(st.sampled_from([0.0, 1.0]), st.floats(0.0, 1.0))


def draw_kind_probabilities(draw, rng, label: str) -> np.ndarray:
    """KINDS probabilities (one per kind of the previous request of the op): all 0, all 1, each 0 or 1, or
    random values with zeros among them."""
    mode = draw(st.sampled_from(["never", "always", "zero-one", "some"]), label=label)
    return {"never": lambda: np.zeros(KINDS), "always": lambda: np.ones(KINDS),
            "zero-one": lambda: rng.integers(0, 2, KINDS).astype(float),
            "some": lambda: rng.random(KINDS) * (rng.random(KINDS) < 0.7)}[mode]()


@st.composite
def hand_built_models(draw, max_window: int = 40):
    """Small WorkloadModels built field by field: heat maps of 1-5 segments per phase, 1-3 phases, cascades of
    2-6 bins with zero weights among them, re-access and continuation probabilities per kind of the previous
    request (never, always, 0 or 1 by kind, or random), run heads absent, present but never drawn, sometimes
    or always drawn (places of their own), shares of fresh requests that may overlap the window's (0, 1 or
    between) and overlap windows up to the re-access window, address scales, 1-4 gap states, none, two or
    three time phases (op chain and gap-state transitions of each part of the trace), windows short
    enough that the re-access ring wraps many times and few enough units that the recent-unit and
    covered-unit tables fill and empty.

    Structure comes from hypothesis; the bulk of the numbers from a NumPy generator seeded by it.  Measured
    over 300 draws (with n of 1-1,500 requests): the ring wraps in 64%, a unit leaves the recent-unit table in
    63% and the covered-unit table in 72%, a request starts in a unit of its window in 69%, a fresh request
    is drawn again for covering a unit the window covered in 36%, both ops appear in 50%, several phases in
    68%, fresh_retries > 0 in 74%, an address scale below 1 in 54%, a re-access in 60%, a run head is drawn
    in 54%, a continuation in 47% (a run of 4 or more in 21%), and a continuation is stopped by a unit of
    the window in 37% and by the end of the maps in 48%."""
    unit = draw(st.sampled_from([512, 1024, 4096]), label="unit_bytes")
    levels = draw(st.integers(1, 4), label="levels")
    window = draw(st.integers(1, max_window), label="window")
    n_phases = draw(st.integers(1, 3), label="phases")
    bins = draw(st.integers(2, 6), label="bins")
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1), label="numbers"))

    def quantiles(lo, hi, integral=False):
        v = np.sort(rng.uniform(lo, hi, int(rng.integers(2, 7))))
        return np.floor(v) if integral else v

    def heat_map():
        n_seg = draw(st.integers(1, 5), label="segments")
        lengths = np.array(draw(st.lists(st.integers(1, 4), min_size=n_seg, max_size=n_seg)))
        gaps = np.array(draw(st.lists(st.integers(0, 3), min_size=n_seg, max_size=n_seg)))
        starts = np.cumsum(gaps) + np.concatenate([[0], np.cumsum(lengths)[:-1]])
        return HeatMap(starts, lengths, rng.uniform(0.1, 10.0, n_seg), rng.integers(0, SIZE_LEVELS, n_seg))

    def places():
        sector = rng.integers(0, 3, unit // 512).astype(float)
        sector[rng.integers(0, sector.size)] += 1.0
        cascade = rng.integers(0, 3, (SIZE_LEVELS, levels, bins)).astype(float)
        cascade[..., rng.integers(0, bins)] += 1.0  # each row has a positive sum
        by_level = tuple(np.zeros(0) if rng.random() < 0.3 else quantiles(1, 3e5) for _ in range(SIZE_LEVELS))
        return Places(tuple(heat_map() for _ in range(n_phases)), cascade, sector, by_level)

    def op_model():
        p_reuse = draw_kind_probabilities(draw, rng, "p_reuse")
        p_write = draw(probabilities, label="p_reuse_write")
        # a target op's table may be missing only when no re-access targets that op
        dists = [quantiles(1, window, integral=draw(st.booleans())) for _ in range(2)]
        for t, share in enumerate((1.0 - p_write, p_write)):
            if (p_reuse.max() == 0 or share == 0) and draw(st.booleans()):
                dists[t] = np.zeros(0)
        single = places()
        p_seq = draw_kind_probabilities(draw, rng, "p_seq")
        # continuations of a few units at most: runs stop at the end of the highest map region, and the maps
        # here span a few dozen units
        size_seq = quantiles(1, 4 * unit) if p_seq.max() > 0 or rng.random() < 0.5 else np.zeros(0)
        head_mode = draw(st.sampled_from(["none", "never drawn", "some", "all"]), label="run heads")
        p_head = {"none": 0.0, "never drawn": 0.0, "some": float(rng.uniform(0.05, 0.95)), "all": 1.0}[head_mode]
        heads = None if head_mode == "none" else places()
        # near requests: anywhere in the target's widened extent
        p_near = draw_kind_probabilities(draw, rng, "p_near")
        near = (quantiles(1, window, integral=draw(st.booleans())),
                quantiles(0, 65535, integral=draw(st.booleans())), quantiles(1, 4 * unit)) \
            if p_near.max() > 0 or rng.random() < 0.5 else (np.zeros(0),) * 3
        # hot units inside the maps' span or beyond it (then they raise the span's end)
        hot_mode = draw(st.sampled_from(["none", "never drawn", "some", "all"]), label="hot units")
        n_hot = 0 if hot_mode == "none" else int(rng.integers(1, 6))
        hot_unit = rng.choice(48 << levels, n_hot, replace=False).astype(np.int64)
        p_hot = {"none": 0.0, "never drawn": 0.0, "some": float(rng.uniform(0.05, 0.95)), "all": 1.0}[hot_mode]
        return OpModel(p_reuse, p_write, dists[0], dists[1], single.sector_pmf, single.cascade, quantiles(1, 3e5),
                       single.size_by_level,
                       single.phases, p_seq, size_seq, p_head, heads, draw(probabilities, label="q_overlap"),
                       p_near, *near, p_hot, hot_unit, rng.uniform(0.1, 10.0, n_hot),
                       rng.integers(1, 4 * unit, n_hot),
                       draw(st.sampled_from([0.0, 1.0]) | probabilities, label="p_near_aligned"),
                       rng.integers(0, unit // 512, n_hot) * 512 if draw(st.booleans(), label="hot starts")
                       else np.zeros(0, np.int64))

    states = draw(st.integers(1, 4), label="gap states")
    trans = rng.integers(0, 3, (states, states)).astype(float)
    trans[np.arange(states), rng.integers(0, states, states)] += 1.0
    gap_ns = np.sort(rng.uniform(0, 1e6, (states, int(rng.integers(2, 6)))), axis=1)
    arrivals = Arrivals(trans, gap_ns, int(rng.integers(0, states)))

    def time_phase():
        t = rng.integers(0, 3, (states, states)).astype(float)
        t[np.arange(states), rng.integers(0, states, states)] += 1.0
        return TimePhase((draw(probabilities), draw(probabilities)), t)

    time_phases = tuple(time_phase() for _ in range(draw(st.sampled_from([0, 2, 3]), label="time phases")))
    return WorkloadModel("hand", unit, unit << levels, window, draw(probabilities, label="p_write_first"),
                         (draw(probabilities), draw(probabilities)), draw(probabilities, label="p_same_size"),
                         op_model(), op_model(), arrivals,
                         fresh_retries=draw(st.sampled_from([0, 1, 3, 50]), label="fresh_retries"),
                         address_scale=draw(st.one_of(st.sampled_from([1.0, 0.5]), st.floats(1e-3, 1.0)),
                                            label="address_scale"),
                         overlap_window_requests=draw(st.integers(1, window), label="overlap window"),
                         time_phases=time_phases,
                         near_margin_bytes=draw(st.sampled_from([0, unit, 3 * unit]), label="near margin"),
                         fresh_avoid_window_requests=draw(st.sampled_from([0, 1, window // 2, window]),
                                                          label="fresh avoid window"))
