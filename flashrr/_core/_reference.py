"""The pure-Python reference engine (see the ``reference`` package, layer by layer).

Kept as the module other code imports the twin and the shared names from."""
from .counters import COUNTERS
from .invariants import EngineError, InvariantError, check_state
from .reference.engine import ReferenceEngine

__all__ = ["COUNTERS", "EngineError", "InvariantError", "ReferenceEngine", "check_state"]
