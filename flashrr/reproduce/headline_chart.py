"""A small chart of one paper's headline claims, the paper's change beside
flashrr's, for the top of the ``reproduce all`` report.

The headline claims (:func:`headline_claims`) are up to :data:`HEADLINES`
claims of the table that state a size (a % change the paper expects lower or
higher, with a finite, non-zero paper value) and have flashrr's value: each
figure's first such claim in table order, then each figure's second, and so on.  The chart draws one pair of
horizontal bars per claim; flashrr's bars beyond :data:`CLIP` times the largest
paper change are cut at that width and print their value.
"""
from __future__ import annotations

import io

import numpy as np
import pandas as pd

from . import palette, plots

HEADLINES = 6
CLIP = 2.5
PAPER_COLOUR = "white"
FLASHRR_COLOUR = palette.SERIES_COLOURS[0]


def headline_claims(table: pd.DataFrame | None, n: int = HEADLINES) -> pd.DataFrame:
    """Up to ``n`` claims of ``table`` with a size and flashrr's value, spread over its
    figures (see the module docstring); columns of :data:`~flashrr.reproduce.claims.CLAIM_COLUMNS`."""
    if table is None or table.empty:
        return pd.DataFrame()
    paper = pd.to_numeric(table["paper_value"], errors="coerce")
    ours = pd.to_numeric(table["flashrr_value"], errors="coerce")
    sized = (table["expected"].isin(["lower", "higher"]) & np.isfinite(paper) & (paper != 0) & np.isfinite(ours)
             & (table["unit"] == "% change"))
    picked = table[sized].assign(paper_value=paper[sized], flashrr_value=ours[sized])
    turn = picked.groupby("figure", sort=False).cumcount()  # each figure's first claim, then its second, ...
    return picked.loc[turn.sort_values(kind="stable").index[:n]].sort_index()


def _short(text: str, width: int = 44) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def headline_figure(claims: pd.DataFrame, title: str):
    """The chart of ``claims`` (:func:`headline_claims`) as a matplotlib figure."""
    n = len(claims)
    fig, axes = plots.figure(width_in=4.6, height_in=0.42 * n + 0.9)
    ax = axes[0, 0]
    y = np.arange(n)[::-1]
    paper = claims["paper_value"].to_numpy(float)
    ours = claims["flashrr_value"].to_numpy(float)
    limit = CLIP * max(float(np.abs(paper).max()), 10.0)
    shown = np.clip(ours, -limit, limit)
    ax.barh(y + 0.2, paper, 0.4, color=PAPER_COLOUR, edgecolor="black", linewidth=0.6, label="paper")
    ax.barh(y - 0.2, shown, 0.4, color=FLASHRR_COLOUR, edgecolor="black", linewidth=0.4, label="flashrr")
    for yi, v, s in zip(y, ours, shown):
        if v != s:
            ax.text(s, yi - 0.2, f" {v:+.3g}% ", ha="right" if s > 0 else "left", va="center", fontsize=6,
                    color="white")
    ax.axvline(0, color="black", linewidth=0.6)
    ax.set_xlim(-limit * 1.05 if (np.minimum(paper, shown) < 0).any() else 0,
                limit * 1.05 if (np.maximum(paper, shown) > 0).any() else 0)
    ax.set_yticks(y, [f"{f}: {_short(c)}" for f, c in zip(claims["figure"], claims["claim"])], fontsize=6)
    ax.set_xlabel("change (%)", fontsize=7)
    ax.tick_params(axis="x", labelsize=6)
    ax.set_title(title, fontsize=8)
    ax.legend(fontsize=6, frameon=False, loc="best")
    return fig


def headline_svg(table: pd.DataFrame | None, title: str) -> str:
    """The chart of ``table``'s headline claims as SVG text (no XML prologue, text as
    text), or ``""`` when it has none."""
    import matplotlib
    import matplotlib.pyplot as plt

    claims = headline_claims(table)
    if claims.empty:
        return ""
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "flashrr"}):
        fig = headline_figure(claims, title)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
        plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]
