"""Reliability model: RBER per page, ECC and read retry, the ``"rber"`` RR trigger.

Standalone NumPy code; the simulation engine does not call it yet
(docs/reliability.md).

* :mod:`.rber`: :class:`RBERModel`, RBER from P/E cycles, retention, reads and page type.
* :mod:`.presets`: MLC / TLC / QLC models and ECCs.
* :mod:`.wear`: :func:`draw_initial_pe`, per-block P/E counts of an aged device.
* :mod:`.ecc`: :class:`ECC` and :class:`RetryLadder`, retry steps and uncorrectable reads.
* :mod:`.fit`: :func:`fitted_to`, the model fitted to PhasedRR's and Cocktail's tables.
* :mod:`.trigger`: :func:`rber_trigger` and :func:`trigger_reads`.
"""
from .ecc import ECC, RetryLadder
from .fit import FIT_TARGETS, FittedRetry, fit_table, fitted_to, switch_points
from .presets import ECC_PRESETS, RBER_PRESETS, ecc_preset, rber_preset
from .rber import PAGE_TYPES, RBERModel, page_names
from .trigger import NEVER, rber_trigger, trigger_reads
from .wear import draw_initial_pe

__all__ = [
    "ECC", "ECC_PRESETS", "FIT_TARGETS", "FittedRetry", "NEVER", "PAGE_TYPES", "RBERModel", "RBER_PRESETS",
    "RetryLadder", "draw_initial_pe", "ecc_preset", "fit_table", "fitted_to", "page_names", "rber_preset",
    "rber_trigger", "switch_points", "trigger_reads",
]
