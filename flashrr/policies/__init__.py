"""The read-reclaim schemes of the papers, each registered by name."""
from ..policy import POLICIES, Baseline, Policy, register_policy

__all__ = ["POLICIES", "Baseline", "Policy", "register_policy"]
