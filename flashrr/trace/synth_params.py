"""The parameters of the synthetic trace generator (:func:`flashrr.trace.synth.synth_trace`):
:class:`SynthParams`, their defaults and their rules.  The model they drive is
described in :mod:`flashrr.trace.synth`."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

KiB = 1024
MiB = 1024 * KiB

#: Request count used when neither a preset nor ``n_requests`` is given.
DEFAULT_N_REQUESTS = 100_000
#: Footprint per request, bytes, when ``footprint_bytes`` is not given (with the other defaults, each read
#: extent is read about five times).
AUTO_FOOTPRINT_BYTES_PER_REQUEST = 4 * KiB


@dataclass(frozen=True)
class SynthParams:
    """Parameters of :func:`synth_trace`, with their defaults.

    Sizes are in bytes, times in ns, fractions in [0, 1].  Building one checks
    every rule and raises :class:`ValueError` naming the parameter.
    """

    read_ratio: float = 0.7
    """Fraction of the requests that are reads."""
    read_size_mean_bytes: float = 16 * KiB
    """Mean read size, bytes (between ``size_unit_bytes`` and ``max_size_bytes``)."""
    read_size_cv: float = 1.0
    """Spread of the read sizes: coefficient of variation of the log-normal shape (>= 0; 0 = the two
    multiples of ``size_unit_bytes`` around the mean)."""
    write_size_mean_bytes: float = 16 * KiB
    """Mean write size, bytes."""
    write_size_cv: float = 1.0
    """Spread of the write sizes (as ``read_size_cv``)."""
    size_unit_bytes: int = 4 * KiB
    """Every request size is a multiple of this, bytes (a multiple of 512)."""
    max_size_bytes: int = 1 * MiB
    """Largest request size, bytes (a multiple of ``size_unit_bytes``)."""
    align_bytes: int = 8 * KiB
    """Every extent starts on a multiple of this, bytes (a multiple of ``size_unit_bytes``).  Set it to the
    device page size so that no two extents share a page."""
    footprint_bytes: float | None = None
    """Bytes of address space touched by the trace (alignment slots of all extents); ``None`` (the default
    without a preset) means :data:`AUTO_FOOTPRINT_BYTES_PER_REQUEST` per request."""
    write_region_fraction: float = 0.3
    """Share of ``footprint_bytes`` holding write-only extents (the rest holds read extents)."""
    write_overlap_fraction: float = 0.1
    """Fraction of the writes that update read extents instead of write-only ones."""
    hot_set_ratio: float = 0.2
    """Share of the read region (by pages) holding hot extents."""
    hot_skew: float = 1.0
    """Zipf exponent of the hot extents' popularity (>= 0; 0 = uniform)."""
    hot_min_reads: int = 2
    """Every hot extent is read at least this many times (>= 2)."""
    cold_reads_per_extent: float = 1.0
    """Mean reads of each cold extent (>= 1); each is read the floor or the ceiling of it."""
    interarrival_mean_ns: float = 100_000.0
    """Mean of the exponential gap between consecutive arrivals, ns (> 0)."""
    footprint_page_bytes: int | None = None
    """``None`` (default): ``footprint_bytes`` counts the alignment slots of the extents.  A page size in
    bytes: ``footprint_bytes`` counts the pages of that size the extents touch, and each region gets as many
    slots as its size distribution needs for that (expected slot bytes / expected touched bytes per extent).
    Use it with an ``align_bytes`` above the page size to align extents (e.g. to superpages) and still
    touch a trace table's footprint."""
    scale_footprint: bool = True
    """With a preset and ``n_requests`` below its paper count, scale the preset's footprint by
    ``n_requests / paper count`` (keeps the reuse structure)."""
    idle_period_mean_ns: float = 0.0
    """ON/OFF arrivals: mean of the exponential idle period added after each burst, ns (>= 0; 0 = plain
    Poisson arrivals, no idle periods)."""
    burst_requests_mean: float = 64.0
    """ON/OFF arrivals: mean number of requests per burst (geometric, >= 1); used only when
    ``idle_period_mean_ns > 0``."""

    def __post_init__(self):
        for f in dataclasses.fields(self):
            _check_type(f.name, getattr(self, f.name), f.type)
        for name in ("read_ratio", "write_region_fraction", "write_overlap_fraction", "hot_set_ratio"):
            _rule(0.0 <= getattr(self, name) <= 1.0, name, "must be in [0, 1]", getattr(self, name))
        for name in ("read_size_cv", "write_size_cv", "hot_skew"):
            v = getattr(self, name)
            _rule(math.isfinite(v) and 0.0 <= v <= 100.0, name, "must be a finite number in [0, 100]", v)
        unit = self.size_unit_bytes
        _rule(unit > 0 and unit % 512 == 0, "size_unit_bytes", "must be a positive multiple of 512", unit)
        _rule(self.max_size_bytes >= unit and self.max_size_bytes % unit == 0, "max_size_bytes",
              f"must be a positive multiple of size_unit_bytes ({unit})", self.max_size_bytes)
        _rule(self.max_size_bytes // unit <= 1 << 16, "max_size_bytes",
              f"must be at most 65536 x size_unit_bytes ({unit << 16})", self.max_size_bytes)
        _rule(self.align_bytes >= unit and self.align_bytes % unit == 0, "align_bytes",
              f"must be a positive multiple of size_unit_bytes ({unit})", self.align_bytes)
        for name in ("read_size_mean_bytes", "write_size_mean_bytes"):
            v = getattr(self, name)
            _rule(unit <= v <= self.max_size_bytes, name,
                  f"must be between size_unit_bytes ({unit}) and max_size_bytes ({self.max_size_bytes})", v)
        if self.footprint_bytes is not None:
            _rule(math.isfinite(self.footprint_bytes) and 0 < self.footprint_bytes <= 1 << 60, "footprint_bytes",
                  "must be a positive number of bytes (at most 2**60)", self.footprint_bytes)
        if self.footprint_page_bytes is not None:
            fpb = self.footprint_page_bytes
            _rule(fpb > 0 and fpb % unit == 0 and self.align_bytes % fpb == 0, "footprint_page_bytes",
                  f"must be a multiple of size_unit_bytes ({unit}) that divides align_bytes ({self.align_bytes})",
                  fpb)
        _rule(2 <= self.hot_min_reads <= 1 << 20, "hot_min_reads", "must be an integer in [2, 2**20]",
              self.hot_min_reads)
        _rule(math.isfinite(self.cold_reads_per_extent) and 1.0 <= self.cold_reads_per_extent <= 1 << 20,
              "cold_reads_per_extent", "must be a number in [1, 2**20]", self.cold_reads_per_extent)
        _rule(math.isfinite(self.interarrival_mean_ns) and 0 < self.interarrival_mean_ns <= 1e15,
              "interarrival_mean_ns", "must be a positive number of ns (at most 1e15)", self.interarrival_mean_ns)
        _rule(math.isfinite(self.idle_period_mean_ns) and 0 <= self.idle_period_mean_ns <= 1e15,
              "idle_period_mean_ns", "must be a number of ns in [0, 1e15] (0 = no idle periods)",
              self.idle_period_mean_ns)
        _rule(math.isfinite(self.burst_requests_mean) and 1.0 <= self.burst_requests_mean <= 1e12,
              "burst_requests_mean", "must be a number of requests in [1, 1e12]", self.burst_requests_mean)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))


# ------------------------------------------------------------------------------------------------ checks


def _rule(ok: bool, name: str, rule: str, value) -> None:
    if not ok:
        raise ValueError(f"synth_trace: parameter {name!r} {rule} (got {value!r})")


def _check_type(name: str, value, annotation: str) -> None:
    if annotation.endswith("| None"):
        if value is None:
            return
        annotation = annotation[: -len("| None")].strip()
    if annotation == "bool":
        _rule(isinstance(value, (bool, np.bool_)), name, "must be a bool", value)
        return
    if isinstance(value, (bool, np.bool_)):
        _rule(False, name, "must be a number, not a bool", value)
    if annotation == "int":
        _rule(isinstance(value, (int, np.integer)), name, "must be an integer", value)
    else:
        _rule(isinstance(value, (int, float, np.integer, np.floating)), name, "must be a number", value)
