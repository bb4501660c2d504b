"""flashrr: fast, validated simulation of read disturb and read reclaim in
NAND-flash SSDs with superblock management.

Quick start::

    import flashrr
    cfg = flashrr.SimConfig.preset("shuffler")
    trace = flashrr.synth_trace("lun0", n_requests=200_000)
    result = flashrr.simulate(cfg, trace, policy="baseline")
    result.summary["rr_count"], result.to_frame()
"""
from ._lazy import lazy_attributes
from ._version import __version__
from .config import (CacheConfig, ConfigError, GCConfig, GeometryConfig, PlacementConfig, PreconditionConfig,
                     ProcessVariationConfig, ReadReclaimConfig, ReadRetryConfig, SimConfig, SuperblockConfig,
                     TimingConfig)
from . import presets  # noqa: F401  (registers the papers' device presets into the configuration)
from .policy import EngineState, Policy, register_policy
from .result import Result
from .simulate import EngineError, InvariantError, simulate
from .trace.core import Trace, TraceError

# Imported when first read: the sweeps and comparisons need pandas, the trace files pyarrow.
# flashrr.compare and flashrr.sweep are callable modules (flashrr.compare(...) is
# flashrr.compare.compare, flashrr.sweep(spec, out) is flashrr.sweep.sweep).
__getattr__, __dir__ = lazy_attributes(
    __name__, {"load_results": ".sweep", "read_trace": ".trace.io", "write_trace": ".trace.io",
               "synth_trace": ".trace.synth", "trace_stats": ".trace.stats"},
    submodules=("compare", "sweep"))

__all__ = [
    "__version__", "SimConfig", "GeometryConfig", "TimingConfig", "CacheConfig", "GCConfig", "ReadReclaimConfig",
    "ReadRetryConfig", "SuperblockConfig", "ProcessVariationConfig", "PlacementConfig", "PreconditionConfig", "ConfigError", "Trace", "TraceError",
    "read_trace", "write_trace", "synth_trace", "trace_stats", "simulate", "Result", "EngineError", "InvariantError", "Policy",
    "EngineState", "register_policy", "load_results", "sweep", "compare",
]
