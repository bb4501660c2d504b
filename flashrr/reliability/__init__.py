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
from .._lazy import lazy_attributes

#: public name -> the submodule that holds it, imported when the name is first read (so
#: that the engine, which needs only :mod:`.engine_tables`, does not import SciPy for :mod:`.fit`)
_WHERE = {
    "ECC": ".ecc", "RetryLadder": ".ecc",
    "FIT_TARGETS": ".fit", "FittedRetry": ".fit", "fit_table": ".fit", "fitted_to": ".fit", "switch_points": ".fit",
    "ECC_PRESETS": ".presets", "RBER_PRESETS": ".presets", "ecc_preset": ".presets", "rber_preset": ".presets",
    "PAGE_TYPES": ".rber", "RBERModel": ".rber", "page_names": ".rber",
    "NEVER": ".trigger", "reads_to_errors": ".trigger", "rber_trigger": ".trigger", "trigger_reads": ".trigger",
    "draw_initial_pe": ".wear",
}
__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)

__all__ = list(_WHERE)
