"""An ECC's correction capability, and the read-retry ladder that raises it.

A read first decodes with the hard-decision capability ``t_bits`` per codeword.
Each retry step (a re-read at shifted reference voltages, or one more LDPC
soft-decision sensing level) raises the capability the decoder can reach:

* ``growth = "linear"``: after ``s`` steps, ``t_bits * (1 + factor * s)``;
* ``growth = "geometric"``: after ``s`` steps, ``t_bits * factor**s``.

A read needs the fewest steps whose capability covers its codeword's expected
raw errors (``rber * codeword bits``).  If even the last step does not, the read
is uncorrectable; it has then paid for every step.  Neither growth law is a
published measurement: both are choices, and ``factor`` is fitted to the papers'
retry tables (:mod:`flashrr.reliability.fit`).  Each step's latency comes from a
:class:`flashrr.config.ReadRetryConfig` table (``extra_ns_by_retries``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..config import ConfigError, ReadRetryConfig
from ._checks import finite_positive, one_of, positive_int, state_array

GROWTHS = ("linear", "geometric")


@dataclass(frozen=True)
class ECC:
    """An ECC that corrects up to ``t_bits`` bit errors in a codeword of ``codeword_bytes`` bytes."""

    _section = "ecc"
    codeword_bytes: int = 1024
    t_bits: float = 40.0

    def __post_init__(self):
        positive_int("ecc.codeword_bytes", self.codeword_bytes)
        object.__setattr__(self, "t_bits", finite_positive("ecc.t_bits", self.t_bits))

    @property
    def codeword_bits(self) -> int:
        return 8 * self.codeword_bytes

    def expected_errors(self, rber) -> np.ndarray:
        """Mean raw bit errors per codeword at a given RBER (per bit)."""
        return state_array("rber", rber, "errors per bit") * self.codeword_bits


@dataclass(frozen=True)
class RetryLadder:
    """Retry steps: how each raises the ECC capability, and what each costs.

    ``extra_ns``: extra read time (ns) after 0, 1, ..., ``n_steps`` steps; entry 0
    is 0 and the tuple is non-decreasing.  ``growth`` and ``factor``: the module
    docstring's capability law (linear: ``factor`` > 0 per step; geometric:
    ``factor`` > 1 per step).
    """

    _section = "retry"
    extra_ns: tuple = (0,)
    growth: str = "linear"
    factor: float = 0.5

    def __post_init__(self):
        table = tuple(int(x) for x in self.extra_ns)
        if not table or table[0] != 0 or any(b < a for a, b in zip(table, table[1:])):
            raise ConfigError(f"retry.extra_ns: must start at 0 and be non-decreasing (ns) (got {self.extra_ns!r})")
        object.__setattr__(self, "extra_ns", table)
        one_of("retry.growth", self.growth, GROWTHS)
        f = finite_positive("retry.factor", self.factor)
        if self.growth == "geometric" and f <= 1:
            raise ConfigError(f"retry.factor: must be > 1 for geometric growth (got {self.factor!r})")
        object.__setattr__(self, "factor", f)

    @classmethod
    def from_read_retry(cls, cfg: ReadRetryConfig, growth: str = "linear", factor: float = 0.5) -> "RetryLadder":
        """A ladder with one step per retry of ``cfg`` and its latency table."""
        return cls(cfg.extra_ns_by_retries(), growth, factor)

    def replace(self, **changes) -> "RetryLadder":
        return dataclasses.replace(self, **changes)

    @property
    def n_steps(self) -> int:
        return len(self.extra_ns) - 1

    def capability(self, ecc: ECC) -> np.ndarray:
        """Correctable bits per codeword after 0, 1, ..., ``n_steps`` steps."""
        s = np.arange(self.n_steps + 1, dtype=np.float64)
        if self.growth == "linear":
            return ecc.t_bits * (1.0 + self.factor * s)
        return ecc.t_bits * self.factor ** s

    def steps(self, expected_errors, ecc: ECC):
        """Retry steps a read needs, and whether it is uncorrectable.

        ``expected_errors``: raw bit errors per codeword (array).  Returns
        ``(steps, uncorrectable)``: int64 steps in 0..n_steps (``n_steps`` for an
        uncorrectable read, which tried them all) and a bool array.
        """
        errs = state_array("expected_errors", expected_errors, "bits per codeword")
        idx = np.searchsorted(self.capability(ecc), errs, side="left")
        bad = idx > self.n_steps
        return np.minimum(idx, self.n_steps).astype(np.int64), bad

    def latency_ns(self, steps, t_read_ns: int) -> np.ndarray:
        """Read time (ns) after ``steps`` retry steps: ``t_read_ns + extra_ns[steps]``."""
        return t_read_ns + np.asarray(self.extra_ns, dtype=np.int64)[np.asarray(steps)]
