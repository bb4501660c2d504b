"""The trace specs of a paper's rows: from the workload model or the synthetic
generator (:func:`workload_spec`), and the real-sample group that runs a shipped
real trace in a row's place (:data:`REAL_GROUP`, :func:`real_group_spec`).
"""
from __future__ import annotations

#: the group of a reproduction's real-sample runs: the main group's policies on the shipped real samples
#: (:mod:`flashrr.trace.samples`) of its traces' families, each in its row's place
REAL_GROUP = "real"
REAL_SUFFIX = " (real sample)"


def real_label(row: str) -> str:
    """The trace name of the real sample standing in for paper row ``row``."""
    return row + REAL_SUFFIX


def real_rows(plan) -> list:
    """``(row, sample)`` pairs of the plan's real-sample group: its ``real_samples``
    whose row is one of its traces (none for a plan without ``real_samples``)."""
    return [(row, sample) for row, sample in getattr(plan, "real_samples", ()) if row in plan.traces]


def real_labels(plan) -> list:
    """The trace names of the plan's real-sample group, in plan order."""
    return [real_label(row) for row, _ in real_rows(plan)]


def real_group_spec(plan, fields: dict, policies: dict) -> dict:
    """``{REAL_GROUP: sweep spec}``: ``fields`` (seeds, devices ...) with the plan's real samples as traces
    and ``policies``; empty when the plan has no real sample for its traces."""
    labels = real_labels(plan)
    if not labels:
        return {}
    return {REAL_GROUP: {**fields, "traces": [plan.trace_spec(t) for t in labels], "policies": policies}}


def split_real(plan, name: str) -> tuple:
    """``(row, sample)`` for a real-sample trace name, ``(name, None)`` for a paper row."""
    for row, sample in real_rows(plan):
        if name == real_label(row):
            return row, sample
    return name, None


#: where a reproduction's traces come from: the workload model (``model:PRESET``, the default) or the synthetic
#: generator (``synth:PRESET``); see :func:`workload_spec`
WORKLOADS = ("model", "synth")


def with_replays(spec: str, replays: int) -> str:
    """``spec`` played ``replays`` times: its pipeline's ``repeat`` multiplied by ``replays`` (added when it
    has none; unchanged for 1)."""
    import re

    n = int(replays)
    if n <= 1:
        return spec
    has = re.search(r"([?&])repeat=(\d+)(?=&|$)", spec)
    if has:
        return spec[:has.start()] + f"{has.group(1)}repeat={int(has.group(2)) * n}" + spec[has.end():]
    return f"{spec}{'&' if '?' in spec else '?'}repeat={n}"


def workload_spec(preset: str, n_requests: int | None, trace_params=(), workload: str = "model",
                  pipeline: dict | None = None) -> str:
    """The trace spec of paper trace ``preset`` for ``workload``.

    ``"synth"``: ``synth:PRESET`` with ``trace_params`` (generator parameters) and ``pipeline`` (pipeline keys).
    ``"model"``: ``model:PRESET`` (:mod:`flashrr.trace.model.presets`) with the same request count, a mean
    arrival gap equal to the synthetic trace's (``interarrival_mean_ns`` plus the idle time per request of
    ON/OFF arrivals, from the preset and ``trace_params``), and ``pipeline``; the synthetic generator's
    other parameters (alignment, footprint rules) have no model counterpart and are left out.  A row
    without a model preset (Shuffler's MQSim-generated gen0 and gen1) stays synthetic.

    Without a placement in ``pipeline`` (``pack`` or ``fold``), a model trace is packed (``pack=stripe``): a
    model preset meets the row's footprint, the pages it touches, but its addresses spread as its
    sample's did, so packed it occupies that footprint (:mod:`flashrr.reproduce.regime`).
    """
    from urllib.parse import urlencode

    from ..trace.model.presets import PRESET_TEMPLATES

    if workload not in WORKLOADS:
        raise ValueError(f"workload: expected one of {', '.join(WORKLOADS)} (got {workload!r})")
    pipeline = dict(pipeline or {})
    if workload == "synth" or preset not in PRESET_TEMPLATES:
        params = {} if n_requests is None else {"n_requests": int(n_requests)}
        params.update(dict(trace_params))
        params.update(pipeline)
        return f"synth:{preset}" + (f"?{urlencode(params)}" if params else "")
    from ..trace.synth import synth_params

    p, _ = synth_params(preset, n_requests, **{k: v for k, v in dict(trace_params).items()
                                               if k in ("interarrival_mean_ns", "idle_period_mean_ns",
                                                        "burst_requests_mean")})
    gap = p.interarrival_mean_ns + (p.idle_period_mean_ns / p.burst_requests_mean if p.idle_period_mean_ns else 0)
    params = {} if n_requests is None else {"n_requests": int(n_requests)}
    params["mean_gap_ns"] = repr(float(gap))
    params.update(pipeline)
    if "fold" not in params:
        params.setdefault("pack", "stripe")
    return f"model:{preset}?{urlencode(params)}"

