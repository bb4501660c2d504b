"""Block I/O traces: the container, readers and writers, transformations,
synthetic generators and statistics."""
from .core import Trace, TraceError

__all__ = ["Trace", "TraceError"]
