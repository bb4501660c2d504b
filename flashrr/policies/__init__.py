"""The read-reclaim schemes of the papers, each registered by name.

Shuffler paper: ``baseline``, ``page``, ``page-8``, ``page-64``, ``shuffler``.
PhasedRR paper: ``phasedrr``, ``rl-rr``, ``reallocation`` (and ``baseline``).
Cocktail paper: ``cocktail``, ``redftl``, ``ipr`` (and ``baseline``).
HotR paper: ``hotr``, ``rails``, ``ttflash``, ``optimal`` (and ``baseline``).
"""
from ..policy import POLICIES, Baseline, Policy, register_policy
from .cocktail import Cocktail
from .hotr import HotR
from .page import Page, Page8, Page64
from .phasedrr import PhasedRR, Reallocation, RlRR
from .read_exposure import ReadExposure
from .readbalance import IPR, RedFTL
from .redundancy import Optimal, Rails, TTFlash
from .shuffler import Shuffler

__all__ = ["POLICIES", "Baseline", "Cocktail", "HotR", "IPR", "Optimal", "Policy", "register_policy", "Page", "Page8",
           "Page64", "PhasedRR", "Rails", "ReadExposure", "Reallocation", "RedFTL", "RlRR", "Shuffler", "TTFlash"]
