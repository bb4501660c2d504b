"""The shared claims-row helpers of flashrr.reproduce.claims: value_row's holds and
magnitude, change_row, reduce_changes and the claims.md header, against hand values."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from flashrr.reproduce.claims import CLAIM_COLUMNS, change_row, claims_head, reduce_changes, value_row


def row(**kw):
    base = dict(figure="fig1", claim="c", metric="m", aggregate="mean", paper=10.0, value=5.0, unit="%")
    base.update(kw)
    return value_row(base.pop("figure"), base.pop("claim"), base.pop("metric"), base.pop("aggregate"),
                     base.pop("paper"), base.pop("value"), base.pop("unit"), **base)


def test_a_value_row_has_the_claims_columns_and_the_values_given():
    r = row(paper=0.043, value=0.03, expected="below", n=4)
    assert list(r) == CLAIM_COLUMNS
    assert (r["paper_value"], r["flashrr_value"], r["unit"], r["expected"], r["n_traces"]) == (0.043, 0.03, "%",
                                                                                            "below", 4)


@pytest.mark.parametrize("expected, paper, value, want", [
    ("below", 0.043, 0.03, True),    # 0.03 < 0.043
    ("below", 0.043, 0.05, False),
    ("zero", 0.0, 0.0, True),
    ("zero", 0.0, 3.0, False),
    ("higher", 33.0, 20.0, True),
    ("lower", -10.0, 2.0, False),
    ("parity", 0.0, 0.9, True),      # within 1%
    ("parity", 0.0, -1.2, False),
    ("zero", 0.0, math.nan, "n/a"),  # no value: nothing to check
    ("-", 52.0, 40.0, "-"),          # a value reported without a direction
])
def test_holds_follows_the_expected_rule_unless_given(expected, paper, value, want):
    r = row(expected=expected, paper=paper, value=value)
    assert r["holds"] == want and type(r["holds"]) is type(want)
    assert r["magnitude"] == "-"  # not sized: no magnitude, whatever holds says


def test_a_given_holds_wins_over_the_rule():
    assert row(expected="most", value=40.0, ok=False)["holds"] is False
    assert row(expected="below", paper=1.0, value=5.0, ok=True)["holds"] is True  # rule would say False


@pytest.mark.parametrize("expected, paper, value, holds, magnitude", [
    ("higher", 33.0, 20.0, True, "similar"),   # 20 / 33 = 0.61: half to twice
    ("higher", 33.0, 10.0, True, "weaker"),    # 0.30 < 0.5
    ("higher", 33.0, 70.0, True, "stronger"),  # 2.12 > 2
    ("higher", 33.0, -5.0, False, "opposite"),
    ("lower", -14.5, -5.0, True, "weaker"),    # 0.34
    ("lower", np.nan, -5.0, True, "-"),        # the paper gives no size
    ("lower", np.nan, 5.0, False, "opposite"),
])
def test_a_sized_row_compares_its_size_with_the_papers(expected, paper, value, holds, magnitude):
    r = row(expected=expected, paper=paper, value=value, sized=True)
    assert (r["holds"], r["magnitude"]) == (holds, magnitude)


def test_the_count_column_can_be_renamed():
    r = row(n=1536, n_key="n_superblocks")
    assert r["n_superblocks"] == 1536 and "n_traces" not in r


def test_change_row_is_a_sized_percent_change():
    r = change_row("fig05", "RR count", "rr_count", "mean over traces", -14.5, -20.0, "lower", 2)
    # -20 / -14.5 = 1.38: similar
    assert (r["unit"], r["holds"], r["magnitude"], r["n_traces"]) == ("% change", True, "similar", 2)
    assert change_row("t", "c", "m", "a", -10.0, 1.0, "lower", 3, n_key="n_superblocks")["n_superblocks"] == 3


def test_reduce_changes_by_hand():
    s = pd.Series([-20.0, 10.0, 4.0])
    assert reduce_changes(s) == pytest.approx(-2.0)  # (-20 + 10 + 4) / 3
    assert (reduce_changes(s, "min"), reduce_changes(s, "max")) == (-20.0, 10.0)
    assert math.isnan(reduce_changes(pd.Series(dtype=float), "min"))


def test_claims_head_lines():
    assert claims_head("X (2024)", None, "how") == ["# X (2024): paper claims vs flashrr", "", "how", ""]
    assert claims_head("X", ["a", "b"], "how") == ["# X: paper claims vs flashrr", "", "a", "", "b", "", "how", ""]
    assert claims_head("X", "a", "how")[2:4] == ["a", ""]


@given(paper=st.floats(-100, 100).filter(lambda p: abs(p) > 1e-3), value=st.floats(-1000, 1000))
def test_sized_magnitude_against_a_direct_reading_of_the_rule(paper, value):
    """The direction the paper's sign gives; a change in that direction is weaker below
    half the paper's size, stronger above twice, similar between."""
    expected = "lower" if paper < 0 else "higher"
    r = row(expected=expected, paper=paper, value=value, sized=True)
    right_way = value < 0 if paper < 0 else value > 0
    size = abs(value) / abs(paper)
    want = "opposite" if not right_way else "weaker" if size < 0.5 else "stronger" if size > 2 else "similar"
    assert (r["holds"], r["magnitude"]) == (right_way, want)
