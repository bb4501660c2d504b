"""Process-variation-aware superblock assembly (Tseng et al., "Are Superpages
Super-fast?", the QSTR-MED / PV Check paper).

* :class:`PVModel` / :class:`PVParams`: a generative model of per-LWL program
  and per-block erase latencies (µs), calibrated to the paper's tables;
* :func:`load_csv`: measured latencies instead of the model;
* :data:`METHODS` and :func:`assemble`: the ten assembly methods by name;
* :func:`evaluate`: extra program/erase latency, similarity checks, metadata
  and wall time of a method;
* :func:`superblock_tables`: per-lane block choice and ns latencies for the simulator.

See ``docs/superblock-pv.md``.
"""
from .._lazy import lazy_attributes

#: public name -> the submodule that holds it, imported when the name is first read (so that
#: the engine's superblock tables do not import pandas for :mod:`.csv_io`)
_WHERE = {
    "METHODS": ".assembly", "Assembly": ".assembly", "assemble": ".assembly", "superblock_extras": ".assembly",
    "PVDataError": ".csv_io", "load_csv": ".csv_io", "write_csv": ".csv_io",
    "PAPER_PE_POINTS": ".evaluate", "evaluate": ".evaluate", "evaluate_on": ".evaluate", "summary": ".evaluate",
    "Latencies": ".latencies", "as_latencies": ".latencies",
    "PVModel": ".model", "PVParams": ".model",
    "SuperblockTables": ".tables", "superblock_tables": ".tables",
}
__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)

__all__ = list(_WHERE)
