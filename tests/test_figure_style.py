"""What the paper figures show at a glance: one colour per scheme, log axes for
values spanning more than 20x, overloaded runs hatched, the paper's values drawn
beside the bars, and every figure's CSV holding the values it plots.

The figures are drawn from the synthetic runs of ``test_figure_layout`` (random
metric values, no simulation); the checks read the drawn artists back.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex

from flashrr.papers.cocktail import claims as cocktail_claims
from flashrr.papers.cocktail import plan as cocktail
from flashrr.papers.phasedrr import plan as phasedrr
from flashrr.papers.shuffler import plan as shuffler
from flashrr.papers.superblock_pv import tables as pv_tables
from flashrr.pv.calibrate import CONFIG_BY_LABEL
from flashrr.reproduce import palette, plots
from flashrr.reproduce.figures import overload_flags, paper_marks
from test_figure_layout import PAPERS

PAPER_SCHEMES = (list(cocktail.SCHEMES.values()) + list(shuffler.SCHEMES.values()) + list(phasedrr.SCHEMES.values())
                 + ["Rails", "TTFlash", "HotR", "Optimal", "Block", "Superblock"] + list(CONFIG_BY_LABEL)
                 + list(pv_tables.TABLE5))


def test_every_scheme_has_a_colour_and_no_two_share_one():
    colours = {s: palette.scheme_colour(s) for s in PAPER_SCHEMES}
    assert None not in colours.values(), [s for s, c in colours.items() if c is None]
    others = {s: c for s, c in colours.items() if s not in palette.BASELINES}
    assert len(set(others.values())) == len(others)
    assert palette.BASELINE_GREY not in others.values()
    assert not set(others.values()) & set(palette.SERIES_COLOURS)
    assert {colours[b] for b in palette.BASELINES} == {palette.BASELINE_GREY}


def test_compare_policy_names_and_variants_take_the_scheme_colour():
    assert palette.colour("rl-rr") == palette.colour("RL-RR")
    assert palette.colour("baseline") == palette.BASELINE_GREY
    assert palette.colour("RL-RR" + palette.VARIANTS[0]) == palette.colour("RL-RR")
    assert palette.colour("RL-RR" + palette.VARIANTS[1]) not in (palette.colour("RL-RR"), None)
    assert palette.scheme_colour("fin2") is None  # a trace is not a scheme


def _bar_colours(fig) -> dict:
    """``{legend label: face colour}`` of every labelled bar container of ``fig``."""
    out: dict = {}
    for ax in fig.axes:
        for c in ax.containers:
            label = c.get_label()
            if label and not label.startswith("_") and len(c.patches):
                out.setdefault(label, set()).add(to_hex(c.patches[0].get_facecolor()))
    return out


@pytest.mark.parametrize("paper", list(PAPERS))
def test_every_figure_draws_each_scheme_in_its_palette_colour(paper, monkeypatch):
    figures, make_runs = PAPERS[paper]
    rng = np.random.default_rng(3)
    runs = make_runs(rng, monkeypatch) if paper == "cocktail" else make_runs(rng)
    for f in figures.values():
        fig, data = f.fn(runs)
        for label, colours in _bar_colours(fig).items():
            if palette.scheme_colour(label) is not None:
                assert colours == {palette.scheme_colour(label)}, (f.stem, label, colours)
        assert len(data), f.stem
        plt.close(fig)


def _normalized_bars(values: dict, **kw):
    fig, axes = plots.figure()
    table = pd.DataFrame(values, index=["t1", "t2"])
    plots.normalized_bars(axes[0, 0], table, "Baseline", **kw)
    return fig, axes[0, 0]


@pytest.mark.parametrize("top, log", [(19.9, False), (20.0, False), (20.1, True), (4500.0, True)])
def test_bars_go_on_a_log_axis_exactly_when_they_span_more_than_20x(top, log):
    fig, ax = _normalized_bars({"Baseline": [1.0, 1.0], "Cocktail": [0.5, 0.5 * top]})
    assert (ax.get_yscale() == "log") is log
    assert plots.wide_span([0.5, 0.5 * top]) is log
    if log:  # every bar stays inside the view
        lo, hi = ax.get_ylim()
        assert lo < 0.5 and hi > 0.5 * top
    plt.close(fig)


def test_zero_and_missing_do_not_count_in_the_span():
    assert not plots.wide_span([0.0, 1.0, 5.0, np.nan])
    assert plots.wide_span([0.0, 1.0, 21.0])


@pytest.mark.parametrize("idle, over", [(0.049, True), (0.05, False), (0.2, False), (0.0, True), (np.nan, False)])
def test_a_run_is_overloaded_when_its_busiest_die_is_busy_more_than_95_percent(idle, over):
    assert bool(plots.overloaded([idle])[0]) is over


def test_overload_flags_mark_exactly_the_cells_with_an_overloaded_run():
    df = pd.DataFrame({"trace": ["a", "a", "b", "b", "b"], "scheme": ["X", "Y", "X", "Y", "Y"],
                       "die_idle_fraction_min": [0.5, 0.01, 0.06, 0.9, 0.04]})  # b/Y: one of two seeds
    like = pd.DataFrame(1.0, index=["a", "b"], columns=["X", "Y"])
    flags = overload_flags(df, like)
    assert flags.to_dict() == {"X": {"a": False, "b": False}, "Y": {"a": True, "b": True}}


def test_overloaded_bars_are_hatched_and_named():
    over = pd.DataFrame({"Baseline": [False, False], "Cocktail": [False, True]}, index=["t1", "t2"])
    fig, ax = _normalized_bars({"Baseline": [1.0, 1.0], "Cocktail": [0.8, 3.0]}, overload=over)
    hatched = [p for p in ax.patches if p.get_hatch() == plots.OVERLOAD_HATCH]
    assert len(hatched) == 1 and hatched[0].get_height() == pytest.approx(3.0)
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("overloaded") == 1
    assert plots.OVERLOAD_NOTE in [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(fig)


def test_paper_values_are_drawn_beside_the_bars():
    marks = paper_marks(cocktail_claims.CLAIMS, "fig10", "Baseline", "rr_count")
    assert marks["Cocktail"] == pytest.approx(1 - 0.4077)  # Cocktail vs Baseline, the paper's -40.77%
    fig, ax = _normalized_bars({"Baseline": [1.0, 1.0], "Cocktail": [0.7, 0.6]}, paper=marks)
    diamonds = [ln for ln in ax.lines if ln.get_marker() == "D"]
    assert [float(ln.get_ydata()[0]) for ln in diamonds] == [pytest.approx(marks["Cocktail"])]
    assert to_hex(diamonds[0].get_color()) == palette.colour("Cocktail")
    assert "paper\n(mean)" in [t.get_text() for t in ax.get_xticklabels()]
    plt.close(fig)


def _overloaded_cocktail_runs(rng, monkeypatch):
    runs = PAPERS["cocktail"][1](rng, monkeypatch)
    main = runs.frames["main"]
    main["die_idle_fraction_min"] = 0.5
    hit = (main["scheme"] == cocktail.SCHEMES["cocktail-separate"]) & (main["trace"] == "nexus5")
    main.loc[hit, "die_idle_fraction_min"] = 0.01
    main.loc[hit, "io_latency_mean_ns"] *= 4500  # the overloaded run is far off the others' scale
    return runs


def test_figure_csv_has_the_plotted_values_and_marks_the_overloaded_run(tmp_path, monkeypatch):
    from flashrr.papers.cocktail import figures

    runs = _overloaded_cocktail_runs(np.random.default_rng(5), monkeypatch)
    fig, data = figures.fig11(runs)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    heights = sorted(p.get_height() for c in ax.containers if c.get_label() in figures.BARS for p in c.patches)
    plotted = data[data["metric"] == "io_latency_mean_ns"]
    assert heights == pytest.approx(sorted(plotted["normalized"]))
    over = plotted[plotted["overloaded"]]
    assert list(zip(over["trace"], over["scheme"])) == [("nexus5", cocktail.SCHEMES["cocktail-separate"])]
    assert plotted["paper_normalized"].dropna().round(4).unique().tolist() == [round(1 - 0.1082, 4)]
    plt.close(fig)


def _compare_frame(policies, rr_counts) -> pd.DataFrame:
    """A frame shaped like :func:`flashrr.compare.compare`'s (no simulation: made-up values)."""
    from flashrr.compare import METRIC_KEYS

    rows = [{"label": p, "policy": p, "device": "dev", "trace": "t", "repeat": 1, "requests": 100,
             **{k: 10.0 + i for k in METRIC_KEYS}, "rr_count": rr}
            for i, (p, rr) in enumerate(zip(policies, rr_counts))]
    return pd.DataFrame(rows).set_index("label")


