"""RBER model, presets and initial wear (flashrr.reliability)."""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from flashrr.config import ConfigError
from flashrr.reliability import RBER_PRESETS, RBERModel, draw_initial_pe, ecc_preset, page_names, rber_preset

PRESET_NAMES = sorted(RBER_PRESETS)
pe_st = st.floats(0, 20_000)
ret_st = st.floats(0, 10 * 365 * 86_400.0)
reads_st = st.floats(0, 1e6)


@pytest.mark.parametrize("name", PRESET_NAMES)
@given(pe=pe_st, dpe=st.floats(0, 5_000), t=ret_st, dt=st.floats(0, 1e8), r=reads_st, dr=st.floats(0, 1e5))
def test_rber_non_decreasing_in_pe_retention_and_reads(name, pe, dpe, t, dt, r, dr):
    m = rber_preset(name)
    here = m.rber(pe, t, r)
    assert m.rber(pe + dpe, t, r) >= here
    assert m.rber(pe, t + dt, r) >= here
    assert m.rber(pe, t, r + dr) >= here


@pytest.mark.parametrize("name", PRESET_NAMES)
@given(pe=pe_st, t=ret_st, r=reads_st)
def test_page_types_ordered_by_reference_voltages(name, pe, t, r):
    m = rber_preset(name)
    pages = np.arange(m.bits_per_cell)
    per_page = m.rber(pe, t, r, pages)
    order = np.argsort(m.refs_per_page, kind="stable")
    assert np.all(np.diff(per_page[order]) >= 0)
    assert per_page[m.worst_page] == per_page.max()
    assert np.isclose(per_page.mean(), m.rber(pe, t, r))  # factors average to 1


def test_page_names_per_cell():
    assert page_names(2) == ("LSB", "MSB")
    assert page_names(3) == ("LSB", "CSB", "MSB")
    assert page_names(4) == ("LSB", "CSB", "MSB", "TSB")
    assert rber_preset("mlc").page_index("MSB") == 1
    with pytest.raises(ConfigError, match=r"rber\.page: must be one of \('LSB', 'MSB'\)"):
        rber_preset("mlc").page_index("CSB")


def test_rber_is_vectorised_and_broadcasts():
    m = rber_preset("tlc")
    out = m.rber(np.array([[0], [1000]]), 86_400.0, np.array([0, 10_000, 20_000]), page=2, layer_factor=1.1)
    assert out.shape == (2, 3)
    assert np.all(np.diff(out, axis=1) > 0) and np.all(out[1] > out[0])


def test_fresh_page_is_epsilon_times_its_factor():
    m = rber_preset("tlc")
    assert m.rber(0, 0, 0) == pytest.approx(m.epsilon)
    assert m.rber(0, 0, 0, page=0) == pytest.approx(m.epsilon * 1 / (7 / 3))


def test_read_disturb_is_linear_in_reads_when_q_is_one():
    m = rber_preset("tlc").replace(q=1.0)
    a, b, c = m.rber(500, 3600.0, [0, 10_000, 20_000])
    assert c - b == pytest.approx(b - a)


DAY = 86_400.0


def test_tlc_preset_by_hand():
    # Kim et al., FAST 2019, 3D TLC set; time in days, reads of the block; average page
    pe, days, reads = 1000, 2.0, 500
    wear = 1.48e-3 + 3.90e-10 * pe ** 2.05
    retention = 6.28e-5 * (1 + pe) ** 0.14 * days ** 0.54
    disturb = 3.73e-9 * (1 + pe) ** 0.33 * reads ** 1.71
    assert rber_preset("tlc").rber(pe, days * DAY, reads) == pytest.approx(wear + retention + disturb, rel=1e-12)
    # 1.48e-3 + 5.5e-4 (wear) + 2.4e-4 (retention) + 1.5e-3 (reads): about 3.8e-3 per bit
    assert 3.7e-3 < wear + retention + disturb < 3.9e-3


def test_mlc_preset_by_hand():
    # Kim et al., FAST 2019, 3x-nm MLC set; the MSB page senses 2 of the 1-2 references (factor 4/3)
    pe, days, reads = 3000, 30.0, 10_000
    rber = (8.34e-5 + 3.30e-11 * pe ** 1.71 + 5.56e-19 * (1 + pe) ** 2.49 * days ** 3.33
            + 6.26e-13 * (1 + pe) ** 1.76 * reads ** 0.47)
    assert rber_preset("mlc").rber(pe, days * DAY, reads, page=1) == pytest.approx(rber * 4 / 3, rel=1e-12)


