"""The read-reclaim schemes of the papers, each registered by name.

Each scheme's class lives in its paper's package (``flashrr.papers.<paper>``);
importing this module imports them all, so every name below is registered.

Shuffler paper: ``baseline``, ``page``, ``page-8``, ``page-64``, ``shuffler``.
PhasedRR paper: ``phasedrr``, ``rl-rr``, ``reallocation`` (and ``baseline``).
Cocktail paper: ``cocktail``, ``redftl``, ``ipr`` (and ``baseline``).
HotR paper: ``hotr``, ``rails``, ``ttflash``, ``optimal`` (and ``baseline``).
Not from a paper: ``read-exposure`` (a histogram), ``patrol`` (a patrol scan).
"""
from ..papers.cocktail.policies import Cocktail
from ..papers.cocktail.readbalance import IPR, RedFTL
from ..papers.hotr.policies import HotR
from ..papers.hotr.redundancy import Optimal, Rails, TTFlash
from ..papers.phasedrr.policies import PhasedRR, Reallocation, RlRR
from ..papers.shuffler.page import Page, Page8, Page64
from ..papers.shuffler.policies import Shuffler
from ..policy import POLICIES, Baseline, Policy, register_policy
from .patrol import Patrol
from .read_exposure import ReadExposure

__all__ = ["POLICIES", "Baseline", "Cocktail", "HotR", "IPR", "Optimal", "Policy", "register_policy", "Page", "Page8",
           "Page64", "Patrol", "PhasedRR", "Rails", "ReadExposure", "Reallocation", "RedFTL", "RlRR", "Shuffler", "TTFlash"]
