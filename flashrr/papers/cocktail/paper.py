"""The Cocktail paper's reproduction, declared: :data:`PAPER`."""
from __future__ import annotations

from ...reproduce.paper import Paper
from .claims import claims, to_markdown
from .figures import FIGURES
from .plan import GROUPS, PAPER_SCALE, QUICK, Plan, run


def calibrated_scales(runs) -> dict:
    """``reproduce.json``'s record of the calibrations: each trace's arrival time factor, its
    multiple of Table II's repeat count, and the read-count group's generated request counts."""
    return {"scale_time": dict(runs.plan.scales), "replays": dict(runs.plan.replays),
            "read_lengths": dict(runs.plan.read_lengths)}


PAPER = Paper(
    name="cocktail",
    title="Cocktail (TCAD 2023)",
    description="Cocktail (Zhang et al., TCAD 2023): Figs. 4, 5, 8-14; Baseline, redFTL, IPR and Cocktail on the "
                "ten Table II traces, load-calibrated.",
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
