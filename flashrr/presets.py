"""Device presets, one per paper's configuration table.

Every number that a paper states comes from its table (cited per preset);
every number it leaves out is an assumption, marked ``# assumed`` and
explained in ``docs/model.md``.  Each registers itself into the configuration
(:func:`flashrr.config.register_preset`), so that ``SimConfig.preset(name)`` finds it;
``DEVICE_PRESETS`` is the registry, shown here too.
"""
from __future__ import annotations

from .config import DEVICE_PRESETS  # noqa: F401  (the registry, for the modules that list the presets)
from .config import (CacheConfig, GCConfig, GeometryConfig, PlacementConfig, ReadReclaimConfig, ReadRetryConfig,
                     SimConfig, SuperblockConfig, TimingConfig, register_preset)

# MQSim's default channel: 8-bit ONFI bus at 333 MT/s -> 8 KiB page in ~24.6 us.
_MQSIM_XFER_8K_NS = 24_600


def _shuffler() -> SimConfig:
    # Shuffler (TOS 2026) Table 1: 8 ch x 4 chips x 4 planes x 64 blocks x 1024 pages of 8 KB,
    # 64 MB DRAM cache, read 0.038 ms, write 0.35 ms, erase 3.5 ms, GC 10%, RR 10K,
    # superblock = 4 blocks (the 4 planes of one chip).
    return SimConfig(
        name="shuffler",
        geometry=GeometryConfig(
            channels=8, chips_per_channel=4, dies_per_chip=1, planes_per_die=4, blocks_per_plane=64,
            pages_per_block=1024, page_size_bytes=8192,
        ),
        # xfer, dram: assumed; MQSim's default transaction scheduling (non-preemptible GC)
        timing=TimingConfig(
            t_read_ns=38_000, t_program_ns=350_000, t_erase_ns=3_500_000, t_xfer_page_ns=_MQSIM_XFER_8K_NS,
            t_dram_ns=1_000, scheduler="gc-first",
        ),
        cache=CacheConfig(capacity_bytes=64 << 20),
        # OP 12.7%: MQSim's default, assumed.  MQSim's shipped ssdconfig.xml has Use_Copyback_for_GC false: a
        # moved page crosses the channel out and back.  Aligned moves: Table 1's FTL scheme is "superpage", the
        # superpage is "the fundamental unit for programming operations" (section 1), and RR keeps "the superpage
        # structure" (sections 3.3, 5)
        gc=GCConfig(gc_threshold_ratio=0.10, overprovisioning_ratio=0.127, copyback=False, aligned_moves=True),
        read_reclaim=ReadReclaimConfig(rr_threshold_reads=10_000),
        read_retry=ReadRetryConfig(),
        superblock=SuperblockConfig(sb_planes=4),
    )


def _shuffler_32() -> SimConfig:
    # Shuffler Fig. 15: superblock of 32 blocks = 4 planes x 8 channels.
    base = _shuffler()
    return base.replace(name="shuffler-32", superblock=SuperblockConfig(sb_planes=4, sb_channels=8))


def _phasedrr() -> SimConfig:
    # PhasedRR (MSST 2024) Table I: 8 ch x 2 chips, 1 die, 2 planes, 1280 blocks, 256 pages of 8 KB (TLC),
    # GC trigger 30%, over-provision 25%, 5 ns/byte transfer, 64 MB DRAM, hard RR threshold 25K,
    # read 0.085 ms + 0.024 ms per retry... up to 1.099 ms at LDPC level 7, erase 15 ms,
    # TLC program (LSB, CSB, MSB) = (0.5, 2, 5.5) ms -> their mean, 2.667 ms (assumed: one program latency).
    # Read retry: progressive sensing, pass i costs 0.085 + 0.024 i ms, level L needs L passes:
    # 0.085, 0.194, ..., 1.099 ms at levels 1..7 (docs/model.md section 4, docs/phasedrr.md).
    return SimConfig(
        name="phasedrr",
        geometry=GeometryConfig(
            channels=8, chips_per_channel=2, dies_per_chip=1, planes_per_die=2, blocks_per_plane=1280,
            pages_per_block=256, page_size_bytes=8192,
        ),
        # SSDsim runs GC as an uninterrupted operation on the chip by default: "gc-first" (assumed)
        timing=TimingConfig(
            t_read_ns=85_000, t_program_ns=2_666_667, t_erase_ns=15_000_000, t_xfer_page_ns=5 * 8192,
            t_dram_ns=1_000, scheduler="gc-first",
        ),
        cache=CacheConfig(capacity_bytes=64 << 20),
        gc=GCConfig(gc_threshold_ratio=0.30, overprovisioning_ratio=0.25),
        read_reclaim=ReadReclaimConfig(rr_threshold_reads=25_000),
        read_retry=ReadRetryConfig.ldpc_progressive(85_000, 24_000, 7),
        superblock=SuperblockConfig(sb_planes=1),
    )


