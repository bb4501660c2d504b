"""trace_profile, its figures and `flashrr trace profile`: hand-made traces whose
locality is known by construction, a brute-force model of the per-access
quantities (written here with Python loops and dicts), consistency with
trace_stats, and one-line errors."""
from __future__ import annotations

import collections
import json
import shutil
import statistics
from fractions import Fraction
from math import ceil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from flashrr.cli.trace_cmds import trace as trace_group
from flashrr.trace import MemorySource, Trace
from flashrr.trace.io import read_trace
from flashrr.trace.profile import DEFAULT_IDLE_THRESHOLD_NS, SampleSummary, trace_profile
from flashrr.trace.profile_plots import FIGURES, plot_profile
from flashrr.trace.stats import trace_stats
from flashrr.trace.synth import synth_trace

P = 8192  # default page size
K = 4096
DATA = Path(__file__).parent / "data"
MQSIM_SAMPLE = DATA / "wsrch-small.mqsim.txt"


def make(reqs, times=None, name="hand"):
    """Trace from (offset, size, is_write) tuples; arrivals 0, 1, 2, ... ns unless given."""
    off, size, w = (list(c) for c in zip(*reqs)) if reqs else ([], [], [])
    return Trace(list(range(len(reqs))) if times is None else times, off, size, w, name=name)


# ---------------------------------------------------------------------------
# Read counts per page, block and region
# ---------------------------------------------------------------------------


def test_reads_confined_to_one_region_give_top_share_one():
    # 100 one-page reads over the ten pages 256..265: all in 2 MiB region 1 and in block 0
    prof = trace_profile(make([((256 + i % 10) * P, K, False) for i in range(100)]))
    for unit in (prof.read_counts.block, prof.read_counts.region):
        assert (unit.touched, unit.total, unit.max, unit.mean) == (1, 100, 100, 100.0)
        assert unit.top_1pct_share == unit.top_10pct_share == unit.top_1_share == 1.0
        assert unit.gini == 0.0
    page = prof.read_counts.page
    assert (page.touched, page.total, page.max, page.mean, page.gini) == (10, 100, 10, 10.0, 0.0)
    # 1% and 10% of 10 pages both round up to one page, which holds 10 of the 100 reads
    assert page.top_1pct_share == page.top_10pct_share == page.top_1_share == 0.1
    assert prof.page_reads == 100 and prof.write_counts.page.touched == 0


def test_skewed_counts_per_page_block_and_region():
    # page p (0..9) read p + 1 times: 55 page reads
    reqs = [(p * P, P, False) for p in range(10) for _ in range(p + 1)]
    prof = trace_profile(make(reqs), block_pages=4, region_bytes=8 * P)
    page, block, region = prof.read_counts.page, prof.read_counts.block, prof.read_counts.region
    assert page.gini == pytest.approx(0.3)             # sum (2i - 11) i / (10 * 55) = 165 / 550
    assert page.top_10pct_share == pytest.approx(10 / 55)
    # blocks of 4 pages: 1+2+3+4 = 10, 5+6+7+8 = 26, 9+10 = 19
    assert (block.touched, block.max) == (3, 26)
    assert block.top_1_share == pytest.approx(26 / 55)
    assert block.gini == pytest.approx(32 / 165)       # sorted 10, 19, 26: (-2*10 + 0*19 + 2*26) / (3 * 55)
    assert list(prof.samples.block_read_counts) == [10, 26, 19]
    # regions of 8 pages: 36 and 19
    assert list(prof.samples.region_read_counts) == [36, 19]
    assert region.unit_pages == 8 and region.top_1pct_share == pytest.approx(36 / 55)


def test_a_read_counts_once_for_every_page_it_touches():
    # 24 KiB from byte 4096 touches pages 0..3
    prof = trace_profile(make([(K, 3 * P, False)]))
    assert prof.page_reads == 4
    assert list(prof.samples.page_read_counts) == [1, 1, 1, 1]


# ---------------------------------------------------------------------------
# Reuse
# ---------------------------------------------------------------------------


