"""One-command reproductions of the papers' evaluations.

``PAPERS`` maps a paper's name to the module that reproduces it; each such
module has ``reproduce(out, quick=False, repeat=None, jobs=None, ...)`` that
runs the experiments and writes every figure, its data and a claims table
into ``out``.  ``flashrr reproduce PAPER`` is the command-line front end.
"""
from __future__ import annotations

import importlib

PAPERS = {
    "phasedrr": "flashrr.reproduce.phasedrr",
    "shuffler": "flashrr.reproduce.shuffler",
    "cocktail": "flashrr.reproduce.cocktail",
    "superblock-pv": "flashrr.reproduce.superblock_pv",
    "hotr": "flashrr.reproduce.hotr",
}


def paper_module(name: str):
    """The reproduction module of paper ``name`` (imported on first use)."""
    try:
        return importlib.import_module(PAPERS[name])
    except KeyError:
        raise ValueError(f"reproduce: unknown paper {name!r}; expected one of {sorted(PAPERS)}") from None


__all__ = ["PAPERS", "paper_module"]
