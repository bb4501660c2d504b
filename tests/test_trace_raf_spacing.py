"""Cocktail's read amplification (RAF) with its copies spread over time (guide A22):
copies fill the gap to the next request evenly, streaming equals the in-memory
transform for any chunk size, and the pipeline key parses."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flashrr
from flashrr.trace.core import TraceError
from flashrr.trace.pipeline import parse_trace_spec
from flashrr.trace.source import MemorySource
from flashrr.trace.stages import AmplifyReads
from flashrr.trace.transform import amplify_reads
from strategies import busy_traces
from trace_helpers import joined_chunks


def test_spread_copies_fill_the_gap_to_the_next_request():
    # read at 0, write at 100, read at 400 (last); RAF 4: copies at 0, 25, 50, 75; the write once; the last
    # read's copies at 400 (no next request), or 400, 500, 600, 700 if the next request comes at 800
    tr = flashrr.Trace(np.array([0, 100, 400]), np.array([0, 8192, 4096]), np.full(3, 4096), np.array([0, 1, 0], bool))
    a = amplify_reads(tr, 4, "spread")
    assert a.time_ns.tolist() == [0, 25, 50, 75, 100, 400, 400, 400, 400]
    assert a.offset.tolist() == [0] * 4 + [8192] + [4096] * 4 and a.is_write.tolist() == [False] * 4 + [True] + [False] * 4
    b = amplify_reads(tr, 4, "spread", next_time_ns=800)
    assert b.time_ns.tolist()[-4:] == [400, 500, 600, 700]
    same = amplify_reads(tr, 4)
    assert same.time_ns.tolist() == [0, 0, 0, 0, 100, 400, 400, 400, 400]
    with pytest.raises(TraceError, match="spacing must be one of"):
        amplify_reads(tr, 2, "jitter")
    with pytest.raises(TraceError, match="before the last request"):
        amplify_reads(tr, 2, "spread", next_time_ns=10)


@settings(max_examples=40, deadline=None)
@given(tr=busy_traces(), chunk=st.integers(1, 120), raf=st.integers(1, 5))
def test_spread_stage_equals_in_memory_transform(tr, chunk, raf):
    got = joined_chunks(AmplifyReads(MemorySource(tr), raf, "spread"), chunk)
    want = amplify_reads(tr, raf, "spread")
    assert got == want
    assert np.all(np.diff(want.time_ns) >= 0) and len(want) == tr.n_writes + raf * (len(tr) - tr.n_writes)


def test_pipeline_key_and_rr_counts_do_not_depend_on_spacing():
    spec = parse_trace_spec("u.csv?amplify_spacing=SPREAD&amplify_reads=3")
    assert spec.canonical() == "u.csv?amplify_reads=3&amplify_spacing=spread"
    assert parse_trace_spec("u.csv?amplify_reads=3&amplify_spacing=same").canonical() == "u.csv?amplify_reads=3"
    with pytest.raises(TraceError, match="amplify_spacing"):
        parse_trace_spec("u.csv?amplify_spacing=x")
    from engine_helpers import tiny_config

    cfg = tiny_config(rr=20, pages=8, blocks=32)
    base = "synth:lun0?n_requests=400&seed=3&fold=modulo&amplify_reads=4"
    a = flashrr.simulate(cfg, base)
    b = flashrr.simulate(cfg, base + "&amplify_spacing=spread")
    assert a.summary["rr_count"] == b.summary["rr_count"] > 0
    assert a.summary["flash_read_pages"] == b.summary["flash_read_pages"]