def test_compare_bars_take_scheme_colours_a_log_axis_past_20x_and_hatch_overload():
    from flashrr.compare import plot

    df = _compare_frame(["baseline", "cocktail", "hotr"], [10.0, 5.0, 3000.0])
    df["die_idle_fraction_min"] = [0.5, 0.5, 0.01]
    fig = plot(df)
    rr = next(ax for ax in fig.axes if ax.get_title() and "RR" in ax.get_title() and ax.patches)
    colours = [to_hex(p.get_facecolor()) for p in rr.patches if p.get_fill()]
    assert colours == [palette.colour(p) for p in df["policy"]]
    assert rr.get_yscale() == "log"
    hatched = [p for p in rr.patches if p.get_hatch() == plots.OVERLOAD_HATCH]
    assert len(hatched) == 1 and hatched[0].get_height() == pytest.approx(3000.0)
    flat = [ax for ax in fig.axes if ax.patches and ax is not rr]
    assert all(ax.get_yscale() == "linear" for ax in flat)  # the other metrics span 10..12
    plt.close(fig)


def test_cross_paper_and_pairs_points_take_scheme_colours():
    from flashrr.compare import cross_paper_figure, pairs_figure

    df = _compare_frame(["baseline", "shuffler", "phasedrr", "cocktail"], [10.0, 8.0, 6.0, 4.0])
    fig = cross_paper_figure(df)
    points = [to_hex(c.get_facecolor()[0]) for c in fig.axes[0].collections]
    assert points == [palette.colour(p) for p in df["policy"]]
    plt.close(fig)
    pairs = _compare_frame(["baseline", "shuffler", "cocktail", "shuffler+cocktail"], [10.0, 8.0, 4.0, 3.0])
    fig = pairs_figure(pairs)
    singles = fig.axes[0].collections[0]
    assert [to_hex(c) for c in singles.get_facecolor()] == [palette.colour("shuffler"), palette.colour("cocktail")]
    assert to_hex(fig.axes[0].collections[2].get_facecolor()[0]) == palette.BASELINE_GREY
    plt.close(fig)
