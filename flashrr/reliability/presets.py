"""RBER and ECC presets for MLC, TLC and QLC.

Sources (docs/reliability.md, "Coefficients", has the full table):

* MLC and TLC ``epsilon``, ``alpha``, ``k``, ``beta``, ``m``, ``n``, ``gamma``,
  ``p``, ``q``: the two fitted sets of Kim, Choi and Min, "Design tradeoffs for
  SSD reliability" (FAST 2019), of the model ``RBER(cycles, time, reads)``:
  MLC from a 3x-nm MLC data set (2011), TLC from a 3D TLC data set (2018).
  Time in days and reads as the block's reads since its erase, the units
  SimpleSSD applies the MLC set in; a chosen reading, as the units are not
  restated with the sets where we found them.
* ``refs_per_page``: read reference voltages per page under the usual Gray
  codings (MLC 1-2, TLC 1-2-4, QLC 1-2-4-8); a chosen default.
* QLC (the TLC set's magnitudes times 3) and every ECC: chosen defaults, not
  published figures.
"""
from __future__ import annotations

from ..config import ConfigError
from .ecc import ECC
from .rber import RBERModel

DAY_S = 86_400.0

# Kim et al., FAST 2019: time exponent n on days, reads of the block
_MLC = RBERModel(cell="MLC", epsilon=8.34e-5, alpha=3.30e-11, k=1.71, beta=5.56e-19, m=2.49, t0_s=DAY_S, n=3.33,
                 retention_law="power", gamma=6.26e-13, p=1.76, q=0.47, refs_per_page=(1, 2))
_TLC = RBERModel(cell="TLC", epsilon=1.48e-3, alpha=3.90e-10, k=2.05, beta=6.28e-5, m=0.14, t0_s=DAY_S, n=0.54,
                 retention_law="power", gamma=3.73e-9, p=0.33, q=1.71, refs_per_page=(1, 2, 4))
_QLC_SCALE = 3.0  # chosen default: no published QLC set

RBER_PRESETS = {
    "mlc": _MLC,
    "tlc": _TLC,
    "qlc": _TLC.replace(cell="QLC", epsilon=_TLC.epsilon * _QLC_SCALE, alpha=_TLC.alpha * _QLC_SCALE,
                        beta=_TLC.beta * _QLC_SCALE, gamma=_TLC.gamma * _QLC_SCALE, refs_per_page=(1, 2, 4, 8)),
}

# hard-decision capability per 1 KiB codeword (chosen defaults)
ECC_PRESETS = {
    "mlc": ECC(codeword_bytes=1024, t_bits=40),
    "tlc": ECC(codeword_bytes=1024, t_bits=72),
    "qlc": ECC(codeword_bytes=1024, t_bits=120),
}


def _lookup(table: dict, name: str, what: str):
    key = name.lower() if isinstance(name, str) else name
    if key not in table:
        raise ConfigError(f"reliability.{what}: must be one of {tuple(table)} (got {name!r})")
    return table[key]


def rber_preset(name: str) -> RBERModel:
    """The RBER model of ``'mlc'``, ``'tlc'`` or ``'qlc'``."""
    return _lookup(RBER_PRESETS, name, "rber_preset")


def ecc_preset(name: str) -> ECC:
    """The ECC paired with ``'mlc'``, ``'tlc'`` or ``'qlc'``."""
    return _lookup(ECC_PRESETS, name, "ecc_preset")
