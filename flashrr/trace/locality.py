"""Vectorised primitives for the locality of a block trace.

These are the building blocks of :mod:`flashrr.trace.profile` (the read-disturb
profile of a trace), meant to be reused wherever a trace's locality is
measured or compared.  Units:

* pages are logical page numbers (LPNs) at some page size: a request of
  ``size`` bytes at byte ``offset`` touches the pages ``offset // page`` ..
  ``(offset + size - 1) // page`` inclusive;
* counts are numbers of accesses (a read touching a page counts once for that
  page);
* times are ns, offsets and sizes bytes.

Every function takes NumPy arrays and works on the whole array at once; the
one loop NumPy cannot run fast (the Fenwick-tree count behind
:func:`stack_distances`) is a small compiled kernel
(``flashrr/trace/_locality_kernel.pyx``).  Installs built without extensions
(``FLASHRR_NO_EXTENSIONS=1``) use a NumPy version of the same count, which
gives identical results five to ten times more slowly; :data:`HAVE_KERNEL`
says which one runs.
"""
from __future__ import annotations

from fractions import Fraction
from math import ceil
from typing import NamedTuple

import numpy as np

from .stats import _page_counts

try:
    from ._locality_kernel import earlier_greater_counts as _kernel_earlier_greater
except ImportError:  # built without extensions: the NumPy version below is used
    _kernel_earlier_greater = None

__all__ = ["HAVE_KERNEL", "page_counts", "region_counts", "top_share", "gini", "previous_occurrence",
           "stack_distances", "stack_distances_from_previous", "lru_hit_ratio", "lru_hit_ratios", "idle_periods",
           "burst_lengths", "SequentialRuns", "sequential_runs", "expand_pages"]

#: True when the compiled stack-distance kernel is available.
HAVE_KERNEL = _kernel_earlier_greater is not None


def _int_array(a, name: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a one-dimensional array, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name}: expected integers, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


def _positive_int(value, name: str, unit: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name}: expected a positive integer ({unit}), got {value!r}")
    return int(value)


def _counts_array(counts, name: str = "counts") -> np.ndarray:
    arr = np.asarray(counts)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a one-dimensional array, got shape {arr.shape}")
    if arr.size and not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise ValueError(f"{name}: expected numbers, got dtype {arr.dtype}")
    if arr.size and arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(f"{name}: expected numbers, got NaN")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name}: expected counts >= 0, got {arr.min()!r}")
    return arr


# ---------------------------------------------------------------------------
# Spatial distribution: counts per page and per region, concentration
# ---------------------------------------------------------------------------

def expand_pages(first_pages, last_pages) -> tuple[np.ndarray, np.ndarray]:
    """``(request_index, page)``: one entry per page touched, in request order
    and, within a request, in increasing page order.  Request ``i`` touches
    pages ``first_pages[i] .. last_pages[i]`` (inclusive); ``request_index``
    says which request (index into the inputs) each page access belongs to."""
    first = _int_array(first_pages, "first_pages")
    last = _int_array(last_pages, "last_pages")
    if first.shape != last.shape:
        raise ValueError(f"first_pages and last_pages: lengths differ ({first.size} and {last.size})")
    n_pages = last - first + 1
    if n_pages.size and n_pages.min() < 1:
        raise ValueError(f"last_pages: must be >= first_pages (request {int(np.argmin(n_pages))})")
    req = np.repeat(np.arange(first.size, dtype=np.int64), n_pages)
    starts = np.cumsum(n_pages) - n_pages  # index of each request's first access
    page = np.arange(req.size, dtype=np.int64)
    page -= starts[req]
    page += first[req]
    return req, page


def page_counts(first_pages, last_pages) -> tuple[np.ndarray, np.ndarray]:
    """``(pages, counts)``: every page touched by the requests
    ``first_pages[i] .. last_pages[i]`` (pages, inclusive) once, in increasing
    order, and how many of the requests touch it (int64 arrays; both empty
    when there are no requests).  The same tally as
    :func:`flashrr.trace.stats.trace_stats` uses: a difference array over a
    compact page range, listing and ``np.unique`` over a sparse one."""
    first = _int_array(first_pages, "first_pages")
    last = _int_array(last_pages, "last_pages")
    if first.shape != last.shape:
        raise ValueError(f"first_pages and last_pages: lengths differ ({first.size} and {last.size})")
    if not first.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if (last < first).any():
        raise ValueError(f"last_pages: must be >= first_pages (request {int(np.argmax(last < first))})")
    pages, counts = _page_counts(first, last)
    return pages.astype(np.int64, copy=False), counts.astype(np.int64, copy=False)


