"""Cocktail's two counter-based baselines: redFTL (Ha et al., TCAD 2016) and IPR
(Wu et al., DATE 2018), as Cocktail's evaluation describes them (§V).

Both keep one read counter per logical page (the engine's page counters, restarted
whenever the page is programmed) and send read-reclaimed pages to extra RR
destination streams with raised RR thresholds (``flashrr/_core/mechanisms/streams.pyx``, twin
``streams_py.py``).  Both are block-level (superblock size 1).
docs/cocktail.md lists every reading.
"""
from __future__ import annotations

import math

from ...config import ConfigError
from ..._core.mechanisms.streams_py import RRStreamsSpec, StreamMode, StreamSpec
from ...policy import Policy, register_policy



def _positive_int(name, label, v):
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{name}: {label} must be a positive integer, got {v!r}")


def _fraction(name, label, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
        raise ValueError(f"{name}: {label} must be a number in (0, 1], got {v!r}")


class _Streams(Policy):
    page_counter_group = 1
    place_kinds = ()

    def bind(self, config, seed: int) -> None:
        if config.superblock.k != 1:
            raise ConfigError(f"{self.name}: block-level scheme; superblock size must be 1 "
                              f"(superblock.sb_* = 1), got {config.superblock.k}")
        self._geometry = config.geometry

    def _geo(self):
        g = getattr(self, "_geometry", None)
        if g is None:
            raise ConfigError(f"{self.name}: bind(config, seed) must be called before the engine is built")
        return g


@register_policy
class RedFTL(_Streams):
    """redFTL.  One 1-byte saturating read counter per logical page, charged to the
    cache.  An RR of an ordinary block sends its pages to read-balanced blocks with
    ``mults[0]`` (2) times the threshold; an RR of such a block, or of a ``mults[1]``
    block, to blocks with ``mults[1]`` (5) times.  ``n_open`` (2) open blocks per level
    and plane; pages go hottest first to the one with the least reads so far.  GC
    pages go to the ordinary frontier (their block loses the raised threshold)."""

    name = "redftl"
    counter_bytes = 1

    def __init__(self, n_open: int = 2, mults=(2, 5)):
        super().__init__()
        _positive_int("redftl", "n_open", n_open)
        if n_open > 8:
            raise ValueError(f"redftl: n_open must be at most 8 open blocks per level, got {n_open}")
        m = tuple(mults) if isinstance(mults, (list, tuple)) else ()
        if len(m) != 2 or any(isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in m):
            raise ValueError(f"redftl: mults must be two positive integers (threshold multipliers), got {mults!r}")
        self.n_open, self.mults = n_open, m

    def params(self) -> dict:
        return {"n_open": self.n_open, "mults": list(self.mults)}

    def rr_streams_spec(self):
        N = self._geo().pages_per_block
        return RRStreamsSpec(StreamMode.REDFTL, 255, tuple(StreamSpec(m, N, self.n_open, -1) for m in self.mults))


@register_policy
class IPR(_Streams):
    """IPR.  Pages read more than the mean of the victim's valid pages at an RR go to
    IPR blocks with ``mult`` (10) times the threshold that hold only
    ``floor(density * pages per block)`` pages (density 2/3: TLC to MLC); the others go
    to the ordinary frontier.  At most ``floor(max_fraction * blocks per plane)`` (15%)
    live IPR blocks per plane; beyond, hot pages go to the ordinary frontier.  Read
    counts are 2-byte page counters over monitor blocks, ``monitor_fraction`` (10%) of
    the physical pages: that is the DRAM charge (the engine counts every page; A15)."""

    name = "ipr"
    counter_bytes = 2

    def __init__(self, mult: int = 10, density: float = 2 / 3, max_fraction: float = 0.15,
                 monitor_fraction: float = 0.10):
        super().__init__()
        _positive_int("ipr", "mult", mult)
        _fraction("ipr", "density", density)
        _fraction("ipr", "max_fraction", max_fraction)
        _fraction("ipr", "monitor_fraction", monitor_fraction)
        self.mult, self.density = mult, float(density)
        self.max_fraction, self.monitor_fraction = float(max_fraction), float(monitor_fraction)

    def params(self) -> dict:
        return {"mult": self.mult, "density": self.density, "max_fraction": self.max_fraction,
                "monitor_fraction": self.monitor_fraction}

    def metadata_bytes(self, config) -> int:
        return math.ceil(self.monitor_fraction * config.geometry.n_pages) * self.counter_bytes

    def block_pages(self, pages_per_block: int) -> int:
        return max(1, math.floor(self.density * pages_per_block + 1e-9))

    def max_blocks(self, blocks_per_plane: int) -> int:
        return math.floor(self.max_fraction * blocks_per_plane + 1e-9)

    def rr_streams_spec(self):
        g = self._geo()
        return RRStreamsSpec(StreamMode.IPR, 65535, (StreamSpec(self.mult, self.block_pages(g.pages_per_block), 1,
                                                                self.max_blocks(g.blocks_per_plane)),))
