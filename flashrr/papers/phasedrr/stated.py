"""The PhasedRR paper's change claims against its counterparts: :mod:`.claims`
checks them and :mod:`.figures` draws their stated values beside the bars."""
from __future__ import annotations

import numpy as np

from ...reproduce.claims import Claim

COUNTERPARTS = ("Baseline", "RL-RR", "Reallocation")
# (figure, name, metric, paper's change vs Baseline / RL-RR / Reallocation in %)
CHANGE_CLAIMS = (
    ("fig05", "read latency", "read_latency_mean_ns", (-24.5, -46.0, -30.3)),
    ("fig05", "I/O latency", "io_latency_mean_ns", (-17.1, -46.9, -30.0)),
    ("fig08", "block erases", "erase_count", (-4.5, -11.3, -2.5)),
    ("fig06", "RR operations", "rr_episodes", (-0.7, -3.1, np.nan)),
)
PAPER_CHANGES = tuple(Claim(figure, f"{name}, PhasedRR vs {ref}", metric, "PhasedRR", ref, paper)
                      for figure, name, metric, papers in CHANGE_CLAIMS for ref, paper in zip(COUNTERPARTS, papers))
"""The paper's changes of :data:`CHANGE_CLAIMS` as claims."""
