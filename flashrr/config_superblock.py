"""The configuration sections of the superblocks: their shape (``superblock``), process
variation and superblock assembly (``process_variation``, docs/superblock-pv.md), and
where user pages go (``page_placement``).  Part of :class:`flashrr.config.SimConfig`,
which checks the rules that span them (the PV model and ``static_die`` need every
superblock inside one die)."""
from __future__ import annotations

from dataclasses import dataclass

from .config_checks import _nonneg_int, _positive_int, _require


# process_variation.assembly: the names of flashrr.pv.METHODS (a test holds them equal)
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
    superblocks of a lane are its rows (``process_variation.assembly =
    'sequential'``: the same block id on every plane).
    """

    _section = "superblock"
    sb_planes: int = 4
    sb_dies: int = 1
    sb_chips: int = 1
    sb_channels: int = 1

    def __post_init__(self):
        for name in ("sb_planes", "sb_dies", "sb_chips", "sb_channels"):
            _positive_int(self, name)

    @property
    def k(self) -> int:
        return self.sb_planes * self.sb_dies * self.sb_chips * self.sb_channels


@dataclass(frozen=True)
class ProcessVariationConfig:
    """Process variation (docs/superblock-pv.md section 6) and how superblocks are
    assembled from the blocks of a lane's planes.

    ``pv_model = 'generative'`` gives every block its own program latency per
    logical word line and its own erase latency, drawn from
    :class:`flashrr.pv.PVModel` with ``pv_seed`` at ``pv_pe`` P/E cycles;
    ``assembly`` (one of :data:`ASSEMBLY_METHODS`) then decides which block of each
    plane forms each superblock, and ``pv_window`` overrides the method's window
    (0 = its default).  ``pv_scale``: ``'relative'`` rescales the model so its
    nominal latencies equal ``timing.t_program_ns`` / ``t_erase_ns``;
    ``'absolute'`` uses the model's µs as they are.  ``pv_row_order``: where the
    assembled superblocks sit among a lane's rows (the FTL allocates free rows in
    row order, so the preconditioning fill takes the first rows): ``'shuffled'``
    (default) places them in a seeded random order, so the superblocks a trace
    reaches are a random sample of the assembly whatever the method;
    ``'assembly'`` keeps the method's order (sorted methods put their fastest
    superblocks first, so a filled device leaves its slowest ones free).
    ``pv_reassembly`` (``assembly = 'qstr_med'`` only): erased blocks go back to
    their plane's free pool and every superblock allocation assembles a new one by
    PV Check, a fast one for the user frontier and a slow one for the GC/RR
    frontier (the precondition's sequential fill keeps the static assembly; its
    warm-up rewrites reassemble).  With ``pv_model = 'off'`` (the default) every
    block has the timing's latencies.  The PV model assembles superblocks within
    one die: with it on, ``superblock.sb_dies``, ``sb_chips`` and ``sb_channels``
    must be 1.
    """

    _section = "process_variation"
    assembly: str = "sequential"
    pv_model: str = "off"
    pv_seed: int = 0
    pv_pe: int = 0
    pv_scale: str = "relative"
    pv_window: int = 0
    pv_row_order: str = "shuffled"
    pv_reassembly: bool = False

    def __post_init__(self):
        where = "process_variation"
        _require(self.assembly in ASSEMBLY_METHODS, f"{where}.assembly", f"must be one of {ASSEMBLY_METHODS}",
                 self.assembly)
        _require(self.pv_model in PV_MODELS, f"{where}.pv_model", f"must be one of {PV_MODELS}", self.pv_model)
        _nonneg_int(self, "pv_seed")
        _nonneg_int(self, "pv_window")
        _require(isinstance(self.pv_pe, int) and not isinstance(self.pv_pe, bool) and 0 <= self.pv_pe <= PV_PE_MAX,
                 f"{where}.pv_pe", f"must be an integer P/E count in [0, {PV_PE_MAX}]", self.pv_pe)
        _require(self.pv_scale in PV_SCALES, f"{where}.pv_scale", f"must be one of {PV_SCALES}", self.pv_scale)
        _require(self.pv_row_order in PV_ROW_ORDERS, f"{where}.pv_row_order", f"must be one of {PV_ROW_ORDERS}",
                 self.pv_row_order)
        _require(isinstance(self.pv_reassembly, bool), f"{where}.pv_reassembly", "must be true or false",
                 self.pv_reassembly)
        if self.pv_model == "off":
            _require(self.assembly == "sequential", f"{where}.assembly",
                     f"needs {where}.pv_model = 'generative' (without a PV model every block has the same "
                     "latency, so only 'sequential' is defined)", self.assembly)
            _require(not self.pv_reassembly, f"{where}.pv_reassembly", f"needs {where}.pv_model = 'generative'",
                     self.pv_reassembly)
        _require(not self.pv_reassembly or self.assembly == "qstr_med", f"{where}.pv_reassembly",
                 f"is defined for assembly 'qstr_med' only (got assembly {self.assembly!r})", self.pv_reassembly)
        _require(self.pv_window == 0 or self.assembly in WINDOWED_ASSEMBLY, f"{where}.pv_window",
                 f"applies to the windowed methods {WINDOWED_ASSEMBLY} only (got assembly {self.assembly!r})",
                 self.pv_window)


@dataclass(frozen=True)
class PlacementConfig:
    """Where user pages go (``placement``).

    ``"dynamic"`` deals each new superpage to the next lane round-robin, whatever
    its LPN.  ``"static_die"`` writes LPN ``l`` on die ``l mod n_dies`` (the MSR
    DiskSim SSD model's static striping of pages over elements), round-robin over
    that die's lanes; it needs every superblock inside one die (``superblock.sb_dies
    = sb_chips = sb_channels = 1``).  ``"static_lane"`` writes LPN ``l`` on lane
    ``(l // k) mod n_lanes``, the lane the sequential fill gives it; lanes are
    numbered channel-fastest, so with ``k = 1`` this is MQSim's static CWDP plane
    allocation.  Under a uniform workload the lanes then fill at random,
    independent paces, as MQSim's planes do; ``"dynamic"`` keeps every lane at the
    same pace, so their GCs fall due together.
    """

    _section = "page_placement"
    placement: str = "dynamic"

    def __post_init__(self):
        _require(self.placement in PLACEMENTS, "page_placement.placement", f"must be one of {PLACEMENTS}",
                 self.placement)
