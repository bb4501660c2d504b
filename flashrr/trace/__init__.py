"""Block I/O traces: the container, readers and writers, streaming sources and
trace pipelines, transformations, synthetic generators and statistics."""
from .core import Trace, TraceError
from .io import open_trace, read_trace, read_trace_report, write_trace
from .pipeline import open_trace_spec, parse_trace_spec
from .source import MemorySource, TraceSource
from .stats import trace_stats
from .synth import synth_trace
from .transform import amplify_reads, fold, repeat, scale_time

__all__ = ["Trace", "TraceError", "read_trace", "read_trace_report", "write_trace", "trace_stats", "synth_trace",
           "repeat", "amplify_reads", "scale_time", "fold", "open_trace", "open_trace_spec", "parse_trace_spec",
           "TraceSource", "MemorySource"]
