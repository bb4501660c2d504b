"""Parameter sweeps: traces x devices x policy parameter grids x seeds, run on local
processes or on a Dask cluster, with every finished run stored at once.

>>> from flashrr.sweep import sweep, load_results
>>> df = sweep("experiments/example_sweep.toml", "out/example")   # doctest: +SKIP

See ``docs/sweeps.md`` for the spec format, the store layout and resume semantics.

The package itself is callable: ``flashrr.sweep(spec, out, ...)`` is
:func:`flashrr.sweep.sweep`, so ``flashrr.sweep`` can serve both as the function
and as this package (a top-level ``from .sweep import sweep`` would instead hide
the package behind the function).
"""
import sys
import types

from .driver import SweepFailed, SweepOutcome, SweepReport, plan, run_sweep, run_sweeps, sweep
from .runner import SweepError
from .spec import SpecError, SweepSpec, load_spec
from .store import ResultStore, StoreError, load_errors, load_results, load_run_artifacts

__all__ = ["sweep", "run_sweep", "run_sweeps", "load_results", "load_errors", "load_run_artifacts", "load_spec", "plan",
           "SweepSpec", "SweepOutcome", "SweepReport", "ResultStore", "SpecError", "SweepError", "SweepFailed",
           "StoreError"]


class _CallableModule(types.ModuleType):
    def __call__(self, *args, **kwargs):
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
