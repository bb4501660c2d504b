"""flashrr: fast, validated simulation of read disturb and read reclaim in
NAND-flash SSDs with superblock management.

Quick start::

    import flashrr
    cfg = flashrr.SimConfig.preset("shuffler")
    trace = flashrr.synth_trace("lun0", n_requests=200_000)
    result = flashrr.simulate(cfg, trace, policy="baseline")
    result.summary["rr_count"], result.to_frame()
"""
from ._version import __version__
from .config import (CacheConfig, ConfigError, GCConfig, GeometryConfig, PreconditionConfig, ReadReclaimConfig,
                     ReadRetryConfig, SimConfig, SuperblockConfig, TimingConfig)
from .policy import EngineState, Policy, register_policy
from .result import Result
from .simulate import EngineError, InvariantError, simulate
from . import compare  # noqa: F401  (callable module: flashrr.compare(...) is flashrr.compare.compare)
from .sweep import load_results  # flashrr.sweep itself is callable: flashrr.sweep(spec, out)
from .trace import Trace, TraceError, read_trace, synth_trace, trace_stats, write_trace

__all__ = [
    "__version__", "SimConfig", "GeometryConfig", "TimingConfig", "CacheConfig", "GCConfig", "ReadReclaimConfig",
    "ReadRetryConfig", "SuperblockConfig", "PreconditionConfig", "ConfigError", "Trace", "TraceError",
    "read_trace", "write_trace", "synth_trace", "trace_stats", "simulate", "Result", "EngineError", "InvariantError", "Policy",
    "EngineState", "register_policy", "load_results", "sweep", "compare",
]
