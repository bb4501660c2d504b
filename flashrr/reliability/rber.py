"""Raw bit error rate (RBER) of a flash page from its block's state.

The model adds four terms and scales them by the page type and the word-line
layer::

    rber = page_factor[page] * layer_factor * (
               epsilon                                        # fresh cells
             + alpha * pe**k                                  # wear
             + beta  * (1 + pe)**m * g(retention_s / t0_s)    # retention loss
             + gamma * (1 + pe)**p * reads**q)                # read disturb

    g(x) = x**n          (retention_law = "power", the presets)
    g(x) = ln(1 + x)     (retention_law = "log")

Inputs and units: ``pe`` is the block's program/erase cycles, ``retention_s``
the seconds since the page was programmed, ``reads`` the reads its block took
since its last erase (every read of any page of the block disturbs the others),
``page`` the page type's index (0 = LSB, then CSB, MSB, TSB).  The result is a
probability per bit (dimensionless); a codeword of ``n`` bits holds
``rber * n`` raw errors on average.

Where each form comes from (docs/reliability.md lists every coefficient):

* wear, a power law in P/E cycles: Mielke et al., "Bit error rate in NAND
  flash memories" (IRPS 2008).  Public simulator forks (SimpleSSD's error
  model, an MQSim fork) use the same ``epsilon + alpha * N**k`` term.
* retention, growing with time, faster on worn cells: Cai et al., "Flash
  correct-and-refresh" (ICCD 2012) and "Data retention in MLC NAND flash
  memory" (HPCA 2015).  The power law in time is the form Kim, Choi and Min fit
  to measured MLC and 3D TLC data ("Design tradeoffs for SSD reliability",
  FAST 2019); the logarithmic law is an alternative.  The ``1 + pe`` shifts
  keep the P/E factors non-zero on a fresh block; they are this module's choice.
* read disturb, growing with the block's read count with a slope that grows
  with wear: Cai et al., "Read disturb errors in MLC NAND flash memory" (DSN
  2015).  ``q`` = 1 is linear; the presets take Kim et al.'s fitted power.
* page type: a page's errors scale with the number of read reference voltages
  it senses, since most errors move a cell into an adjacent state (Cai et al.,
  "Error patterns in MLC NAND flash memory", DATE 2012).  The voltages per page
  follow a coding, a parameter (MLC 1-2, TLC 1-2-4, QLC 1-2-4-8 by default);
  the factors are normalised so that their mean over the page types is 1.

The coefficient values of the presets (:mod:`flashrr.reliability.presets`) are
chosen defaults unless docs/reliability.md names a source for them.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..config import ConfigError
from ._checks import finite_nonneg, finite_positive, one_of, state_array

PAGE_TYPES = ("LSB", "CSB", "MSB", "TSB")
RETENTION_LAWS = ("log", "power")
CELL_BITS = {"MLC": 2, "TLC": 3, "QLC": 4}


def page_names(bits_per_cell: int) -> tuple:
    """The page types of a cell with ``bits_per_cell`` bits: MLC has LSB and MSB pages,
    TLC adds CSB, QLC adds TSB."""
    if bits_per_cell == 2:
        return ("LSB", "MSB")
    return PAGE_TYPES[:bits_per_cell]


@dataclass(frozen=True)
class RBERModel:
    """Coefficients of the RBER model (module docstring); every field is >= 0.

    ``epsilon``: RBER of fresh cells (per bit).  ``alpha``, ``k``: wear term,
    per bit at ``pe`` P/E cycles.  ``beta``, ``m``, ``t0_s``, ``n``,
    ``retention_law``: retention term (per bit; ``t0_s`` in seconds is the unit
    of time the term is written in, ``n`` the time exponent of the power law).
    ``gamma``, ``p``, ``q``: read-disturb term (per bit per read**q).
    ``refs_per_page``: read reference voltages each page type senses, LSB
    first; its length is the bits per cell.
    """

    _section = "rber"
    cell: str = "TLC"
    epsilon: float = 0.0
    alpha: float = 0.0
    k: float = 1.0
    beta: float = 0.0
    m: float = 0.0
    t0_s: float = 3600.0
    n: float = 1.0
    retention_law: str = "log"
    gamma: float = 0.0
    p: float = 0.0
    q: float = 1.0
    refs_per_page: tuple = (1, 2, 4)

    def __post_init__(self):
        for f in ("epsilon", "alpha", "k", "beta", "m", "n", "gamma", "p"):
            object.__setattr__(self, f, finite_nonneg(f"rber.{f}", getattr(self, f)))
        object.__setattr__(self, "t0_s", finite_positive("rber.t0_s", self.t0_s))
        object.__setattr__(self, "q", finite_positive("rber.q", self.q))
        one_of("rber.cell", self.cell, tuple(CELL_BITS))
        one_of("rber.retention_law", self.retention_law, RETENTION_LAWS)
        refs = tuple(self.refs_per_page)
        if len(refs) != CELL_BITS[self.cell]:
            raise ConfigError(f"rber.refs_per_page: must hold one entry per page type of a {self.cell} cell "
                              f"({CELL_BITS[self.cell]}) (got {refs!r})")
        object.__setattr__(self, "refs_per_page", tuple(finite_positive("rber.refs_per_page", r) for r in refs))

    def replace(self, **changes) -> "RBERModel":
        return dataclasses.replace(self, **changes)

    @property
    def bits_per_cell(self) -> int:
        return len(self.refs_per_page)

    @property
    def page_factors(self) -> np.ndarray:
        """Multiplier per page type (LSB first), mean 1."""
        refs = np.asarray(self.refs_per_page, dtype=np.float64)
        return refs / refs.mean()

    @property
    def worst_page(self) -> int:
        """Index of the page type with the highest RBER."""
        return int(np.argmax(self.page_factors))

    def page_index(self, name: str) -> int:
        """Index of a page type by name ('LSB', 'CSB', 'MSB', 'TSB')."""
        names = page_names(self.bits_per_cell)
        if name not in names:
            raise ConfigError(f"rber.page: must be one of {names} for a {self.bits_per_cell}-bit cell (got {name!r})")
        return names.index(name)

    def base(self, pe, retention_s) -> np.ndarray:
        """RBER of an average page (factor 1) with no reads: fresh + wear + retention terms."""
        pe = state_array("pe", pe, "P/E cycles")
        t = state_array("retention_s", retention_s, "seconds") / self.t0_s
        aged = t ** self.n if self.retention_law == "power" else np.log1p(t)
        return self.epsilon + self.alpha * pe ** self.k + self.beta * (1.0 + pe) ** self.m * aged

    def disturb_slope(self, pe) -> np.ndarray:
        """Read-disturb coefficient ``gamma * (1 + pe)**p`` (per bit per read**q)."""
        pe = state_array("pe", pe, "P/E cycles")
        return self.gamma * (1.0 + pe) ** self.p

    def rber(self, pe, retention_s, reads, page=None, layer_factor=1.0) -> np.ndarray:
        """RBER per bit; the arguments broadcast against each other.

        ``pe`` (cycles), ``retention_s`` (seconds), ``reads`` (block reads since
        erase), ``page`` (page-type index, or None for the average page),
        ``layer_factor`` (a word-line layer's multiplier, dimensionless, >= 0).
        """
        reads = state_array("reads", reads, "reads")
        layer = state_array("layer_factor", layer_factor, "dimensionless")
        raw = self.base(pe, retention_s) + self.disturb_slope(pe) * reads ** self.q
        return raw * self.factor(page) * layer

    def factor(self, page) -> np.ndarray:
        """Page-type multiplier for an index array (None: 1, the average page)."""
        if page is None:
            return np.float64(1.0)
        idx = np.asarray(page)
        n = self.bits_per_cell
        if idx.dtype.kind not in "iu" or (idx.size and (idx.min() < 0 or idx.max() >= n)):
            raise ConfigError(f"rber.page: must be page-type indices in 0..{n - 1} (got {page!r})")
        return self.page_factors[idx]
