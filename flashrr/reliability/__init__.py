"""Reliability model: RBER per page, ECC and read retry.

Standalone NumPy code; the simulation engine does not call it yet
(docs/reliability.md).

* :mod:`.rber`: :class:`RBERModel`, RBER from P/E cycles, retention, reads and page type.
* :mod:`.presets`: MLC / TLC / QLC models and ECCs.
* :mod:`.wear`: :func:`draw_initial_pe`, per-block P/E counts of an aged device.
* :mod:`.ecc`: :class:`ECC` and :class:`RetryLadder`, retry steps and uncorrectable reads.
"""
from .ecc import ECC, RetryLadder
from .presets import ECC_PRESETS, RBER_PRESETS, ecc_preset, rber_preset
from .rber import PAGE_TYPES, RBERModel, page_names
from .wear import draw_initial_pe

__all__ = [
    "ECC", "ECC_PRESETS", "PAGE_TYPES", "RBERModel", "RBER_PRESETS", "RetryLadder", "draw_initial_pe",
    "ecc_preset", "page_names", "rber_preset",
]
