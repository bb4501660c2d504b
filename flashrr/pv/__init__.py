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
from .assembly import METHODS, Assembly, assemble, superblock_extras
from .csv_io import PVDataError, load_csv, write_csv
from .evaluate import PAPER_PE_POINTS, evaluate, evaluate_on, summary
from .latencies import Latencies, as_latencies
from .model import PVModel, PVParams
from .tables import SuperblockTables, superblock_tables

__all__ = ["METHODS", "Assembly", "assemble", "superblock_extras", "PVDataError", "load_csv", "write_csv",
           "PAPER_PE_POINTS", "evaluate", "evaluate_on", "summary", "Latencies", "as_latencies", "PVModel",
           "PVParams", "SuperblockTables", "superblock_tables"]
