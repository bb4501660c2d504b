"""trace_stats: hand-computed cases for every statistic, and a brute-force cross-check."""
from __future__ import annotations

import collections

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashrr.trace import Trace
from flashrr.trace.stats import STAT_KEYS, trace_stats

P = 8192  # default page size of trace_stats


def make(reqs, times=None):
    """Trace from (offset, size, is_write) tuples; arrivals 0, 1, 2, ... ns unless given."""
    off, size, w = (list(c) for c in zip(*reqs)) if reqs else ([], [], [])
    t = list(range(len(reqs))) if times is None else times
    return Trace(t, off, size, w)


def test_empty_trace_gives_zeros():
    s = trace_stats(make([]))
    assert set(s) == set(STAT_KEYS)
    assert s["requests"] == 0
    assert s["footprint_bytes"] == 0
    for k in STAT_KEYS:
        assert s[k] == 0


def test_single_small_read():
    s = trace_stats(make([(0, 4096, False)]))
    assert s["requests"] == 1
    assert s["read_ratio"] == 1.0
    assert s["avg_read_size_bytes"] == 4096
    assert s["avg_write_size_bytes"] == 0
    assert s["hot_ratio"] == 0.0
    assert s["hot_ratio_4"] == 0.0
    assert s["footprint_bytes"] == P  # a 4 KiB read still touches one whole 8 KiB page


def test_read_ratio_and_mean_sizes():
    # 3 reads of 4, 8, 12 KiB and 1 write of 16 KiB, at distinct places.
    s = trace_stats(make([(0, 4096, False), (P, 8192, False), (4 * P, 12288, False), (10 * P, 16384, True)]))
    assert s["read_ratio"] == 0.75
    assert s["avg_read_size_bytes"] == 8192
    assert s["avg_write_size_bytes"] == 16384
    assert s["avg_request_size_bytes"] == (4 + 8 + 12 + 16) * 1024 / 4


def test_unaligned_request_touches_both_pages():
    # 8 KiB starting at 4 KiB straddles pages 0 and 1.
    s = trace_stats(make([(4096, 8192, False)]))
    assert s["footprint_bytes"] == 2 * P


def test_last_byte_rule():
    # [0, 8192) is exactly page 0; one more byte reaches page 1.
    assert trace_stats(make([(0, P, False)]))["footprint_bytes"] == P
    assert trace_stats(make([(0, P + 1, False)]))["footprint_bytes"] == 2 * P
    assert trace_stats(make([(P - 1, 2, False)]))["footprint_bytes"] == 2 * P


def test_hot_ratio_counts_twice_read_pages_and_hot_ratio_4_four_times_read_pages():
    a, b, c = 0, 5 * P, 9 * P
    reqs = [(a, 4096, False)] * 2 + [(b, 4096, False)] * 4 + [(c, 4096, False)]
    s = trace_stats(make(reqs))
    # Page a: 2 reads, page b: 4 reads, page c: 1 read.
    assert s["hot_ratio"] == pytest.approx(2 / 3)
    assert s["hot_ratio_4"] == pytest.approx(1 / 3)


def test_three_reads_are_hot_but_not_hot_4():
    s = trace_stats(make([(0, 4096, False)] * 3))
    assert s["hot_ratio"] == 1.0
    assert s["hot_ratio_4"] == 0.0


def test_multi_page_requests_count_per_page():
    # Read [0, 16K) twice -> pages 0, 1 twice; read [8K, 24K) once -> pages 1, 2 once more.
    # Page counts: p0 = 2, p1 = 3, p2 = 1.
    reqs = [(0, 2 * P, False), (0, 2 * P, False), (P, 2 * P, False)]
    s = trace_stats(make(reqs))
    assert s["hot_ratio"] == pytest.approx(2 / 3)
    assert s["hot_ratio_4"] == 0.0
    assert s["footprint_bytes"] == 3 * P
    # One more read of [8K, 16K) brings page 1 to 4 reads.
    s = trace_stats(make(reqs + [(P, P, False)]))
    assert s["hot_ratio_4"] == pytest.approx(1 / 3)


def test_writes_count_for_footprint_not_for_hotness():
    # Page 0 read once and written three times: still read only once.
    reqs = [(0, 4096, False)] + [(0, 4096, True)] * 3 + [(20 * P, 3 * P, True)]
    s = trace_stats(make(reqs))
    assert s["hot_ratio"] == 0.0
    assert s["footprint_bytes"] == (1 + 3) * P  # page 0 plus the three written pages 20..22


