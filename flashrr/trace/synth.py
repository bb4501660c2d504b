"""Synthetic block traces with a controlled read ratio, request sizes, hot set and footprint.

The model
=========

The generator lays out a logical address space of **extents** and then decides
how many times each extent is read or written.  A request always covers one
whole extent (same start, same size), so a hot extent is hit again and again at
the same pages; this is the page-level spatial structure that read-disturb
schemes exploit (LPN *i* sits on component block *i* mod *k* of a superblock, so
a hot extent makes a few component blocks hotter than the others).

1. **Requests.**  ``n_reads = round(n_requests * read_ratio)``; the rest are
   writes.  Reads and writes are interleaved at random positions.
2. **Sizes.**  Request sizes are multiples of ``size_unit_bytes`` (4 KiB) between
   one unit and ``max_size_bytes``.  Their distribution is a log-normal with
   coefficient of variation ``*_size_cv``, rounded stochastically to whole
   units (which keeps its mean), clipped to the size range, and exponentially
   tilted so that its mean is exactly ``*_size_mean_bytes``.
3. **Regions.**  The footprint is split into a read region
   (``1 - write_region_fraction`` of ``footprint_bytes``) filled with read
   extents and a write-only region filled with write extents.  Each extent
   starts on a multiple of ``align_bytes`` and occupies
   ``ceil(size / align_bytes)`` alignment slots, so with ``align_bytes`` equal to
   the page size no two extents share a page.  Extents are drawn until their
   slots fill the region (to within half an extent), and all extents of both
   regions are then placed in one random order, back to back from offset 0.
   Their start pages are therefore arbitrary (not superpage-aligned).
4. **Hot set.**  A random set of read extents holding ``hot_set_ratio`` of the
   read region (by slots, i.e. pages) is *hot*.  Every hot extent is read at
   least ``hot_min_reads`` times; the reads left over after the cold extents are
   served go to the hot extents with Zipf popularity of exponent ``hot_skew``
   (0 = uniform).  With ``hot_min_reads = 2`` (4), the trace's ``hot_ratio``
   (``hot_ratio_4``) of :func:`~flashrr.trace.stats.trace_stats` at a page size
   of ``align_bytes`` is therefore ``hot_set_ratio``, to within one extent.
5. **Cold extents** are read ``cold_reads_per_extent`` times on average (each
   exactly the floor or the ceiling of it); 1 means every cold extent is read
   once.  Without a hot set the reads are spread evenly over the cold extents
   and ``cold_reads_per_extent`` is not used.
6. **Writes.**  A fraction ``write_overlap_fraction`` of the writes update read
   data: each starts at a uniformly chosen read extent and has its own size from
   the write size distribution (clipped at the end of the footprint).  The other
   writes cover every write-only extent once and then pick write-only extents
   uniformly at random.  With ``write_region_fraction = 0`` every write updates
   read data; a trace without reads (writes) puts its whole footprint into the
   write (read) region.
7. **Mean sizes.**  Because a few popular extents carry a large share of the
   reads, the sizes drawn for the extents are permuted so that the
   request-weighted mean size approaches the requested mean (to within 0.05%
   when up to 1024 swaps suffice): a popular extent trades sizes with a rarely
   accessed one.  Swaps keep each region's size multiset, hence the footprint;
   swaps between a hot and a cold extent of different slot counts, which move
   pages in or out of the hot set, may shift the hot ratio by at most 0.5
   points in total.
8. **Arrivals** are a Poisson process: exponential inter-arrival gaps of mean
   ``interarrival_mean_ns``; the first request arrives at 0.  With
   ``idle_period_mean_ns > 0`` the process is ON/OFF instead: requests come in
   bursts with those gaps, and after each request a burst ends with probability
   ``1 / burst_requests_mean`` (geometric bursts of that mean length); the gap
   after a burst's last request is lengthened by an idle period, exponential
   with mean ``idle_period_mean_ns``.  The mean gap becomes
   ``interarrival_mean_ns + idle_period_mean_ns / burst_requests_mean``.  The
   burst and idle draws come after every other draw, so a trace without idle
   periods is identical to the plain Poisson one.

Everything is drawn from ``np.random.default_rng(seed)`` in a fixed order, so
(preset, n_requests, seed, params) determines the trace.

Presets
=======

``synth_trace("ali0")`` uses a paper's trace-table row (see
:mod:`flashrr.trace.synth_presets`).  When ``n_requests`` is smaller than the
row's request count and ``scale_footprint`` is true (the default), the preset's
footprint is scaled by ``n_requests / paper count``, which keeps the reuse
structure (reads per extent, hot ratio) of the full-size trace.  A larger
``n_requests`` keeps the paper's footprint (more reuse), and a
``footprint_bytes`` passed explicitly is never scaled.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from .core import Trace
from .synth_params import KiB, MiB  # noqa: F401  (sizes in bytes, shown here for the generator's callers)
from .synth_params import AUTO_FOOTPRINT_BYTES_PER_REQUEST, DEFAULT_N_REQUESTS, SynthParams, _rule
from .synth_sizes import _draw_units, _size_pmf, _slot_count, _slots_per_touched_byte

__all__ = ["SynthParams", "synth_trace", "synth_twin", "synth_params", "DEFAULT_N_REQUESTS", "AUTO_FOOTPRINT_BYTES_PER_REQUEST"]

# Size balancing (step 7 of the model): at most this many swaps, each choosing
# its partner from a random sample of this many extents (see _balance_sizes).
_BALANCE_MAX_SWAPS = 1024
_BALANCE_POOL = 4096
_BALANCE_REL_TOL = 5e-4
_BALANCE_HOT_DRIFT = 5e-3  # at most 0.5 points of hot ratio moved by size swaps


def synth_params(preset: str | None = None, n_requests: int | None = None, **params) -> tuple[SynthParams, int]:
    """Resolve ``(preset, n_requests, params)`` into validated :class:`SynthParams` and a request count.

    Applies the preset's parameters, then ``params``, then the footprint
    scaling described in the module docstring.  Raises :class:`ValueError` for an
    unknown preset or parameter name and for any broken rule.
    """
    unknown = sorted(set(params) - set(SynthParams.names()))
    if unknown:
        raise ValueError(f"synth_trace: unknown parameter(s) {', '.join(map(repr, unknown))}; "
                         f"valid names are {', '.join(SynthParams.names())}")
    base: dict = {}
    paper_n = None
    if preset is not None:
        from .synth_presets import get_synth_preset

        record = get_synth_preset(preset)
        base = dict(record.params)
        paper_n = record.n_requests
    merged = {**base, **params}
    resolved = SynthParams(**merged)
    if n_requests is None:
        n_requests = paper_n if paper_n is not None else DEFAULT_N_REQUESTS
    _rule(isinstance(n_requests, (int, np.integer)) and not isinstance(n_requests, bool) and n_requests >= 0,
          "n_requests", "must be a non-negative integer", n_requests)
    n_requests = int(n_requests)
    if resolved.footprint_bytes is None:
        resolved = dataclasses.replace(resolved,
                                       footprint_bytes=float(AUTO_FOOTPRINT_BYTES_PER_REQUEST * max(n_requests, 1)))
    if (paper_n is not None and resolved.scale_footprint and "footprint_bytes" not in params
            and n_requests < paper_n):
        resolved = dataclasses.replace(resolved,
                                       footprint_bytes=resolved.footprint_bytes * n_requests / paper_n
                                       if n_requests else resolved.footprint_bytes)
    return resolved, n_requests


def synth_trace(preset: str | None = None, n_requests: int | None = None, seed: int = 0, **params) -> Trace:
    """Generate a synthetic trace (see the module docstring for the model).

    ``preset`` names a paper trace-table row (:func:`~flashrr.trace.synth_presets.list_synth_presets`);
    ``n_requests`` defaults to the preset's paper count, or to
    :data:`DEFAULT_N_REQUESTS` without a preset; ``seed`` seeds
    ``np.random.default_rng``; ``params`` are fields of :class:`SynthParams` and
    override the preset's.  The same arguments always give the same trace.

    Raises :class:`ValueError` naming the parameter for an unknown name, an
    impossible value, or a footprint that the requests cannot cover.
    """
    _rule(isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0, "seed",
          "must be a non-negative integer", seed)
    p, n = synth_params(preset, n_requests, **params)
    rng = np.random.default_rng(int(seed))
    time_ns, offset, size, is_write = _generate(p, n, rng)
    return Trace(time_ns, offset, size, is_write, name=preset if preset is not None else "synth")


def synth_twin(trace: Trace, seed: int = 0, page_size_bytes: int = 8192) -> Trace:
    """A synthetic trace with ``trace``'s table statistics and its arrival times: the same request count,
    read ratio, mean read and write sizes (bytes), footprint and hot ratio (pages of ``page_size_bytes``
    read twice or more, :func:`~flashrr.trace.stats.trace_stats`), each request at the time of the
    trace's request of the same index.  Everything else (where hot extents lie, when they are read) is
    the generator's: this is the stand-in a trace table allows, to set beside the trace and its model."""
    from .stats import trace_stats

    st = trace_stats(trace, page_size_bytes=page_size_bytes)
    params = {"read_ratio": st["read_ratio"], "footprint_bytes": int(st["footprint_bytes"]),
              "hot_set_ratio": st["hot_ratio"], "footprint_page_bytes": page_size_bytes}
    for key, stat in (("read_size_mean_bytes", "avg_read_size_bytes"),
                      ("write_size_mean_bytes", "avg_write_size_bytes")):
        if st[stat]:
            params[key] = st[stat]
    twin = synth_trace(n_requests=len(trace), seed=seed, **params)
    return Trace(np.asarray(trace.time_ns, dtype=np.int64), twin.offset, twin.size, twin.is_write,
                 name=f"{trace.name or 'trace'} (synthetic twin)")