def region_counts(pages, counts, region_pages: int) -> tuple[np.ndarray, np.ndarray]:
    """``(regions, counts)``: page counts summed over regions of
    ``region_pages`` consecutive pages (region r holds pages ``r *
    region_pages .. (r + 1) * region_pages - 1``).  Only regions holding at
    least one of ``pages`` are listed, in increasing order (a region whose
    pages all have count 0 is listed with 0).  ``pages`` need not be sorted or
    distinct."""
    region_pages = _positive_int(region_pages, "region_pages", "pages per region")
    pages = _int_array(pages, "pages")
    counts = np.asarray(counts)
    if counts.shape != pages.shape:
        raise ValueError(f"pages and counts: lengths differ ({pages.size} and {counts.size})")
    if not pages.size:
        return np.zeros(0, np.int64), np.zeros(0, counts.dtype if counts.size else np.int64)
    regions = pages // region_pages
    if (np.diff(regions) < 0).any():
        order = np.argsort(regions, kind="stable")
        regions, counts = regions[order], counts[order]
    starts = np.flatnonzero(np.concatenate(([True], regions[1:] != regions[:-1])))
    return regions[starts], np.add.reduceat(counts, starts)


def _k_of(fraction, n: int) -> int:
    """``ceil(fraction * n)`` with ``fraction`` read as its shortest decimal
    form, so 0.07 of 100 units is 7 units (the float product is 7.000000000000001)."""
    return ceil(Fraction(repr(float(fraction))) * n)


def top_share(counts, fraction: float) -> float:
    """Share of ``sum(counts)`` held by the ``k = ceil(fraction * len(counts))``
    largest counts (``fraction`` in [0, 1], read as its shortest decimal form,
    so 0.07 of 100 units is exactly 7 units).

    Ties do not matter: every choice of k units with the largest counts has
    the same sum.  An empty ``counts``, an all-zero one, or ``k = 0`` gives 0.0.
    The result is at least ``k / len(counts)`` (the k largest hold at least
    their proportional share) and at most 1."""
    arr = _counts_array(counts)
    f = float(fraction)
    if not 0.0 <= f <= 1.0:
        raise ValueError(f"fraction: expected a number in [0, 1], got {fraction!r}")
    n = arr.size
    total = float(arr.sum()) if n else 0.0
    k = _k_of(f, n)
    if not n or total <= 0 or k == 0:
        return 0.0
    if k >= n:
        return 1.0
    top = np.partition(arr, n - k)[n - k:]
    return float(top.sum()) / total


def gini(counts) -> float:
    """Gini coefficient of ``counts`` (>= 0): ``sum_i sum_j |x_i - x_j| /
    (2 n^2 mean)``, computed from the sorted counts as ``sum_i (2i - n - 1)
    x_(i) / (n sum x)`` (i = 1..n ascending).

    0 when every count is equal; at most ``1 - 1/n`` (one unit holds
    everything).  Computed over the units given, so over touched units only
    when the counts come from :func:`page_counts`.  Empty or all-zero
    ``counts`` give 0.0."""
    arr = _counts_array(counts)
    n = arr.size
    if not n:
        return 0.0
    x = np.sort(arr).astype(np.float64)
    total = x.sum()
    if total <= 0:
        return 0.0
    weights = 2.0 * np.arange(1, n + 1, dtype=np.float64) - n - 1
    return max(0.0, float(weights @ x) / (n * total))


# ---------------------------------------------------------------------------
# Temporal locality: previous access, LRU stack distances, hit ratios
# ---------------------------------------------------------------------------

def previous_occurrence(keys) -> np.ndarray:
    """For each position i, the index of the previous position holding the
    same key as ``keys[i]`` (int64; -1 for a key's first occurrence).

    One sort of ``key * n + position`` (keys made dense first when that
    product would overflow): O(n log n)."""
    k = _int_array(keys, "keys")
    n = k.size
    prev = np.full(n, -1, np.int64)
    if n < 2:
        return prev
    order = _sorted_positions(k)
    ks = k[order]
    same = ks[1:] == ks[:-1]
    prev[order[1:][same]] = order[:-1][same]
    return prev


def _sorted_positions(k: np.ndarray) -> np.ndarray:
    """Positions of ``k`` ordered by (key, position)."""
    n = k.size
    lo, hi = int(k.min()), int(k.max())
    if (hi - lo + 1) * n >= 1 << 62:  # the composite key would overflow: use dense key ids
        _, dense = np.unique(k, return_inverse=True)
        k, lo = dense.reshape(-1).astype(np.int64), 0
    composite = (k - lo) * n
    composite += np.arange(n, dtype=np.int64)
    composite.sort()  # unique values, so any sort gives the (key, position) order
    return composite % n