def test_trace_without_reads():
    s = trace_stats(make([(0, 4096, True), (P, 4096, True)]))
    assert s["read_ratio"] == 0.0
    assert s["avg_read_size_bytes"] == 0.0
    assert s["hot_ratio"] == 0.0 and s["hot_ratio_4"] == 0.0
    assert s["footprint_bytes"] == 2 * P


def test_page_size_parameter():
    # Two 4 KiB reads in the same 8 KiB page: one hot 8 KiB page, but two cold 4 KiB pages.
    reqs = [(0, 4096, False), (4096, 4096, False)]
    s8 = trace_stats(make(reqs))
    s4 = trace_stats(make(reqs), page_size_bytes=4096)
    assert (s8["hot_ratio"], s8["footprint_bytes"]) == (1.0, 8192)
    assert (s4["hot_ratio"], s4["footprint_bytes"]) == (0.0, 8192)


def test_duration_in_seconds():
    s = trace_stats(make([(0, 4096, False), (0, 4096, False)], times=[0, 1_500_000_000]))
    assert s["duration_s"] == 1.5


def test_sparse_huge_offsets_match_dense_result():
    # The same access pattern, once near 0 and once spread over a petabyte of address space.
    base = [(0, 4096, False), (0, 4096, False), (3 * P, 2 * P, False), (7 * P, 4096, True)]
    far = [(o * (1 << 20) + (1 << 50) if o else o, sz, w) for o, sz, w in base]
    dense, sparse = trace_stats(make(base)), trace_stats(make(far))
    for k in ("hot_ratio", "hot_ratio_4", "footprint_bytes"):
        assert dense[k] == sparse[k]
    assert dense["footprint_bytes"] == 4 * P


@pytest.mark.parametrize("bad", [0, -8192, 4096.0, True, "8192"])
def test_bad_page_size_is_rejected(bad):
    with pytest.raises(ValueError, match="page_size_bytes"):
        trace_stats(make([(0, 4096, False)]), page_size_bytes=bad)


def _brute_force(reqs, page):
    reads = collections.Counter()
    touched = set()
    for off, size, w in reqs:
        for pg in range(off // page, (off + size - 1) // page + 1):
            touched.add(pg)
            if not w:
                reads[pg] += 1
    n_read_pages = len(reads)
    return {
        "hot_ratio": sum(c >= 2 for c in reads.values()) / n_read_pages if n_read_pages else 0.0,
        "hot_ratio_4": sum(c >= 4 for c in reads.values()) / n_read_pages if n_read_pages else 0.0,
        "footprint_bytes": len(touched) * page,
    }


requests = st.lists(
    st.tuples(st.integers(0, 200) | st.integers(0, 1 << 40), st.integers(1, 40_000), st.booleans()),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(reqs=requests, page=st.sampled_from([512, 4096, 8192, 16384]))
def test_matches_brute_force_page_walk(reqs, page):
    got = trace_stats(make(reqs), page_size_bytes=page)
    want = _brute_force(reqs, page)
    assert got["footprint_bytes"] == want["footprint_bytes"]
    assert got["hot_ratio"] == pytest.approx(want["hot_ratio"])
    assert got["hot_ratio_4"] == pytest.approx(want["hot_ratio_4"])
    n = len(reqs)
    assert got["requests"] == n
    assert got["read_ratio"] == pytest.approx(sum(not w for *_, w in reqs) / n if n else 0.0)


def test_tied_ratio_counts_requests_that_share_the_time_before_them_across_chunks():
    from flashrr.trace.source import MemorySource

    tr = make([(i * 4096, 4096, False) for i in range(6)], times=[0, 0, 0, 5, 5, 9])
    # request 1 and 2 share request 0's time, 4 shares 3's: 3 of 6
    assert trace_stats(tr)["tied_ratio"] == 0.5
    for chunk in (1, 2, 4):  # a tie across a chunk boundary still counts
        assert trace_stats(MemorySource(tr), chunk_requests=chunk)["tied_ratio"] == 0.5


def test_stats_note_names_a_trace_of_coarse_times(tmp_path):
    from click.testing import CliRunner

    from flashrr.cli import main

    path = tmp_path / "t.tencent.csv"
    path.write_text("1538323200,0,8,0,1\n1538323200,8,8,1,1\n1538323200,16,8,0,1\n1538323201,24,8,0,1\n")
    res = CliRunner().invoke(main, ["trace", "stats", "--no-cache", str(path)])
    assert res.exit_code == 0, res.output
    assert "50% of the requests arrive at the same time" in res.output and "time_resolution_s" in res.output
    res = CliRunner().invoke(main, ["trace", "stats", "--no-cache", f"{path}?time_resolution_s=1"])
    assert "time_resolution_s=R" not in res.output
