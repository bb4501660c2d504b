"""Trace specs: ``"synth:PRESET?param=value&..."`` strings that name a synthetic trace.

Used wherever a trace can be given as text (``simulate``, the CLI, sweep specs).
Values are read as Python literals (``n_requests=20000``, ``read_ratio=0.7``);
``seed`` selects the generator seed (default 0).
"""
from __future__ import annotations

import ast
from urllib.parse import parse_qsl

from .core import Trace, TraceError

PREFIX = "synth:"


def is_synth_spec(text) -> bool:
    return isinstance(text, str) and text.startswith(PREFIX)


def parse_synth_spec(spec: str) -> tuple[str, dict]:
    """``"synth:lun0?n_requests=20000"`` -> ``("lun0", {"n_requests": 20000})``."""
    if not is_synth_spec(spec):
        raise TraceError(f"trace spec {spec!r}: expected 'synth:PRESET[?param=value&...]'")
    body = spec[len(PREFIX):]
    preset, _, query = body.partition("?")
    if not preset:
        raise TraceError(f"trace spec {spec!r}: missing preset name after 'synth:'")
    params = {}
    for key, raw in parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)):
        try:
            params[key] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            params[key] = raw
    return preset, params


def synth_from_spec(spec: str) -> Trace:
    """Generate the synthetic trace a spec names."""
    from .synth import synth_trace

    preset, params = parse_synth_spec(spec)
    try:
        trace = synth_trace(preset, **params)
    except (ValueError, KeyError, TypeError) as e:
        raise TraceError(f"trace spec {spec!r}: {e}") from None
    return trace
