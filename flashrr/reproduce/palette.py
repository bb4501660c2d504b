"""One colour per scheme, the same in every figure of every paper and of
``flashrr compare --plot``.

:data:`SCHEME_COLOURS` names every scheme label the reproductions and
``compare`` draw (paper labels such as ``RL-RR``; ``compare``'s lower-case
policy names find them case-insensitively).  The baseline-like schemes of
:data:`BASELINES` (each paper's unchanged reference) share :data:`BASELINE_GREY`;
no two other schemes share a colour.  A variant of a scheme (PhasedRR's ``W-O``
and ``W/o-O`` runs) takes the scheme's colour, lighter for the second variant.
Labels that are not schemes (traces, page classes, percentiles) take
:data:`SERIES_COLOURS` by position, none of which is a scheme's colour.
"""
from __future__ import annotations

from matplotlib.colors import to_hex, to_rgb

BASELINE_GREY = "#8c8c8c"
BASELINES = ("Baseline", "Random")
"""Each paper's unchanged reference scheme: Baseline, and superblock PV's random assembly."""

SCHEME_COLOURS = {
    **{name: BASELINE_GREY for name in BASELINES},
    # Shuffler
    "Page": "#dd8452", "Page-8": "#55a868", "Page-64": "#8172b3", "Shuffler": "#c44e52",
    "Block": "#3b3b3b", "Superblock": "#b3b3b3",
    # PhasedRR
    "PhasedRR": "#1f77b4", "RL-RR": "#ff7f0e", "Reallocation": "#2ca02c",
    # Cocktail
    "Cocktail": "#d62728", "Cocktail (GC separate)": "#9467bd", "redFTL": "#17becf", "IPR": "#bcbd22",
    # HotR
    "HotR": "#e377c2", "Rails": "#8c564b", "TTFlash": "#64b5cd", "Optimal": "#000000",
    # superblock PV assembly methods
    "Sequential": "#937860", "Optimal (8)": "#4c72b0", "QSTR-MED (4)": "#da8bc3", "STR-MED (4)": "#ccb974",
    "ERS-LTN": "#7f3c8d", "PGM-LTN": "#11a579", "LWL-rank (8)": "#f2b701", "PWL-rank (8)": "#e73f74",
    "STR-rank (8)": "#3969ac", "STR-rank (6)": "#80ba5a", "STR-rank (4)": "#e68310", "STR-rank (2)": "#008695",
}
"""Every scheme label the figures draw, to its colour."""

VARIANTS = (" W/o-O", " W-O")
"""Suffixes of a scheme's variants: the first keeps the scheme's colour, the second is lighter."""

SERIES_COLOURS = ("#005f73", "#ae2012", "#94d2bd", "#ee9b00", "#6a4c93", "#0a9396", "#ca6702", "#9b2226",
                  "#3a86ff", "#8ac926")
"""Colours of series that are not schemes, by position."""

_LOWER = {name.lower(): colour for name, colour in SCHEME_COLOURS.items()}


def scheme_colour(label: str) -> str | None:
    """The colour of scheme ``label`` (exact, then case-insensitive, then as a
    variant of :data:`VARIANTS`); None when ``label`` is not a scheme."""
    if label in SCHEME_COLOURS:
        return SCHEME_COLOURS[label]
    if str(label).lower() in _LOWER:
        return _LOWER[str(label).lower()]
    for i, suffix in enumerate(VARIANTS):
        base = str(label)[:-len(suffix)] if str(label).endswith(suffix) else None
        if base is not None and scheme_colour(base) is not None:
            return scheme_colour(base) if i == 0 else lighter(scheme_colour(base))
    return None


def lighter(colour: str, amount: float = 0.5) -> str:
    """``colour`` mixed with white (``amount`` 0: unchanged, 1: white)."""
    return to_hex([c + (1.0 - c) * amount for c in to_rgb(colour)])


def colour(label: str, i: int = 0) -> str:
    """The colour of ``label``: its scheme colour, else the ``i``-th of :data:`SERIES_COLOURS`."""
    return scheme_colour(label) or SERIES_COLOURS[i % len(SERIES_COLOURS)]
