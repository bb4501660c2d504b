"""ON/OFF arrivals of the synthetic trace generator (``idle_period_mean_ns``, ``burst_requests_mean``)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashrr.trace.synth import synth_trace


def test_no_idle_periods_keeps_the_poisson_trace():
    """The burst draws come last, so idle_period_mean_ns = 0 leaves the trace bit for bit."""
    a = synth_trace(n_requests=3000, seed=3)
    b = synth_trace(n_requests=3000, seed=3, idle_period_mean_ns=0.0, burst_requests_mean=8.0)
    assert np.array_equal(a.time_ns, b.time_ns) and np.array_equal(a.offset, b.offset)


def test_idle_periods_only_add_time_and_keep_the_requests():
    base = synth_trace(n_requests=20_000, seed=5, interarrival_mean_ns=10_000.0)
    bursty = synth_trace(n_requests=20_000, seed=5, interarrival_mean_ns=10_000.0,
                         idle_period_mean_ns=5e6, burst_requests_mean=50.0)
    # the addresses, sizes and directions are drawn before the arrivals: unchanged
    assert np.array_equal(base.offset, bursty.offset) and np.array_equal(base.size, bursty.size)
    assert np.array_equal(base.is_write, bursty.is_write)
    extra = np.diff(bursty.time_ns) - np.diff(base.time_ns)
    assert extra.min() >= -1  # floor() of two cumulative sums may differ by 1 ns
    assert bursty.time_ns[0] == 0


def test_mean_gap_and_burst_count_follow_the_parameters():
    """Mean gap = g + I / B; the number of idle periods is about n / B (binomial, 5 sigma)."""
    n, g, idle, burst = 200_000, 20_000.0, 4e6, 40.0
    t = synth_trace(n_requests=n, seed=1, interarrival_mean_ns=g, idle_period_mean_ns=idle,
                    burst_requests_mean=burst)
    gaps = np.diff(t.time_ns).astype(float)
    expect = g + idle / burst
    assert abs(gaps.mean() - expect) < 0.05 * expect
    # gaps above 1 ms are idle periods but for a negligible share (P(exp(20 us) > 1 ms) = e^-50)
    long_gaps = int((gaps > 1e6).sum())
    p_end = 1 / burst
    mean_n, sd = (n - 1) * p_end * np.exp(-1e6 / idle), np.sqrt((n - 1) * p_end)
    assert abs(long_gaps - mean_n) < 5 * sd


@pytest.mark.parametrize("bad", [dict(idle_period_mean_ns=-1.0), dict(idle_period_mean_ns=float("nan")),
                                 dict(idle_period_mean_ns=1e6, burst_requests_mean=0.5)])
def test_bad_arrival_parameters_name_the_field(bad):
    with pytest.raises(ValueError, match=next(iter(bad)) if "burst_requests_mean" not in bad
                       else "burst_requests_mean"):
        synth_trace(n_requests=100, **bad)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), idle=st.floats(1.0, 1e9), burst=st.floats(1.0, 1e4))
def test_on_off_trace_is_deterministic_and_sorted(seed, idle, burst):
    a = synth_trace(n_requests=500, seed=seed, idle_period_mean_ns=idle, burst_requests_mean=burst)
    b = synth_trace(n_requests=500, seed=seed, idle_period_mean_ns=idle, burst_requests_mean=burst)
    assert np.array_equal(a.time_ns, b.time_ns)
    assert (np.diff(a.time_ns) >= 0).all()