# ---------------------------------------------------------------------------------------------- the model


def _generate(p: SynthParams, n: int, rng: np.random.Generator):
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, np.zeros(0, dtype=bool)
    unit, align = p.size_unit_bytes, p.align_bytes
    max_units = p.max_size_bytes // unit
    n_reads = _round_half_up(n * p.read_ratio)
    n_writes = n - n_reads
    overlap = p.write_overlap_fraction if n_reads else 0.0
    if p.write_region_fraction == 0.0 and n_reads:
        overlap = 1.0
    n_overlap = _round_half_up(n_writes * overlap)
    n_write_only = n_writes - n_overlap

    fp = float(p.footprint_bytes)
    if n_reads == 0:
        read_bytes, write_bytes = 0.0, fp
    elif n_write_only == 0:
        read_bytes, write_bytes = fp, 0.0
    else:
        write_bytes = fp * p.write_region_fraction
        read_bytes = fp - write_bytes
        _rule(read_bytes > 0, "write_region_fraction", "must be < 1 when the trace has reads",
              p.write_region_fraction)

    read_pmf = _size_pmf(p.read_size_mean_bytes / unit, p.read_size_cv, max_units)
    write_pmf = _size_pmf(p.write_size_mean_bytes / unit, p.write_size_cv, max_units)
    if p.footprint_page_bytes is not None:  # footprint counts touched pages: convert to slot bytes
        read_bytes *= _slots_per_touched_byte(read_pmf, unit, align, p.footprint_page_bytes)
        write_bytes *= _slots_per_touched_byte(write_pmf, unit, align, p.footprint_page_bytes)

    # Read extents, hot ones first (the draws are exchangeable, so a prefix is a random subset).
    read_units = _fill_region(rng, read_pmf, read_bytes, unit, align)
    n_read_ext = read_units.size
    slots = _slot_count(read_units, unit, align)
    n_hot = _prefix_nearest(np.cumsum(slots), p.hot_set_ratio * slots.sum()) if n_read_ext else 0
    read_counts = _read_counts(rng, p, n_reads, n_read_ext, n_hot)

    write_units = _fill_region(rng, write_pmf, write_bytes, unit, align)
    n_write_ext = write_units.size
    if n_write_ext > n_write_only:
        raise ValueError(
            f"synth_trace: footprint_bytes: the write-only region ({write_bytes:.0f} bytes, write_region_fraction "
            f"{p.write_region_fraction}) holds {n_write_ext} extents but only {n_write_only} writes go there, so it "
            f"cannot be covered; lower footprint_bytes or write_region_fraction, or raise n_requests "
            f"(got footprint_bytes={p.footprint_bytes!r})")
    write_counts = np.ones(n_write_ext, dtype=np.int64)
    if n_write_ext:
        write_counts += np.bincount(rng.integers(0, n_write_ext, n_write_only - n_write_ext),
                                    minlength=n_write_ext)
    overlap_units = _draw_units(rng, write_pmf, n_overlap)

    # Step 7: request-weighted mean sizes.
    is_hot = np.arange(n_read_ext) < n_hot
    _balance_sizes(rng, read_units, read_counts, is_hot, slots, p.read_size_mean_bytes / unit * n_reads)
    _balance_sizes(rng, write_units, write_counts, np.zeros(n_write_ext, dtype=bool),
                   _slot_count(write_units, unit, align),
                   p.write_size_mean_bytes / unit * n_writes - float(overlap_units.sum()))

    # Layout: all extents in one random order, back to back in alignment slots.
    units = np.concatenate([read_units, write_units])
    slot_bytes = _slot_count(units, unit, align) * align
    order = rng.permutation(units.size)
    start = np.empty(units.size, dtype=np.int64)
    placed = slot_bytes[order]
    start[order] = np.cumsum(placed) - placed
    end_bytes = int(slot_bytes.sum())

    # Read requests: one per (extent, read), in random order.
    read_ext = rng.permutation(np.repeat(np.arange(n_read_ext), read_counts))
    # Write requests: write-only extents, then updates of read extents, shuffled together.
    write_ext = np.concatenate([np.repeat(np.arange(n_read_ext, n_read_ext + n_write_ext), write_counts),
                                rng.integers(0, max(n_read_ext, 1), n_overlap)])
    write_size_units = np.concatenate([np.repeat(write_units, write_counts), overlap_units])
    write_order = rng.permutation(n_writes)
    write_ext, write_size_units = write_ext[write_order], write_size_units[write_order]

    is_write = np.zeros(n, dtype=bool)
    is_write[rng.permutation(n)[:n_writes]] = True
    offset = np.empty(n, dtype=np.int64)
    size = np.empty(n, dtype=np.int64)
    offset[~is_write] = start[read_ext]
    size[~is_write] = units[read_ext] * unit
    w_off = start[write_ext]
    offset[is_write] = w_off
    size[is_write] = np.minimum(write_size_units * unit, end_bytes - w_off)

    gaps = rng.exponential(p.interarrival_mean_ns, n)
    if p.idle_period_mean_ns > 0:
        gaps += _idle_periods(rng, n, p.burst_requests_mean, p.idle_period_mean_ns)
    if n:
        gaps[0] = 0.0
    time_ns = np.floor(np.cumsum(gaps)).astype(np.int64)
    return time_ns, offset, size, is_write


