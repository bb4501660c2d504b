"""Reliability model: RBER per page, ECC and read retry, the ``"rber"`` RR trigger.

NumPy code; the engine uses it through the lookup tables of :mod:`.engine_tables`
when ``error_model.enabled`` (docs/reliability.md, "In the engine").

* :mod:`.rber`: :class:`RBERModel`, RBER from P/E cycles, retention, reads and page type.
* :mod:`.presets`: MLC / TLC / QLC models and ECCs.
* :mod:`.wear`: :func:`draw_initial_pe`, per-block P/E counts of an aged device.
* :mod:`.ecc`: :class:`ECC` and :class:`RetryLadder`, retry steps and uncorrectable reads.
* :mod:`.fit`: :func:`fitted_to`, the model fitted to PhasedRR's and Cocktail's tables.
* :mod:`.trigger`: :func:`rber_trigger`, :func:`trigger_reads`, :func:`reads_to_errors`.
* :mod:`.engine_tables`: :class:`ErrorTables`, the read counts the engine looks up.
"""
from .ecc import ECC, RetryLadder
from .fit import FIT_TARGETS, FittedRetry, fit_table, fitted_to, switch_points
from .presets import ECC_PRESETS, RBER_PRESETS, ecc_preset, rber_preset
from .rber import PAGE_TYPES, RBERModel, page_names
from .trigger import NEVER, reads_to_errors, rber_trigger, trigger_reads
from .wear import draw_initial_pe

__all__ = [
    "ECC", "ECC_PRESETS", "FIT_TARGETS", "FittedRetry", "NEVER", "PAGE_TYPES", "RBERModel", "RBER_PRESETS",
    "RetryLadder", "draw_initial_pe", "ecc_preset", "fit_table", "fitted_to", "page_names", "rber_preset",
    "reads_to_errors", "rber_trigger", "switch_points", "trigger_reads",
]
