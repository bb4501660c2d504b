"""Flattened device parameters shared by the compiled and the reference engine.

:func:`build_layout` turns a :class:`~flashrr.config.SimConfig` into plain
integers and NumPy arrays, so that both engines start from exactly the same
numbers.  Addressing used by both engines (all ids are 0-based ints):

* lane ``l`` in ``[0, n_lanes)``: the ``k`` planes one superblock spans.  Lanes
  are numbered channel-fastest, so round-robin over lanes stripes channels first.
* superblock ``sb = l * S + row`` with ``S = superblocks_per_lane``.
* block slot ``blk = sb * k + c`` for component ``c`` in ``[0, k)``.
* physical page ``ppn = blk * N + off`` with ``N = pages_per_block``.
* ``comp_die[l * k + c]`` / ``comp_chan[...]`` / ``comp_plane_in_die[...]``: where
  component ``c`` of lane ``l`` lives.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..config import ConfigError, SimConfig

# Superblock states (int8 in the engines).
SB_FREE, SB_OPEN_USER, SB_OPEN_GC, SB_CLOSED, SB_VICTIM = 0, 1, 2, 3, 4
# A block in Cocktail's write pool (partly written; not a GC candidate; docs/cocktail.md).
SB_POOL = 5
# At most this many GC/RR frontier superblocks are open per lane at once; when a
# component would need one more, the oldest is closed with its unwritten pages left
# unused (see docs/model.md, "GC/RR frontier").
GC_OPEN_MAX = 2
# Latency histogram: log-linear buckets, 2**HIST_SUB_BITS per power of two.
HIST_SUB_BITS = 7
HIST_BUCKETS = (64 - HIST_SUB_BITS + 1) << HIST_SUB_BITS
PPM = 1_000_000
# timing.scheduler as an int in the engines
SCHED_USER_FIRST, SCHED_GC_FIRST, SCHED_FCFS = 0, 1, 2
SCHED_CODES = {"user-first": SCHED_USER_FIRST, "gc-first": SCHED_GC_FIRST, "fcfs": SCHED_FCFS}
# causes of flash busy time (index into the engines' busy-time counters)
CAUSE_USER, CAUSE_FLUSH, CAUSE_GC, CAUSE_RR, CAUSE_MOVE = 0, 1, 2, 3, 4
CAUSES = ("user", "flush", "gc", "rr", "move")


@dataclass(frozen=True)
class Layout:
    """Everything an engine needs, as ints and int arrays (units in names)."""

    k: int
    n_lanes: int
    sb_per_lane: int
    pages_per_block: int
    n_dies: int
    n_channels: int
    planes_per_die: int
    logical_pages: int
    page_size_bytes: int
    gc_threshold_sb: int
    gc_hard_threshold_sb: int
    cache_pages: int
    read_allocate: bool
    write_ack_insert: bool  # cache.write_ack == "insert"
    destage_pages: int  # dirty pages that may await their flush before a write waits
    scheduler: int  # SCHED_* code of timing.scheduler
    channel_gapfill: bool  # timing.channel_model == "gap-fill"
    t_read_ns: int
    t_program_ns: int
    t_erase_ns: int
    t_xfer_page_ns: int
    t_dram_ns: int
    t_retry_ns: int
    rr_threshold_reads: int
    rr_enabled: bool
    retry_steps_ppm: np.ndarray  # int64 [n_steps], fractions of the RR threshold in parts per million
    retry_extra_ns: np.ndarray  # int64 [n_steps + 1], extra read time after 0..n_steps retries
    comp_die: np.ndarray  # int32 [n_lanes * k]
    comp_chan: np.ndarray  # int32 [n_lanes * k]
    comp_plane_in_die: np.ndarray  # int32 [n_lanes * k]
    pv: object = None  # the PV model's tables when process_variation.pv_model is on (pv_timing_py.py reads them)
    static_die: bool = False  # page_placement.placement == "static_die": LPN l lives on die l mod n_dies
    static_lane: bool = False  # page_placement.placement == "static_lane": LPN l lives on lane (l / k) mod n_lanes
    gc_erased_pool: bool = False  # gc.free_pool == "erased": thresholds count erased superblocks; GC at erases
    gc_max_in_flight: int = 10  # gc.max_victims_in_flight (with gc_erased_pool)
    gc_write_stall: bool = False  # gc.write_stall: uncached user pages wait while their lane's pool is short
    read_priority: bool = False  # timing.read_priority: a die serves its waiting user reads before its user writes
    join_writes: bool = False  # timing.join_writes: a die programs its waiting writes of other planes at one offset together
    join_reads: bool = False  # timing.join_reads: a user read senses with a later background read of its die
    gc_reserve_frontier: bool = False  # gc.reserve_gc_frontier: each lane's GC/RR frontier is taken when built
    gc_copyback: bool = True  # gc.copyback: a page moved within its die does not cross the channel
    gc_aligned_moves: bool = False  # gc.aligned_moves: a moved superpage's pages stay at one offset
    # the error model's tables when error_model.enabled (errors_py.py reads them), else None
    error_tables: object = None

    @property
    def n_superblocks(self) -> int:
        return self.n_lanes * self.sb_per_lane

    @property
    def n_blocks(self) -> int:
        return self.n_superblocks * self.k

    @property
    def n_pages(self) -> int:
        return self.n_blocks * self.pages_per_block

    @property
    def pages_per_superblock(self) -> int:
        return self.k * self.pages_per_block


class Lanes(NamedTuple):
    """Where the components of each lane live (the module docstring's ids)."""

    n_lanes: int
    comp_die: np.ndarray  # int32 [n_lanes * k]
    comp_chan: np.ndarray  # int32 [n_lanes * k]
    comp_plane_in_die: np.ndarray  # int32 [n_lanes * k]


def lane_components(config: SimConfig) -> Lanes:
    """The lanes of ``config`` and the die, channel and in-die plane of each component."""
    g, sb = config.geometry, config.superblock
    k = sb.k
    n_ch_q = g.channels // sb.sb_channels
    n_chip_q = g.chips_per_channel // sb.sb_chips
    n_die_q = g.dies_per_chip // sb.sb_dies
    n_plane_q = g.planes_per_die // sb.sb_planes
    n_lanes = n_ch_q * n_chip_q * n_die_q * n_plane_q
    comp_die = np.empty(n_lanes * k, dtype=np.int32)
    comp_chan = np.empty(n_lanes * k, dtype=np.int32)
    comp_plane = np.empty(n_lanes * k, dtype=np.int32)
    for ch in range(g.channels):
        for chip in range(g.chips_per_channel):
            for die in range(g.dies_per_chip):
                for pl in range(g.planes_per_die):
                    # lane: channel fastest; component: plane fastest
                    lane = (((pl // sb.sb_planes) * n_die_q + die // sb.sb_dies) * n_chip_q
                            + chip // sb.sb_chips) * n_ch_q + ch // sb.sb_channels
                    comp = (((ch % sb.sb_channels) * sb.sb_chips + chip % sb.sb_chips) * sb.sb_dies
                            + die % sb.sb_dies) * sb.sb_planes + pl % sb.sb_planes
                    idx = lane * k + comp
                    comp_die[idx] = (ch * g.chips_per_channel + chip) * g.dies_per_chip + die
                    comp_chan[idx] = ch
                    comp_plane[idx] = pl
    return Lanes(n_lanes, comp_die, comp_chan, comp_plane)


def build_layout(config: SimConfig, metadata_bytes: int = 0, *, pv=None, error_tables=None) -> Layout:
    """Flatten ``config``; ``metadata_bytes`` (policy DRAM use) is taken from the cache.

    ``pv`` and ``error_tables`` are the tables of the PV model and of the error model,
    built above the engine from the config (``flashrr.engine_layout.engine_layout``
    builds the layout with both).  Each is required when the config switches its model
    on, and refused when it does not (ConfigError)."""
    g, sb = config.geometry, config.superblock
    if g.n_pages >= 2**31 - 1:
        raise ConfigError(f"geometry: {g.n_pages} physical pages exceed the engine's 2**31 - 1 page limit")
    k = sb.k
    if k > 64 or g.planes_per_die > 64:
        raise ConfigError(f"superblock: the engine supports at most 64 blocks per superblock and 64 planes per "
                          f"die (got k={k}, planes_per_die={g.planes_per_die})")
    _check_tables(pv, config.process_variation.pv_model != "off", "process_variation.pv_model", "the PV model's")
    _check_tables(error_tables, config.error_model.enabled, "error_model.enabled", "the error model's")
    lanes = lane_components(config)
    cache_bytes = config.cache.capacity_bytes - int(metadata_bytes)
    cache_pages = max(0, cache_bytes // g.page_size_bytes)
    rr = config.read_retry
    steps = np.array([int(round(f * PPM)) for f in rr.retry_step_fractions], dtype=np.int64)
    t = config.timing
    return Layout(
        k=k, n_lanes=lanes.n_lanes, sb_per_lane=g.blocks_per_plane, pages_per_block=g.pages_per_block,
        n_dies=g.n_dies, n_channels=g.channels, planes_per_die=g.planes_per_die,
        logical_pages=config.logical_pages, page_size_bytes=g.page_size_bytes,
        gc_threshold_sb=config.gc_threshold_superblocks,
        gc_hard_threshold_sb=config.gc_hard_threshold_superblocks, cache_pages=int(cache_pages),
        read_allocate=config.cache.read_allocate, write_ack_insert=config.cache.write_ack == "insert",
        destage_pages=config.destage_pages, scheduler=SCHED_CODES[config.timing.scheduler],
        channel_gapfill=config.timing.channel_model == "gap-fill",
        t_read_ns=t.t_read_ns, t_program_ns=t.t_program_ns, t_erase_ns=t.t_erase_ns,
        t_xfer_page_ns=t.t_xfer_page_ns, t_dram_ns=t.t_dram_ns, t_retry_ns=rr.t_retry_ns,
        rr_threshold_reads=config.read_reclaim.rr_threshold_reads, rr_enabled=config.read_reclaim.rr_enabled,
        retry_steps_ppm=steps, retry_extra_ns=np.array(rr.extra_ns_by_retries(), dtype=np.int64),
        comp_die=lanes.comp_die, comp_chan=lanes.comp_chan, comp_plane_in_die=lanes.comp_plane_in_die,
        pv=pv,
        static_die=config.page_placement.placement == "static_die",
        static_lane=config.page_placement.placement == "static_lane",
        gc_erased_pool=config.gc.free_pool == "erased", gc_max_in_flight=config.gc.max_victims_in_flight,
        gc_write_stall=config.gc.write_stall,
        read_priority=config.timing.read_priority,
        join_writes=config.timing.join_writes,
        join_reads=config.timing.join_reads,
        gc_reserve_frontier=config.gc.reserve_gc_frontier,
        gc_copyback=config.gc.copyback,
        gc_aligned_moves=config.gc.aligned_moves,
        error_tables=error_tables,
    )


def _check_tables(tables, on: bool, field: str, whose: str) -> None:
    """ConfigError unless ``tables`` are given exactly when the model of ``field`` is on."""
    if on and tables is None:
        raise ConfigError(f"{field}: the model is on, but {whose} tables were not given to the engine's layout "
                          "(flashrr.engine_layout.engine_layout builds them)")
    if not on and tables is not None:
        raise ConfigError(f"{field}: the model is off, but {whose} tables were given to the engine's layout")


def hist_bucket(v: int) -> int:
    """Log-linear histogram bucket of a latency ``v`` ns (>= 0); relative error < 2**-7."""
    if v < (1 << HIST_SUB_BITS):
        return v
    e = v.bit_length() - 1
    return ((e - HIST_SUB_BITS + 1) << HIST_SUB_BITS) + ((v >> (e - HIST_SUB_BITS)) & ((1 << HIST_SUB_BITS) - 1))


def hist_bucket_bounds(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and one-past-highest latency (ns) of each bucket index in ``b``."""
    b = np.asarray(b, dtype=np.int64)
    sub = 1 << HIST_SUB_BITS
    lo = np.where(b < sub, b, 0)
    hi = np.where(b < sub, b + 1, 0)
    big = b >= sub
    e = (b[big] >> HIST_SUB_BITS) + HIST_SUB_BITS - 1
    m = b[big] & (sub - 1)
    width = np.left_shift(np.int64(1), e - HIST_SUB_BITS)
    lo_big = np.left_shift(np.int64(1), e) + m * width
    lo[big] = lo_big
    hi[big] = lo_big + width
    return lo, hi


def die_channels(layout: Layout) -> np.ndarray:
    """``int32 [n_dies]``: the channel of each die."""
    out = np.zeros(layout.n_dies, np.int32)
    out[np.asarray(layout.comp_die)] = np.asarray(layout.comp_chan)
    return out


def lanes_by_die(layout: Layout) -> np.ndarray:
    """``int32 [n_dies, lanes_per_die]``: the lanes of each die, in lane order.  The
    config guarantees every lane sits on one die (sb_dies = sb_chips = sb_channels = 1),
    so every die holds ``planes_per_die / sb_planes`` lanes."""
    k = layout.k
    lane_die = np.asarray(layout.comp_die, dtype=np.int64).reshape(layout.n_lanes, k)[:, 0]
    order = np.argsort(lane_die, kind="stable")
    return order.reshape(layout.n_dies, -1).astype(np.int32)
