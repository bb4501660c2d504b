"""time_resolution_s: requests sharing a coarse timestamp spread over the tracer's resolution, counted by hand;
the streaming stage equals the in-memory transform for any chunk size; the pipeline key parses and applies first."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flashrr
from flashrr.trace.core import TraceError
from flashrr.trace.pipeline import open_trace_spec, parse_trace_spec
from flashrr.trace.source import MemorySource
from flashrr.trace.stages import SpreadTies
from flashrr.trace.transform import spread_ties
from trace_helpers import joined_chunks

S = 1_000_000_000


def _trace(times):
    n = len(times)
    return flashrr.Trace(np.asarray(times, dtype=np.int64), np.arange(n, dtype=np.int64) * 4096,
                         np.full(n, 4096, dtype=np.int64), np.arange(n) % 2 == 1, rebase=False)


def test_a_second_of_four_requests_arrives_a_quarter_second_apart():
    # 4 requests at 0 s, 1 at 1 s, 2 at 3 s (the last group: the whole resolution)
    got = spread_ties(_trace([0, 0, 0, 0, S, 3 * S, 3 * S]), S)
    assert got.time_ns.tolist() == [0, S // 4, S // 2, 3 * S // 4, S, 3 * S, 3 * S + S // 2]
    assert got.offset.tolist() == list(range(0, 7 * 4096, 4096))  # order and requests kept


def test_a_group_never_passes_the_next_time():
    # times 100 ns apart at a resolution of 1 s: each pair spreads over the 100 ns to the next time only
    got = spread_ties(_trace([0, 0, 100, 100]), S)
    assert got.time_ns.tolist() == [0, 50, 100, 100 + S // 2]
    assert spread_ties(_trace([0, 0, 100, 100]), S, next_time_ns=300).time_ns.tolist() == [0, 50, 100, 200]


def test_distinct_times_are_unchanged_and_bad_values_are_named():
    tr = _trace([0, 5, 9, 20])
    assert spread_ties(tr, S) == tr
    with pytest.raises(TraceError, match="resolution_ns"):
        spread_ties(tr, 0)
    with pytest.raises(TraceError, match="before the last request"):
        spread_ties(tr, S, next_time_ns=10)


@st.composite
def tied_traces(draw):
    gaps = draw(st.lists(st.sampled_from([0, 0, 0, 1, 7, S]), min_size=1, max_size=150))
    return _trace(np.cumsum(gaps) - gaps[0])


@settings(max_examples=60, deadline=None)
@given(tr=tied_traces(), chunk=st.integers(1, 40), res=st.sampled_from([1, 3, 1000, S]))
def test_stage_equals_in_memory_transform_and_times_never_decrease(tr, chunk, res):
    got = joined_chunks(SpreadTies(MemorySource(tr), res), chunk)
    want = spread_ties(tr, res)
    assert got == want
    assert np.all(np.diff(want.time_ns) >= 0)
    assert np.all(want.time_ns - tr.time_ns < res) and np.all(want.time_ns >= tr.time_ns)


def test_pipeline_key_parses_applies_before_the_time_window_and_names_bad_values(tmp_path):
    spec = parse_trace_spec("t.csv?start_s=1&time_resolution_s=1")
    assert spec.canonical() == "t.csv?time_resolution_s=1&start_s=1"
    with pytest.raises(TraceError, match="time_resolution_s"):
        parse_trace_spec("t.csv?time_resolution_s=0")
    path = tmp_path / "t.tencent.csv"
    # Tencent CBS lines: Timestamp (s), Offset and Size (sectors), IOType (1 = write), VolumeID
    path.write_text("1538323200,0,8,0,1\n1538323200,8,8,1,1\n1538323201,16,8,0,1\n1538323201,24,8,0,1\n")
    src, _ = open_trace_spec(f"{path}?time_resolution_s=1&start_s=0.5")
    tr = src.to_trace()
    # spread first (0, 0.5 s; 1 s, 1.5 s), then the window from 0.5 s, rebased
    assert tr.time_ns.tolist() == [0, S // 2, S]
    assert tr.offset.tolist() == [8 * 512, 16 * 512, 24 * 512]
