"""flashrr: fast, validated simulation of read disturb and read reclaim in
NAND-flash SSDs with superblock management."""
from ._version import __version__
from .config import (CacheConfig, ConfigError, GCConfig, GeometryConfig, PreconditionConfig, ReadReclaimConfig,
                     ReadRetryConfig, SimConfig, SuperblockConfig, TimingConfig)
from .trace import Trace, TraceError

__all__ = [
    "__version__", "SimConfig", "GeometryConfig", "TimingConfig", "CacheConfig", "GCConfig", "ReadReclaimConfig",
    "ReadRetryConfig", "SuperblockConfig", "PreconditionConfig", "ConfigError", "Trace", "TraceError",
]
