"""The ``"rber"`` read-reclaim trigger: reclaim a block once its worst page's
expected errors reach a fraction of the ECC's capability.

The capability is the hard-decision ``t_bits`` alone, or, given a retry
ladder, what its last step reaches.  :func:`trigger_reads` inverts the RBER model
for the block read count at which the trigger first holds, so the read-count
threshold a device state implies can be set beside a fixed one (Shuffler's
10,000 reads, PhasedRR's 25,000).
"""
from __future__ import annotations

import numpy as np

from ._checks import finite_positive, state_array
from .ecc import ECC, RetryLadder
from .rber import RBERModel

NEVER = -1  # trigger_reads' value for a state whose errors never reach the limit


def rber_trigger(model: RBERModel, ecc: ECC, pe, retention_s, reads, fraction: float = 1.0,
                 ladder: RetryLadder | None = None, layer_factor=1.0) -> np.ndarray:
    """Whether a block's worst page expects at least ``fraction`` of the capability in errors.

    ``pe`` (cycles), ``retention_s`` (seconds since its oldest page was programmed),
    ``reads`` (block reads since erase) broadcast against each other.
    """
    worst = model.rber(pe, retention_s, reads, model.worst_page, layer_factor)
    cap = ecc.t_bits if ladder is None else float(ladder.capability(ecc)[-1])
    return ecc.expected_errors(worst) >= finite_positive("trigger.fraction", fraction) * cap


def trigger_reads(model: RBERModel, ecc: ECC, pe, retention_s, fraction: float = 1.0,
                  ladder: RetryLadder | None = None, layer_factor=1.0) -> np.ndarray:
    """Smallest block read count at which :func:`rber_trigger` holds (int64 array).

    0 where the block already triggers with no reads; :data:`NEVER` where no
    read count reaches it (no read-disturb term).
    """
    cap = ecc.t_bits if ladder is None else float(ladder.capability(ecc)[-1])
    limit = finite_positive("trigger.fraction", fraction) * cap
    return reads_to_errors(model, ecc, pe, retention_s, limit, False, layer_factor)


def reads_to_errors(model: RBERModel, ecc: ECC, pe, retention_s, errors, strict: bool = False,
                    layer_factor=1.0) -> np.ndarray:
    """Smallest block read count (int64 array) at which the worst page expects at least
    ``errors`` raw bit errors per codeword (more than ``errors`` with ``strict``):
    0 where it does with no reads, :data:`NEVER` where no read count does.

    ``strict`` gives the read count at which a read needs one more retry step than
    a capability of ``errors`` bits covers (:meth:`RetryLadder.steps`)."""
    layer = state_array("layer_factor", layer_factor, "dimensionless")
    limit = np.asarray(errors, dtype=np.float64)
    scale = ecc.codeword_bits * model.page_factors[model.worst_page] * layer
    with np.errstate(divide="ignore"):
        need = limit / scale - model.base(pe, retention_s)
    slope = model.disturb_slope(pe)
    with np.errstate(divide="ignore", invalid="ignore"):
        guess = np.where(need > 0, (np.maximum(need, 0) / slope) ** (1.0 / model.q), 0.0)
    never = ~np.isfinite(guess) | (guess > 2.0 ** 60)
    r = np.ceil(np.where(never, 0.0, guess)).astype(np.int64)

    def holds(reads):
        errs = ecc.expected_errors(model.rber(pe, retention_s, reads, model.worst_page, layer_factor))
        return errs > limit if strict else errs >= limit

    # the closed form can be one read off by rounding: settle on the first read count that holds
    r = np.where(holds(np.maximum(r - 1, 0)) & (r > 0), r - 1, r)
    r = np.where(holds(r), r, r + 1)
    return np.where(never, NEVER, r).astype(np.int64)
