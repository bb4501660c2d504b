"""The HotR paper's redundancy baselines: Rails (Skourtis et al., ATC'14) and
TTFlash (Yan et al., FAST'17), as the HotR paper adapts them to read/write
interference.  The compiled mechanism is ``flashrr/_core/mechanisms/redundancy.pyx``
(twin ``redundancy_py.py``); these classes switch it on and give the
device its extra dies.  docs/hotr.md lists every interpretation.

Both keep the host's logical capacity and add dies: ``device_config`` returns
the run's device (the one the result records), with the channel count scaled
(one die per channel in the ``hotr`` preset) and the over-provisioning ratio
set so the logical pages do not change.  Both need no data cache and
superblocks inside one die; user pages are placed statically (placement.pxd).
"""
from __future__ import annotations

import math

from ...config import ConfigError
from ..._core.mechanisms.redundancy_py import RedundancyMode, RedundancySpec
from ...policy import Policy, register_policy



class _Redundant(Policy):
    mode = 0
    scale = (1, 1)  # channels x scale[0] / scale[1]
    place_kinds = ()

    def device_config(self, config):
        """The device this scheme runs on: ``config`` with its extra dies, same logical pages."""
        g, sb = config.geometry, config.superblock
        num, den = self.scale
        if config.cache.capacity_bytes:
            raise ConfigError(f"{self.name}: needs a device without data cache (cache.capacity_bytes = 0), "
                              f"got {config.cache.capacity_bytes}")
        if not sb.sb_dies == sb.sb_chips == sb.sb_channels == 1:
            raise ConfigError(f"{self.name}: needs every superblock inside one die "
                              f"(superblock.sb_dies = sb_chips = sb_channels = 1)")
        if g.channels * num % den:
            raise ConfigError(f"{self.name}: geometry.channels must be a multiple of {den}, got {g.channels}")
        channels = g.channels * num // den
        logical = config.logical_pages
        n_pages = g.n_pages * num // den
        op = 1.0 - (logical + 0.5) / n_pages
        out = config.replace(name=f"{config.name}+{self.name}", channels=channels, overprovisioning_ratio=op)
        if out.logical_pages != logical:  # pragma: no cover - float rounding guard
            raise ConfigError(f"{self.name}: could not keep {logical} logical pages on the larger device")
        return out

    def cost_factor(self) -> float:
        return self.scale[0] / self.scale[1]

    def extra_metrics(self) -> dict:
        return {"cost_factor": self.cost_factor()}


@register_policy
class Rails(_Redundant):
    """Rails, 4+4 mirrored halves: half A (the device's dies) and half B (as many more).
    In period ``p = t // rails_period_ns`` half A takes the writes when ``p`` is even,
    half B when odd; reads go to the other half (or to the write buffer for pages written
    this period); at a period change the previous period's pages are programmed on the
    other half.  ``rails_period_ns`` default 1 s (Rails' period is not in HotR; assumed)."""

    name = "rails"
    mode = RedundancyMode.RAILS
    scale = (2, 1)

    def __init__(self, rails_period_ns: int = 1_000_000_000):
        super().__init__()
        if isinstance(rails_period_ns, bool) or not isinstance(rails_period_ns, int) or rails_period_ns < 1:
            raise ValueError(f"rails: rails_period_ns must be a positive integer (ns), got {rails_period_ns!r}")
        self.rails_period_ns = rails_period_ns

    def params(self) -> dict:
        return {"rails_period_ns": self.rails_period_ns}

    def redundancy_spec(self):
        return RedundancySpec(RedundancyMode.RAILS, self.rails_period_ns)


@register_policy
class TTFlash(_Redundant):
    """TTFlash, 4+1 rotated parity: 5 dies per 4 of the device.  A read whose die is
    programming is rebuilt from the 4 other dies of its stripe; partial-stripe writes
    read old data/parity first (1 page: read-modify-write; 2-3 pages: reconstruct-write)."""

    name = "ttflash"
    mode = RedundancyMode.TTFLASH
    scale = (5, 4)

    def redundancy_spec(self):
        return RedundancySpec(RedundancyMode.TTFLASH, 1)


@register_policy
class Optimal(Policy):
    """HotR Fig. 1(b)'s "Optimal" system: every read blocked by a program is served as if the
    program were suspended for free (on a read-only timeline of its die); everything else as in
    Baseline.  A bound, not a scheme: it needs no extra dies (cost 1.00)."""

    name = "optimal"
    place_kinds = ()

    def redundancy_spec(self):
        return RedundancySpec(RedundancyMode.OPTIMAL, 1)

    def extra_metrics(self) -> dict:
        return {"cost_factor": 1.0}


def cost_latency_product(cost_factor: float, rt_scheme: float, rt_baseline: float) -> float:
    """HotR §IV.B: capacity cost x response time, both relative to Baseline (lower is better)."""
    if rt_baseline <= 0 or not math.isfinite(rt_baseline):
        raise ValueError(f"cost_latency_product: baseline response time must be positive, got {rt_baseline!r}")
    return cost_factor * rt_scheme / rt_baseline
