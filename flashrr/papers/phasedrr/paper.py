"""The PhasedRR paper's reproduction, declared: :data:`PAPER`."""
from __future__ import annotations

from ...reproduce.paper import Paper
from .claims import claims, to_markdown
from .figures import FIGURES
from .plan import GROUPS, PAPER_SCALE, Plan, quick_changes, run

PAPER = Paper(
    name="phasedrr",
    title="PhasedRR (MSST 2024)",
    description="PhasedRR (Li et al., MSST 2024): Figs. 2, 4-10; Baseline, PhasedRR, RL-RR and Reallocation on "
                "the eight Table II traces.",
    plan=Plan(),
    quick=quick_changes(Plan()),
    paper_scale=PAPER_SCALE,
    figures=FIGURES,
    claims=claims,
    claims_markdown=to_markdown,
    groups=GROUPS,
    run=run,
    trace_help="PhasedRR's default is ON/OFF arrivals (idle_period_mean_ns=50000000 burst_requests_mean=64); "
               "idle_period_mean_ns=0 gives the presets' Poisson arrivals.",
)
