"""Every paper figure keeps its text on the canvas.

Each paper's real figure functions are drawn through :meth:`Figure.make` (so the
suptitle and :func:`flashrr.reproduce.plots.save` take part, as in a reproduction)
from small synthetic runs: one row per trace x scheme x device with every metric
column the figures read, drawn at random.  At save time each figure is drawn with
the Agg renderer and every visible text artist (axis labels, tick labels, titles,
legend texts, the suptitle, bar annotations) must lie inside the figure's bbox.
The Superblock PV paper runs on its own tiny model (it needs no sweep).
"""
from __future__ import annotations

import matplotlib
import matplotlib.figure
import matplotlib.text
from matplotlib.layout_engine import ConstrainedLayoutEngine
import numpy as np
import pandas as pd
import pytest

from flashrr.papers.cocktail import figures as cocktail_figures
from flashrr.papers.cocktail import plan as cocktail
from flashrr.papers.hotr import figures as hotr_figures
from flashrr.papers.hotr import plan as hotr
from flashrr.papers.phasedrr import figures as phasedrr_figures
from flashrr.papers.phasedrr import plan as phasedrr
from flashrr.papers.shuffler import figures as shuffler_figures
from flashrr.papers.shuffler import plan as shuffler
from flashrr.papers.superblock_pv import figures as superblock_pv_figures
from flashrr.papers.superblock_pv import plan as superblock_pv
from flashrr.reproduce import plots

TOL_PX = 1.0
# Metric columns the figures read and the size of a typical value (drawn uniformly in 0.5x..2x).
METRICS = {
    "rr_count": 300, "waf": 1.5, "erase_count": 2_000, "read_latency_mean_ns": 250_000,
    "write_latency_mean_ns": 900_000, "io_latency_mean_ns": 400_000, "user_flash_transactions": 2e6,
    "policy_time_s": 0.02, "shuffle_full": 10, "shuffle_partial": 10, "shuffle_none": 10, "reads": 1e6,
    "writes": 2e5, "rr_episodes": 400, "rr_page_moves_all": 30_000, "erases_gc": 1_500, "erases_rr": 500,
    "ws_htt": 1_000, "ws_htr": 1_000, "ws_tpd": 1_000, "ws_peak_bytes": 60_000, "ws_classify_scans": 5e5,
    "gc_count": 1_200, "pages_moved_per_erase": 40, "retry_time_ns": 1e9, "requests": 1e6, "cost": 1.2,
    "policy_metadata_bytes": 1.6e7, "io_latency_p99_ns": 2e6, "io_latency_p9999_ns": 8e6, "blocked_reads": 3e5,
    "redirected_reads": 1e5,
}
RATIOS = ("cache_read_hit_ratio", "cache_write_hit_ratio", "blocked_share", "redirected_share",
          "die_idle_fraction_mean")


def _rows(rng, group, traces, schemes, devices=("d",), **fixed):
    """One row per trace x scheme x device: ``scheme`` is (label, extra columns)."""
    rows = []
    for t in traces:
        for label, extra in schemes:
            for d in devices:
                r = {k: v * rng.uniform(0.5, 2.0) for k, v in METRICS.items()}
                r.update({k: rng.uniform(0.05, 0.95) for k in RATIOS})
                r.update({f"{c}_hot": r[c] * rng.uniform(0.3, 1.0) for c in ("ws_htt", "ws_htr", "ws_tpd")})
                r.update(trace=t, scheme=label, device=d, group=group, cache_pages=8192, repeat=2,
                         key=f"{group}|{t}|{label}|{d}", **fixed, **extra)
                rows.append(r)
    return rows


def _artifacts(rng):
    """Kept artifacts of one run: 60 RR events of 4 component blocks, an I/O latency histogram."""
    from flashrr._core.layout import HIST_BUCKETS, hist_bucket

    hist = np.zeros(HIST_BUCKETS, dtype=np.int64)
    for ns in rng.lognormal(np.log(3e5), 1.0, 5_000).astype(np.int64):
        hist[hist_bucket(int(ns))] += 1
    events = pd.DataFrame({"block_reads": [list(rng.integers(100, 5_000, 4)) for _ in range(60)]})
    return {"rr_events": events, "hist": {"io": hist}}


