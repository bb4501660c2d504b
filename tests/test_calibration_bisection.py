"""The arrival-factor bisection (flashrr.reproduce.calibration.bisect_time_scale): its probe of the
range's end gives the full search's answer, in fewer evaluations when the target is out of reach."""
from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from flashrr.reproduce.calibration import bisect_time_scale


def counted(load):
    calls = []

    def f(x):
        calls.append(x)
        return load(x)

    return f, calls


def falling(scale: float, power: float):
    """A load falling strictly with the factor: 1 / (1 + (f / scale) ** power), in (0, 1)."""
    return lambda f: 1.0 / (1.0 + (f / scale) ** power)


@settings(max_examples=200, deadline=None)
@given(scale=st.floats(1e-3, 1e5), power=st.floats(0.2, 3.0), target=st.floats(0.01, 0.99),
       steps=st.integers(1, 14), tol=st.sampled_from([0.0, 0.005, 0.02]), probe_after=st.integers(1, 6))
def test_the_probe_gives_the_full_searchs_answer(scale, power, target, steps, tol, probe_after):
    load = falling(scale, power)
    plain, plain_calls = counted(load)
    probing, probe_calls = counted(load)
    want = bisect_time_scale(plain, target, (1 / 16, 4096.0), steps, tol, probe_after=None)
    got = bisect_time_scale(probing, target, (1 / 16, 4096.0), steps, tol, probe_after=probe_after)
    assert got == want
    # at most one evaluation more than the full search (the probe), never the same factor twice
    assert len(probe_calls) <= len(plain_calls) + 1
    assert len(set(probe_calls)) == len(probe_calls)


def test_an_unreachable_target_ends_at_the_probe():
    # the load at the top of the range (4096) is 1 / (1 + 2) = 0.33, above the target 0.1: every step moves up
    load = falling(2048.0, 1.0)
    plain, plain_calls = counted(load)
    probing, probe_calls = counted(load)
    want = bisect_time_scale(plain, 0.1, (1 / 16, 4096.0), 12, 0.02, probe_after=None)
    got = bisect_time_scale(probing, 0.1, (1 / 16, 4096.0), 12, 0.02, probe_after=4)
    assert got == want and len(plain_calls) == 12 and len(probe_calls) == 5
    # the answer is the search's last point: 2 ** (12 - 16 / 2 ** 12), just under the top
    assert got[0] == round(2 ** (12 - 16 / 2 ** 12), 6)
    # and the same below the range: a target above the load at its bottom ends next to 1/16
    low = falling(1e-3, 1.0)
    probing, probe_calls = counted(low)
    f, value = bisect_time_scale(probing, 0.99, (1 / 16, 4096.0), 12, 0.0, probe_after=4)
    assert len(probe_calls) == 5 and f == round(2 ** (-4 + 16 / 2 ** 12), 6) and value < 0.99


def test_a_probe_that_misses_costs_one_evaluation_and_is_reused():
    # the target is reached near the top: the probe lands beyond it, the search goes on to the same end
    load = falling(3000.0, 1.0)
    target = load(3158.0)
    plain, plain_calls = counted(load)
    probing, probe_calls = counted(load)
    want = bisect_time_scale(plain, target, (1 / 16, 4096.0), 12, 0.0, probe_after=None)
    got = bisect_time_scale(probing, target, (1 / 16, 4096.0), 12, 0.0, probe_after=4)
    assert got == want and math.isclose(got[0], 3158.0, rel_tol=0.01)
    assert len(probe_calls) == len(plain_calls) + 1