def _idle_periods(rng, n: int, burst_mean: float, idle_mean_ns: float) -> np.ndarray:
    """Extra gap before each of ``n`` requests, ns: an exponential idle period (mean ``idle_mean_ns``)
    where the previous request ended a burst (probability ``1 / burst_mean`` each), else 0."""
    ends_burst = rng.random(n) < 1.0 / burst_mean
    idle = rng.exponential(idle_mean_ns, n)
    extra = np.zeros(n)
    extra[1:] = np.where(ends_burst[:-1], idle[:-1], 0.0)
    return extra


def _read_counts(rng, p: SynthParams, n_reads: int, n_ext: int, n_hot: int) -> np.ndarray:
    """Reads of each read extent (hot extents first)."""
    n_cold = n_ext - n_hot
    counts = np.zeros(n_ext, dtype=np.int64)
    if n_ext == 0:
        return counts
    cold_reads = n_reads if n_hot == 0 else _round_half_up(n_cold * p.cold_reads_per_extent)
    needed = cold_reads + n_hot * p.hot_min_reads
    if n_cold > n_reads or needed > n_reads:
        raise ValueError(
            f"synth_trace: footprint_bytes: the read region holds {n_ext} extents ({n_cold} cold read "
            f"{p.cold_reads_per_extent:g} times each on average, {n_hot} hot read at least {p.hot_min_reads} times) "
            f"and needs at least {max(needed, n_cold)} reads, but the trace has {n_reads}; lower footprint_bytes, "
            f"hot_set_ratio, hot_min_reads or cold_reads_per_extent, or raise n_requests or read_ratio "
            f"(got footprint_bytes={p.footprint_bytes!r})")
    counts[n_hot:] = _spread_evenly(rng, cold_reads, n_cold)
    if n_hot:
        ranks = np.arange(1, n_hot + 1, dtype=np.float64)
        weights = ranks ** -p.hot_skew
        weights /= weights.sum()
        extra = rng.multinomial(n_reads - needed, weights)
        counts[:n_hot] = p.hot_min_reads + extra
    return counts