def _with_artifacts(runs, rng):
    cache: dict = {}
    runs.artifacts = lambda key: cache.setdefault(key, _artifacts(rng))
    return runs


def _named(schemes: dict, key="policy_name"):
    return [(label, {key: name}) for name, label in schemes.items()]


def shuffler_runs(rng):
    plan = shuffler.Plan(traces=("ali0", "lun1", "gen1"))
    all_ = _named(shuffler.SCHEMES)
    sens = [(f"dF={f:g}, dP={p:g}", {"policy_name": "shuffler", "param_delta_f": f, "param_delta_p": p})
            for f, p in [(f, 0.1) for f in plan.delta_f_values] + [(0.3, p) for p in plan.delta_p_values]]
    frames = {
        "main": pd.DataFrame(_rows(rng, "main", plan.traces, all_, ("shuffler",))),
        "block": pd.DataFrame(_rows(rng, "block", plan.traces, [("Block", {"policy_name": "baseline"})],
                                    ("shuffler-block",))),
        "sens": pd.DataFrame(_rows(rng, "sens", plan.traces, sens, ("shuffler",))),
        "sb32": pd.DataFrame(_rows(rng, "sb32", plan.traces, all_, ("shuffler-32",))),
        "cache": pd.DataFrame(_rows(rng, "cache", plan.traces, all_,
                                    [f"shuffler-{m}MB" for m in plan.cache_sizes_mib])),
    }
    return _with_artifacts(shuffler.Runs(frames, None, plan), rng)


def phasedrr_runs(rng):
    plan = phasedrr.Plan(traces=("ws_1", "usr_0", "ali"))
    dev = (phasedrr.DEVICE,)
    free = [(s + phasedrr.WITHOUT_OVERHEAD, {}) for s in ("RL-RR", "Reallocation")]
    frames = {
        "main": pd.DataFrame(_rows(rng, "main", plan.traces, _named(phasedrr.SCHEMES), dev)),
        "sens": pd.DataFrame(_rows(rng, "sens", plan.traces, [(plan.delta_label(d), {}) for d in plan.delta_values],
                                   dev)),
        "counters": pd.DataFrame(_rows(rng, "counters", ("ws_1", "ali"), free, dev)),
    }
    return phasedrr.Runs(frames, None, plan)


def cocktail_runs(rng, monkeypatch):
    plan = cocktail.Plan(traces=("alibaba_206", "nexus5", "msr_web"), n_requests=300)
    labels = [cocktail.label(t) for t in plan.traces]
    frames = {
        "main": pd.DataFrame(_rows(rng, "main", labels, [(s, {}) for s in cocktail_figures.BARS])),
        "ratio": pd.DataFrame(_rows(rng, "ratio", labels, [(f"ratio={r:g}", {}) for r in plan.ratios])),
        "share": pd.DataFrame(_rows(rng, "share", labels, [(f"n={n}", {}) for n in plan.shares])),
    }
    # Fig. 5's snapshot comes from a simulation of its own: a synthetic plane of 256 blocks instead
    snapshot = pd.DataFrame({"block_reads": rng.integers(0, 12_000, 256), "valid_pages": rng.integers(0, 64, 256),
                             "rr_count": 17})
    monkeypatch.setattr(cocktail_figures, "last_rr_snapshot", lambda plan, out=None: snapshot)
    return _with_artifacts(cocktail.CocktailRuns(frames, None, plan), rng)


def hotr_runs(rng):
    plan = hotr.Plan(traces=("fin2", "msr_hm", "hpc_28"), n_requests=300)
    schemes = _named(hotr.SCHEMES)
    frames = {
        "main": pd.DataFrame(_rows(rng, "main", plan.traces, schemes, flash="tlc")),
        "flash": pd.concat([pd.DataFrame(_rows(rng, "flash", plan.traces, schemes[:1] + schemes[-1:], flash=f))
                            for f in hotr.FLASH if f != "tlc"], ignore_index=True),
        "optimal": pd.DataFrame(_rows(rng, "optimal", plan.traces, [("Optimal", {})], flash="tlc")),
    }
    frames["main"].loc[frames["main"]["scheme"] == "TTFlash", "io_latency_mean_ns"] *= 4  # off the scale: clipped bars
    runs = hotr.Runs(frames, "store", plan, scales={t: 0.5 for t in plan.traces})
    return _with_artifacts(runs, rng)


