"""Hypothesis strategies shared by the tests: small devices with traces and policies
for the engine tests (twin equivalence, invariants, placement).

Each ``*_case`` draws a tuple the test that uses it unpacks; its docstring says what.
The ``draw_*`` functions are pieces of those strategies, to be called with the
``draw`` of an ``st.composite``.  The tests keep their own ``settings``
(``max_examples``, health checks); a strategy here fixes only what is drawn."""
import numpy as np
from hypothesis import strategies as st

import flashrr
from engine_helpers import page_trace, tiny_config
from flashrr.config import ASSEMBLY_METHODS, WINDOWED_ASSEMBLY, ReadRetryConfig
from flashrr.policies.phasedrr import PhasedRR, Reallocation, RlRR
from flashrr.policies.readbalance import IPR, RedFTL

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
    placement, GC free pool, write stall), two in three "pressed" towards GC, and a trace;
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
                      rr=draw(st.integers(2, 20)))
    trace = draw_page_trace(draw, cfg, gap_ns=900)
    return cfg, trace, draw(st.sampled_from(["page", "page-8", "page-64"])), draw(st.integers(1, 2))


@st.composite
def shuffler_case(draw):
    """A device of :data:`PLANE_SHAPES`, a trace (:func:`draw_page_trace`), a repeat, a seed
    and Shuffler's parameters; returns (cfg, trace, repeat, seed, params)."""
    ch, chips, planes, sp = draw(st.sampled_from(PLANE_SHAPES))
    cfg = tiny_config(channels=ch, chips=chips, planes=planes, sb_planes=sp, blocks=draw(st.integers(24, 36)),
                      pages=draw(st.sampled_from([4, 8, 16])), cache_pages=draw(st.sampled_from([0, 2, 8])),
                      gc_ratio=0.08, op=draw(st.sampled_from([0.35, 0.5])), rr=draw(st.integers(2, 20)))
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
    requests (with ``distinct_reads``, no page read twice) and HotR's parameters;
    returns (cfg, trace, params)."""
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
                  erase_blocks=draw(st.booleans()))
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

