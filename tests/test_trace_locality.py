"""flashrr.trace.locality: every primitive against hand-counted cases and a
brute-force model written here (loops over Python lists, dicts and an
OrderedDict LRU), plus the bounds and monotonicity of the concentration
measures."""
from __future__ import annotations

import collections
from fractions import Fraction
from math import ceil

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from flashrr.trace import locality as loc
from flashrr.trace.locality import (burst_lengths, expand_pages, gini, idle_periods, lru_hit_ratio, lru_hit_ratios,
                                    page_counts, previous_occurrence, region_counts, sequential_runs,
                                    stack_distances, top_share)
from trace_helpers import lru_hits

# ---------------------------------------------------------------------------
# Brute-force models
# ---------------------------------------------------------------------------


def brute_stack_distances(keys) -> list[int]:
    """Distinct other keys between an access and the previous access to its key; -1 for a first access."""
    out = []
    for i, k in enumerate(keys):
        j = i - 1
        while j >= 0 and keys[j] != k:
            j -= 1
        out.append(-1 if j < 0 else len(set(keys[j + 1:i])))
    return out


def brute_gini(x) -> float:
    """Mean absolute difference over all ordered pairs, over twice the mean."""
    n = len(x)
    if n == 0 or sum(x) == 0:
        return 0.0
    mean = sum(x) / n
    return sum(abs(a - b) for a in x for b in x) / (2 * n * n * mean)


def brute_top_share(x, fraction: str) -> float:
    n = len(x)
    k = ceil(Fraction(fraction) * n)
    if n == 0 or sum(x) == 0 or k == 0:
        return 0.0
    return sum(sorted(x, reverse=True)[:k]) / sum(x)


key_lists = st.lists(st.integers(0, 7), max_size=60)

# ---------------------------------------------------------------------------
# Pages and regions
# ---------------------------------------------------------------------------


def test_expand_pages_lists_every_page_in_request_order():
    req, page = expand_pages([5, 0, 9], [7, 0, 10])
    assert req.tolist() == [0, 0, 0, 1, 2, 2]
    assert page.tolist() == [5, 6, 7, 0, 9, 10]


def test_page_counts_by_hand():
    # requests over pages 2..4, 3..3, 4..6: page 2 once, 3 twice, 4 twice, 5 and 6 once
    pages, counts = page_counts([2, 3, 4], [4, 3, 6])
    assert pages.tolist() == [2, 3, 4, 5, 6]
    assert counts.tolist() == [1, 2, 2, 1, 1]


def test_page_counts_empty_and_errors():
    pages, counts = page_counts([], [])
    assert pages.size == 0 and counts.size == 0
    with pytest.raises(ValueError, match="last_pages: must be >= first_pages"):
        page_counts([3], [2])
    with pytest.raises(ValueError, match="lengths differ"):
        page_counts([1, 2], [3])


@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 5)), max_size=40), st.booleans())
def test_page_counts_equal_a_counter_of_expanded_pages(reqs, huge):
    base = 1 << 50 if huge else 0  # huge offsets take the sparse path
    first = [base + f for f, _ in reqs]
    last = [base + f + extra for f, extra in reqs]
    expected = collections.Counter(p for f, l in zip(first, last) for p in range(f, l + 1))
    pages, counts = page_counts(first, last)
    assert dict(zip(pages.tolist(), counts.tolist())) == expected
    assert pages.tolist() == sorted(expected)


def test_region_counts_by_hand():
    regions, counts = region_counts([0, 3, 4, 9, 17], [1, 2, 3, 4, 5], 4)
    # regions: 0 -> pages 0..3 (1+2), 1 -> page 4 (3), 2 -> page 9 (4), 4 -> page 17 (5)
    assert regions.tolist() == [0, 1, 2, 4]
    assert counts.tolist() == [3, 3, 4, 5]