def pv_runs(rng):
    return superblock_pv.run(superblock_pv.Plan(dies=2, blocks=40, pe_points=(0, 3000), seed=1))


PAPERS = {
    "shuffler": (shuffler_figures.FIGURES, shuffler_runs),
    "phasedrr": (phasedrr_figures.FIGURES, phasedrr_runs),
    "cocktail": (cocktail_figures.FIGURES, cocktail_runs),
    "hotr": (hotr_figures.FIGURES, hotr_runs),
    "superblock-pv": (superblock_pv_figures.FIGURES, pv_runs),
}


def texts_off_canvas(fig) -> list:
    """``(text, window extent)`` of every non-empty text artist the Agg renderer
    draws for ``fig`` (tick labels outside the view limits are not drawn, so not
    counted) whose extent leaves the figure's bbox by more than :data:`TOL_PX` px."""
    drawn = []
    draw = matplotlib.text.Text.draw

    def recording_draw(self, renderer):
        draw(self, renderer)
        if self.get_visible() and self.get_text().strip():
            drawn.append(self)

    matplotlib.text.Text.draw = recording_draw
    try:
        fig.canvas.draw()
    finally:
        matplotlib.text.Text.draw = draw
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    off = []
    for t in drawn:
        e = t.get_window_extent(renderer)
        if e.x0 < box.x0 - TOL_PX or e.y0 < box.y0 - TOL_PX or e.x1 > box.x1 + TOL_PX or e.y1 > box.y1 + TOL_PX:
            off.append((t.get_text(), [round(float(v), 1) for v in e.extents]))
    return off


def _ticks_and_labels(fig) -> int:
    """How many axis labels and tick labels ``fig`` shows (the check must see some)."""
    n = 0
    for ax in fig.axes:
        n += sum(bool(t.get_text()) for t in ax.get_xticklabels() + ax.get_yticklabels())
        n += bool(ax.get_ylabel()) + bool(ax.get_xlabel())
    return n


@pytest.fixture
def checked_saves(monkeypatch):
    """Check every figure where :func:`plots.save` writes it (after its layout, as saved);
    write nothing.  Yields ``{stem: (layout engine, texts off the canvas, labels seen)}``."""
    seen: dict = {}

    def check_instead_of_writing(fig, fname, *args, **kwargs):
        stem = str(fname).rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if stem not in seen:
            seen[stem] = (fig.get_layout_engine(), texts_off_canvas(fig), _ticks_and_labels(fig))

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", check_instead_of_writing)
    return seen


@pytest.mark.parametrize("paper", list(PAPERS))
def test_every_figure_keeps_its_text_on_the_canvas(paper, tmp_path, checked_saves, monkeypatch):
    figures, make_runs = PAPERS[paper]
    rng = np.random.default_rng(14)
    runs = make_runs(rng, monkeypatch) if paper == "cocktail" else make_runs(rng)
    for f in figures.values():
        f.make(runs, tmp_path)
    assert set(checked_saves) == {f.stem for f in figures.values()}
    for stem, (engine, off, labels) in checked_saves.items():
        assert labels > 0, stem  # the figure has labels to check
        assert off == [], f"{stem}: text off the canvas {off}"
        assert isinstance(engine, ConstrainedLayoutEngine), (stem, engine)


def test_the_check_sees_a_clipped_label():
    """A y label pushed off the left edge is reported; the same figure in constrained layout is not."""
    fig, axes = plots.figure(width_in=3.0, height_in=2.0, layout=None)
    fig.subplots_adjust(left=0.0)
    axes[0, 0].set_ylabel("read latency (norm.)")
    assert "read latency (norm.)" in [text for text, _ in texts_off_canvas(fig)]
    fig2, axes2 = plots.figure(width_in=3.0, height_in=2.0)
    axes2[0, 0].set_ylabel("read latency (norm.)")
    assert texts_off_canvas(fig2) == []
    import matplotlib.pyplot as plt

    plt.close(fig)
    plt.close(fig2)
