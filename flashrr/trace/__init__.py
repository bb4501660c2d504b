"""Block I/O traces: the container, readers and writers, transformations,
synthetic generators and statistics."""
from .core import Trace, TraceError
from .io import read_trace, read_trace_report, write_trace
from .stats import trace_stats
from .synth import synth_trace
from .transform import amplify_reads, fold, repeat, scale_time

__all__ = ["Trace", "TraceError", "read_trace", "read_trace_report", "write_trace", "trace_stats", "synth_trace",
           "repeat", "amplify_reads", "scale_time", "fold"]
