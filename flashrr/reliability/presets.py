"""RBER and ECC presets for MLC, TLC and QLC.

Sources (docs/reliability.md has the full table):

* TLC ``epsilon`` 1.48e-3, ``alpha`` 3.90e-10, ``k`` 2.05 and the exponents
  ``m`` 0.14 and ``p`` 0.33: the 72-layer TLC coefficient set of a public MQSim
  fork (github.com/jwjeong92/MQSim-JW, ``tools/examples/rber_model_example.py``),
  whose terms have the same roles; the fork names no measurement behind them.
* ``q`` = 1, linear read disturb: Cai et al., DSN 2015.
* ``refs_per_page``: read reference voltages per page under the usual Gray
  codings (MLC 1-2, TLC 1-2-4, QLC 1-2-4-8); a chosen default.
* ``beta``, ``t0_s``, ``gamma``, all MLC and QLC magnitudes (TLC's scaled by
  1/5 and by 3) and every ECC: chosen defaults, not published figures.
"""
from __future__ import annotations

from ..config import ConfigError
from .ecc import ECC
from .rber import RBERModel

_TLC = RBERModel(cell="TLC", epsilon=1.48e-3, alpha=3.90e-10, k=2.05, beta=1.3e-4, m=0.14, t0_s=3600.0,
                 gamma=8.0e-8, p=0.33, q=1.0, refs_per_page=(1, 2, 4))


def _scaled(cell: str, scale: float, refs: tuple) -> RBERModel:
    return _TLC.replace(cell=cell, epsilon=_TLC.epsilon * scale, alpha=_TLC.alpha * scale,
                        beta=_TLC.beta * scale, gamma=_TLC.gamma * scale, refs_per_page=refs)


RBER_PRESETS = {
    "mlc": _scaled("MLC", 0.2, (1, 2)),
    "tlc": _TLC,
    "qlc": _scaled("QLC", 3.0, (1, 2, 4, 8)),
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