def test_log_retention_law():
    m = rber_preset("tlc").replace(retention_law="log", t0_s=3600.0, beta=1e-4, m=0.0)
    assert m.rber(0, 3 * 3600.0, 0) == pytest.approx(1.48e-3 + 1e-4 * math.log(4.0))


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_presets_validate_and_pair_with_an_ecc(name):
    m, ecc = rber_preset(name), ecc_preset(name)
    assert RBERModel(**{f: getattr(m, f) for f in m.__dataclass_fields__}) == m
    assert len(m.refs_per_page) == {"mlc": 2, "tlc": 3, "qlc": 4}[name]
    # a fresh device decodes hard-decision on every page type
    assert np.all(ecc.expected_errors(m.rber(0, 0, 0, np.arange(m.bits_per_cell))) < ecc.t_bits)


def test_denser_cells_have_higher_rber():
    state = (1000, 30 * 86_400.0, 5_000)
    assert rber_preset("mlc").rber(*state) < rber_preset("tlc").rber(*state) < rber_preset("qlc").rber(*state)


@pytest.mark.parametrize("field, value, expect", [
    ("epsilon", -1e-3, r"rber\.epsilon: must be a finite number >= 0 \(got -0\.001\)"),
    ("gamma", math.nan, r"rber\.gamma: must be a finite number >= 0 \(got nan\)"),
    ("alpha", math.inf, r"rber\.alpha: must be a finite number >= 0"),
    ("q", 0, r"rber\.q: must be a finite number > 0"),
    ("t0_s", -5, r"rber\.t0_s: must be a finite number >= 0"),
    ("cell", "SLC", r"rber\.cell: must be one of \('MLC', 'TLC', 'QLC'\) \(got 'SLC'\)"),
    ("retention_law", "exp", r"rber\.retention_law: must be one of \('log', 'power'\) \(got 'exp'\)"),
    ("n", -0.5, r"rber\.n: must be a finite number >= 0"),
    ("refs_per_page", (1, 2), r"rber\.refs_per_page: must hold one entry per page type of a TLC cell \(3\)"),
])
def test_bad_model_parameters_name_the_field(field, value, expect):
    with pytest.raises(ConfigError, match=expect):
        rber_preset("tlc").replace(**{field: value})


@pytest.mark.parametrize("kw, expect", [
    (dict(pe=-1), r"pe: must be finite and >= 0 \(P/E cycles\) \(got -1\.0\)"),
    (dict(retention_s=math.nan), r"retention_s: must be finite and >= 0 \(seconds\)"),
    (dict(reads=[0, -3]), r"reads: must be finite and >= 0 \(reads\)"),
    (dict(page=3), r"rber\.page: must be page-type indices in 0\.\.2"),
    (dict(page=1.5), r"rber\.page: must be page-type indices"),
])
def test_bad_states_name_the_argument(kw, expect):
    args = dict(pe=0, retention_s=0, reads=0) | kw
    with pytest.raises(ConfigError, match=expect):
        rber_preset("tlc").rber(**args)


def test_unknown_preset_lists_the_choices():
    with pytest.raises(ConfigError, match=r"reliability\.rber_preset: must be one of \('mlc', 'tlc', 'qlc'\) "
                                          r"\(got 'slc'\)"):
        rber_preset("slc")
    with pytest.raises(ConfigError, match=r"reliability\.ecc_preset"):
        ecc_preset(None)


def test_initial_wear_is_seeded_and_clipped():
    a = draw_initial_pe(10_000, 1500, 300, seed=7)
    assert a.dtype == np.int64 and a.shape == (10_000,)
    assert np.array_equal(a, draw_initial_pe(10_000, 1500, 300, seed=7))
    assert not np.array_equal(a, draw_initial_pe(10_000, 1500, 300, seed=8))
    assert abs(a.mean() - 1500) < 15 and abs(a.std() - 300) < 15
    low = draw_initial_pe(10_000, 100, 300, seed=1, max_pe=400)
    assert low.min() == 0 and low.max() == 400
    assert np.array_equal(draw_initial_pe(5, 42.4), np.full(5, 42))


@pytest.mark.parametrize("kw, expect", [
    (dict(n_blocks=0), r"wear\.n_blocks: must be a positive integer \(got 0\)"),
    (dict(mean_pe=-1), r"wear\.mean_pe: must be a finite number >= 0"),
    (dict(sd_pe=math.nan), r"wear\.sd_pe: must be a finite number >= 0 \(got nan\)"),
    (dict(seed=-2), r"wear\.seed: must be a non-negative integer"),
    (dict(max_pe=-1), r"wear\.max_pe"),
])
def test_bad_wear_parameters_name_the_field(kw, expect):
    args = dict(n_blocks=10, mean_pe=100, sd_pe=10) | kw
    with pytest.raises(ConfigError, match=expect):
        draw_initial_pe(**args)
