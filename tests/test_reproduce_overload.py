"""Overloaded runs named in a claims table (:mod:`flashrr.reproduce.overload`)."""
import pandas as pd

from flashrr.reproduce import overload
from flashrr.reproduce.claims import CLAIM_COLUMNS, claims_markdown, value_row


def _runs():
    return pd.DataFrame({"group": ["main"] * 5 + ["flash"],
                         "trace": ["a", "a", "b", "b", "b", "a"],
                         "scheme": ["Baseline", "Cocktail (GC separate)", "Cocktail", "Baseline", "Baseline", "HotR"],
                         "die_idle_fraction_min": [0.5, 0.01, 0.051, 0.049, 0.3, 0.02]})


def test_overloaded_runs_are_exactly_those_over_95_percent_busy():
    over = overload.overloaded_runs({g: d.drop(columns="group") for g, d in _runs().groupby("group")})
    got = {(r.group, r.trace, r.scheme) for r in over.itertuples()}
    assert got == {("main", "a", "Cocktail (GC separate)"), ("main", "b", "Baseline"), ("flash", "a", "HotR")}
    assert over.set_index("scheme").loc["Baseline", "busy"] == 1 - 0.049  # the busier of b's two Baseline seeds


def test_a_longer_scheme_name_is_not_read_as_the_shorter_one():
    assert overload.schemes_named("RR count, Cocktail vs Baseline", ["Cocktail", "Cocktail (GC separate)",
                                                                      "Baseline"]) == {"Cocktail", "Baseline"}
    assert overload.schemes_named("RR count, Cocktail (GC separate) vs IPR",
                                  ["Cocktail", "Cocktail (GC separate)"]) == {"Cocktail (GC separate)"}
    assert overload.schemes_named("Page-8 vs Page", ["Page", "Page-8"]) == {"Page-8", "Page"}


def test_claims_name_the_overloaded_runs_of_their_schemes_and_keep_their_values():
    rows = [value_row("fig10", "RR count, Cocktail vs Baseline", "rr_count", "mean", -40.0, -30.0, "% change"),
            value_row("fig10", "RR count, Cocktail (GC separate) vs IPR", "rr_count", "mean", -40.0, -3.0, "% change"),
            value_row("fig09", "HotR speedup, QLC vs SLC", "speedup", "mean", float("nan"), 2.0, "x"),
            value_row("fig05", "HotR response time vs Baseline", "rt", "mean", -20.0, -5.0, "% change")]
    table = pd.DataFrame(rows, columns=CLAIM_COLUMNS)
    over = overload.overloaded_runs({g: d.drop(columns="group") for g, d in _runs().groupby("group")})
    marked = overload.mark_claims(table, over, {"fig10": ("main",), "fig09": ("main", "flash"), "fig05": ("main",)})
    pd.testing.assert_frame_equal(marked[CLAIM_COLUMNS], table)
    assert marked[overload.COLUMN].tolist() == ["Baseline on b", "Cocktail (GC separate) on a", "HotR on a (flash)",
                                                "Baseline on b"]
    md = claims_markdown(marked, ["# t", ""])
    assert "overloaded runs |" in md and "| Cocktail (GC separate) on a |" in md