def test_cyclic_scan_reuse():
    n_pages, rounds, gap = 50, 4, 1000
    reqs = [((i % n_pages) * P, P, False) for i in range(n_pages * rounds)]
    prof = trace_profile(make(reqs, [i * gap for i in range(len(reqs))]),
                         cache_pages=(n_pages - 1, n_pages, 1024))
    r = prof.reuse
    assert r.rereads == (rounds - 1) * n_pages
    assert r.reread_share == pytest.approx((rounds - 1) / rounds)
    d = r.stack_distance_pages
    assert d.count == (rounds - 1) * n_pages
    assert d.p10 == d.p50 == d.p90 == d.p99 == d.max == n_pages - 1
    t = r.reuse_time_ns
    assert t.p10 == t.p99 == t.max == n_pages * gap
    # a cache smaller than the loop never hits; one that holds it hits every re-read
    assert r.lru_hit_ratio == ((n_pages - 1, 0.0), (n_pages, 0.75), (1024, 0.75))
    assert r.read_after_write_ns.count == 0
    page = prof.read_counts.page
    assert page.gini == 0.0 and page.top_1_share == pytest.approx(4 / 200)
    assert page.top_10pct_share == pytest.approx(20 / 200)   # 5 pages of 50


def test_read_after_write_gaps_and_reuse_times_by_hand():
    reqs_t = [
        (0, (0, P, True)),            # write page 0
        (5, (0, K, False)),           # first read after it: gap 5
        (9, (0, K, False)),           # a re-read, not after a write (reuse time 4)
        (12, (0, P, True)),
        (13, (0, P, True)),           # the latest write before the next read
        (20, (0, P, False)),          # gap 7 from the write at 13; reuse time 11
        (21, (P, P, False)),          # page 1 was never written
        (30, (2 * P, 2 * P, True)),   # writes pages 2 and 3
        (34, (3 * P, 100, False)),    # reads page 3: gap 4
    ]
    prof = trace_profile(make([r for _, r in reqs_t], [t for t, _ in reqs_t]))
    assert sorted(prof.samples.read_after_write_ns.tolist()) == [4, 5, 7]
    raw = prof.reuse.read_after_write_ns
    assert (raw.count, raw.p50, raw.max) == (3, 5, 7)
    assert prof.samples.reuse_time_ns.tolist() == [4, 11]
    # page reads in order: 0, 0, 0, 1, 3
    assert prof.samples.stack_distances.tolist() == [-1, 0, 0, -1, -1]
    assert prof.reuse.rereads == 2 and prof.reuse.reread_share == pytest.approx(2 / 5)
    assert prof.page_writes == 5
    assert (prof.write_counts.page.touched, prof.write_counts.page.max) == (3, 3)


