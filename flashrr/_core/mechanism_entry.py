"""One line of the mechanism registry (``flashrr/_core/mechanisms/__init__.py``) and
the roles a mechanism may fill (roles.pxd describes each call point).

The registry, the engine builder (``assembly.py``) and a policy that declares a
mechanism with its own entry all import it from here."""
from __future__ import annotations

import importlib
from dataclasses import dataclass

CHAINED_ROLES = ("read_observer", "request_observer", "erase_observer", "write_observer")
EXCLUSIVE_ROLES = ("read_redirector", "user_placer", "migration_placer", "write_path")
ROLES = CHAINED_ROLES + EXCLUSIVE_ROLES
HEAD_OF = {"read_observer": "readers", "request_observer": "requesters", "erase_observer": "erasers",
           "write_observer": "writers"}


@dataclass(frozen=True)
class MechanismEntry:
    """One registry line (``flashrr/_core/mechanisms/__init__.py``).

    ``hook``: the ``PolicyHooks`` field (or ``mechanisms`` key) holding the spec;
    ``module``: the module under ``flashrr._core.mechanisms`` (the twin is
    ``<module>_py``); ``cls``: the class in both; ``roles``: the roles it fills;
    ``placer``: for a mechanism that claims ``user_placer`` with a separate placer
    object, the name of its method that returns it (or None for a spec that places as
    the device does: Optimal); ``counters``: names of the counters the mechanism keeps
    and reports through its ``counter_values()`` method (one int each, in this order),
    added to the run's summary.  ``erase_resets_only``: its erase-observer calls only
    clear what its read and request observers set, so preconditioning (no reads, no
    requests) leaves it as built and its policy shares Baseline's snapshot."""

    hook: str
    module: str
    cls: str
    roles: tuple
    placer: str | None = None
    counters: tuple = ()
    erase_resets_only: bool = False

    def __post_init__(self):
        bad = [r for r in self.roles if r not in ROLES]
        if bad:
            raise ValueError(f"mechanism {self.hook!r}: unknown role {bad[0]!r}; expected one of {ROLES}")

    def make(self, ctx, spec, reference: bool):
        """The mechanism object for ``spec`` in the compiled or the reference engine."""
        mod = importlib.import_module(f"flashrr._core.mechanisms.{self.module}{'_py' if reference else ''}")
        return getattr(mod, self.cls)(ctx, spec)
