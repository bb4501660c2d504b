"""The regime of a reproduction (flashrr.reproduce.regime): lengths from Baseline's RR count,
the flags that keep a trace out of the claims, the regime and occupancy tables."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from engine_helpers import page_trace, tiny_config

import flashrr
from flashrr.reproduce.calibration import baseline_rr_times, stop_after_rr
from flashrr.reproduce.regime import (BUSY_LIMIT, FLAG_FAILED, FLAG_NO_RR, FLAG_OVERLOADED, Regime, claims_runs,
                                      flag_columns, flag_traces, occupancy_devices, regime_markdown, regime_table,
                                      replays_for_rr, scaled_target)
from flashrr.reproduce.regime_report import occupancy_claims
from flashrr.reproduce.sweep_runs import SweepRuns
from flashrr.trace.transform import repeat_period


def fake_rr_times(per_replay):
    """An ``rr_times`` whose Baseline makes ``per_replay[r]`` RRs in replay r (period 100 ns); it
    records the replay counts it was run at."""
    calls = []

    def rr_times(n):
        calls.append(n)
        times = [r * 100 + 5 for r in range(n) for _ in range(per_replay[r])]
        return np.array(times, np.int64), 100
    return rr_times, calls


def test_replays_for_rr_counted_by_hand():
    # RRs per replay 0, 0, 3, 1, 4, 4, 4, 4: cumulative 0, 0, 3, 4, 8, 12, ...  Target 7: one run at the cap
    # of 8 replays; its cumulative count first reaches 7 after replay 5 (8 RRs), so 5 replays and 8 RRs
    rr_times, calls = fake_rr_times([0, 0, 3, 1, 4, 4, 4, 4])
    assert replays_for_rr(rr_times, 7, 8) == (5, 8)
    assert calls == [8]


def test_replays_for_rr_stops_at_the_cap_and_skips_a_zero_target():
    rr_times, calls = fake_rr_times([1] * 16)
    assert replays_for_rr(rr_times, 100, 6) == (6, 6)  # capped at 6: 6 RRs, short of 100
    assert calls == [6]
    rr_times, calls = fake_rr_times([1] * 4)
    assert replays_for_rr(rr_times, 0, 6) == (1, 0) and calls == []


def test_the_length_of_a_tiny_device_is_the_first_that_reaches_the_target():
    # RR threshold 10 reads: 20 reads of LPNs 0, 1, 2 in turn read block 0 (pages 0-2 of a 16-page block)
    # 20 times a play: 2 RRs a play (at its 10th and 20th read of the block)
    cfg = tiny_config(rr=10)
    tr = page_trace(np.arange(20) % 3, gap_ns=100_000)
    spec_runs = []
    period = repeat_period(len(tr), tr.duration_ns)

    def rr_times(n):
        res = flashrr.simulate(cfg, tr, repeat=n, stop_when=stop_after_rr(5, period), chunk_requests=7)
        spec_runs.append((n, res.summary["requests"], res.summary["stopped_early"]))
        return res.rr_events["time_ns"].to_numpy(), period
    assert replays_for_rr(rr_times, 5, 16) == (3, 6)  # 2 a play: 4 after two plays, 6 after three
    assert flashrr.simulate(cfg, tr, repeat=3).summary["rr_count"] == 6  # the answer checked by a run of it
    # one run, stopped after the first chunk that reaches the fourth play (3 x 2 ms): chunks restart with each
    # play (7, 7 and 6 requests of 20), so the chunk of requests 60-66, 67 requests in all
    assert spec_runs == [(16, 67, True)]


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_run_stopped_after_the_target_rr_holds_every_rr_of_the_full_run_before_its_period_ends(engine):
    # RR threshold 10: reads of LPNs 0-4 in turn, 25 a play, 30 us apart (period 750 us); block 0 takes
    # 25 reads a play, 2.5 RRs.  The 7th RR falls in play 3 (index 2), which ends at 2,250 us
    cfg = tiny_config(rr=10)
    tr = page_trace(np.arange(25) % 5, gap_ns=30_000)
    period = repeat_period(len(tr), tr.duration_ns)
    full = flashrr.simulate(cfg, tr, repeat=12, engine=engine).rr_events["time_ns"].to_numpy()
    res = flashrr.simulate(cfg, tr, repeat=12, engine=engine, stop_when=stop_after_rr(7, period), chunk_requests=10)
    times = res.rr_events["time_ns"].to_numpy()
    end = (np.sort(full)[6] // period + 1) * period
    assert end == 3 * period
    # chunks of 10, 10 and 5 requests a play: the first that reaches 2,250 us is the fourth play's first, 75-84
    assert res.summary["stopped_early"] and res.summary["requests"] == 85
    assert np.array_equal(np.sort(times[times < end]), np.sort(full[full < end]))
    assert len(times) < len(full)
    never = flashrr.simulate(cfg, tr, repeat=2, engine=engine, stop_when=stop_after_rr(100, period))
    assert not never.summary["stopped_early"] and never.summary["requests"] == 50


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=5, max_size=40), st.integers(1, 12), st.integers(1, 13))
def test_the_calibrated_length_is_the_shortest_replay_count_that_reaches_the_target(lpns, target, chunk):
    # the definition, checked run by run: the smallest n <= 8 whose n-replay Baseline makes `target` RRs
    cfg = tiny_config(rr=6)
    tr = page_trace(lpns, gap_ns=20_000)
    period = repeat_period(len(tr), tr.duration_ns)

    def rr_times(n):
        res = flashrr.simulate(cfg, tr, repeat=n, stop_when=stop_after_rr(target, period), chunk_requests=chunk)
        return res.rr_events["time_ns"].to_numpy(), period
    counts = [flashrr.simulate(cfg, tr, repeat=n).summary["rr_count"] for n in range(1, 9)]
    reached = [n for n, c in enumerate(counts, 1) if c >= target]
    assert replays_for_rr(rr_times, target, 8) == ((reached[0], counts[reached[0] - 1]) if reached else (8, counts[-1]))


def test_baseline_rr_times_of_a_spec_with_a_length_unit(tmp_path):
    cfg = tiny_config(rr=10, blocks=64)
    times, period = baseline_rr_times(cfg, "synth:ali1?n_requests=400&seed=2&pack=stripe", 2, unit=3)
    one, p1 = baseline_rr_times(cfg, "synth:ali1?n_requests=400&seed=2&pack=stripe", 1, unit=1)
    assert period == 3 * p1  # a unit of 3 plays
    six = flashrr.simulate(cfg, "synth:ali1?n_requests=400&seed=2&pack=stripe&repeat=6")
    assert len(times) == six.summary["rr_count"] > len(one)


def frame(rows):
    return pd.DataFrame(rows, columns=["trace", "scheme", "rr_count", "die_idle_fraction_min", "gc_count", "waf",
                                       "read_latency_mean_ns", "occupancy"])


def test_flags_on_constructed_runs():
    reg = Regime(rr_floor=10, no_rr=("quiet",))
    base = frame([("ok", "Baseline", 50, 0.5, 0, 1.0, 1e5, 0.75),
                  ("busy", "Baseline", 50, 1 - BUSY_LIMIT - 0.01, 0, 1.0, 1e5, 0.75),   # 96% busy
                  ("edge", "Baseline", 50, 1 - BUSY_LIMIT, 0, 1.0, 1e5, 0.75),          # exactly 95%: not flagged
                  ("none", "Baseline", 0, 0.5, 0, 1.0, 1e5, 0.75),
                  ("quiet", "Baseline", 0, 0.9, 0, 1.0, 1e5, 0.75)])
    names = [(t, t) for t in ("ok", "busy", "edge", "none", "quiet", "lost", "broken")]
    flags = flag_traces(base, names, reg, failed={"broken"})
    assert flags == {"busy": FLAG_OVERLOADED, "none": FLAG_NO_RR, "lost": FLAG_FAILED, "broken": FLAG_FAILED}
    table = regime_table(base, names, {t: reg.rr_target(t) for t, _ in names}, {"ok": 4}, flags)
    ok = table.set_index("trace").loc["ok"]
    assert (ok["replays"], ok["rr_target"], ok["rr_count"], ok["flag"]) == (4, 10, 50, "")
    assert ok["busiest_die_busy"] == pytest.approx(0.5) and ok["read_latency_mean_us"] == 100.0
    assert table.set_index("trace").loc["quiet", "rr_target"] == 0
    assert math.isnan(ok["rr_per_m_reads"])  # the frame has no read requests to count against
    marked = flag_columns(pd.DataFrame({"claim": ["a"]}), flags)
    assert marked["n_flagged"].iloc[0] == 4 and "busy: Baseline overloaded" in marked["flagged"].iloc[0]


def test_rrs_per_million_reads_counted_by_hand():
    base = frame([("a", "Baseline", 50, 0.5, 0, 1.0, 1e5, 0.7), ("z", "Baseline", 3, 0.5, 0, 1.0, 1e5, 0.7)])
    base["reads"] = [2_500_000, 0]
    table = regime_table(base, [("a", "a"), ("z", "z")], {}, {}, {},
                         paper={"a": {"rr_count": 7, "rr_per_m_reads": 10.18}}).set_index("trace")
    assert table.loc["a", "rr_per_m_reads"] == 20.0  # 50 RRs in 2.5 M read requests
    assert table.loc["a", "paper_rr_per_m_reads"] == 10.18 and table.loc["a", "paper_rr_count"] == 7
    assert math.isnan(table.loc["z", "rr_per_m_reads"])  # no read request: no ratio
    assert math.isnan(table.loc["z", "paper_rr_per_m_reads"])
    md = regime_markdown(table.reset_index())
    assert "| a |" in md and "| 20.0 | 10.2 |" in md


def test_flagged_traces_are_kept_out_of_the_claims_runs_only():
    df = frame([("a", "Baseline", 1, 0.5, 0, 1, 1, 1), ("b", "Baseline", 1, 0.5, 0, 1, 1, 1)])
    runs = SweepRuns({"main": df}, None, None)
    kept = claims_runs(runs, {"b": FLAG_NO_RR})
    assert list(kept.frame("main")["trace"]) == ["a"]
    assert list(runs.frame("main")["trace"]) == ["a", "b"]  # the figures keep every run


def test_targets_scale_and_devices_per_occupancy():
    assert scaled_target(28_507, 128, 8) == 1782  # 28,507 x 8 / 128 = 1,781.7
    reg = Regime(occupancy=0.75, warmup=0.2, occupancies=(0.5, 1.0))
    devs = occupancy_devices({"preset": "cocktail", "name": "cocktail-scaled"}, reg)
    assert [(d["name"], d["fill_ratio"], d["warmup_random_writes_ratio"]) for d in devs] == \
        [("cocktail-scaled@0.5", 0.5, 0.2), ("cocktail-scaled@1", 1.0, 0.2)]
    assert reg.pipeline() == {"pack": "stripe"} and Regime(placement="fold").pipeline() == {"fold": "modulo"}
    with pytest.raises(ValueError, match="placement"):
        Regime(placement="spread")


def test_occupancy_claims_counted_by_hand():
    rows = []
    for occ, base, scheme in ((0.5, 100.0, 80.0), (1.0, 200.0, 220.0)):
        for trace, k in (("t1", 1.0), ("t2", 2.0)):
            rows += [{"device": f"d@{occ:g}", "trace": trace, "scheme": "Baseline", "m": base * k},
                     {"device": f"d@{occ:g}", "trace": trace, "scheme": "S", "m": scheme * k}]
    got = occupancy_claims(pd.DataFrame(rows), (("S vs Baseline", "m", "S", "Baseline", -10.0),), ["t1", "t2"])
    # at 0.5: 80/100 - 1 = -20% on both traces; at 1.0: 220/200 - 1 = +10%
    assert list(got["occupancy"]) == [0.5, 1.0]
    assert list(got["flashrr_value"]) == pytest.approx([-20.0, 10.0])
    assert list(got["n_traces"]) == [2, 2]
