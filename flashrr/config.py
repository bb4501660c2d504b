"""Device configuration: frozen dataclasses with units in their field names.

A :class:`SimConfig` holds one instance of each section below.  Every section
validates itself when it is built, and :class:`SimConfig` checks the rules that
span sections (the superblock must fit the geometry, the cache must hold at
least one page, ...).  A broken rule raises :class:`ConfigError`, whose message
names the field (``section.field``) and the rule.

Field names are unique across sections, so ``cfg.replace(capacity_bytes=...)``
finds its section by itself.  Presets from the papers live in
:mod:`flashrr.presets`; ``SimConfig.preset(name)`` returns one.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


class ConfigError(ValueError):
    """An impossible or inconsistent configuration; the message names the field."""


def _require(cond: bool, where: str, rule: str, value: Any) -> None:
    if not cond:
        raise ConfigError(f"{where}: {rule} (got {value!r})")


def _positive_int(obj, name: str) -> None:
    v = getattr(obj, name)
    _require(isinstance(v, int) and not isinstance(v, bool) and v > 0,
             f"{obj._section}.{name}", "must be a positive integer", v)


def _nonneg_int(obj, name: str) -> None:
    v = getattr(obj, name)
    _require(isinstance(v, int) and not isinstance(v, bool) and v >= 0,
             f"{obj._section}.{name}", "must be a non-negative integer", v)


def _fraction(obj, name: str, lo_open=False, hi_open=True) -> None:
    v = getattr(obj, name)
    ok = isinstance(v, (int, float)) and not isinstance(v, bool)
    if ok:
        ok = (v > 0 if lo_open else v >= 0) and (v < 1 if hi_open else v <= 1)
    lo = "(0" if lo_open else "[0"
    hi = "1)" if hi_open else "1]"
    _require(ok, f"{obj._section}.{name}", f"must be a number in {lo}, {hi}", v)


def _finite(obj, name: str, lo: float, hi: float = math.inf, rule: str = "", lo_open: bool = False) -> None:
    """``obj.name`` is a finite number in [lo, hi] ((lo, hi] with ``lo_open``; ``rule`` says it in the error)."""
    v = getattr(obj, name)
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v <= hi
    ok = ok and (v > lo if lo_open else v >= lo)
    _require(ok, f"{obj._section}.{name}", rule or f"must be a finite number >= {lo}", v)


@dataclass(frozen=True)
class GeometryConfig:
    """Physical organisation of the flash array (counts, and bytes per page)."""

    _section = "geometry"
    channels: int = 8
    chips_per_channel: int = 4
    dies_per_chip: int = 1
    planes_per_die: int = 4
    blocks_per_plane: int = 64
    pages_per_block: int = 1024
    page_size_bytes: int = 8192

    def __post_init__(self):
        for f in fields(self):
            _positive_int(self, f.name)

    @property
    def n_dies(self) -> int:
        return self.channels * self.chips_per_channel * self.dies_per_chip

    @property
    def n_planes(self) -> int:
        return self.n_dies * self.planes_per_die

    @property
    def n_blocks(self) -> int:
        return self.n_planes * self.blocks_per_plane

    @property
    def n_pages(self) -> int:
        return self.n_blocks * self.pages_per_block

    @property
    def capacity_bytes(self) -> int:
        return self.n_pages * self.page_size_bytes


SCHEDULERS = ("user-first", "gc-first", "fcfs")
CHANNEL_MODELS = ("gap-fill", "busy-until")
WRITE_ACKS = ("insert", "program")


@dataclass(frozen=True)
class TimingConfig:
    """Operation latencies, all in integer nanoseconds.

    ``t_xfer_page_ns`` is the channel-bus time to move one page between the
    controller and a die.  ``t_dram_ns`` is the latency of a request served
    entirely by the DRAM cache.

    ``scheduler`` orders background flash transactions (GC and RR migrations,
    policy moves) against user transactions on each die (docs/model.md, section 5):

    * ``"user-first"``: a background transaction starts only on a die with no
      user transaction waiting, so a user transaction waits at most for the one
      background transaction already running (MQSim with preemptible GC).  A
      lane below ``gc.gc_hard_threshold_ratio`` free superblocks is *urgent*:
      its migrations are then booked at once, as under ``"gc-first"``.
    * ``"gc-first"``: background work is booked as soon as it is decided, and
      user transactions queue behind it (MQSim's default, non-preemptible GC).
    * ``"fcfs"``: the whole migration is booked when it is decided, every
      transaction at the decision time without dependencies between dies
      (flashrr 0.1's model, kept for ablations).

    ``channel_model``: ``"gap-fill"`` books a page transfer into the first free
    interval of its channel that is long enough; ``"busy-until"`` queues it
    behind the channel's latest booking (flashrr 0.1's model).

    ``read_priority``: a die serves the user reads waiting for it before the user
    writes waiting for it (MQSim's order: a chip's reads, then its writes).  Off,
    user transactions are booked in arrival order.  On, a user write's programs
    wait in a queue per die and start only when no read is waiting; the write
    completes when its last program ends.  Under ``"user-first"`` queued user
    writes still go before background work.  Needs ``"gc-first"`` or
    ``"user-first"`` and no cache (``cache.capacity_bytes = 0``).
    """

    _section = "timing"
    t_read_ns: int = 38_000
    t_program_ns: int = 350_000
    t_erase_ns: int = 3_500_000
    t_xfer_page_ns: int = 24_600
    t_dram_ns: int = 1_000
    scheduler: str = "user-first"
    channel_model: str = "gap-fill"
    read_priority: bool = False

    def __post_init__(self):
        for name in ("t_read_ns", "t_program_ns", "t_erase_ns"):
            _positive_int(self, name)
        _nonneg_int(self, "t_xfer_page_ns")
        _nonneg_int(self, "t_dram_ns")
        _require(self.scheduler in SCHEDULERS, "timing.scheduler", f"must be one of {SCHEDULERS}", self.scheduler)
        _require(self.channel_model in CHANNEL_MODELS, "timing.channel_model", f"must be one of {CHANNEL_MODELS}",
                 self.channel_model)
        _require(isinstance(self.read_priority, bool), "timing.read_priority", "must be true or false",
                 self.read_priority)
        _require(not self.read_priority or self.scheduler != "fcfs", "timing.read_priority",
                 "needs timing.scheduler 'gc-first' or 'user-first' ('fcfs' books every transaction when it is "
                 "decided)", self.read_priority)


@dataclass(frozen=True)
class CacheConfig:
    """The DRAM data cache: LRU over pages, write-back, shared by reads and writes.

    Its page capacity is ``(capacity_bytes - policy metadata bytes) // page_size``.
    ``read_allocate``: read misses are inserted into the cache (True, the
    default).  False keeps only written data in the cache, as MQSim's default
    ``WRITE_CACHE`` mode does; reads then hit only recently written pages.

    ``write_ack``: ``"insert"`` acknowledges a write when its pages are in DRAM;
    the programs of the dirty pages it evicts run off the request's critical
    path, through a destage buffer of ``destage_buffer_pages`` pages (0 = one
    page per plane, MQSim's back-pressure depth).  A write waits only while
    that buffer is full.  ``"program"`` makes a write wait for the programs of
    the pages it evicts (flashrr 0.1's model).
    """

    _section = "cache"
    capacity_bytes: int = 64 << 20
    read_allocate: bool = True
    write_ack: str = "insert"
    destage_buffer_pages: int = 0

    def __post_init__(self):
        _nonneg_int(self, "capacity_bytes")
        _require(isinstance(self.read_allocate, bool), "cache.read_allocate", "must be true or false",
                 self.read_allocate)
        _require(self.write_ack in WRITE_ACKS, "cache.write_ack", f"must be one of {WRITE_ACKS}", self.write_ack)
        _nonneg_int(self, "destage_buffer_pages")


FREE_POOLS = ("decided", "erased")


@dataclass(frozen=True)
class GCConfig:
    """Garbage collection and over-provisioning.

    ``gc_threshold_ratio``: while a lane's free superblocks are fewer than this
    fraction of the lane's superblocks, every superblock the lane allocates
    starts one greedy GC victim (as MQSim's ``Check_gc_required`` does per
    plane).  ``gc_hard_threshold_ratio``: below this fraction a lane's GC is
    urgent (see ``timing.scheduler``); MQSim's default is 0.005.
    ``overprovisioning_ratio``: fraction of physical pages hidden from the host;
    the logical capacity is ``floor(n_pages * (1 - overprovisioning_ratio))``.

    ``free_pool``: which free superblocks the two thresholds count.  ``"decided"``
    (default): a victim counts as free as soon as its GC is decided.  ``"erased"``:
    only once its erase has ended (MQSim's plane pool, which a block joins in
    ``Add_erased_block_to_pool``); and when an erase ends while its lane is still
    below the GC threshold, one more victim starts at that moment, unless the lane
    already has ``max_victims_in_flight`` victims whose erase has not ended (MQSim's
    GC unit at an erase, ``max_ongoing_gc_reqs_per_plane`` = 10).  Erases run only
    in simulated time, so the rule acts at the next request's arrival, with the
    erase's end as the new victim's decision time.

    ``write_stall`` (needs ``free_pool = "erased"`` and no cache): a user page whose
    lane is below the GC threshold, with a victim whose erase has not ended, waits for
    the lane's erases until its pool is back at the threshold (MQSim's
    ``Stop_servicing_writes``, which refuses writes on a plane whose pool is short).
    The page is mapped when its write arrives; only its program waits, and the write
    completes when its last page is programmed.  Reads are not held: a read of a held
    page is timed at the page's new place.

    ``reserve_gc_frontier``: every lane takes its GC/RR frontier superblock from the free
    superblocks when the device is built, before preconditioning, as MQSim's block
    manager takes a plane's user, GC and mapping frontier blocks at start.  Off (the
    default), a lane opens its GC/RR frontier at its first migration, so on a device
    never collected its first GC comes one superblock of writes later.
    """

    _section = "gc"
    gc_threshold_ratio: float = 0.10
    overprovisioning_ratio: float = 0.127
    gc_hard_threshold_ratio: float = 0.005
    free_pool: str = "decided"
    max_victims_in_flight: int = 10
    write_stall: bool = False
    reserve_gc_frontier: bool = False

    def __post_init__(self):
        _fraction(self, "gc_threshold_ratio")
        _fraction(self, "overprovisioning_ratio", lo_open=True)
        _fraction(self, "gc_hard_threshold_ratio")
        _require(self.free_pool in FREE_POOLS, "gc.free_pool", f"must be one of {FREE_POOLS}", self.free_pool)
        _positive_int(self, "max_victims_in_flight")
        _require(isinstance(self.write_stall, bool), "gc.write_stall", "must be true or false", self.write_stall)
        _require(not self.write_stall or self.free_pool == "erased", "gc.write_stall",
                 "needs gc.free_pool = 'erased' (a write waits for an erase to end)", self.write_stall)
        _require(isinstance(self.reserve_gc_frontier, bool), "gc.reserve_gc_frontier", "must be true or false",
                 self.reserve_gc_frontier)


@dataclass(frozen=True)
class ReadReclaimConfig:
    """Read reclaim: a block whose read count reaches its RR threshold triggers the
    policy's read reclaim of its superblock.

    ``trigger``: where that threshold comes from.

    * ``"count"``: ``rr_threshold_reads`` (reads) for every block, unless a policy
      raises it per block.
    * ``"rber"``: the error model's (section ``error_model``, which must be enabled):
      the block read count at which its worst page's predicted RBER reaches
      ``rber_fraction`` of the ECC capability, per block from its P/E cycles and the
      age of its data (docs/reliability.md).  ``rr_threshold_reads`` then only scales
      the thresholds policies raise (a policy's ``m * rr_threshold_reads`` becomes
      ``m`` times the model's).
    """

    _section = "read_reclaim"
    rr_threshold_reads: int = 10_000
    rr_enabled: bool = True
    trigger: str = "count"
    rber_fraction: float = 1.0

    def __post_init__(self):
        _positive_int(self, "rr_threshold_reads")
        _require(isinstance(self.rr_enabled, bool), "read_reclaim.rr_enabled", "must be true or false",
                 self.rr_enabled)
        _require(self.trigger in RR_TRIGGERS, "read_reclaim.trigger", f"must be one of {RR_TRIGGERS}", self.trigger)
        _finite(self, "rber_fraction", 0, 10, "must be a number in (0, 10] (fraction of the ECC capability)", True)


RR_TRIGGERS = ("count", "rber")


RETRY_MODELS = ("none", "cocktail", "ldpc", "custom", "rber")


@dataclass(frozen=True)
class ReadRetryConfig:
    """Read-retry latency as a step function of a block's read count.

    A flash read costs ``t_read_ns + retries * t_retry_ns``, where ``retries``
    is the number of entries of ``retry_step_fractions`` that are <= the
    block's read count divided by its RR threshold.  Models:

    * ``none``: no retries.
    * ``cocktail``: 1/2/3 retries at 70/80/90% of the threshold (Cocktail).
    * ``ldpc``: PhasedRR's seven LDPC soft-decision levels, one more level per
      1/8 of the threshold, so the worst case is ``t_read + 7 * t_retry``.
    * ``custom``: the fractions given.
    * ``rber``: the error model's (section ``error_model``, which must be enabled):
      a read takes as many steps as its block's worst page needs until its expected
      errors fall within the step's capability; past the last step it is
      uncorrectable.  ``retry_step_fractions`` must be empty and ``retry_extra_ns``
      gives the steps' latencies (:meth:`from_model`).

    ``retry_extra_ns`` (optional) replaces the linear cost by a table: entry
    ``i`` is the extra read time (ns) once ``i + 1`` steps are passed, so a read
    costs ``t_read_ns + retry_extra_ns[retries - 1]`` (``t_read_ns`` with no
    retry).  It must hold one non-decreasing, non-negative entry per step, and
    ``t_retry_ns`` is then unused (keep it 0).  :meth:`ldpc_progressive` builds
    PhasedRR's progressive-sensing table.
    """

    _section = "read_retry"
    retry_model: str = "none"
    retry_step_fractions: tuple = ()
    t_retry_ns: int = 0
    retry_extra_ns: tuple = ()

    def __post_init__(self):
        _require(self.retry_model in RETRY_MODELS, "read_retry.retry_model",
                 f"must be one of {RETRY_MODELS}", self.retry_model)
        steps = tuple(float(x) for x in self.retry_step_fractions)
        object.__setattr__(self, "retry_step_fractions", steps)
        if self.retry_model in ("none", "rber"):
            _require(not steps, "read_retry.retry_step_fractions",
                     f"must be empty for retry_model {self.retry_model!r}", steps)
        else:
            _require(len(steps) > 0, "read_retry.retry_step_fractions",
                     f"must be non-empty for retry_model {self.retry_model!r}", steps)
        _require(all(s > 0 for s in steps) and list(steps) == sorted(steps),
                 "read_retry.retry_step_fractions", "must be positive and increasing", steps)
        _nonneg_int(self, "t_retry_ns")
        table = tuple(self.retry_extra_ns)
        object.__setattr__(self, "retry_extra_ns", table)
        if self.retry_model == "rber":
            _require(len(table) > 0, "read_retry.retry_extra_ns",
                     "must hold the extra read time (ns) of each step of the model's ladder for retry_model 'rber'",
                     table)
        if table:
            _require(self.retry_model == "rber" or len(table) == len(steps), "read_retry.retry_extra_ns",
                     f"must hold one entry per retry step ({len(steps)})", table)
            _require(all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in table)
                     and list(table) == sorted(table), "read_retry.retry_extra_ns",
                     "must be non-negative integers (ns), non-decreasing", table)
            _require(self.t_retry_ns == 0, "read_retry.t_retry_ns", "must be 0 when retry_extra_ns is given",
                     self.t_retry_ns)

    def extra_ns_by_retries(self) -> tuple:
        """Extra read time (ns) after 0, 1, ..., len(steps) retries."""
        if self.retry_extra_ns:
            return (0,) + tuple(self.retry_extra_ns)
        return tuple(i * self.t_retry_ns for i in range(self.n_steps + 1))

    @property
    def n_steps(self) -> int:
        """Retry steps a read can take (the ladder's under ``rber``)."""
        return len(self.retry_extra_ns) if self.retry_model == "rber" else len(self.retry_step_fractions)

    @classmethod
    def from_model(cls, table: "ReadRetryConfig") -> "ReadRetryConfig":
        """Retry steps from the error model, each costing what ``table``'s step does
        (e.g. ``from_model(ReadRetryConfig.ldpc_progressive())``: PhasedRR's latencies)."""
        return cls("rber", (), 0, tuple(table.extra_ns_by_retries()[1:]))

    @classmethod
    def cocktail(cls, t_retry_ns: int) -> "ReadRetryConfig":
        return cls("cocktail", (0.7, 0.8, 0.9), t_retry_ns)

    @classmethod
    def ldpc(cls, t_retry_ns: int, levels: int = 7) -> "ReadRetryConfig":
        return cls("ldpc", tuple((i + 1) / (levels + 1) for i in range(levels)), t_retry_ns)

    @classmethod
    def ldpc_progressive(cls, t_first_ns: int = 85_000, t_step_ns: int = 24_000, levels: int = 7
                         ) -> "ReadRetryConfig":
        """Progressive LDPC soft-decision reading (PhasedRR, docs/phasedrr.md): sensing
        pass ``i`` (0-based) costs ``t_first_ns + i * t_step_ns`` and a read at level
        ``L`` (1..levels) needs ``L`` passes, so it costs
        ``L * t_first_ns + t_step_ns * L * (L - 1) / 2`` ns; the timing's ``t_read_ns``
        must be ``t_first_ns``.  Level ``1 + j`` is reached at ``j / levels`` of the RR
        threshold (``j = 1 .. levels - 1``)."""
        extra = tuple((lv - 1) * t_first_ns + t_step_ns * lv * (lv - 1) // 2 for lv in range(2, levels + 1))
        return cls("ldpc", tuple(j / levels for j in range(1, levels)), 0, extra)


# superblock.assembly: the names of flashrr.pv.METHODS (a test holds them equal)
ASSEMBLY_METHODS = ("random", "sequential", "ers_ltn", "pgm_ltn", "optimal", "lwl_rank", "pwl_rank", "str_rank",
                    "str_med", "qstr_med")
WINDOWED_ASSEMBLY = ("optimal", "lwl_rank", "pwl_rank", "str_rank", "str_med", "qstr_med")
PV_MODELS = ("off", "generative")
PV_SCALES = ("relative", "absolute")
PV_ROW_ORDERS = ("shuffled", "assembly")
PV_PE_MAX = 3000  # the model's P/E drift is defined over 0..3000 cycles
PLACEMENTS = ("dynamic", "static_die", "static_lane")


@dataclass(frozen=True)
class SuperblockConfig:
    """How many parallel units one superblock spans at each level.

    A superblock takes one block from each of ``sb_planes x sb_dies x sb_chips x
    sb_channels`` planes; ``k`` (blocks per superblock) is their product, and
    ``k == 1`` is plain block management.  Each ``sb_*`` must divide the
    matching geometry count.  The planes a superblock spans form a *lane*;
    superblocks of a lane are its rows (``assembly = 'sequential'``: the same
    block id on every plane).

    Process variation (docs/superblock-pv.md section 6): ``pv_model =
    'generative'`` gives every block its own program latency per logical word
    line and its own erase latency, drawn from :class:`flashrr.pv.PVModel` with
    ``pv_seed`` at ``pv_pe`` P/E cycles; ``assembly`` (one of
    :data:`ASSEMBLY_METHODS`) then decides which block of each plane forms each
    superblock, and ``pv_window`` overrides the method's window (0 = its
    default).  ``pv_scale``: ``'relative'`` rescales the model so its nominal
    latencies equal ``timing.t_program_ns`` / ``t_erase_ns``; ``'absolute'``
    uses the model's µs as they are.  ``pv_row_order``: where the assembled
    superblocks sit among a lane's rows (the FTL allocates free rows in row
    order, so the preconditioning fill takes the first rows): ``'shuffled'``
    (default) places them in a seeded random order, so the superblocks a trace
    reaches are a random sample of the assembly whatever the method;
    ``'assembly'`` keeps the method's order (sorted methods put their fastest
    superblocks first, so a filled device leaves its slowest ones free).
    ``pv_reassembly`` (``assembly = 'qstr_med'`` only): erased blocks go back
    to their plane's free pool and every superblock allocation assembles a new
    one by PV Check, a fast one for the user frontier and a slow one for the
    GC/RR frontier (the precondition's sequential fill keeps the static
    assembly; its warm-up rewrites reassemble).  With ``pv_model = 'off'`` (the default) every block has
    the timing's latencies.

    ``placement``: where user pages go.  ``"dynamic"`` deals each new superpage
    to the next lane round-robin, whatever its LPN.  ``"static_die"`` writes
    LPN ``l`` on die ``l mod n_dies`` (the MSR DiskSim SSD model's static
    striping of pages over elements), round-robin over that die's lanes; it
    needs every superblock inside one die (``sb_dies = sb_chips =
    sb_channels = 1``).  ``"static_lane"`` writes LPN ``l`` on lane
    ``(l // k) mod n_lanes``, the lane the sequential fill gives it; lanes are
    numbered channel-fastest, so with ``k = 1`` this is MQSim's static CWDP
    plane allocation.  Under a uniform workload the lanes then fill at
    random, independent paces, as MQSim's planes do; ``"dynamic"`` keeps every
    lane at the same pace, so their GCs fall due together.
    """

    _section = "superblock"
    sb_planes: int = 4
    sb_dies: int = 1
    sb_chips: int = 1
    sb_channels: int = 1
    assembly: str = "sequential"
    pv_model: str = "off"
    pv_seed: int = 0
    pv_pe: int = 0
    pv_scale: str = "relative"
    pv_window: int = 0
    pv_row_order: str = "shuffled"
    pv_reassembly: bool = False
    placement: str = "dynamic"

    def __post_init__(self):
        for name in ("sb_planes", "sb_dies", "sb_chips", "sb_channels"):
            _positive_int(self, name)
        _require(self.assembly in ASSEMBLY_METHODS, "superblock.assembly", f"must be one of {ASSEMBLY_METHODS}",
                 self.assembly)
        _require(self.pv_model in PV_MODELS, "superblock.pv_model", f"must be one of {PV_MODELS}", self.pv_model)
        _nonneg_int(self, "pv_seed")
        _nonneg_int(self, "pv_window")
        _require(isinstance(self.pv_pe, int) and not isinstance(self.pv_pe, bool) and 0 <= self.pv_pe <= PV_PE_MAX,
                 "superblock.pv_pe", f"must be an integer P/E count in [0, {PV_PE_MAX}]", self.pv_pe)
        _require(self.pv_scale in PV_SCALES, "superblock.pv_scale", f"must be one of {PV_SCALES}", self.pv_scale)
        _require(self.pv_row_order in PV_ROW_ORDERS, "superblock.pv_row_order", f"must be one of {PV_ROW_ORDERS}",
                 self.pv_row_order)
        _require(isinstance(self.pv_reassembly, bool), "superblock.pv_reassembly", "must be true or false",
                 self.pv_reassembly)
        if self.pv_model == "off":
            _require(self.assembly == "sequential", "superblock.assembly",
                     "needs superblock.pv_model = 'generative' (without a PV model every block has the same "
                     "latency, so only 'sequential' is defined)", self.assembly)
            _require(not self.pv_reassembly, "superblock.pv_reassembly", "needs superblock.pv_model = 'generative'",
                     self.pv_reassembly)
        else:
            _require((self.sb_dies, self.sb_chips, self.sb_channels) == (1, 1, 1), "superblock.pv_model",
                     "the PV model assembles superblocks within one die; sb_dies, sb_chips and sb_channels "
                     "must be 1", (self.sb_dies, self.sb_chips, self.sb_channels))
        _require(not self.pv_reassembly or self.assembly == "qstr_med", "superblock.pv_reassembly",
                 f"is defined for assembly 'qstr_med' only (got assembly {self.assembly!r})", self.pv_reassembly)
        _require(self.pv_window == 0 or self.assembly in WINDOWED_ASSEMBLY, "superblock.pv_window",
                 f"applies to the windowed methods {WINDOWED_ASSEMBLY} only (got assembly {self.assembly!r})",
                 self.pv_window)
        _require(self.placement in PLACEMENTS, "superblock.placement", f"must be one of {PLACEMENTS}",
                 self.placement)
        if self.placement == "static_die":
            _require(self.sb_dies == self.sb_chips == self.sb_channels == 1, "superblock.placement",
                     "'static_die' needs every superblock inside one die (sb_dies = sb_chips = sb_channels = 1)",
                     (self.sb_dies, self.sb_chips, self.sb_channels))

    @property
    def k(self) -> int:
        return self.sb_planes * self.sb_dies * self.sb_chips * self.sb_channels


@dataclass(frozen=True)
class PreconditionConfig:
    """How the device is aged before the trace runs.

    ``fill_ratio``: if 0, the logical space is filled sequentially from LPN 0
    up to the trace's highest LPN; otherwise up to at least this fraction of
    the logical capacity.  ``warmup_random_writes_ratio``: after the fill,
    this many random page writes (as a fraction of the filled pages) age the
    device, drawn from the run's seed.
    """

    _section = "precondition"
    fill_ratio: float = 0.0
    warmup_random_writes_ratio: float = 0.0

    def __post_init__(self):
        _fraction(self, "fill_ratio", hi_open=False)
        v = self.warmup_random_writes_ratio
        _require(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 100,
                 "precondition.warmup_random_writes_ratio", "must be a number in [0, 100]", v)


ERROR_MODEL_PRESETS = ("mlc", "tlc", "qlc", "fit-phasedrr", "fit-ldpc", "fit-cocktail")
LADDER_GROWTHS = ("linear", "geometric")


@dataclass(frozen=True)
class ErrorModelConfig:
    """The error model the engine tracks per block (docs/reliability.md).  Off by
    default; when off, runs are what they are without it.

    * ``rber_preset``: the RBER model and ECC: ``"mlc"``, ``"tlc"``, ``"qlc"``
      (:func:`flashrr.reliability.rber_preset`), or ``"fit-phasedrr"``,
      ``"fit-ldpc"``, ``"fit-cocktail"``: TLC fitted to that paper's retry table
      (:func:`flashrr.reliability.fitted_to`, with its ladder factor).
    * ``ecc_t_bits``: hard-decision capability, bits per codeword (0: the preset's).
    * ``ladder_growth``, ``ladder_factor``: how each retry step raises the capability
      (:class:`flashrr.reliability.RetryLadder`; factor 0: the fit's, else 0.5).
    * ``initial_pe_mean``, ``initial_pe_sd``, ``initial_pe_seed``: each block's P/E
      cycles before the run, drawn once (:func:`flashrr.reliability.draw_initial_pe`);
      the engine adds its erases.
    * ``data_age_s``: age (s) of the preconditioned data when the trace starts.
    * ``retention_quantum_s``: the unit (s) of the retention buckets the engine looks
      its tables up in (docs/reliability.md, "In the engine").
    * ``worst_layer_factor``: RBER of a block's worst word-line layer over the mean
      of its layers (dimensionless, >= 1; 1: no layer variation, the default).
    """

    _section = "error_model"
    enabled: bool = False
    rber_preset: str = "tlc"
    ecc_t_bits: float = 0.0
    ladder_growth: str = "linear"
    ladder_factor: float = 0.0
    initial_pe_mean: float = 0.0
    initial_pe_sd: float = 0.0
    initial_pe_seed: int = 0
    data_age_s: float = 0.0
    retention_quantum_s: float = 3600.0
    worst_layer_factor: float = 1.0

    def __post_init__(self):
        _require(isinstance(self.enabled, bool), "error_model.enabled", "must be true or false", self.enabled)
        _require(self.rber_preset in ERROR_MODEL_PRESETS, "error_model.rber_preset",
                 f"must be one of {ERROR_MODEL_PRESETS}", self.rber_preset)
        _require(self.ladder_growth in LADDER_GROWTHS, "error_model.ladder_growth",
                 f"must be one of {LADDER_GROWTHS}", self.ladder_growth)
        for name in ("ecc_t_bits", "ladder_factor", "initial_pe_mean", "initial_pe_sd", "data_age_s"):
            _finite(self, name, 0)
        _require(self.ladder_growth == "linear" or self.ladder_factor == 0 or self.ladder_factor > 1,
                 "error_model.ladder_factor", "must be > 1 (or 0) for geometric growth", self.ladder_factor)
        _nonneg_int(self, "initial_pe_seed")
        _finite(self, "retention_quantum_s", 1e-6, rule="must be a finite number of seconds >= 1e-6")
        _finite(self, "worst_layer_factor", 1.0)


SECTIONS = {
    "geometry": GeometryConfig,
    "timing": TimingConfig,
    "cache": CacheConfig,
    "gc": GCConfig,
    "read_reclaim": ReadReclaimConfig,
    "read_retry": ReadRetryConfig,
    "superblock": SuperblockConfig,
    "precondition": PreconditionConfig,
    "error_model": ErrorModelConfig,
}

# field name -> section name; field names are unique across sections.
_FIELD_SECTION = {f.name: sec for sec, cls in SECTIONS.items() for f in fields(cls)}


@dataclass(frozen=True)
class SimConfig:
    """A whole simulated device.  Build it from sections, a preset, or TOML."""

    geometry: GeometryConfig = field(default_factory=GeometryConfig)
    timing: TimingConfig = field(default_factory=TimingConfig)
    cache: CacheConfig = field(default_factory=CacheConfig)
    gc: GCConfig = field(default_factory=GCConfig)
    read_reclaim: ReadReclaimConfig = field(default_factory=ReadReclaimConfig)
    read_retry: ReadRetryConfig = field(default_factory=ReadRetryConfig)
    superblock: SuperblockConfig = field(default_factory=SuperblockConfig)
    precondition: PreconditionConfig = field(default_factory=PreconditionConfig)
    error_model: ErrorModelConfig = field(default_factory=ErrorModelConfig)
    name: str = "custom"

    def __post_init__(self):
        for sec, cls in SECTIONS.items():
            _require(isinstance(getattr(self, sec), cls), sec, f"must be a {cls.__name__}", getattr(self, sec))
        g, sb = self.geometry, self.superblock
        for span, count in (("sb_planes", "planes_per_die"), ("sb_dies", "dies_per_chip"),
                            ("sb_chips", "chips_per_channel"), ("sb_channels", "channels")):
            _require(getattr(g, count) % getattr(sb, span) == 0, f"superblock.{span}",
                     f"must divide geometry.{count}={getattr(g, count)}", getattr(sb, span))
        _require(self.cache.capacity_bytes == 0 or self.cache.capacity_bytes >= g.page_size_bytes,
                 "cache.capacity_bytes", f"must be 0 or hold at least one page of {g.page_size_bytes} bytes",
                 self.cache.capacity_bytes)
        _require(self.gc_threshold_superblocks < self.geometry.blocks_per_plane - 1, "gc.gc_threshold_ratio",
                 f"leaves no room to write: {self.gc_threshold_superblocks} of "
                 f"{self.geometry.blocks_per_plane} superblocks per lane kept free", self.gc.gc_threshold_ratio)
        _require(not self.gc.write_stall or self.cache.capacity_bytes == 0, "gc.write_stall",
                 "holds uncached writes only; set cache.capacity_bytes = 0 (with a cache, the destage buffer "
                 "throttles writes)", self.gc.write_stall)
        _require(not self.timing.read_priority or self.cache.capacity_bytes == 0, "timing.read_priority",
                 "orders uncached writes only; set cache.capacity_bytes = 0 (the destage buffer needs each "
                 "flush's end when the flush is made)", self.timing.read_priority)
        for where, on in (("read_reclaim.trigger", self.read_reclaim.trigger == "rber"),
                          ("read_retry.retry_model", self.read_retry.retry_model == "rber")):
            _require(not on or self.error_model.enabled, where,
                     "'rber' needs the error model: set error_model.enabled = true", "rber")
        spare_sb = (g.n_pages - self.logical_pages) / (self.pages_per_superblock * self.n_lanes)
        _require(spare_sb >= 3, "gc.overprovisioning_ratio",
                 f"gives {spare_sb:.2f} spare superblocks per lane; at least 3 are needed (user frontier, "
                 "GC frontier, and one to collect into)", self.gc.overprovisioning_ratio)

    # ----- derived quantities (pages, counts) -----
    @property
    def k(self) -> int:
        """Blocks per superblock."""
        return self.superblock.k

    @property
    def n_lanes(self) -> int:
        """Independent groups of k planes; each holds blocks_per_plane superblocks."""
        return self.geometry.n_planes // self.k

    @property
    def superblocks_per_lane(self) -> int:
        return self.geometry.blocks_per_plane

    @property
    def n_superblocks(self) -> int:
        return self.n_lanes * self.superblocks_per_lane

    @property
    def pages_per_superblock(self) -> int:
        return self.k * self.geometry.pages_per_block

    @property
    def logical_pages(self) -> int:
        """Pages the host may address (LPN range)."""
        return int(math.floor(self.geometry.n_pages * (1.0 - self.gc.overprovisioning_ratio)))

    @property
    def logical_bytes(self) -> int:
        return self.logical_pages * self.geometry.page_size_bytes

    @property
    def gc_threshold_superblocks(self) -> int:
        """GC runs in a lane while its free superblocks are fewer than this (at least 1)."""
        return max(1, int(math.ceil(self.gc.gc_threshold_ratio * self.superblocks_per_lane)))

    @property
    def gc_hard_threshold_superblocks(self) -> int:
        """A lane's GC is urgent while its free superblocks are fewer than this (at least 1, at
        most the GC threshold)."""
        hard = max(1, int(math.ceil(self.gc.gc_hard_threshold_ratio * self.superblocks_per_lane)))
        return min(hard, self.gc_threshold_superblocks)

    @property
    def destage_pages(self) -> int:
        """Dirty pages that may await their flush program before a write waits (see CacheConfig)."""
        return self.cache.destage_buffer_pages or self.geometry.n_planes

    # ----- construction helpers -----
    @classmethod
    def preset(cls, name: str) -> "SimConfig":
        """The device of a paper's table; see :data:`flashrr.presets.DEVICE_PRESETS`."""
        from .presets import device_preset

        return device_preset(name)

    def replace(self, **changes) -> "SimConfig":
        """A copy with changes.  Keys are section names (a section instance or a
        dict of field changes), ``name``, or any field name of any section."""
        by_section: dict[str, dict] = {}
        top: dict[str, Any] = {}
        for key, value in changes.items():
            if key in SECTIONS:
                if isinstance(value, dict):
                    by_section.setdefault(key, {}).update(value)
                else:
                    top[key] = value
            elif key == "name":
                top[key] = value
            elif key in _FIELD_SECTION:
                by_section.setdefault(_FIELD_SECTION[key], {})[key] = value
            else:
                raise ConfigError(f"{key}: unknown configuration field; known sections are "
                                  f"{sorted(SECTIONS)} and fields {sorted(_FIELD_SECTION)}")
        for sec, upd in by_section.items():
            base = top.get(sec, getattr(self, sec))
            top[sec] = _build_section(sec, {**_section_dict(base), **upd})
        return dataclasses.replace(self, **top)

    # ----- dict / TOML -----
    def to_dict(self) -> dict:
        d: dict[str, Any] = {"name": self.name}
        for sec in SECTIONS:
            d[sec] = _section_dict(getattr(self, sec))
        return d

    @classmethod
    def from_dict(cls, data: dict, *, source: str = "<dict>") -> "SimConfig":
        """Build from a dict as written by :meth:`to_dict`.  A top-level
        ``preset = "name"`` key starts from that preset; sections then override."""
        data = dict(data)
        base = cls.preset(data.pop("preset")) if "preset" in data else cls()
        changes: dict[str, Any] = {}
        for key, value in data.items():
            if key == "name":
                changes["name"] = str(value)
            elif key in SECTIONS:
                if not isinstance(value, dict):
                    raise ConfigError(f"{source}: [{key}] must be a table of fields")
                for fname in value:
                    if _FIELD_SECTION.get(fname) != key:
                        raise ConfigError(f"{source}: {key}.{fname}: unknown field; expected one of "
                                          f"{[f.name for f in fields(SECTIONS[key])]}")
                changes[key] = dict(value)
            else:
                raise ConfigError(f"{source}: {key}: unknown section; expected one of {sorted(SECTIONS)}")
        try:
            return base.replace(**changes)
        except ConfigError as e:
            raise ConfigError(f"{source}: {e}") from None

    def to_toml(self) -> str:
        import tomli_w

        return tomli_w.dumps(self.to_dict())

    @classmethod
    def from_toml(cls, text: str, *, source: str = "<string>") -> "SimConfig":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{source}: not valid TOML: {e}") from None
        return cls.from_dict(data, source=source)

    @classmethod
    def load(cls, path) -> "SimConfig":
        path = Path(path)
        try:
            text = path.read_text()
        except OSError as e:
            raise ConfigError(f"{path}: cannot read config file: {e.strerror}") from None
        return cls.from_toml(text, source=str(path))

    def save(self, path) -> None:
        Path(path).write_text(self.to_toml())


def _section_dict(obj) -> dict:
    out = {}
    for f in fields(obj):
        v = getattr(obj, f.name)
        out[f.name] = list(v) if isinstance(v, tuple) else v
    return out


def _build_section(sec: str, values: dict):
    cls = SECTIONS[sec]
    try:
        if sec == "read_retry":
            values = {**values, **{key: tuple(values[key]) for key in ("retry_step_fractions", "retry_extra_ns")
                                   if key in values}}
        return cls(**values)
    except TypeError as e:
        raise ConfigError(f"{sec}: {e}") from None
