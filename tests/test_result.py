"""Latency histograms, percentiles and the Result object."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import flashrr
from flashrr._core.layout import HIST_BUCKETS, hist_bucket, hist_bucket_bounds
from flashrr.result import hist_percentile
from engine_helpers import page_trace, tiny_config


@given(st.integers(0, 2**62))
def test_bucket_contains_value_with_bounded_relative_error(v):
    b = hist_bucket(v)
    assert 0 <= b < HIST_BUCKETS
    lo, hi = hist_bucket_bounds(np.array([b]))
    assert lo[0] <= v < hi[0]
    assert (hi[0] - 1 - lo[0]) <= max(0, lo[0]) / 128


@given(st.lists(st.integers(0, 10**9), min_size=1, max_size=300), st.sampled_from([0.5, 0.9, 0.99, 0.9999]))
def test_percentile_is_nearest_rank_within_bucket_error(values, q):
    hist = np.zeros(HIST_BUCKETS, np.int64)
    for v in values:
        hist[hist_bucket(v)] += 1
    exact = sorted(values)[int(np.ceil(q * len(values) - 1e-9)) - 1]
    assert hist_percentile(hist, q) == pytest.approx(exact, rel=1 / 128, abs=1)


def test_result_frame_events_and_cdf():
    cfg = tiny_config(planes=2, sb_planes=2, rr=5)
    res = flashrr.simulate(cfg, page_trace([0] * 12 + [1, 3], writes=[False] * 12 + [True, True]))
    frame = res.to_frame()
    assert len(frame) == 1 and frame.loc[0, "rr_count"] == 2 == len(res.rr_events)
    assert list(res.rr_events.columns) == ["time_ns", "superblock", "lane", "block_reads", "pages_moved", "routine",
                                           "erase_end_ns", "victim_user_pages", "victim_rr_pages", "victim_gc_pages",
                                           "rber_margin", "round", "trigger_to_erase_ns"]
    for kind in ("read", "write", "io"):
        cdf = res.latency_cdf(kind)
        assert cdf["cdf"].is_monotonic_increasing and cdf["cdf"].iloc[-1] == pytest.approx(1.0)
    assert res.summary["reads"] == 12 and res.summary["writes"] == 2
    with pytest.raises(ValueError, match="kind must be one of"):
        res.latency_cdf("bogus")


def test_same_config_trace_seed_same_result():
    cfg = tiny_config(planes=2, sb_planes=2, rr=5, cache_pages=2, warmup_random_writes_ratio=1.0)
    rng = np.random.default_rng(0)
    trace = page_trace(rng.integers(0, 100, 500), writes=rng.random(500) < 0.3)
    a = flashrr.simulate(cfg, trace, seed=4).summary
    b = flashrr.simulate(cfg, trace, seed=4).summary
    a.pop("sim_wall_s"), b.pop("sim_wall_s")
    assert a == b


REQUIRED_SUMMARY_KEYS = (
    "requests reads writes rr_count rr_page_moves gc_count gc_page_moves erase_count host_pages_written "
    "flash_pages_programmed waf read_latency_mean_ns write_latency_mean_ns io_latency_mean_ns read_latency_p99_ns "
    "read_latency_p9999_ns io_latency_p99_ns cache_read_hit_ratio cache_write_hit_ratio user_flash_transactions "
    "blocked_reads retry_time_ns policy_metadata_bytes sim_wall_s").split()


def test_summary_has_every_documented_metric(engine):
    s = flashrr.simulate(tiny_config(cache_pages=2), page_trace([0, 1, 2], writes=[True, False, False]),
                         engine=engine).summary
    missing = [k for k in REQUIRED_SUMMARY_KEYS if k not in s]
    assert not missing
    assert s["host_pages_written"] == 1 and s["reads"] == 2 and s["writes"] == 1
    assert s["io_latency_mean_ns"] == pytest.approx(
        (s["read_latency_mean_ns"] * 2 + s["write_latency_mean_ns"]) / 3)


def test_the_summary_reports_every_engine_counter():
    """No counter is left out of the summary by a hand-kept list: each is a column (the
    latency sums through the means)."""
    import flashrr
    from flashrr._core.counters import COUNTERS
    from engine_helpers import page_trace, tiny_config

    s = flashrr.simulate(tiny_config(), page_trace([0, 1, 0], writes=[True, False, False])).summary
    derived = {"read_latency_sum_ns", "write_latency_sum_ns", "cache_read_hits", "cache_write_hits",
               "rr_page_moves", "erase_count"}
    assert [k for k in COUNTERS if k not in s and k not in derived] == []


def test_the_summary_has_every_mechanism_counter_zero_when_off():
    """Each counter a registry line names is a column of every run, 0 when its mechanism
    is off, after the device counters and in registry order."""
    import flashrr
    from flashrr._core.assembly import registry_counter_names
    from flashrr._core.counters import COUNTERS
    from engine_helpers import page_trace, tiny_config

    s = flashrr.simulate(tiny_config(), page_trace([0, 1, 0], writes=[True, False, False])).summary
    names = registry_counter_names()
    assert "ws_peak_bytes" in names and "pool_pages_wasted" in names and names.count("redirected_reads") == 1
    assert {k: s[k] for k in names} == dict.fromkeys(names, 0)
    cols = list(s)
    last = COUNTERS[-1]  # the last device counter
    assert cols[cols.index(last) + 1:cols.index(last) + 1 + len(names)] == list(names)
