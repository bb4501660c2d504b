"""ECC, retry ladder, fits to the papers' tables and the rber trigger (flashrr.reliability)."""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from flashrr.config import ConfigError, ReadRetryConfig
from flashrr.presets import device_preset
from flashrr.reliability import (ECC, FIT_TARGETS, NEVER, RetryLadder, ecc_preset, fit_table, fitted_to,
                                 rber_preset, rber_trigger, switch_points, trigger_reads)

GROWTHS = ("linear", "geometric")
X = np.linspace(0.0, 1.2, 4801)  # reads / RR threshold, every 1/4000 of it


def ladder(growth="linear"):
    return RetryLadder.from_read_retry(ReadRetryConfig.ldpc_progressive(), growth, 0.5 if growth == "linear" else 1.3)


@pytest.mark.parametrize("growth", GROWTHS)
@given(pe=st.floats(0, 5000), t=st.floats(0, 1e8), r=st.floats(0, 2e5), dr=st.floats(0, 2e5))
def test_retry_steps_non_decreasing_in_reads(growth, pe, t, r, dr):
    m, ecc, lad = rber_preset("tlc"), ecc_preset("tlc"), ladder(growth)
    errs = ecc.expected_errors(m.rber(pe, t, [r, r + dr], m.worst_page))
    steps, bad = lad.steps(errs, ecc)
    assert steps[1] >= steps[0] and bad[1] >= bad[0]


@pytest.mark.parametrize("growth", GROWTHS)
@given(errs=st.lists(st.floats(0, 1000), min_size=1, max_size=20))
def test_uncorrectable_exactly_when_last_step_fails(growth, errs):
    ecc, lad = ecc_preset("tlc"), ladder(growth)
    caps = lad.capability(ecc)
    steps, bad = lad.steps(errs, ecc)
    e = np.asarray(errs)
    assert np.array_equal(bad, e > caps[-1])
    assert np.all(steps[bad] == lad.n_steps)
    ok = ~bad
    assert np.all(e[ok] <= caps[steps[ok]])  # the step taken corrects
    assert np.all((steps[ok] == 0) | (e[ok] > caps[np.maximum(steps[ok] - 1, 0)]))  # and is the first that does


def test_capability_laws():
    ecc = ECC(1024, 40)
    assert np.allclose(RetryLadder((0, 10, 20), "linear", 0.5).capability(ecc), [40, 60, 80])
    assert np.allclose(RetryLadder((0, 10, 20), "geometric", 2.0).capability(ecc), [40, 80, 160])
    assert ecc.codeword_bits == 8192 and ecc.expected_errors(1e-3) == pytest.approx(8.192)


def test_latency_uses_the_paper_tables():
    lad = RetryLadder.from_read_retry(device_preset("phasedrr").read_retry)
    assert lad.n_steps == 6
    assert list(lad.latency_ns([0, 6], 85_000)) == [85_000, 1_099_000]  # 0.085 ms .. 1.099 ms at level 7
    cock = RetryLadder.from_read_retry(device_preset("cocktail").read_retry)
    assert list(cock.latency_ns([0, 1, 3], 75_000)) == [75_000, 170_000, 360_000]


@pytest.mark.parametrize("name", FIT_TARGETS)
@pytest.mark.parametrize("growth", GROWTHS)
def test_fit_reproduces_the_paper_table_within_one_step(name, growth):
    f = fitted_to(name, growth)
    steps, _ = f.model_steps(X)
    table = f.table_steps(X)
    assert np.max(np.abs(steps - table)) <= 1
    # the table used is flashrr's own
    cfg = {"phasedrr": device_preset("phasedrr").read_retry, "cocktail": device_preset("cocktail").read_retry,
           "ldpc": ReadRetryConfig.ldpc(24_000)}[name]
    assert f.table.retry_step_fractions == cfg.retry_step_fractions
    assert f.ladder.extra_ns == cfg.extra_ns_by_retries()


