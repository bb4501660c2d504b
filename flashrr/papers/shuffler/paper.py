"""The Shuffler paper's reproduction, declared: :data:`PAPER`."""
from __future__ import annotations

from ...reproduce.paper import Paper
from .claims import claims, to_markdown
from .figures import FIGURES
from .plan import GROUPS, PAPER_SCALE, QUICK, Plan, run

PAPER = Paper(
    name="shuffler",
    title="Shuffler (TOS 2026)",
    description="Shuffler (Liao et al., TOS 2026): Figs. 1, 2, 4-19; Baseline, Page, Page-8, Page-64 and Shuffler "
                "on the ten Table 2 traces.",
    plan=Plan(),
    quick=QUICK,
    paper_scale=PAPER_SCALE,
    figures=FIGURES,
    claims=claims,
    claims_markdown=to_markdown,
    groups=GROUPS,
    run=run,
    trace_help="Shuffler's default is superpage-aligned extents (align_bytes=32768 footprint_page_bytes=8192); "
               "align_bytes=8192 gives the page-aligned presets.",
)
