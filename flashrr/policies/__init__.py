"""The read-reclaim schemes of the papers, each registered by name, and a policy by
its name (:func:`policy_class`, :func:`make_policy`).

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
from ..policy import POLICIES, Baseline, Policy, register_policy, registered_class
from ..policy_combine import combined_class, is_combined
from .patrol import Patrol
from .read_exposure import ReadExposure


def policy_class(name) -> type:
    """The policy class of ``name``: a registered name, or registered names joined by
    ``+`` (a combined scheme, :mod:`flashrr.policy_combine`).  Raises ValueError."""
    return combined_class(name) if is_combined(name) else registered_class(name)


def make_policy(policy, **params) -> Policy:
    """A policy instance from a name (``"baseline"``, ``"shuffler+phasedrr"``), a class,
    or an instance."""
    if isinstance(policy, Policy):
        if params:
            raise TypeError("parameters given with a policy instance; pass them to its constructor")
        return policy
    if isinstance(policy, type) and issubclass(policy, Policy):
        return policy(**params)
    return policy_class(policy)(**params)


__all__ = ["POLICIES", "Baseline", "Cocktail", "HotR", "IPR", "Optimal", "Policy", "register_policy", "make_policy",
           "policy_class", "Page", "Page8", "Page64", "Patrol", "PhasedRR", "Rails", "ReadExposure", "Reallocation",
           "RedFTL", "RlRR", "Shuffler", "TTFlash"]
