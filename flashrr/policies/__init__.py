"""The read-reclaim schemes of the papers, each registered by name.

Shuffler paper: ``baseline``, ``page``, ``page-8``, ``page-64``, ``shuffler``.
PhasedRR paper: ``phasedrr``, ``rl-rr``, ``reallocation`` (and ``baseline``).
Cocktail paper: ``cocktail``, ``redftl``, ``ipr`` (and ``baseline``).
"""
from ..policy import POLICIES, Baseline, Policy, register_policy
from .cocktail import Cocktail
from .page import Page, Page8, Page64
from .phasedrr import PhasedRR, Reallocation, RlRR
from .readbalance import IPR, RedFTL
from .shuffler import Shuffler

__all__ = ["POLICIES", "Baseline", "Cocktail", "Policy", "register_policy", "IPR", "Page", "Page8", "Page64", "RedFTL", "PhasedRR", "Reallocation", "RlRR", "Shuffler"]
