"""One package per reproduced paper: its read-reclaim schemes (``policies``), what
it runs (``plan``), its figures (``figures``), its claims (``claims``) and the
:class:`~flashrr.reproduce.paper.Paper` that ties them together (``paper.PAPER``).

Packages: ``phasedrr``, ``shuffler``, ``cocktail``, ``superblock_pv``, ``hotr``.
The package ``__init__`` modules import nothing, so that :mod:`flashrr.policies`
can load a paper's schemes without its plotting and reproduction code.
"""
