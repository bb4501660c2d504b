"""Block I/O traces: the container, readers and writers, streaming sources and
trace pipelines, transformations, synthetic generators and statistics.

Each name is imported from its submodule when first read, so that code needing
only :class:`Trace` does not import pyarrow (the file formats and the parse cache)."""
from .._lazy import lazy_attributes

#: public name -> the submodule that holds it
_WHERE = {
    "Trace": ".core", "TraceError": ".core",
    "read_trace": ".io", "read_trace_report": ".io", "write_trace": ".io", "open_trace": ".io",
    "trace_stats": ".stats", "synth_trace": ".synth",
    "repeat": ".transform", "amplify_reads": ".transform", "scale_time": ".transform", "fold": ".transform",
    "open_trace_spec": ".pipeline", "parse_trace_spec": ".pipeline",
    "TraceSource": ".source", "MemorySource": ".source",
}
__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)

__all__ = list(_WHERE)
