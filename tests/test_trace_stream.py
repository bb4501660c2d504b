"""Streaming traces: the chunked Parquet parse cache, chunked replay, chunked
statistics and conversion all give exactly what the in-memory path gives.

The real trace ``tests/data/wsrch-small.mqsim.txt`` comes from the MQSim
repository (CMU-SAFARI/MQSim, MIT licence; see tests/data/README.md)."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from engine_helpers import comparable, tiny_config
from hypothesis import given, settings
from hypothesis import strategies as st

from flashrr import simulate
from flashrr.trace import Trace, TraceError
from flashrr.trace import cache as trace_cache
from flashrr.trace import io as trace_io
from flashrr.trace import stats as trace_stats_mod
from flashrr.trace.io import cache_path, open_trace, read_trace, read_trace_report, write_trace
from flashrr.trace.source import MemorySource
from flashrr.trace.stats import trace_stats
from flashrr.trace.transform import amplify_reads, fold, repeat, scale_time

DATA = Path(__file__).parent / "data"
MQSIM_SAMPLE = DATA / "wsrch-small.mqsim.txt"  # from the MQSim repository (see tests/data/README.md)


def random_trace(n, seed, max_page=400, page=4096, tie_every=0, write_ratio=0.3):
    """Requests at 100-ns multiples (exact in msr), some sharing a time, page-aligned."""
    rng = np.random.default_rng(seed)
    gaps = rng.integers(0, 50, n) * 100
    if tie_every:
        gaps[::tie_every] = 0
    return Trace(np.cumsum(gaps), rng.integers(0, max_page, n) * page, rng.integers(1, 4, n) * page,
                 rng.random(n) < write_ratio, name="t")


def same_result(a, b):
    assert comparable(a.summary) == comparable(b.summary)
    for k in a.hist:
        np.testing.assert_array_equal(a.hist[k], b.hist[k])
    assert a.rr_events.equals(b.rr_events) and a.gc_events.equals(b.gc_events)


@pytest.fixture
def small_groups(monkeypatch):
    """Row groups, sort runs and merge reads of a few hundred requests, so small
    files span many of each."""
    monkeypatch.setattr(trace_cache, "ROW_GROUP_ROWS", 256)
    monkeypatch.setattr(trace_cache, "SORT_RUN_ROWS", 300)
    monkeypatch.setattr(trace_cache, "MERGE_BUFFER_ROWS", 64)
    monkeypatch.setattr(trace_cache, "MIN_MERGE_GROUP_ROWS", 16)
    monkeypatch.setattr(trace_io, "FAST_BLOCK_BYTES", 4096)


# ---------------------------------------------------------------------------
# The parse cache
# ---------------------------------------------------------------------------

def test_cache_is_parquet_in_row_groups_with_totals(tmp_path, small_groups):
    tr = random_trace(2000, 1)
    p = tmp_path / "t.msr.csv"
    write_trace(tr, p)
    source, report = open_trace(p)
    assert not report.from_cache and len(source) == 2000
    md = pq.read_metadata(cache_path(p))
    assert md.num_row_groups == -(-2000 // 256)
    info = source.info()
    assert (info.n_requests, info.n_writes) == (2000, int(tr.is_write.sum()))
    assert info.duration_ns == int(tr.time_ns[-1])
    assert info.max_end_byte == int(max(o + s - 1 for o, s in zip(tr.offset, tr.size)))
    assert info.min_offset == int(tr.offset.min())
    chunks = list(source.chunks(300))
    assert [len(c) for c in chunks[:-1]] == [300] * (len(chunks) - 1)
    assert source.to_trace() == tr
    again, report2 = open_trace(p)
    assert report2.from_cache and again.info() == info


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 1500), seed=st.integers(0, 10**6), swaps=st.integers(0, 40),
       tie_every=st.sampled_from([0, 2, 7]))
def test_out_of_order_file_is_sorted_exactly_like_the_in_memory_reader(tmp_path_factory, n, seed, swaps, tie_every):
    """The external sort (runs of 300, merged 16 requests per read) keeps file
    order among equal times, as the in-memory stable sort does."""
    mp = pytest.MonkeyPatch()
    try:
        for k, v in (("ROW_GROUP_ROWS", 256), ("SORT_RUN_ROWS", 300), ("MERGE_BUFFER_ROWS", 64),
                     ("MIN_MERGE_GROUP_ROWS", 16)):
            mp.setattr(trace_cache, k, v)
        mp.setattr(trace_io, "FAST_BLOCK_BYTES", 2048)
        d = tmp_path_factory.mktemp("ooo")
        tr = random_trace(n, seed, tie_every=tie_every)
        rng = np.random.default_rng(seed)
        lines = (d / "src.msr.csv")
        write_trace(tr, lines)
        rows = lines.read_text().splitlines()
        for _ in range(swaps):  # move random lines elsewhere: times go out of order
            i, j = rng.integers(0, len(rows), 2)
            rows.insert(int(j), rows.pop(int(i)))
        lines.write_text("\n".join(rows) + "\n")
        reference, r_ref = read_trace_report(lines, cache=False)
        streamed, r_str = open_trace(lines)
        assert streamed.to_trace() == reference
        assert r_str.n_out_of_order == r_ref.n_out_of_order
        assert streamed.info().duration_ns == reference.duration_ns
    finally:
        mp.undo()


def test_merge_handles_a_time_shared_across_many_runs(tmp_path, small_groups):
    """Hundreds of requests at one time, spread over several runs, out of order."""
    n = 1200
    t = np.where(np.arange(n) % 3 == 0, 5000, 100 * (n - np.arange(n)))  # decreasing, a third tied at 5000 (x100 ns)
    off = np.arange(n) * 4096
    p = tmp_path / "t.mqsim"
    p.write_text("".join(f"{int(ti)} 0 {o // 512} 8 {i % 2}\n" for i, (ti, o) in enumerate(zip(t, off))))
    reference = read_trace(p, cache=False)
    assert open_trace(p)[0].to_trace() == reference


def test_cache_false_leaves_no_file_and_gives_the_same_trace(tmp_path, small_groups):
    p = tmp_path / "t.msr.csv"
    tr = random_trace(700, 3)
    write_trace(tr, p)
    source, report = open_trace(p, cache=False)
    assert not cache_path(p).exists()
    assert source.to_trace() == tr
    private = source.path
    assert private.exists()
    del source
    import gc

    gc.collect()
    assert not private.exists()


# ---------------------------------------------------------------------------
# Bad input deep in a large file
# ---------------------------------------------------------------------------

@pytest.fixture
def big_file_with_bad_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(trace_io, "FAST_BLOCK_BYTES", 64 << 10)
    monkeypatch.setattr(trace_io, "BLOCK_BYTES", 8 << 10)
    n = 60_000
    lines = [f"{1000 * i} 0 {8 * (i % 5000)} 8 {i % 3}" for i in range(n)]
    bad = {41_234: "41234000 0 8 zero 1", 58_001: "58001000 0 8", 58_002: "x"}  # 0-based line index
    for i, text in bad.items():
        lines[i] = text
    p = tmp_path / "big.mqsim"
    p.write_text("\n".join(lines) + "\n")
    return p, n, bad


def test_bad_line_deep_in_a_large_file_names_file_and_line(big_file_with_bad_lines):
    p, _, _ = big_file_with_bad_lines
    with pytest.raises(TraceError, match=rf"{p} line 41235: field 'size_sectors'"):
        open_trace(p)
    assert not cache_path(p).exists()  # no partial cache left behind


def test_skip_bad_counts_every_skipped_line_when_streaming(big_file_with_bad_lines):
    p, n, bad = big_file_with_bad_lines
    source, report = open_trace(p, skip_bad=True)
    assert report.n_skipped == len(bad)
    assert len(source) == n - len(bad)
    assert [m.split(":")[0] for m in report.skipped_examples] == [f"{p} line {i + 1}" for i in sorted(bad)]
    assert open_trace(p, skip_bad=True)[1].n_skipped == len(bad)  # kept in the cache's metadata
    assert source.to_trace() == read_trace(p, skip_bad=True, cache=False)


# ---------------------------------------------------------------------------
# Replay: streamed and in-memory give identical results
# ---------------------------------------------------------------------------

CFG = tiny_config(blocks=48, pages=16, rr=8, gc_ratio=0.1, op=0.3)


@settings(max_examples=12, deadline=None)
@given(n=st.integers(300, 1500), seed=st.integers(0, 10**6), chunk=st.integers(150, 400), rep=st.integers(1, 3),
       raf=st.integers(1, 3), factor=st.sampled_from([1, 0.5, 2, 0.37]))
def test_streamed_replay_equals_in_memory_replay(tmp_path_factory, n, seed, chunk, rep, raf, factor):
    """A file replayed in chunks of a few hundred requests through a pipeline of
    every transform, with engine repeats, equals the in-memory transforms
    replayed in one engine call."""
    d = tmp_path_factory.mktemp("rep")
    tr = random_trace(n, seed, max_page=5000)
    p = d / "t.msr.csv"
    write_trace(tr, p)
    spec = f"{p}?fold=modulo&amplify_reads={raf}&scale_time={factor}&repeat=2"
    streamed = simulate(CFG, spec, repeat=rep, chunk_requests=chunk)
    mem = scale_time(amplify_reads(fold(tr, CFG.logical_bytes, CFG.geometry.page_size_bytes), raf), factor)
    mem = repeat(mem, 2)
    in_memory = simulate(CFG, mem, repeat=rep, chunk_requests=len(mem) * rep)
    assert streamed.summary["requests"] == len(mem) * rep
    same_result(streamed, in_memory)


def test_streamed_replay_equals_in_memory_on_the_reference_engine(tmp_path):
    tr = random_trace(90, 4, max_page=300)
    p = tmp_path / "t.msr.csv"
    write_trace(tr, p)
    a = simulate(CFG, f"{p}?amplify_reads=2&first=80", engine="reference", repeat=2, chunk_requests=7)
    b = simulate(CFG, amplify_reads(tr.slice(0, 80), 2), engine="reference", repeat=2, chunk_requests=10**6)
    same_result(a, b)
    c = simulate(CFG, amplify_reads(tr.slice(0, 80), 2), engine="compiled", repeat=2, chunk_requests=13)
    assert comparable(a.summary) == comparable(c.summary)


def test_real_trace_streams_to_the_same_result(tmp_path):
    p = tmp_path / MQSIM_SAMPLE.name
    shutil.copy(MQSIM_SAMPLE, p)
    cfg = tiny_config(blocks=256, pages=64, rr=50)
    whole = read_trace(p, cache=False)
    a = simulate(cfg, f"{p}?fold=modulo", chunk_requests=1000, repeat=2)
    b = simulate(cfg, fold(whole, cfg.logical_bytes, cfg.geometry.page_size_bytes), chunk_requests=len(whole) * 2,
                 repeat=2)
    same_result(a, b)


def test_chunk_size_is_checked():
    with pytest.raises(TraceError, match="chunk_requests"):
        simulate(CFG, random_trace(10, 1), chunk_requests=0)


def test_chunk_size_env_default(monkeypatch):
    from flashrr.trace.source import default_chunk_requests

    monkeypatch.setenv("FLASHRR_CHUNK_REQUESTS", "123")
    assert default_chunk_requests() == 123
    assert [len(c) for c in MemorySource(random_trace(300, 1)).chunks()] == [123, 123, 54]
    monkeypatch.setenv("FLASHRR_CHUNK_REQUESTS", "lots")
    with pytest.raises(TraceError, match="FLASHRR_CHUNK_REQUESTS"):
        default_chunk_requests()


# ---------------------------------------------------------------------------
# Statistics and conversion in chunks
# ---------------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 600), seed=st.integers(0, 10**6), chunk=st.integers(1, 200), sparse=st.booleans(),
       page=st.sampled_from([512, 4096, 8192]))
def test_chunked_stats_equal_whole_trace_stats(n, seed, chunk, sparse, page):
    rng = np.random.default_rng(seed)
    spread = 1 << 45 if sparse else 1 << 22
    tr = Trace(np.cumsum(rng.integers(0, 1000, n)), rng.integers(0, spread, n), rng.integers(1, 40_000, n),
               rng.random(n) < 0.4)
    mp = pytest.MonkeyPatch()
    try:
        if sparse:  # force the sorted-array tally and frequent merges
            mp.setattr(trace_stats_mod, "_DENSE_TALLY_PAGES", 8)
            mp.setattr(trace_stats_mod, "_MERGE_PAGES", 16)
        chunked = trace_stats(MemorySource(tr), page_size_bytes=page, chunk_requests=chunk)
    finally:
        mp.undo()
    whole = trace_stats(tr, page_size_bytes=page)
    assert chunked == whole
    # independent footprint: the set of touched pages
    pages = {p for o, s in zip(tr.offset.tolist(), tr.size.tolist()) for p in range(o // page, (o + s - 1) // page + 1)}
    assert whole["footprint_bytes"] == len(pages) * page


def test_streamed_conversion_writes_the_same_bytes(tmp_path, small_groups):
    tr = random_trace(1000, 5)
    src = tmp_path / "t.msr.csv"
    write_trace(tr, src)
    (tmp_path / "whole").mkdir()
    (tmp_path / "chunked").mkdir()
    for fmt in ("systor", "mqsim.gz"):
        whole, chunked = tmp_path / "whole" / f"out.{fmt}", tmp_path / "chunked" / f"out.{fmt}"
        write_trace(tr, whole, fmt.split(".")[0])
        n = write_trace(open_trace(src)[0], chunked, fmt.split(".")[0], chunk_requests=97)
        assert n == 1000
        assert chunked.read_bytes() == whole.read_bytes()


def test_progress_bar_shows_the_replay_of_every_request(monkeypatch, capsys):
    import sys

    monkeypatch.setattr(sys.modules["flashrr.simulate"], "PROGRESS_DELAY_S", 0)
    simulate(CFG, random_trace(500, 2), repeat=2, chunk_requests=128, progress=True)
    err = capsys.readouterr().err
    assert "replay t" in err and "/1.00k" in err  # total: 500 requests x 2 repeats
    simulate(CFG, random_trace(500, 2), chunk_requests=128)
    assert capsys.readouterr().err == ""


def test_stats_of_a_cached_file_are_remembered_per_page_size(tmp_path):
    p = tmp_path / "t.msr.csv"
    tr = random_trace(800, 6)
    write_trace(tr, p)
    source = open_trace(p)[0]
    first = trace_stats(source, page_size_bytes=4096)
    assert first == trace_stats(tr, page_size_bytes=4096)
    memo = source.stats_path
    assert memo.exists()
    # a remembered value is what a later read returns (proof that it is used, not recomputed)
    import json

    doc = json.loads(memo.read_text())
    doc["stats"]["4096"]["requests"] = -1
    memo.write_text(json.dumps(doc))
    assert trace_stats(open_trace(p)[0], page_size_bytes=4096)["requests"] == -1
    assert trace_stats(open_trace(p)[0], page_size_bytes=8192) == trace_stats(tr, page_size_bytes=8192)
    # a changed source makes a new cache, and the memo no longer applies
    write_trace(random_trace(300, 7), p)
    assert trace_stats(open_trace(p)[0], page_size_bytes=4096)["requests"] == 300
