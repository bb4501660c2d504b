"""Trace transformations: repeat, read amplification, time scaling, folding."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashrr.config import SimConfig
from flashrr.trace import Trace, TraceError
from flashrr.trace.transform import amplify_reads, fold, repeat, scale_time
from strategies import wide_traces

T = Trace([0, 10, 10, 40], [0, 4096, 8192, 12288], [4096, 4096, 512, 8192], [False, True, False, False], name="t")


# ---------------------------------------------------------------------------
# repeat
# ---------------------------------------------------------------------------

def test_repeat_shifts_each_copy_by_duration_plus_mean_gap():
    r = repeat(T, 3)
    period = 40 + 40 // 3  # duration + mean inter-arrival gap (40 ns over 3 gaps, floored)
    np.testing.assert_array_equal(r.time_ns, [0, 10, 10, 40, period, period + 10, period + 10, period + 40,
                                              2 * period, 2 * period + 10, 2 * period + 10, 2 * period + 40])
    np.testing.assert_array_equal(r.offset, np.tile(T.offset, 3))
    np.testing.assert_array_equal(r.is_write, np.tile(T.is_write, 3))
    assert r.name == "t"


@settings(max_examples=40, deadline=None)
@given(trace=wide_traces(), n=st.integers(1, 6))
def test_repeat_multiplies_length_and_keeps_time_increasing(trace, n):
    r = repeat(trace, n)
    m = len(trace)
    assert len(r) == n * m
    assert np.all(np.diff(r.time_ns) >= 0)
    for k in range(1, n):  # each copy starts strictly after the previous one ends
        assert r.time_ns[k * m] > r.time_ns[k * m - 1]
        np.testing.assert_array_equal(r.time_ns[k * m:(k + 1) * m] - r.time_ns[k * m], trace.time_ns)
    assert r.n_reads == n * trace.n_reads


def test_repeat_single_request_or_simultaneous_requests():
    one = Trace([0], [0], [512], [False])
    np.testing.assert_array_equal(repeat(one, 4).time_ns, [0, 1, 2, 3])  # gap of at least 1 ns
    same = Trace([0, 0], [0, 512], [512, 512], [False, True])
    np.testing.assert_array_equal(repeat(same, 2).time_ns, [0, 0, 1, 1])


def test_repeat_once_and_empty():
    assert repeat(T, 1) == T
    empty = Trace([], [], [], [])
    assert len(repeat(empty, 5)) == 0


@pytest.mark.parametrize("n", [0, -1, 1.5, True, "2", None])
def test_repeat_rejects_bad_counts(n):
    with pytest.raises(TraceError, match="repeat count n must be a positive integer"):
        repeat(T, n)


def test_repeat_overflow_is_an_error():
    long = Trace([0, 2**61], [0, 0], [512, 512], [False, False])
    with pytest.raises(TraceError, match="overflows int64"):
        repeat(long, 8)


# ---------------------------------------------------------------------------
# amplify_reads
# ---------------------------------------------------------------------------

def test_amplify_reads_repeats_each_read_in_place():
    a = amplify_reads(T, 3)
    np.testing.assert_array_equal(a.time_ns, [0, 0, 0, 10, 10, 10, 10, 40, 40, 40])
    np.testing.assert_array_equal(a.offset, [0, 0, 0, 4096, 8192, 8192, 8192, 12288, 12288, 12288])
    np.testing.assert_array_equal(a.is_write, [False] * 3 + [True] + [False] * 6)


@settings(max_examples=40, deadline=None)
@given(trace=wide_traces(), raf=st.integers(1, 8))
def test_amplify_multiplies_only_reads(trace, raf):
    a = amplify_reads(trace, raf)
    assert a.n_reads == raf * trace.n_reads
    assert a.n_writes == trace.n_writes
    assert len(a) == raf * trace.n_reads + trace.n_writes
    # dropping consecutive duplicates of each read gives back the original
    keep = np.ones(len(a), dtype=bool)
    i = 0
    for w in trace.is_write:
        if not w:
            keep[i + 1:i + raf] = False
            i += raf
        else:
            i += 1
    assert Trace(a.time_ns[keep], a.offset[keep], a.size[keep], a.is_write[keep]) == trace
    np.testing.assert_array_equal(a.time_ns[~keep], np.repeat(trace.time_ns[~trace.is_write], raf - 1))


@pytest.mark.parametrize("raf", [0, -2, 2.0, False])
def test_amplify_rejects_bad_factors(raf):
    with pytest.raises(TraceError, match="read amplification factor raf must be a positive integer"):
        amplify_reads(T, raf)


def test_amplify_by_one_is_identity():
    assert amplify_reads(T, 1) == T


# ---------------------------------------------------------------------------
# scale_time
# ---------------------------------------------------------------------------

def test_scale_time_compresses_and_rounds_to_the_ns():
    np.testing.assert_array_equal(scale_time(T, 0.5).time_ns, [0, 5, 5, 20])
    np.testing.assert_array_equal(scale_time(Trace([0, 3, 5], [0] * 3, [1] * 3, [0] * 3), 0.5).time_ns,
                                  [0, 2, 2])  # 1.5 -> 2, 2.5 -> 2 (half to even)


def test_scale_time_integral_factor_is_exact_for_large_times():
    big = Trace([0, 2**60 + 1], [0, 0], [1, 1], [False, False])
    assert scale_time(big, 4.0).time_ns[1] == 4 * (2**60 + 1)  # float64 would give 2**62


@settings(max_examples=40, deadline=None)
@given(trace=wide_traces(), factor=st.floats(0.01, 100))
def test_scale_time_keeps_order_and_everything_else(trace, factor):
    s = scale_time(trace, factor)
    assert np.all(np.diff(s.time_ns) >= 0)
    np.testing.assert_array_equal(s.time_ns, np.rint(trace.time_ns * factor).astype(np.int64))
    np.testing.assert_array_equal(s.offset, trace.offset)
    np.testing.assert_array_equal(s.is_write, trace.is_write)


@pytest.mark.parametrize("factor", [0, -1.0, float("nan"), float("inf"), True, "2"])
def test_scale_time_rejects_bad_factors(factor):
    with pytest.raises(TraceError, match="time scale factor must be a finite number > 0"):
        scale_time(T, factor)


def test_scale_time_overflow_is_an_error():
    with pytest.raises(TraceError, match="overflows int64"):
        scale_time(Trace([0, 2**62], [0, 0], [1, 1], [False, False]), 4)


# ---------------------------------------------------------------------------
# fold
# ---------------------------------------------------------------------------

PAGE = 8192


@settings(max_examples=60, deadline=None)
@given(trace=wide_traces(max_offset=1 << 34), n_pages=st.integers(64, 4096))
def test_fold_keeps_every_request_in_range(trace, n_pages):
    capacity = n_pages * PAGE + 100  # a partial page at the end is not used
    f = fold(trace, capacity, PAGE)
    assert np.all(f.offset >= 0)
    assert np.all(f.offset + f.size <= n_pages * PAGE)
    np.testing.assert_array_equal(f.size, trace.size)
    np.testing.assert_array_equal(f.offset % PAGE, trace.offset % PAGE)   # offset within the page is kept
    np.testing.assert_array_equal(f.time_ns, trace.time_ns)


@settings(max_examples=60, deadline=None)
@given(trace=wide_traces(max_offset=1 << 34), n_pages=st.integers(64, 4096))
def test_fold_remaps_by_the_original_page(trace, n_pages):
    f = fold(trace, n_pages * PAGE, PAGE)
    first = trace.offset // PAGE
    span = (trace.offset % PAGE + trace.size + PAGE - 1) // PAGE
    fits = first % n_pages + span <= n_pages
    # requests that do not straddle the end land on (original first page) mod n_pages ...
    np.testing.assert_array_equal((f.offset // PAGE)[fits], (first % n_pages)[fits])
    # ... so two such requests on the same original page land on the same page
    for p in np.unique(first[fits]):
        assert len(np.unique((f.offset // PAGE)[fits & (first == p)])) == 1
    # straddling requests are moved down to end on the last page
    np.testing.assert_array_equal((f.offset // PAGE + span)[~fits], np.full(np.count_nonzero(~fits), n_pages))


def test_fold_straddling_request_example():
    t = Trace([0, 1], [9 * PAGE + 100, 3 * PAGE], [2 * PAGE, PAGE], [False, True])
    f = fold(t, 10 * PAGE, PAGE)  # 10 pages; request 0 touches pages 9..11
    np.testing.assert_array_equal(f.offset, [7 * PAGE + 100, 3 * PAGE])


def test_fold_leaves_a_trace_that_fits_unchanged():
    assert fold(T, 1 << 20, PAGE) == T


def test_fold_onto_a_preset_device():
    cfg = SimConfig.preset("shuffler")
    cap = cfg.logical_bytes
    t = Trace([0, 1, 2], [0, cap, 5 * cap + 3 * PAGE], [PAGE, PAGE, 2 * PAGE], [False, False, True])
    f = fold(t, cap, cfg.geometry.page_size_bytes)
    np.testing.assert_array_equal(f.offset, [0, 0, 3 * PAGE])


def test_fold_rejects_requests_longer_than_the_capacity():
    with pytest.raises(TraceError, match=r"request 1 .* touches 3 pages, more than the 2 pages"):
        fold(Trace([0, 1], [0, 0], [PAGE, 3 * PAGE], [False, False]), 2 * PAGE, PAGE)


@pytest.mark.parametrize("cap,page,msg", [(0, PAGE, "capacity_bytes must be a positive integer"),
                                          (PAGE, 0, "page_size_bytes must be a positive integer"),
                                          (100, PAGE, "holds no whole page"),
                                          (1.5e9, PAGE, "capacity_bytes must be a positive integer")])
def test_fold_rejects_bad_arguments(cap, page, msg):
    with pytest.raises(TraceError, match=msg):
        fold(T, cap, page)


def test_transforms_reject_non_traces():
    with pytest.raises(TraceError, match="expected a Trace"):
        repeat([1, 2], 2)
