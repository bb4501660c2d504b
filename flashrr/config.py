"""Device configuration: frozen dataclasses with units in their field names.

A :class:`SimConfig` holds one instance of each section: the device's geometry,
timing, cache, GC and preconditioning below; read reclaim, read retry and the error
model in :mod:`flashrr.config_reliability`; the superblock shape, process variation
and page placement in :mod:`flashrr.config_superblock` (all shown here too).  Every
section validates itself when it is built, and :class:`SimConfig` checks the rules that
span sections (the superblock must fit the geometry, the cache must hold at
least one page, ...).  A broken rule raises :class:`ConfigError`, whose message
names the field (``section.field``) and the rule.

Field names are unique across sections, so ``cfg.replace(capacity_bytes=...)``
finds its section by itself.  ``SimConfig.preset(name)`` returns a device preset of
:data:`DEVICE_PRESETS`; the papers' devices (:mod:`flashrr.presets`, imported with the
``flashrr`` package) register themselves there with :func:`register_preset`.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable

from .config_checks import ConfigError, _fraction, _nonneg_int, _positive_int, _require
# every section, and the choices its fields take, is named by flashrr.config too
from .config_reliability import (ERROR_MODEL_PRESETS, LADDER_GROWTHS, RETRY_MODELS, RR_TRIGGERS,  # noqa: F401
                                 ErrorModelConfig, ReadReclaimConfig, ReadRetryConfig)
from .config_superblock import (ASSEMBLY_METHODS, PLACEMENTS, PV_MODELS, PV_PE_MAX, PV_ROW_ORDERS,  # noqa: F401
                                PV_SCALES, WINDOWED_ASSEMBLY, PlacementConfig, ProcessVariationConfig,
                                SuperblockConfig)

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


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

    ``join_writes``: with ``read_priority``, a die starting its first waiting user
    program takes with it every waiting user program of its other planes at the same
    page offset whose write has arrived by then, and programs them as one
    multi-plane command (transfers of all their pages, then the longest program
    time).  MQSim builds a chip's write command this way from its queue (its
    ``TSU_Base::issue_command_to_chip``: same die, a plane not yet taken, the same
    page in the block as the queue's first).  Off, only the pages of one request
    are programmed together.  Needs ``read_priority``.

    ``join_reads``: a user read that arrives before a booked background (GC, RR) read
    of its die starts, at the same page offset on another plane, senses with it in
    one multi-plane command (MQSim joins a chip's user reads to its GC read commands
    the same way): it ends when its pages have crossed the channel after that read's
    sensing.  Only when its own sensing time (retries included) is no longer than
    the background read's.  Off, every user read is booked on its own.
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
    join_writes: bool = False
    join_reads: bool = False

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
        _require(isinstance(self.join_writes, bool), "timing.join_writes", "must be true or false",
                 self.join_writes)
        _require(isinstance(self.join_reads, bool), "timing.join_reads", "must be true or false",
                 self.join_reads)
        _require(not self.join_writes or self.read_priority, "timing.join_writes",
                 "joins the user writes that wait in a die's queue; it needs timing.read_priority = true",
                 self.join_writes)


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

    ``copyback``: a GC or RR migration (or a policy's idle move) moves a page within
    its die without a channel transfer (on, the default), as a die's copyback command
    does.  Off, every moved page crosses its channel twice: out to the controller after
    its read and back before its program, as MQSim moves pages with
    ``Use_Copyback_for_GC`` false (its default).  Pages moved to another die cross it
    either way.

    ``aligned_moves``: GC and RR keep superpages when they move pages (on a superblock of
    more than one block).  Each row of the victim (its valid pages at one page offset) is
    written to one row of the GC/RR frontier superblock: a page keeps its block when that
    block is free in the row and takes the lowest free one otherwise (it may change plane
    and die), and a row without room for all of them is left with unwritten pages.  Pages
    a policy places (``place_migration``) keep the policy's blocks, and their row skips
    ahead until those blocks are free in it.  So the pages of one superpage stay together
    for later multi-plane reads, as a superblock FTL that programs whole superpages at one
    write point does.  Off (the default), each block of the frontier has its own write
    point and a page keeps its block: the write points drift apart when a victim's blocks
    hold unequal numbers of valid pages, and a superpage's pages then land at different
    offsets.
    """

    _section = "gc"
    gc_threshold_ratio: float = 0.10
    overprovisioning_ratio: float = 0.127
    gc_hard_threshold_ratio: float = 0.005
    free_pool: str = "decided"
    max_victims_in_flight: int = 10
    write_stall: bool = False
    reserve_gc_frontier: bool = False
    copyback: bool = True
    aligned_moves: bool = False

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
        _require(isinstance(self.copyback, bool), "gc.copyback", "must be true or false", self.copyback)
        _require(isinstance(self.aligned_moves, bool), "gc.aligned_moves", "must be true or false",
                 self.aligned_moves)


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


