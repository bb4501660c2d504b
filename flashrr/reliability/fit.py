"""Fit the RBER model and retry ladder to a paper's retry table.

flashrr's retry tables (:class:`flashrr.config.ReadRetryConfig`) give the retry
steps of a read as a step function of ``x = reads / RR threshold``.  The model
gives them as the steps whose capability covers the worst page's expected errors.
At a paper's device state (P/E cycles, retention) the model's step ``s`` starts at

    x_s = ((cap(s - 1) / (bits * f_worst) - base) / slope) ** (1 / q) / threshold

and the read turns uncorrectable at ``x_(S+1)``, one past the last step ``S``.
The fit sets the read-disturb coefficient ``gamma`` and the ladder's ``factor``
(scipy.optimize.least_squares on their logarithms) so that ``x_s`` meets the
table's fractions and ``x_(S+1)`` meets 1: the RR threshold is taken to be where
the worst page runs out of steps (an assumption), and that point weighs
``END_WEIGHT`` times the others: with ``q`` != 1 the switch points are not evenly
spaced and no two parameters meet them all, so the fit keeps the threshold and
spreads the miss over the intermediate steps.  Everything else comes from the
cell's preset.

Device states: Cocktail (§V-B, after Park et al., ASPLOS 2021) states that at 0
P/E cycles and 3 months of retention every read needs more than three retry
steps; its table is fitted there.  PhasedRR states no device state; the same one
is assumed.  Both papers' devices are TLC (PhasedRR Table I; Cocktail's 8-state
cells).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..config import ConfigError, ReadRetryConfig
from .ecc import ECC, RetryLadder
from .presets import ecc_preset, rber_preset
from .rber import RBERModel

SECONDS_PER_DAY = 86_400


def _paper_tables() -> dict:
    """name -> (retry table, RR threshold in reads), from flashrr's own device presets."""
    from ..presets import device_preset
    phasedrr, cocktail = device_preset("phasedrr"), device_preset("cocktail")
    return {
        "phasedrr": (phasedrr.read_retry, phasedrr.read_reclaim.rr_threshold_reads),
        # one level per 1/8 of the threshold, 0.024 ms per level (PhasedRR Table I)
        "ldpc": (ReadRetryConfig.ldpc(24_000), phasedrr.read_reclaim.rr_threshold_reads),
        "cocktail": (cocktail.read_retry, cocktail.read_reclaim.rr_threshold_reads),
    }


FIT_TARGETS = ("phasedrr", "ldpc", "cocktail")
END_WEIGHT = 10.0  # the uncorrectable point (the RR threshold) weighs 10 switch points in the fit
PAPER_STATE = {"pe": 0.0, "retention_s": 90.0 * SECONDS_PER_DAY}  # 0 P/E cycles, 3 months


@dataclass(frozen=True)
class FittedRetry:
    """A model and ladder fitted to one retry table, with the state it was fitted at."""

    name: str
    model: RBERModel
    ecc: ECC
    ladder: RetryLadder
    table: ReadRetryConfig
    rr_threshold_reads: int
    pe: float
    retention_s: float
    max_offset: float  # largest |model switch point - table fraction|, in units of the threshold

    def model_steps(self, x):
        """(steps, uncorrectable) of the worst page at ``reads = x * threshold``."""
        reads = np.asarray(x, dtype=np.float64) * self.rr_threshold_reads
        worst = self.model.rber(self.pe, self.retention_s, reads, self.model.worst_page)
        return self.ladder.steps(self.ecc.expected_errors(worst), self.ecc)

    def table_steps(self, x) -> np.ndarray:
        """The table's retries at ``x``: how many of its fractions are <= x."""
        return np.searchsorted(np.asarray(self.table.retry_step_fractions), np.asarray(x), side="right")


def switch_points(model: RBERModel, ecc: ECC, ladder: RetryLadder, pe, retention_s, threshold) -> np.ndarray:
    """x = reads / threshold at which steps 1..S start, then where the read turns uncorrectable."""
    caps = ladder.capability(ecc)
    per_bit = caps / (ecc.codeword_bits * model.page_factors[model.worst_page])
    need = np.maximum(per_bit - model.base(pe, retention_s), 0.0)
    return (need / model.disturb_slope(pe)) ** (1.0 / model.q) / threshold


def fit_table(name: str, table: ReadRetryConfig, threshold: int, cell: str = "tlc", growth: str = "linear",
              pe: float = PAPER_STATE["pe"], retention_s: float = PAPER_STATE["retention_s"],
              model: RBERModel | None = None) -> FittedRetry:
    """Fit ``gamma`` and the ladder factor so the model reproduces ``table``; ``model``
    (default: the cell's preset) gives every other coefficient."""
    from scipy.optimize import least_squares

    model, ecc = model or rber_preset(cell), ecc_preset(cell)
    ladder = RetryLadder.from_read_retry(table, growth, 0.5 if growth == "linear" else 1.5)
    base_errs = ecc.expected_errors(model.rber(pe, retention_s, 0, model.worst_page))
    if base_errs >= ecc.t_bits:
        raise ConfigError(f"fit.{name}: the worst page expects {float(base_errs):.1f} errors before any read, "
                          f"at or beyond ecc.t_bits = {ecc.t_bits}; the table cannot start at 0 steps")
    target = np.append(np.asarray(table.retry_step_fractions), 1.0)

    def build(theta):
        factor = np.exp(theta[1]) + (1.0 if growth == "geometric" else 0.0)
        return model.replace(gamma=float(np.exp(theta[0]))), ladder.replace(factor=float(factor))

    weight = np.ones_like(target)
    weight[-1] = END_WEIGHT

    def residual(theta):
        m, lad = build(theta)
        return (switch_points(m, ecc, lad, pe, retention_s, threshold) - target) * weight

    start = np.log([model.gamma, ladder.factor - (1.0 if growth == "geometric" else 0.0)])
    sol = least_squares(residual, start, xtol=1e-12, ftol=1e-12)
    m, lad = build(sol.x)
    offset = float(np.max(np.abs(residual(sol.x) / weight)))
    return FittedRetry(name, m, ecc, lad, table, int(threshold), float(pe), float(retention_s), offset)


@functools.lru_cache(maxsize=None)
def fitted_to(name: str, growth: str = "linear") -> FittedRetry:
    """The preset fitted to a paper's table: ``'phasedrr'`` (the phasedrr device's
    progressive LDPC table), ``'ldpc'`` (``ReadRetryConfig.ldpc``: 7 levels, one per
    1/8 of the threshold) or ``'cocktail'`` (1/2/3 retries at 70/80/90%)."""
    if name not in FIT_TARGETS:
        raise ConfigError(f"reliability.fitted_to: must be one of {FIT_TARGETS} (got {name!r})")
    table, threshold = _paper_tables()[name]
    return fit_table(name, table, threshold, "tlc", growth)
