"""Definitions of the PV paper: extra latency, signatures (Fig. 9), distances."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from flashrr.pv import features as F

# Fig. 9: block 733, layers 0, 1, 94 and 95 (µs; columns STR-0..3).
FIG9_LAYERS = np.array([
    [1917.0, 1898.6, 1898.6, 1898.6],
    [1898.6, 1898.6, 1898.6, 1898.6],
    [1579.1, 1646.6, 1579.1, 1579.1],
    [1898.6, 1910.8, 1880.1, 1910.8],
])


def test_fig9_eigen_bits_and_string_ranks():
    bits = F.str_med_bits(FIG9_LAYERS)
    assert "".join(map(str, bits)) == "1001" "0011" "0101" "0101"
    ranks = F.str_rank(FIG9_LAYERS).reshape(4, 4)
    assert ranks.tolist() == [[3, 0, 1, 2], [0, 1, 2, 3], [0, 3, 1, 2], [1, 2, 0, 3]]


def test_fig9_values_lie_on_the_program_grid():
    # the six distinct values are 1579.1 + k * 6.1435 for integer k (within 0.03 steps)
    k = (np.unique(FIG9_LAYERS) - 1579.1) / 6.1435
    assert np.abs(k - np.round(k)).max() < 0.03


def test_extra_program_one_differing_word_line():
    lwl = np.full((4, 384), 1665.0)
    assert F.extra_program(lwl) == 0.0
    lwl[2, 100] += 10.0
    assert F.extra_program(lwl) == pytest.approx(10.0)


def test_extra_program_paper_example_34us_per_lwl():
    # §VI-B: 384 LWLs with 34 µs between the fastest and the slowest block -> 13,056 µs
    lwl = np.full((4, 384), 1700.0)
    lwl[0] -= 34.0
    lwl[1] -= 10.0
    assert F.extra_program(lwl) == pytest.approx(384 * 34)


def test_extra_erase_is_max_minus_min():
    assert F.extra_erase(np.array([3500.0, 3541.7, 3510.0, 3520.0])) == pytest.approx(41.7)


def test_string_swap_distances():
    rng = np.random.default_rng(1)
    a = rng.permutation(96 * 4).astype(float).reshape(96, 4)  # distinct latencies
    b = a[:, [1, 0, 2, 3]]
    assert F.hamming(F.str_rank(a), F.str_rank(b)) == 2 * 96
    # STR-MED bits change on exactly the layers where one of strings 0, 1 is in the top two
    r = F.str_rank(a).reshape(96, 4)
    expected = 2 * int(((r[:, 0] < 2) != (r[:, 1] < 2)).sum())
    assert F.popcount_distance(F.pack(F.str_med_bits(a)), F.pack(F.str_med_bits(b))) == expected
    # LWL and PWL ranks against a rank computed by sorting (independent reference)
    for fn, ref in ((F.lwl_rank, lambda x: np.argsort(np.argsort(x.ravel(), kind="stable"), kind="stable")),
                    (F.pwl_rank, lambda x: np.argsort(np.argsort(x, axis=0, kind="stable"), axis=0,
                                                      kind="stable").ravel())):
        assert F.hamming(fn(a), fn(b)) == int((ref(a) != ref(b)).sum())
    assert F.hamming(F.str_rank(a), F.str_rank(a)) == 0


def test_rank_tie_rules():
    x = np.array([5.0, 3.0, 5.0, 1.0])
    assert F.rank(x, tie="ordinal").tolist() == [2, 1, 3, 0]
    assert F.rank(x, tie="min").tolist() == [2, 1, 2, 0]
    assert F.rank(x, tie="dense").tolist() == [2, 1, 2, 0]
    assert F.rank(np.array([2.0, 2.0, 7.0, 9.0, 9.0]), tie="dense").tolist() == [0, 0, 1, 2, 2]
    assert F.rank(np.array([2.0, 2.0, 7.0, 9.0, 9.0]), tie="min").tolist() == [0, 0, 2, 3, 3]
    with pytest.raises(ValueError, match="tie"):
        F.rank(x, tie="max")


@given(st.lists(st.integers(0, 5), min_size=8, max_size=8).map(lambda v: np.array(v, float).reshape(2, 4)))
def test_every_eigen_nibble_has_two_zeros(layers):
    bits = F.str_med_bits(layers).reshape(2, 4)
    assert (bits.sum(axis=1) == 2).all()
    # the zeros sit on the two fastest strings
    for row, b in zip(layers, bits):
        assert row[b == 0].max() <= row[b == 1].min()


def test_above_mean_rule():
    x = np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    assert F.str_med_above_mean_bits(x).tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