@given(st.lists(st.tuples(st.integers(0, 100), st.integers(0, 9)), max_size=40), st.integers(1, 12))
def test_region_counts_equal_a_dict_sum_for_unsorted_pages(items, region_pages):
    pages = [p for p, _ in items]
    counts = [c for _, c in items]
    expected: dict = {}
    for p, c in items:
        expected[p // region_pages] = expected.get(p // region_pages, 0) + c
    regions, sums = region_counts(pages, counts, region_pages)
    assert regions.tolist() == sorted(expected)
    assert sums.tolist() == [expected[r] for r in sorted(expected)]


def test_region_counts_rejects_a_bad_region_size():
    with pytest.raises(ValueError, match="region_pages: expected a positive integer"):
        region_counts([1], [1], 0)


# ---------------------------------------------------------------------------
# Concentration: top shares and Gini
# ---------------------------------------------------------------------------


def test_top_share_by_hand():
    counts = [1, 5, 3, 1]           # total 10
    assert top_share(counts, 0.25) == 0.5        # 1 unit: the 5
    assert top_share(counts, 0.5) == 0.8         # 2 units: 5 + 3
    assert top_share(counts, 0.26) == 0.8        # 0.26 * 4 = 1.04, rounded up: 2 units
    assert top_share(counts, 1.0) == 1.0
    assert top_share(counts, 0.0) == 0.0


def test_top_share_reads_the_fraction_as_a_decimal():
    # 100 units: 0.07 of them is 7 (the float product 0.07 * 100 is 7.000000000000001, whose ceiling is 8)
    counts = [10] * 7 + [1] * 93                 # total 163
    assert top_share(counts, 0.07) == 70 / 163


def test_top_share_ties_do_not_matter_and_empty_input_is_zero():
    assert top_share([2, 2, 2, 2], 0.25) == 0.25
    assert top_share([], 0.1) == 0.0
    assert top_share([0, 0], 0.5) == 0.0
    with pytest.raises(ValueError, match=r"fraction: expected a number in \[0, 1\]"):
        top_share([1], 1.5)
    with pytest.raises(ValueError, match="counts: expected counts >= 0"):
        top_share([1, -1], 0.5)


fractions = st.sampled_from(["0", "0.01", "0.1", "0.25", "0.3", "0.5", "0.7", "0.99", "1"])


@given(st.lists(st.integers(0, 50), max_size=40), fractions, fractions)
def test_top_share_bounds_and_monotonicity(counts, f1, f2):
    a, b = sorted((f1, f2), key=Fraction)
    sa, sb = top_share(counts, float(a)), top_share(counts, float(b))
    assert sa == pytest.approx(brute_top_share(counts, a))
    assert 0.0 <= sa <= sb <= 1.0                  # more units never hold less
    n, total = len(counts), sum(counts)
    if total:
        k = ceil(Fraction(a) * n)
        assert sa >= k / n - 1e-12                 # the k largest hold at least their proportional share
        assert top_share(counts, 1.0) == 1.0
    # the order of the units does not matter
    assert top_share(counts[::-1], float(a)) == pytest.approx(sa)


def test_gini_by_hand():
    assert gini([3, 3, 3, 3]) == 0.0
    assert gini([0, 0, 0, 4]) == pytest.approx(3 / 4)      # one unit holds all: 1 - 1/n
    assert gini([1, 2, 3]) == pytest.approx(2 / 9)          # |differences| over ordered pairs: 8; 8 / (2 * 9 * 2)
    assert gini(list(range(1, 11))) == pytest.approx(0.3)   # sum (2i - 11) i / (10 * 55) = 165 / 550
    assert gini([]) == 0.0
    assert gini([0, 0]) == 0.0


@given(st.lists(st.integers(0, 30), min_size=1, max_size=30), st.integers(1, 5))
def test_gini_equals_the_pairwise_definition_and_stays_in_bounds(counts, scale):
    g = gini(counts)
    assert g == pytest.approx(brute_gini(counts), abs=1e-12)
    assert 0.0 <= g <= 1 - 1 / len(counts) + 1e-12
    assert gini([c * scale for c in counts]) == pytest.approx(g, abs=1e-12)   # scale-free
    assert gini(sorted(counts)) == pytest.approx(g, abs=1e-12)                # order-free


# ---------------------------------------------------------------------------
# Previous occurrence and stack distances
# ---------------------------------------------------------------------------


@given(key_lists, st.booleans())
def test_previous_occurrence_equals_a_dict_scan(keys, huge):
    ks = [k * (1 << 60) if huge else k for k in keys]   # huge keys take the dense-id path
    last, expected = {}, []
    for i, k in enumerate(ks):
        expected.append(last.get(k, -1))
        last[k] = i
    assert previous_occurrence(np.array(ks, dtype=np.int64)).tolist() == expected


def test_stack_distances_by_hand():
    # a b c a a b: second a sees {b, c}; third a nothing; second b sees {c, a}
    assert stack_distances([1, 2, 3, 1, 1, 2]).tolist() == [-1, -1, -1, 2, 0, 2]
    assert stack_distances([]).tolist() == []


@pytest.mark.parametrize("n_keys,rounds", [(1, 4), (5, 3), (64, 2)])
def test_cyclic_scan_has_distance_n_minus_1_and_lru_misses_below_n(n_keys, rounds):
    keys = list(range(n_keys)) * rounds
    d = stack_distances(keys)
    assert (d[:n_keys] == -1).all()
    assert (d[n_keys:] == n_keys - 1).all()
    reads = n_keys * rounds
    for c in {1, max(1, n_keys - 1), n_keys, n_keys + 1, 10 * n_keys}:
        expected = 0.0 if c < n_keys else (reads - n_keys) / reads
        assert lru_hit_ratio(d, c) == pytest.approx(expected)


@given(key_lists)
def test_stack_distances_equal_the_brute_force(keys):
    assert stack_distances(np.array(keys, dtype=np.int64)).tolist() == brute_stack_distances(keys)


@given(key_lists)
def test_stack_distances_without_the_compiled_kernel(keys):
    # the NumPy version (installs without extensions) gives the same distances; patched by hand, as
    # hypothesis does not reset function-scoped fixtures such as monkeypatch between examples
    saved = loc._kernel_earlier_greater
    loc._kernel_earlier_greater = None
    try:
        got = stack_distances(np.array(keys, dtype=np.int64)).tolist()
    finally:
        loc._kernel_earlier_greater = saved
    assert got == brute_stack_distances(keys)


@given(st.permutations(list(range(40))))
def test_earlier_greater_counts_of_both_versions_equal_a_double_loop(perm):
    ranks = np.array(perm, dtype=np.int64)
    expected = [sum(1 for s in range(t) if perm[s] > perm[t]) for t in range(len(perm))]
    assert loc._earlier_greater_numpy(ranks).tolist() == expected
    if loc.HAVE_KERNEL:
        assert loc._kernel_earlier_greater(ranks.astype(np.int32)).tolist() == expected


def test_the_compiled_kernel_is_built():
    # a source install builds it; FLASHRR_NO_EXTENSIONS=1 installs fall back to NumPy (tested above)
    assert loc.HAVE_KERNEL


@given(key_lists, st.integers(1, 10))
def test_lru_hit_ratio_from_stack_distances_equals_an_lru_simulation(keys, capacity):
    d = stack_distances(keys)
    expected = lru_hits(keys, capacity) / len(keys) if keys else 0.0
    assert lru_hit_ratio(d, capacity) == pytest.approx(expected)
    assert lru_hit_ratios(d, [capacity, capacity + 1]).tolist() == pytest.approx(
        [expected, lru_hits(keys, capacity + 1) / len(keys) if keys else 0.0])


def test_stack_distances_reject_non_integer_keys_and_bad_prev():
    with pytest.raises(ValueError, match="keys: expected integers"):
        stack_distances(np.array([0.5, 1.5]))
    with pytest.raises(ValueError, match="prev: every previous occurrence must come before"):
        loc.stack_distances_from_previous([-1, 1])
    with pytest.raises(ValueError, match="capacity: expected a positive integer"):
        lru_hit_ratio([0, -1], 0)


# ---------------------------------------------------------------------------
# Idle periods and bursts
# ---------------------------------------------------------------------------


def test_fixed_gaps_with_injected_idle_periods():
    gaps = [100] * 29
    gaps[9] = 5000      # idle after request 9
    gaps[19] = 7000     # idle after request 19
    gaps[24] = 1000     # exactly the threshold: not idle
    t = np.concatenate(([0], np.cumsum(gaps)))
    assert idle_periods(t, 1000).tolist() == [5000, 7000]
    assert burst_lengths(t, 1000).tolist() == [10, 10, 10]
    assert burst_lengths(t, 999).tolist() == [10, 10, 5, 5]


def test_no_requests_and_one_request():
    assert idle_periods([], 10).size == 0 and burst_lengths([], 10).size == 0
    assert burst_lengths([7], 10).tolist() == [1]
    with pytest.raises(ValueError, match="threshold_ns: expected an integer >= 0"):
        idle_periods([0, 1], -1)
    with pytest.raises(ValueError, match="time_ns: arrival times must be non-decreasing"):
        burst_lengths([5, 1], 0)


@given(st.lists(st.integers(0, 50), max_size=40), st.integers(0, 40))
def test_idle_periods_and_bursts_equal_a_loop(gaps, threshold):
    t = [0]
    for g in gaps:
        t.append(t[-1] + g)
    idle, bursts, run = [], [], 1
    for g in gaps:
        if g > threshold:
            idle.append(g)
            bursts.append(run)
            run = 1
        else:
            run += 1
    bursts.append(run)
    assert idle_periods(t, threshold).tolist() == idle
    assert burst_lengths(t, threshold).tolist() == bursts
    assert sum(bursts) == len(t)


# ---------------------------------------------------------------------------
# Sequential runs
# ---------------------------------------------------------------------------


def test_sequential_streams_by_hand():
    K = 4096
    reqs = [  # (offset, size, is_write)
        (0, K, False), (10 << 20, 2 * K, True), (K, K, False),   # the write between does not break the read run
        (2 * K, K, False), ((10 << 20) + 2 * K, K, True),        # reads 0,K,2K: run of 3; writes: run of 2
        (1 << 20, K, False), ((1 << 20) + K, 2 * K, False),     # a new read run of 2
        (20 << 20, K, True),                                     # a lone write
    ]
    off, size, w = (np.array(c) for c in zip(*reqs))
    runs = sequential_runs(off, size, w)
    assert runs.read_lengths.tolist() == [3, 2]
    assert runs.write_lengths.tolist() == [2, 1]
    assert runs.continues.tolist() == [False, False, True, True, True, False, True, False]


@given(st.lists(st.tuples(st.integers(0, 6), st.integers(1, 3), st.booleans()), max_size=40))
def test_sequential_runs_equal_a_loop(reqs):
    off = [o * 1024 for o, _, _ in reqs]
    size = [s * 1024 for _, s, _ in reqs]
    w = [x for _, _, x in reqs]
    end, cont, lengths = {}, [], {False: [], True: []}
    for o, s, x in zip(off, size, w):
        c = end.get(x) == o
        cont.append(c)
        if c:
            lengths[x][-1] += 1
        else:
            lengths[x].append(1)
        end[x] = o + s
    runs = sequential_runs(np.array(off, dtype=np.int64), np.array(size, dtype=np.int64), np.array(w, dtype=bool))
    assert runs.continues.tolist() == cont
    assert runs.read_lengths.tolist() == lengths[False]
    assert runs.write_lengths.tolist() == lengths[True]