#: device preset name -> the function that builds it (:func:`register_preset`)
DEVICE_PRESETS: dict[str, Callable[[], "SimConfig"]] = {}


def register_preset(name: str, build: Callable[[], "SimConfig"]) -> None:
    """Make the device ``build()`` returns available as ``SimConfig.preset(name)``."""
    DEVICE_PRESETS[name] = build


SECTIONS = {
    "geometry": GeometryConfig,
    "timing": TimingConfig,
    "cache": CacheConfig,
    "gc": GCConfig,
    "read_reclaim": ReadReclaimConfig,
    "read_retry": ReadRetryConfig,
    "superblock": SuperblockConfig,
    "process_variation": ProcessVariationConfig,
    "page_placement": PlacementConfig,
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
    process_variation: ProcessVariationConfig = field(default_factory=ProcessVariationConfig)
    page_placement: PlacementConfig = field(default_factory=PlacementConfig)
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
        one_die = (sb.sb_dies, sb.sb_chips, sb.sb_channels) == (1, 1, 1)
        _require(self.process_variation.pv_model == "off" or one_die, "process_variation.pv_model",
                 "the PV model assembles superblocks within one die; superblock.sb_dies, sb_chips and sb_channels "
                 "must be 1", (sb.sb_dies, sb.sb_chips, sb.sb_channels))
        _require(self.page_placement.placement != "static_die" or one_die, "page_placement.placement",
                 "'static_die' needs every superblock inside one die (superblock.sb_dies = sb_chips = sb_channels "
                 "= 1)", (sb.sb_dies, sb.sb_chips, sb.sb_channels))
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
        """The device preset ``name`` (:data:`DEVICE_PRESETS`; the papers' devices are
        registered by :mod:`flashrr.presets`)."""
        try:
            build = DEVICE_PRESETS[name]
        except (KeyError, TypeError):
            raise ConfigError(f"preset: unknown device preset {name!r}; expected one of {sorted(DEVICE_PRESETS)}") \
                from None
        return build()

    def replace(self, **changes) -> "SimConfig":
        """A copy with changes.  Keys are section names (a section instance or a
        dict of field changes), ``name``, or any field name of any section."""
        by_section: dict[str, dict] = {}
        top: dict[str, Any] = {}
        for key, value in changes.items():
            if key in SECTIONS:
                if isinstance(value, dict):
                    for fname in value:
                        _check_field_of(key, fname)
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
                    try:
                        _check_field_of(key, fname)
                    except ConfigError as e:
                        raise ConfigError(f"{source}: {e}") from None
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


def _check_field_of(section: str, fname: str) -> None:
    """ConfigError unless ``fname`` is a field of ``section``; a field of another section
    (one that moved, as ``process_variation.pv_model`` to ``process_variation``) is named there."""
    home = _FIELD_SECTION.get(fname)
    if home == section:
        return
    if home is not None:
        raise ConfigError(f"{section}.{fname}: not a field of [{section}]; it belongs to section [{home}]")
    raise ConfigError(f"{section}.{fname}: unknown field; expected one of "
                      f"{[f.name for f in fields(SECTIONS[section])]}")


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
