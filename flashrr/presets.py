"""Device presets, one per paper's configuration table.

Every number that a paper states comes from its table (cited per preset);
every number it leaves out is an assumption, marked ``# assumed`` and
explained in ``docs/model.md``.
"""
from __future__ import annotations

from .config import (CacheConfig, ConfigError, GCConfig, GeometryConfig, ReadReclaimConfig, ReadRetryConfig,
                     SimConfig, SuperblockConfig, TimingConfig)

# MQSim's default channel: 8-bit ONFI bus at 333 MT/s -> 8 KiB page in ~24.6 us.
_MQSIM_XFER_8K_NS = 24_600


def _shuffler() -> SimConfig:
    # Shuffler (TOS 2026) Table 1: 8 ch x 4 chips x 4 planes x 64 blocks x 1024 pages of 8 KB,
    # 64 MB DRAM cache, read 0.038 ms, write 0.35 ms, erase 3.5 ms, GC 10%, RR 10K,
    # superblock = 4 blocks (the 4 planes of one chip).
    return SimConfig(
        name="shuffler",
        geometry=GeometryConfig(8, 4, 1, 4, 64, 1024, 8192),
        # xfer, dram: assumed; MQSim's default transaction scheduling (non-preemptible GC)
        timing=TimingConfig(38_000, 350_000, 3_500_000, _MQSIM_XFER_8K_NS, 1_000, scheduler="gc-first"),
        cache=CacheConfig(64 << 20),
        gc=GCConfig(0.10, 0.127),  # OP 12.7%: MQSim's default, assumed
        read_reclaim=ReadReclaimConfig(10_000),
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
        geometry=GeometryConfig(8, 2, 1, 2, 1280, 256, 8192),
        # SSDsim runs GC as an uninterrupted operation on the chip by default: "gc-first" (assumed)
        timing=TimingConfig(85_000, 2_666_667, 15_000_000, 5 * 8192, 1_000, scheduler="gc-first"),
        cache=CacheConfig(64 << 20),
        gc=GCConfig(0.30, 0.25),
        read_reclaim=ReadReclaimConfig(25_000),
        read_retry=ReadRetryConfig.ldpc_progressive(85_000, 24_000, 7),
        superblock=SuperblockConfig(sb_planes=1),
    )


def _cocktail() -> SimConfig:
    # Cocktail (TCAD 2023) Table I: 8 ch x 4 chips x 2 dies x 2 planes x 2048 blocks x 256 pages of 8 KB,
    # read 75 us, ECC 20 us, program 750 us, erase 3.8 ms, greedy GC at 0.28, RR threshold 40 x pages = 10,240.
    # Read retry: 1/2/3 retries at 70/80/90% of the threshold, each a read plus ECC (95 us, assumed).
    return SimConfig(
        name="cocktail",
        geometry=GeometryConfig(8, 4, 2, 2, 2048, 256, 8192),
        timing=TimingConfig(75_000, 750_000, 3_800_000, _MQSIM_XFER_8K_NS, 1_000, scheduler="gc-first"),  # MQSim
        # not in Table I: MQSim's default data cache, 256 MiB in WRITE_CACHE mode (read misses are not cached,
        # so the RAF copies of a read reach the flash; spec A19); assumed
        cache=CacheConfig(256 << 20, read_allocate=False),
        # GC while free blocks < 28% of a plane (Table I); OP assumed: must exceed the 0.28 GC threshold to make
        # progress (MQSim's 0.07 would keep a filled device below the GC line, docs/cocktail.md)
        gc=GCConfig(0.28, 0.30),
        read_reclaim=ReadReclaimConfig(40 * 256),  # 40 x pages per block = 10,240 reads
        read_retry=ReadRetryConfig.cocktail(t_retry_ns=95_000),
        superblock=SuperblockConfig(sb_planes=1),
    )


def _hotr() -> SimConfig:
    # HotR Table II: 80 GB, 8 planes per package, 2048 blocks per plane, 64 pages of 4 KB, reserved
    # free blocks 15% (over-provisioning), minimum free blocks 5% (GC threshold), greedy cleaning.
    # 80 GB / (8 planes x 2048 x 64 x 4 KB = 4 GiB) = 20 packages: 10 channels x 2 chips (assumed).
    # TLC latencies (Fig. 1a gives no numbers in text): read 66 us, program 1.5 ms, erase 5 ms (assumed).
    return SimConfig(
        name="hotr",
        geometry=GeometryConfig(10, 2, 1, 8, 2048, 64, 4096),
        # the DiskSim SSD model cleans in the foreground, holding the element: "gc-first" (assumed)
        timing=TimingConfig(66_000, 1_500_000, 5_000_000, 12_300, 1_000, scheduler="gc-first"),
        cache=CacheConfig(64 << 20),  # assumed
        gc=GCConfig(0.05, 0.15),
        read_reclaim=ReadReclaimConfig(10_000),  # assumed: HotR does not model read disturb
        read_retry=ReadRetryConfig(),
        superblock=SuperblockConfig(sb_planes=1),
    )


DEVICE_PRESETS = {
    "shuffler": _shuffler,
    "shuffler-32": _shuffler_32,
    "phasedrr": _phasedrr,
    "cocktail": _cocktail,
    "hotr": _hotr,
}


def device_preset(name: str) -> SimConfig:
    try:
        return DEVICE_PRESETS[name]()
    except KeyError:
        raise ConfigError(f"preset: unknown device preset {name!r}; expected one of {sorted(DEVICE_PRESETS)}") \
            from None
