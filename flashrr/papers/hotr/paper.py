"""The HotR paper's reproduction, declared: :data:`PAPER`."""
from __future__ import annotations

from ...reproduce.paper import Paper
from .claims import claims, to_markdown
from .figures import FIGURES
from .plan import GROUPS, PAPER_SCALE, QUICK, Plan, run


def calibrated_scales(runs) -> dict:
    """``reproduce.json``'s record of the calibration: each trace's time factor."""
    return {"scale_time": runs.scales}


PAPER = Paper(
    name="hotr",
    title="HotR (DATE 2019)",
    description="HotR (Wu et al., DATE 2019): Figs. 1(b, c), 5-9; Baseline, Rails, TTFlash and HotR on the four "
                "Table III traces, time-scaled to the paper's blocked share.",
    plan=Plan(),
    quick=QUICK,
    paper_scale=PAPER_SCALE,
    figures=FIGURES,
    claims=claims,
    claims_markdown=to_markdown,
    groups=GROUPS,
    run=run,
    manifest=calibrated_scales,
)