def _cocktail() -> SimConfig:
    # Cocktail (TCAD 2023) Table I: 8 ch x 4 chips x 2 dies x 2 planes x 2048 blocks x 256 pages of 8 KB,
    # read 75 us, ECC 20 us, program 750 us, erase 3.8 ms, greedy GC at 0.28, RR threshold 40 x pages = 10,240.
    # Read retry: 1/2/3 retries at 70/80/90% of the threshold, each a read plus ECC (95 us, assumed).
    return SimConfig(
        name="cocktail",
        geometry=GeometryConfig(
            channels=8, chips_per_channel=4, dies_per_chip=2, planes_per_die=2, blocks_per_plane=2048,
            pages_per_block=256, page_size_bytes=8192,
        ),
        timing=TimingConfig(
            t_read_ns=75_000, t_program_ns=750_000, t_erase_ns=3_800_000, t_xfer_page_ns=_MQSIM_XFER_8K_NS,
            t_dram_ns=1_000, scheduler="gc-first",
        ),  # MQSim
        # not in Table I: MQSim's default data cache, 256 MiB in WRITE_CACHE mode (read misses are not cached,
        # so the RAF copies of a read reach the flash; spec A19); assumed
        cache=CacheConfig(capacity_bytes=256 << 20, read_allocate=False),
        # GC while free blocks < 28% of a plane (Table I); OP assumed: must exceed the 0.28 GC threshold to make
        # progress (MQSim's 0.07 would keep a filled device below the GC line, docs/cocktail.md)
        # GC and RR move pages through the controller: MQSim's shipped ssdconfig.xml has Use_Copyback_for_GC false
        gc=GCConfig(gc_threshold_ratio=0.28, overprovisioning_ratio=0.30, copyback=False),
        read_reclaim=ReadReclaimConfig(rr_threshold_reads=40 * 256),  # 40 x pages per block = 10,240 reads
        read_retry=ReadRetryConfig.cocktail(t_retry_ns=95_000),
        superblock=SuperblockConfig(sb_planes=1),
    )


# HotR flash types (Fig. 1a; its bars are not in the text): (read, program, erase) in ns.  SLC is the MSR
# DiskSim SSD model's default; MLC and QLC are assumed datasheet-like points; TLC is flashrr's earlier
# hotr value.  Program latency and the program-read gap grow from SLC to QLC, as the paper requires.
HOTR_FLASH = {
    "slc": (25_000, 200_000, 1_500_000),
    "mlc": (50_000, 600_000, 3_000_000),
    "tlc": (66_000, 1_500_000, 5_000_000),
    "qlc": (140_000, 3_000_000, 10_000_000),
}
# The MSR model's chip transfer default, 0.000025 ms per byte: 102.4 us per 4 KiB page.
_MSR_XFER_4K_NS = 102_400


def _hotr(flash: str = "tlc") -> SimConfig:
    # HotR Table II is the MSR DiskSim SSD model's stock parameter file: 80 GB, 8 planes per package, 2048
    # blocks per plane, 64 pages of 4 KB, reserved free blocks 15% (over-provisioning), minimum free
    # blocks 5% (GC threshold), greedy cleaning.  80 GB / (8 x 2048 x 64 x 4 KB = 4 GiB) = 20 packages,
    # each with its own bus in that model: 20 channels x 1 chip.  The model has no DRAM data cache,
    # stripes pages statically over the packages (element = lpn mod 20) and has no read disturb
    # (RR off).  docs/hotr.md lists every choice.
    t_read, t_prog, t_erase = HOTR_FLASH[flash]
    return SimConfig(
        name="hotr" if flash == "tlc" else f"hotr-{flash}",
        geometry=GeometryConfig(
            channels=20, chips_per_channel=1, dies_per_chip=1, planes_per_die=8, blocks_per_plane=2048,
            pages_per_block=64, page_size_bytes=4096,
        ),
        # the DiskSim SSD model cleans in the foreground, holding the element: "gc-first" (assumed)
        timing=TimingConfig(
            t_read_ns=t_read, t_program_ns=t_prog, t_erase_ns=t_erase, t_xfer_page_ns=_MSR_XFER_4K_NS,
            t_dram_ns=1_000, scheduler="gc-first",
        ),
        cache=CacheConfig(capacity_bytes=0),
        gc=GCConfig(gc_threshold_ratio=0.05, overprovisioning_ratio=0.15),
        read_reclaim=ReadReclaimConfig(rr_threshold_reads=10_000, rr_enabled=False),
        read_retry=ReadRetryConfig(),
        superblock=SuperblockConfig(sb_planes=1),
        page_placement=PlacementConfig(placement="static_die"),
    )


register_preset("shuffler", _shuffler)
register_preset("shuffler-32", _shuffler_32)
register_preset("phasedrr", _phasedrr)
register_preset("cocktail", _cocktail)
register_preset("hotr", _hotr)
register_preset("hotr-slc", lambda: _hotr("slc"))
register_preset("hotr-mlc", lambda: _hotr("mlc"))
register_preset("hotr-tlc", lambda: _hotr("tlc").replace(name="hotr-tlc"))
register_preset("hotr-qlc", lambda: _hotr("qlc"))


def device_preset(name: str) -> SimConfig:
    """``SimConfig.preset(name)``."""
    return SimConfig.preset(name)