def brute_accesses(reqs, times):
    """Per-access quantities by Python loops: read and write counts per page,
    stack distances and reuse times of the page reads, read-after-write gaps."""
    reads, reuse, raw = [], [], []
    counts = {False: collections.Counter(), True: collections.Counter()}
    last_read, last_access = {}, {}
    for (o, s, w), t in zip(reqs, times):
        for pg in range(o // P, (o + s - 1) // P + 1):
            counts[w][pg] += 1
            if not w:
                reads.append(pg)
                if pg in last_read:
                    reuse.append(t - last_read[pg])
                last_read[pg] = t
                if pg in last_access and last_access[pg][1]:
                    raw.append(t - last_access[pg][0])
            last_access[pg] = (t, w)
    distances = []
    for i, pg in enumerate(reads):
        j = i - 1
        while j >= 0 and reads[j] != pg:
            j -= 1
        distances.append(-1 if j < 0 else len(set(reads[j + 1:i])))
    return counts, distances, reuse, raw


request_lists = st.lists(st.tuples(st.integers(0, 40 * 2), st.integers(1, 3 * 2), st.booleans(),
                                   st.integers(0, 3)), max_size=40)


@given(request_lists)
def test_per_access_quantities_equal_a_brute_force_model(draws):
    # offsets and sizes in 4 KiB units, so requests straddle pages; gaps of 0..3 ns
    reqs = [(o * K, s * K, w) for o, s, w, _ in draws]
    times = list(np.cumsum([g for *_, g in draws])) if draws else []
    prof = trace_profile(make(reqs, times), block_pages=4, region_bytes=2 * P)
    counts, distances, reuse, raw = brute_accesses(reqs, times)
    s = prof.samples
    assert s.page_read_counts.tolist() == [counts[False][p] for p in sorted(counts[False])]
    assert s.page_write_counts.tolist() == [counts[True][p] for p in sorted(counts[True])]
    blocks = collections.Counter()
    for p, c in counts[False].items():
        blocks[p // 4] += c
    assert s.block_read_counts.tolist() == [blocks[b] for b in sorted(blocks)]
    assert s.stack_distances.tolist() == distances
    assert s.reuse_time_ns.tolist() == reuse
    assert sorted(s.read_after_write_ns.tolist()) == sorted(raw)
    assert prof.page_reads == sum(counts[False].values())
    assert prof.reuse.rereads == len(reuse)


# ---------------------------------------------------------------------------
# Arrivals, sequential runs, sizes
# ---------------------------------------------------------------------------


def test_fixed_gaps_with_injected_idle_periods():
    gaps = [100_000] * 29
    gaps[9], gaps[19] = 5_000_000, 7_000_000        # idle periods after requests 9 and 19
    gaps[24] = DEFAULT_IDLE_THRESHOLD_NS            # exactly the threshold: not idle
    times = [0]
    for g in gaps:
        times.append(times[-1] + g)
    prof = trace_profile(make([(i * P, K, False) for i in range(30)], times))
    a = prof.arrivals
    duration = 26 * 100_000 + 5_000_000 + 7_000_000 + 1_000_000
    assert prof.duration_ns == duration
    assert a.idle_periods == 2
    assert (a.idle_period_ns.p50, a.idle_period_ns.p90, a.idle_period_ns.max) == (5_000_000, 7_000_000, 7_000_000)
    assert a.idle_time_share == pytest.approx(12_000_000 / duration)
    assert a.burst_requests.count == 3 and a.burst_requests.p10 == a.burst_requests.max == 10
    assert a.interarrival_ns.mean == pytest.approx(duration / 29)
    assert a.interarrival_cv == pytest.approx(statistics.pstdev(gaps) / statistics.mean(gaps))
    # a lower threshold makes the 1 ms gap idle too
    low = trace_profile(make([(i * P, K, False) for i in range(30)], times), idle_threshold_ns=999_999)
    assert low.arrivals.idle_periods == 3 and low.arrivals.burst_requests.count == 4


def test_sequential_streams():
    reqs = [
        (0, K, False), (10 << 20, 2 * K, True), (K, K, False),   # the write between does not break the read run
        (2 * K, K, False), ((10 << 20) + 2 * K, K, True),        # reads 0, K, 2K: a run of 3; writes: a run of 2
        (1 << 20, K, False), ((1 << 20) + K, 2 * K, False),     # a new read run of 2
        (20 << 20, K, True),                                     # a lone write
    ]
    prof = trace_profile(make(reqs))
    rd, wr = prof.sequential.read, prof.sequential.write
    assert (rd.requests, rd.runs, wr.requests, wr.runs) == (5, 2, 3, 2)
    assert rd.continue_share == pytest.approx(3 / 5) and wr.continue_share == pytest.approx(1 / 3)
    assert prof.continue_share == pytest.approx(4 / 8)
    assert (rd.run_requests.mean, rd.run_requests.max) == (2.5, 3)
    assert prof.samples.read_run_requests.tolist() == [3, 2]


def test_size_distribution_and_most_common_sizes():
    sizes = [K] * 5 + [2 * K] * 3 + [16 * K] * 2
    prof = trace_profile(make([(i * (1 << 20), s, False) for i, s in enumerate(sizes)]))
    s = prof.sizes.read.size_bytes
    # sorted: 5 x 4 KiB, 3 x 8 KiB, 2 x 64 KiB; p50 is the 5th value, p90 the 9th, p99 the 10th
    assert (s.count, s.p10, s.p50, s.p90, s.p99, s.max) == (10, K, K, 16 * K, 16 * K, 16 * K)
    assert s.mean == (5 * K + 3 * 2 * K + 2 * 16 * K) / 10
    assert prof.sizes.read.common_sizes == ((K, 0.5), (2 * K, 0.3), (16 * K, 0.2))
    assert prof.sizes.write.common_sizes == () and prof.sizes.write.size_bytes.count == 0


def test_most_common_sizes_break_ties_by_size_and_stop_at_eight():
    sizes = [(9 - i) * K for i in range(9) for _ in range(2)] + [20 * K]   # nine sizes twice each, one once
    prof = trace_profile(make([(i * (1 << 20), s, True) for i, s in enumerate(sizes)]))
    common = prof.sizes.write.common_sizes
    assert [c for c, _ in common] == [k * K for k in range(1, 9)]
    assert all(f == pytest.approx(2 / 19) for _, f in common)


@given(st.lists(st.integers(0, 20), max_size=50))
def test_sample_summary_equals_the_sorted_list_definition(sample):
    s = SampleSummary.of(np.array(sample, dtype=np.int64))
    assert s.count == len(sample)
    if not sample:
        assert s.mean is None and s.p50 is None and s.max is None
        return
    srt = sorted(sample)
    for key, q in (("p10", "0.1"), ("p50", "0.5"), ("p90", "0.9"), ("p99", "0.99")):
        assert getattr(s, key) == srt[max(1, ceil(Fraction(q) * len(srt))) - 1]
    assert s.max == srt[-1] and s.mean == pytest.approx(sum(srt) / len(srt))
    values, counts = np.unique(sample, return_counts=True)
    assert SampleSummary.of_counts(values, counts) == s


# ---------------------------------------------------------------------------
# Whole profiles: sources, trace_stats, the dict, the text, the figures
# ---------------------------------------------------------------------------


def test_a_source_in_chunks_gives_the_same_profile():
    tr = synth_trace("lun0", n_requests=3000, seed=2)
    assert trace_profile(MemorySource(tr)).to_dict() == trace_profile(tr).to_dict()


def test_consistent_with_trace_stats_on_a_real_trace():
    tr = read_trace(MQSIM_SAMPLE, cache=False)
    prof = trace_profile(tr)
    st_ = trace_stats(tr)
    s = prof.samples
    assert prof.requests == st_["requests"]
    assert prof.reads == round(st_["read_ratio"] * st_["requests"])
    assert prof.sizes.read.size_bytes.mean == pytest.approx(st_["avg_read_size_bytes"])
    assert prof.sizes.write.size_bytes.mean == pytest.approx(st_["avg_write_size_bytes"])
    assert prof.duration_ns / 1e9 == pytest.approx(st_["duration_s"])
    assert np.mean(s.page_read_counts >= 2) == pytest.approx(st_["hot_ratio"])
    assert np.mean(s.page_read_counts >= 4) == pytest.approx(st_["hot_ratio_4"])
    # re-read share: page reads beyond the first of each page
    assert prof.reuse.rereads == prof.page_reads - prof.read_counts.page.touched


DICT_KEYS = {
    "trace", "page_size_bytes", "block_pages", "region_bytes", "region_pages", "idle_threshold_ns", "cache_pages",
    "requests", "reads", "writes", "page_reads", "page_writes", "duration_ns", "read_counts", "write_counts",
    "reuse", "arrivals", "sequential", "sizes"}
COUNT_KEYS = {"unit_pages", "touched", "total", "max", "mean", "gini", "top_1pct_share", "top_10pct_share",
              "top_1_share"}
SUMMARY_KEYS = {"count", "mean", "p10", "p50", "p90", "p99", "max"}


def check_dict_keys(d: dict) -> None:
    """The keys docs/traces.md lists for TraceProfile.to_dict()."""
    assert DICT_KEYS <= set(d)
    for section in ("read_counts", "write_counts"):
        assert set(d[section]) == {"page", "block", "region"}
        for unit in d[section].values():
            assert set(unit) == COUNT_KEYS
    r = d["reuse"]
    assert set(r) == {"rereads", "reread_share", "stack_distance_pages", "reuse_time_ns", "read_after_write_ns",
                      "lru_hit_ratio"}
    for k in ("stack_distance_pages", "reuse_time_ns", "read_after_write_ns"):
        assert set(r[k]) == SUMMARY_KEYS
    assert [set(x) for x in r["lru_hit_ratio"]] == [{"cache_pages", "hit_ratio"}] * len(d["cache_pages"])
    a = d["arrivals"]
    assert set(a) == {"interarrival_ns", "interarrival_cv", "idle_threshold_ns", "idle_periods", "idle_period_ns",
                      "idle_time_share", "burst_requests"}
    assert set(d["sequential"]) == {"continue_share", "read", "write"}
    for op in ("read", "write"):
        assert set(d["sequential"][op]) == {"requests", "runs", "continue_share", "run_requests"}
        assert set(d["sizes"][op]) == {"size_bytes", "common_sizes"}
        assert set(d["sizes"][op]["size_bytes"]) == SUMMARY_KEYS


def test_to_dict_has_the_documented_keys_and_is_json():
    prof = trace_profile(synth_trace("lun0", n_requests=2000, seed=1), cache_pages=(16, 256))
    d = prof.to_dict()
    check_dict_keys(d)
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    assert d["cache_pages"] == [16, 256]
    assert d["reuse"]["lru_hit_ratio"][0]["cache_pages"] == 16


def test_empty_trace():
    prof = trace_profile(make([]))
    d = prof.to_dict()
    check_dict_keys(d)
    json.dumps(d, allow_nan=False)
    assert prof.requests == prof.page_reads == 0
    assert prof.reuse.stack_distance_pages.p50 is None and prof.arrivals.interarrival_cv is None
    assert "0 requests" in prof.summary()


def test_summary_text_names_every_section():
    prof = trace_profile(synth_trace("lun0", n_requests=2000, seed=1))
    text = prof.summary()
    for fragment in ("read counts", "write counts", "stack distance (pages)", "reuse time", "read after write",
                     "read-only LRU page cache hit ratio: 1,024 pages", "inter-arrival gap", "idle period",
                     "burst (requests)", "read runs", "most common read sizes"):
        assert fragment in text


@pytest.mark.parametrize("kwargs,match", [
    ({"page_size_bytes": 0}, "page_size_bytes: expected a positive integer"),
    ({"block_pages": 1.5}, "block_pages: expected a positive integer"),
    ({"region_bytes": 3 * K}, r"region_bytes: expected a multiple of page_size_bytes \(8192\)"),
    ({"idle_threshold_ns": -1}, "idle_threshold_ns: expected an integer >= 0"),
    ({"cache_pages": (1024, 0)}, "cache_pages: expected a positive integer"),
    ({"cache_pages": 5}, "cache_pages: expected a sequence of positive integers"),
])
def test_bad_parameters_name_the_parameter(kwargs, match):
    with pytest.raises(ValueError, match=match):
        trace_profile(make([(0, K, False)]), **kwargs)


def test_plot_profile_writes_every_figure(tmp_path):
    tr = synth_trace("lun0", n_requests=2000, seed=1, idle_period_mean_ns=2e6)
    paths = plot_profile(trace_profile(tr), tmp_path / "figs")
    assert [p.name for p in paths] == [f"{f}.{ext}" for f in FIGURES for ext in ("png", "pdf")]
    assert all(p.stat().st_size > 1000 for p in paths)


# ---------------------------------------------------------------------------
# flashrr trace profile
# ---------------------------------------------------------------------------


def run(*args):
    return CliRunner().invoke(trace_group, ["profile", *[str(a) for a in args]])


@pytest.fixture
def sample(tmp_path) -> Path:
    p = tmp_path / "wsrch-small.mqsim.txt"
    shutil.copyfile(MQSIM_SAMPLE, p)
    return p


def test_cli_json_is_consistent_with_trace_stats(sample):
    result = run(sample, "--json")
    assert result.exit_code == 0, result.output
    (d,) = json.loads(result.stdout)
    check_dict_keys(d)
    assert (d["trace"], d["path"], d["format"], d["skipped_lines"]) == ("wsrch-small", str(sample), "mqsim", 0)
    st_ = trace_stats(read_trace(sample, cache=False))
    assert d["requests"] == st_["requests"] == 24_783
    assert d["reads"] == round(st_["read_ratio"] * st_["requests"])
    assert d["sizes"]["read"]["size_bytes"]["mean"] == pytest.approx(st_["avg_read_size_bytes"])
    assert d["duration_ns"] / 1e9 == pytest.approx(st_["duration_s"])
    assert d["read_counts"]["page"]["total"] == d["page_reads"]
    assert d["reuse"]["rereads"] == d["page_reads"] - d["read_counts"]["page"]["touched"]
    assert (d["page_size_bytes"], d["block_pages"], d["region_bytes"]) == (8192, 1024, 2 << 20)


def test_cli_text_and_options(sample):
    result = run(sample, "--region-mb", "4", "--idle-threshold-us", "500", "--lru-pages", "64,128")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("wsrch-small: 24,783 requests")
    assert "region 4 MiB (512 pages)" in out
    assert "gaps > 500 us" in out
    assert "read-only LRU page cache hit ratio: 64 pages" in out


def test_cli_device_sets_page_and_block_units(sample):
    result = run(sample, "--device", "hotr", "--json")
    assert result.exit_code == 0, result.output
    (d,) = json.loads(result.stdout)
    assert (d["page_size_bytes"], d["block_pages"], d["region_pages"]) == (4096, 64, 512)
    result = run(sample, "--device", "hotr", "--page-size", "16384", "--json")
    (d,) = json.loads(result.stdout)
    assert (d["page_size_bytes"], d["block_pages"]) == (16384, 64)


def test_cli_plot_writes_the_figures(sample, tmp_path):
    # one read: no re-reads, no writes, no gaps, so every figure takes its "no data" branch somewhere
    result = run(f"{sample}?first=1", "--plot", tmp_path / "figs")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == sorted(
        f"{f}.{ext}" for f in FIGURES for ext in ("png", "pdf"))
    assert "figures in" in result.stderr


@pytest.fixture
def plotted(monkeypatch):
    """plot_profile replaced by a recorder (the figures themselves are tested above): the directory
    each profile goes to."""
    calls = []
    monkeypatch.setattr("flashrr.trace.profile_plots.plot_profile", lambda prof, out: calls.append((prof.trace, out)))
    return calls


def test_cli_pipelines_and_several_traces_get_one_plot_directory_each(sample, tmp_path, plotted):
    out = tmp_path / "figs"
    result = run(f"{sample}?first=1000", "synth:lun0?n_requests=500&seed=1", f"{sample}?first=10", "--json",
                 "--plot", out)
    assert result.exit_code == 0, result.output
    a, b, c = json.loads(result.stdout)
    assert (a["requests"], b["requests"], c["requests"]) == (1000, 500, 10)
    assert b["format"] == "synth"
    # the same trace twice: a second directory with a suffix
    assert plotted == [("wsrch-small", out / "wsrch-small"), ("lun0", out / "lun0"),
                       ("wsrch-small", out / "wsrch-small-2")]


def assert_one_line_error(result, *fragments):
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    for frag in fragments:
        assert frag in lines[0]


def test_cli_missing_file_and_unknown_device(tmp_path, sample):
    assert_one_line_error(run(tmp_path / "nope.txt"), "nope.txt")
    assert_one_line_error(run(sample, "--device", "nodevice"), "nodevice")
    assert_one_line_error(run("synth:nopreset"), "nopreset")


@pytest.mark.parametrize("args,option", [
    (["--region-mb", "0.3"], "--region-mb"),
    (["--region-mb", "0"], "--region-mb"),
    (["--lru-pages", "64,x"], "--lru-pages"),
    (["--lru-pages", "0"], "--lru-pages"),
    (["--idle-threshold-us", "-1"], "--idle-threshold-us"),
    (["--page-size", "0"], "--page-size"),
])
def test_cli_bad_option_values_are_usage_errors_naming_the_option(sample, args, option):
    result = run(sample, *args)
    assert result.exit_code == 2          # click usage error, as for `flashrr trace stats`
    assert "Traceback" not in result.output
    assert option in result.stderr