def stack_distances(keys) -> np.ndarray:
    """LRU stack distance of every access in the key sequence ``keys``
    (int64): the number of distinct other keys accessed since the previous
    access to the same key, or -1 for a key's first access.

    An LRU cache of C entries fed this sequence hits an access exactly when
    ``0 <= distance < C`` (see :func:`lru_hit_ratio`).  With pages as keys the
    distance is in pages.  Exact, O(n log n): see
    :func:`stack_distances_from_previous`."""
    return stack_distances_from_previous(previous_occurrence(keys))


def stack_distances_from_previous(prev) -> np.ndarray:
    """Stack distances (as :func:`stack_distances`) from the previous-occurrence
    array ``prev`` of :func:`previous_occurrence`.

    For a re-access i of the access at p = prev[i], the distinct keys in
    between are the positions k in (p, i) that are the last access to their
    key before i.  Every other position in (p, i) is some re-access m < i's
    previous access, with p < prev[m]; so the distance is ``i - p - 1 - #{m <
    i : prev[m] > p}``.  That count is, over the re-accesses in order, the
    number of earlier ones with a larger ``prev``: a Fenwick-tree count over
    the ranks of ``prev`` (the compiled kernel, or its NumPy version)."""
    prev = _int_array(prev, "prev")
    n = prev.size
    out = np.full(n, -1, np.int64)
    re = np.flatnonzero(prev >= 0)
    if not re.size:
        return out
    p = prev[re]
    if (p >= re).any():
        raise ValueError("prev: every previous occurrence must come before its position")
    # rank of each prev among all prevs (they are distinct positions): a permutation of 0..m-1
    is_prev = np.zeros(n, bool)
    is_prev[p] = True
    if np.count_nonzero(is_prev) != p.size:
        raise ValueError("prev: two positions name the same previous occurrence")
    rank = np.cumsum(is_prev, dtype=np.int64)
    rank -= 1
    greater = _earlier_greater(rank[p])
    out[re] = re - p - 1 - greater
    return out


def _earlier_greater(ranks: np.ndarray) -> np.ndarray:
    """``out[t] = #{s < t : ranks[s] > ranks[t]}`` for a permutation ``ranks``
    of 0..m-1 (int64 result)."""
    m = ranks.size
    if _kernel_earlier_greater is not None and m < (1 << 31) - 1:
        return _kernel_earlier_greater(np.ascontiguousarray(ranks, dtype=np.int32))
    return _earlier_greater_numpy(ranks)


def _earlier_greater_numpy(ranks: np.ndarray) -> np.ndarray:
    """The NumPy version of the kernel's count, O(m log m).

    A pair s < t with ranks[s] > ranks[t] first differs at some bit b, above
    which the two ranks agree; there rank[s] has a 1 and rank[t] a 0.  Going
    from the top bit down, the ranks are kept grouped by their bits above b
    (each group in position order; since the ranks are a permutation of
    0..m-1, the group of prefix q starts at index q * 2**(b+1)).  An element
    with bit b = 0 gains the ones before it in its group; then each group is
    split stably, zeros first, which groups the ranks by their bits above
    b - 1.  After the last bit the array is sorted, so position equals rank."""
    m = ranks.size
    dt = np.int32 if m < (1 << 31) - 1 else np.int64
    vals = ranks.astype(dt)
    cnt = np.zeros(m, dt)
    new_vals, new_cnt = np.empty_like(vals), np.empty_like(cnt)
    idx = np.arange(m, dtype=dt)
    ones_before = np.zeros(m + 1, dt)  # running count of ones, exclusive: ones_before[i] = ones in vals[:i]
    bit, start, ob, dest = (np.empty(m, dt) for _ in range(4))
    is_one = np.empty(m, bool)
    for b in range(max(1, int(m - 1).bit_length()) - 1, -1, -1):
        np.right_shift(vals, b, out=bit)
        np.bitwise_and(bit, 1, out=bit)
        np.not_equal(bit, 0, out=is_one)
        np.cumsum(bit, out=ones_before[1:])
        np.bitwise_and(vals, dt(~((1 << (b + 1)) - 1)), out=start)   # first index of the element's group
        np.take(ones_before, start, out=ob)
        np.subtract(ones_before[:-1], ob, out=ob)                     # ones before it in its group
        np.add(cnt, ob, out=cnt, where=~is_one)
        np.subtract(idx, start, out=dest)
        np.subtract(dest, ob, out=dest)                               # zeros before it in its group
        np.add(ob, 1 << b, out=ob)
        np.copyto(dest, ob, where=is_one)
        np.add(dest, start, out=dest)                                 # its place after the split
        new_vals[dest] = vals
        new_cnt[dest] = cnt
        vals, new_vals = new_vals, vals
        cnt, new_cnt = new_cnt, cnt
    return cnt[ranks].astype(np.int64)


