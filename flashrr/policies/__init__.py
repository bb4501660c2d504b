"""The read-reclaim schemes of the papers, each registered by name.

Shuffler paper: ``baseline``, ``page``, ``page-8``, ``page-64``, ``shuffler``.
PhasedRR paper: ``phasedrr``.
"""
from ..policy import POLICIES, Baseline, Policy, register_policy
from .page import Page, Page8, Page64
from .phasedrr import PhasedRR
from .shuffler import Shuffler

__all__ = ["POLICIES", "Baseline", "Policy", "register_policy", "Page", "Page8", "Page64", "PhasedRR", "Shuffler"]
