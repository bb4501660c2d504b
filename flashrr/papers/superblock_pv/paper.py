"""The superblock PV paper's reproduction, declared: :data:`PAPER`."""
from __future__ import annotations

from ...reproduce.paper import Paper
from .claims import claims, to_markdown
from .figures import FIGURES
from .plan import PAPER_SCALE, QUICK, Plan
from .reproduction import reproduce
from .tables import TABLES

PAPER = Paper(
    name="superblock-pv",
    title="Are Superpages Super-fast? (superblock PV)",
    description="Are Superpages Super-fast? (Tseng et al.): Tables I, II, V and Figs. 6, 12-15; superblock "
                "assembly on the process-variation model, no traces.",
    plan=Plan(),
    quick=QUICK,
    paper_scale=PAPER_SCALE,
    figures=FIGURES,
    claims=claims,
    claims_markdown=to_markdown,
    reproduce=reproduce,
    tables=tuple(TABLES),
)