@pytest.mark.parametrize("name", FIT_TARGETS)
def test_linear_fit_is_exact_for_linear_read_disturb(name):
    # with q = 1 the switch points are evenly spaced, as the tables' are
    table, threshold = {"phasedrr": (device_preset("phasedrr").read_retry, 25_000),
                        "ldpc": (ReadRetryConfig.ldpc(24_000), 25_000),
                        "cocktail": (device_preset("cocktail").read_retry, 10_240)}[name]
    f = fit_table(name, table, threshold, model=rber_preset("tlc").replace(q=1.0))
    assert f.max_offset < 1e-6
    pts = switch_points(f.model, f.ecc, f.ladder, f.pe, f.retention_s, f.rr_threshold_reads)
    assert np.allclose(pts, list(f.table.retry_step_fractions) + [1.0], atol=1e-6)
    # off the switch points the step counts agree exactly
    far = np.min(np.abs(X[:, None] - pts[None, :]), axis=1) > 1e-6
    steps, bad = f.model_steps(X[far])
    assert np.array_equal(steps, f.table_steps(X[far]))
    assert np.array_equal(bad, X[far] > 1.0)


def test_fits_are_cached_and_unknown_names_rejected():
    assert fitted_to("phasedrr") is fitted_to("phasedrr")
    with pytest.raises(ConfigError, match=r"reliability\.fitted_to: must be one of \('phasedrr', 'ldpc', "
                                          r"'cocktail'\) \(got 'shuffler'\)"):
        fitted_to("shuffler")


@given(pe=st.floats(0, 5000), t=st.floats(0, 3e8), frac=st.floats(0.05, 2.0), use_ladder=st.booleans(),
       layer=st.floats(0.5, 2.0))
def test_trigger_reads_is_the_first_read_count_that_triggers(pe, t, frac, use_ladder, layer):
    f = fitted_to("phasedrr")
    lad = f.ladder if use_ladder else None
    r = int(trigger_reads(f.model, f.ecc, pe, t, frac, lad, layer))
    assert r >= 0
    assert rber_trigger(f.model, f.ecc, pe, t, r, frac, lad, layer)
    if r > 0:
        assert not rber_trigger(f.model, f.ecc, pe, t, r - 1, frac, lad, layer)


def test_trigger_reads_vectorised_and_falls_with_wear():
    f = fitted_to("phasedrr")
    r = trigger_reads(f.model, f.ecc, np.array([0, 500, 1000, 3000]), f.retention_s, 1.0, f.ladder)
    assert r.shape == (4,) and np.all(np.diff(r) < 0)
    # at the fitted state the implied threshold is the paper's, to the fit's weighted end point
    end = switch_points(f.model, f.ecc, f.ladder, f.pe, f.retention_s, f.rr_threshold_reads)[-1]
    assert abs(int(r[0]) - end * 25_000) <= 1 and abs(end - 1.0) < 0.01


@pytest.mark.parametrize("name", FIT_TARGETS)
@pytest.mark.parametrize("growth", GROWTHS)
def test_fit_keeps_the_rr_threshold(name, growth):
    f = fitted_to(name, growth)
    end = switch_points(f.model, f.ecc, f.ladder, f.pe, f.retention_s, f.rr_threshold_reads)[-1]
    assert abs(end - 1.0) < 0.01


def test_trigger_never_without_read_disturb():
    m, ecc = rber_preset("tlc").replace(gamma=0.0), ecc_preset("tlc")
    assert int(trigger_reads(m, ecc, 0, 0)) == NEVER
    assert int(trigger_reads(m, ecc, 0, 0, fraction=0.01)) == 0


@pytest.mark.parametrize("make, expect", [
    (lambda: ECC(0, 40), r"ecc\.codeword_bytes: must be a positive integer \(got 0\)"),
    (lambda: ECC(1024, math.nan), r"ecc\.t_bits: must be a finite number >= 0 \(got nan\)"),
    (lambda: ECC(1024, 0), r"ecc\.t_bits: must be a finite number > 0"),
    (lambda: RetryLadder((0, 5), "cubic"), r"retry\.growth: must be one of \('linear', 'geometric'\)"),
    (lambda: RetryLadder((0, 5), "geometric", 0.9), r"retry\.factor: must be > 1 for geometric growth"),
    (lambda: RetryLadder((0, 5), "linear", -0.5), r"retry\.factor: must be a finite number >= 0"),
    (lambda: RetryLadder((10, 5)), r"retry\.extra_ns: must start at 0 and be non-decreasing"),
    (lambda: ladder().steps([-1.0], ecc_preset("tlc")), r"expected_errors: must be finite and >= 0"),
    (lambda: trigger_reads(rber_preset("tlc"), ecc_preset("tlc"), 0, 0, fraction=0),
     r"trigger\.fraction: must be a finite number > 0"),
])
def test_bad_ecc_and_retry_parameters_name_the_field(make, expect):
    with pytest.raises(ConfigError, match=expect):
        make()