def lru_hit_ratio(stack_distances, capacity: int) -> float:
    """Hit ratio of an LRU cache of ``capacity`` entries (pages, for page
    keys) fed the access sequence whose stack distances are given: the share
    of accesses with ``0 <= distance < capacity`` (first accesses, -1, always
    miss).  0.0 for no accesses."""
    return float(lru_hit_ratios(stack_distances, (capacity,))[0])


def lru_hit_ratios(stack_distances, capacities) -> np.ndarray:
    """:func:`lru_hit_ratio` for several capacities at once (float64 array)."""
    d = _int_array(stack_distances, "stack_distances")
    caps = [_positive_int(c, "capacity", "cache entries") for c in capacities]
    if not d.size:
        return np.zeros(len(caps))
    reuse = d[d >= 0]
    return np.array([np.count_nonzero(reuse < c) for c in caps]) / d.size


# ---------------------------------------------------------------------------
# Arrivals: idle periods and bursts
# ---------------------------------------------------------------------------

def _times(time_ns, threshold_ns) -> tuple[np.ndarray, int]:
    t = _int_array(time_ns, "time_ns")
    if isinstance(threshold_ns, bool) or not isinstance(threshold_ns, (int, np.integer)) or threshold_ns < 0:
        raise ValueError(f"threshold_ns: expected an integer >= 0 (ns), got {threshold_ns!r}")
    if t.size > 1 and (np.diff(t) < 0).any():
        raise ValueError("time_ns: arrival times must be non-decreasing")
    return t, int(threshold_ns)


def idle_periods(time_ns, threshold_ns: int) -> np.ndarray:
    """Lengths (ns, int64) of the idle periods of an arrival sequence: the
    gaps between consecutive arrivals that are longer than ``threshold_ns``
    (a gap of exactly the threshold is not idle), in arrival order."""
    t, thr = _times(time_ns, threshold_ns)
    gaps = np.diff(t)
    return gaps[gaps > thr]


def burst_lengths(time_ns, threshold_ns: int) -> np.ndarray:
    """Number of requests (int64) in each burst, in arrival order: the idle
    periods of :func:`idle_periods` cut the arrivals into bursts, so there is
    one burst more than idle periods (none for no requests) and the lengths
    sum to the number of requests."""
    t, thr = _times(time_ns, threshold_ns)
    if not t.size:
        return np.zeros(0, np.int64)
    cuts = np.flatnonzero(np.diff(t) > thr) + 1  # first request of every burst but the first
    edges = np.concatenate(([0], cuts, [t.size]))
    return np.diff(edges).astype(np.int64)


# ---------------------------------------------------------------------------
# Sequential runs
# ---------------------------------------------------------------------------

class SequentialRuns(NamedTuple):
    """Sequential runs of a trace (see :func:`sequential_runs`).

    * ``continues``: bool per request, True when it starts at the byte where
      the previous request of the same operation ended.
    * ``read_lengths``, ``write_lengths``: requests in each run of reads and of
      writes (int64, in the order the runs start; a request that continues
      nothing starts a run, so a lone request is a run of 1).
    """

    continues: np.ndarray
    read_lengths: np.ndarray
    write_lengths: np.ndarray


def sequential_runs(offset, size, is_write) -> SequentialRuns:
    """Sequential runs, per operation: a request (``offset``, ``size`` in
    bytes) continues a run when it starts at the byte where the previous
    request *of the same operation* ended (``offset == prev_offset +
    prev_size``); requests of the other operation in between do not break
    the run.  The run-length arrays sum to the operation's request count."""
    off = _int_array(offset, "offset")
    sz = _int_array(size, "size")
    w = np.asarray(is_write, dtype=bool)
    if not (off.shape == sz.shape == w.shape):
        raise ValueError(f"offset, size and is_write: lengths differ ({off.size}, {sz.size}, {w.size})")
    continues = np.zeros(off.size, bool)
    lengths = []
    for mask in (~w, w):
        idx = np.flatnonzero(mask)
        o = off[idx]
        cont = o[1:] == o[:-1] + sz[idx[:-1]]
        continues[idx[1:]] = cont
        if not idx.size:
            lengths.append(np.zeros(0, np.int64))
            continue
        starts = np.flatnonzero(np.concatenate(([True], ~cont)))
        lengths.append(np.diff(np.append(starts, idx.size)).astype(np.int64))
    return SequentialRuns(continues, lengths[0], lengths[1])
