"""One-command reproductions of the papers' evaluations.

Each paper is a package under :mod:`flashrr.papers` whose ``paper`` module
declares its :class:`~flashrr.reproduce.paper.Paper` (``PAPER``): plan, groups,
figures, claims and help text.  ``PAPERS`` maps a paper's command-line name to
that ``PAPER``, importing the paper on first use, and :func:`reproduce` runs
one (:func:`flashrr.reproduce.runner.reproduce`).  ``flashrr reproduce PAPER``
is the command-line front end.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping

#: paper name -> the module holding its ``PAPER``, in the order ``reproduce all`` runs them
PAPER_MODULES = {
    "phasedrr": "flashrr.papers.phasedrr.paper",
    "shuffler": "flashrr.papers.shuffler.paper",
    "cocktail": "flashrr.papers.cocktail.paper",
    "superblock-pv": "flashrr.papers.superblock_pv.paper",
    "hotr": "flashrr.papers.hotr.paper",
}


class PaperRegistry(Mapping):
    """``name -> PAPER`` over :data:`PAPER_MODULES`; a paper's module is imported
    when its ``PAPER`` is first looked up, so listing the names imports no paper."""

    def __init__(self, modules: dict):
        self._modules = dict(modules)

    def __getitem__(self, name: str):
        try:
            module = self._modules[name]
        except KeyError:
            raise KeyError(f"reproduce: unknown paper {name!r}; expected one of {sorted(self._modules)}") from None
        return importlib.import_module(module).PAPER

    def __iter__(self):
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)


PAPERS = PaperRegistry(PAPER_MODULES)


def paper_named(name: str):
    """The :class:`~flashrr.reproduce.paper.Paper` named ``name`` (ValueError if there is none)."""
    if name not in PAPERS:
        raise ValueError(f"reproduce: unknown paper {name!r}; expected one of {sorted(PAPERS)}")
    return PAPERS[name]


def reproduce(name: str, out, **options) -> dict:
    """Reproduce paper ``name`` into ``out`` (``options``: those of :func:`flashrr.reproduce.runner.reproduce`)."""
    from .runner import reproduce as run_paper

    return run_paper(paper_named(name), out, **options)


__all__ = ["PAPERS", "PAPER_MODULES", "PaperRegistry", "paper_named", "reproduce"]