def _spread_evenly(rng, total: int, n: int) -> np.ndarray:
    """``total`` split over ``n`` bins as ``total // n`` each, plus one for a random ``total % n`` of them."""
    out = np.full(n, total // n if n else 0, dtype=np.int64)
    if n:
        out[rng.permutation(n)[: total % n]] += 1
    return out


def _fill_region(rng, pmf: np.ndarray, region_bytes: float, unit: int, align: int) -> np.ndarray:
    """Extent sizes (units) whose alignment slots add up to ``region_bytes`` to within half an extent."""
    if region_bytes <= 0:
        return np.zeros(0, dtype=np.int64)
    slots = _slot_count(np.arange(1, pmf.size + 1), unit, align)
    mean_slot_bytes = float(pmf @ slots) * align
    target_slots = region_bytes / align
    draws = []
    total = 0
    while True:
        need = max(64, int((region_bytes - total * align) / mean_slot_bytes * 1.02) + 64)
        draws.append(_draw_units(rng, pmf, need))
        total += int(_slot_count(draws[-1], unit, align).sum())
        if total >= target_slots:
            break
    units = np.concatenate(draws)
    k = _prefix_nearest(np.cumsum(_slot_count(units, unit, align)), target_slots)
    return units[:max(k, 1)]


def _prefix_nearest(cum: np.ndarray, target: float) -> int:
    """Length of the prefix whose cumulative sum (``cum``) is nearest ``target`` (0 .. len(cum))."""
    i = int(np.searchsorted(cum, target, side="left"))  # first prefix reaching the target
    if i >= cum.size:
        return int(cum.size)
    below = float(cum[i - 1]) if i else 0.0
    return i if target - below <= float(cum[i]) - target else i + 1


def _balance_sizes(rng, units: np.ndarray, counts: np.ndarray, is_hot: np.ndarray, slots: np.ndarray,
                   target_total: float) -> None:
    """Permute ``units`` among extents so that ``sum(counts * units)`` approaches ``target_total``.

    Greedy: each of the most accessed extents, in decreasing order of count,
    swaps its size with the extent of a random sample of all extents that brings
    the total closest to the target.  Swaps keep the multiset of sizes (so the
    footprint).  A swap between a hot and a cold extent (``is_hot``) that
    occupy different numbers of alignment slots (``slots``) moves pages in or
    out of the hot set; such swaps are made only in a second pass, after the
    others, and only while the hot set's slot total stays within
    ``_BALANCE_HOT_DRIFT`` of all slots of its original value.  Stops within
    ``_BALANCE_REL_TOL`` of the target.  In place; ``slots`` is permuted along
    with ``units``.
    """
    n = units.size
    if n < 2:
        return
    deficit = target_total - float(counts @ units)
    tol = _BALANCE_REL_TOL * abs(target_total)
    if abs(deficit) <= tol:
        return
    drift, budget = 0, int(_BALANCE_HOT_DRIFT * slots.sum())
    n_top = min(_BALANCE_MAX_SWAPS, n)
    top = _most_counted(counts, n_top)
    pool = np.sort(rng.choice(n, min(_BALANCE_POOL, n), replace=False))  # partners: any extents
    pool_counts, pool_hot = counts[pool], is_hot[pool]
    # Pass 1 leaves the hot set's pages alone; pass 2 may move a few in or out.
    for allow_drift in (False, True):
        for i in top:
            if abs(deficit) <= tol:
                return
            new_deficit = np.abs(deficit - (counts[i] - pool_counts) * (units[pool] - units[i]))
            # Change of the hot set's slot total if i and the candidate swap sizes.
            hot_change = np.where(pool_hot == is_hot[i], 0, (slots[pool] - slots[i]) * (1 if is_hot[i] else -1))
            if allow_drift:
                new_deficit[np.abs(drift + hot_change) > budget] = np.inf
            else:
                new_deficit[hot_change != 0] = np.inf
            j = int(np.argmin(new_deficit))
            if new_deficit[j] < abs(deficit):
                k = pool[j]
                deficit -= float((counts[i] - counts[k]) * (units[k] - units[i]))
                drift += int(hot_change[j])
                units[i], units[k] = units[k], units[i]
                slots[i], slots[k] = slots[k], slots[i]


def _most_counted(counts: np.ndarray, n_top: int) -> np.ndarray:
    """Indices of the ``n_top`` largest ``counts``, largest first, ties in index order: what a stable
    sort gives, found by a partition of the values.  ``np.argpartition`` alone would leave which of
    the tied indices make the cut, and their order, to the CPU's sorting kernel (NumPy picks one by
    instruction set), so the same seed would give another trace on another machine."""
    kth = np.partition(counts, counts.size - n_top)[counts.size - n_top]  # the n_top-th largest value
    above = np.flatnonzero(counts > kth)
    tied = np.flatnonzero(counts == kth)[:n_top - above.size]
    top = np.concatenate([above, tied])
    return top[np.argsort(-counts[top], kind="stable")]


def _round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))
