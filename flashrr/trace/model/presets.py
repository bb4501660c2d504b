"""The papers' traces rebuilt on the workload model: ``model:PRESET``.

Every row of the papers' trace tables that :mod:`flashrr.trace.synth_presets`
reproduces with the synthetic generator (``synth:lun0``) has a model-based
twin here (``model:lun0``), except Shuffler's ``gen0`` and ``gen1``, which the
paper made with MQSim's random-access generator (no locality to take from
anywhere: they stay synthetic).

What comes from where:

* the **table's numbers** — request count, read ratio, mean read (and write)
  size, hot ratio and footprint — are the synthetic preset's, that is the
  paper's, or flashrr's stated assumptions where the paper gives none (see
  ``synth_presets``), including the footprint scaled by ``n_requests / paper
  count`` for shorter traces;
* the **shape** — where reads and writes cluster (heat maps and cascades), how
  often requests come back and from how far (re-accesses), which sizes go
  where, and the burstiness of arrivals — is the fitted model of a real sample
  of the same family (:data:`PRESET_TEMPLATES`, and the reason for each
  choice); the papers publish their locality only as figures (Shuffler Fig. 2,
  Cocktail Figs. 4-5, HotR Fig. 1(c)), whose values their text does not give;
* the **mean arrival gap** is the synthetic preset's (an assumption: 200 us),
  or ``mean_gap_ns``; a sample whose timestamps are too coarse to shape arrivals
  (the Tencent sample's are whole seconds) gives Poisson arrivals instead.

How the numbers are met (:func:`calibrate`): the template's covered regions
are packed from LPN 0 (:func:`~flashrr.trace.model.transform.compacted`), the
op chain gets the read ratio, then four knobs are tuned on traces generated
with a fixed calibration seed: the read and write size factors (to the mean
sizes), the span of the address space (to the footprint) and the locality (to
the hot ratio: a grid over [-1, 1] refined around its best point, best meaning
the least sum of the hot-ratio error and the log footprint error; for each
locality the other knobs are tuned again; see :class:`Knobs`).  Where no knob
setting reaches the table's numbers, the closest one is kept;
``benchmarks/model_presets_table.py`` prints what each preset reaches.  The
tuning never looks at a simulation result, only at the trace statistics of
:func:`~flashrr.trace.stats.trace_stats`.  Calibration of
a paper-length trace takes a minute or two; its knobs are kept in memory and
on disk (``$FLASHRR_CACHE_DIR``, default ``~/.cache/flashrr``) under a key of
the template file, the targets and this module's calibration version, and
flashrr ships the knobs of the reproductions' default and ``--quick`` plans
(:data:`SHIPPED_KNOBS`).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from ..stats import trace_stats
from .generate import generate_trace
from .schema import WorkloadModel
from .templates import TEMPLATES, load_template
from .transform import (compacted, concentrated, overlap_scaled, poisson_arrivals, scaled_sizes, sequential_scaled,
                        stretched, with_mean_gap, with_read_ratio)

__all__ = ["PRESET_TEMPLATES", "model_preset_names", "model_preset", "calibrate", "Targets", "Knobs",
           "CALIBRATION_VERSION", "SHIPPED_KNOBS", "calibration_key", "targets_for"]

#: Bumped whenever the calibration's algorithm changes (part of the disk-cache key).
CALIBRATION_VERSION = 6
CALIBRATION_SEED = 20261126
#: Calibrations of longer traces run on this many requests (footprint target scaled to match), then the stretch
#: is corrected once at full length.
CALIBRATION_REQUESTS = 400_000
_ROUNDS = 4  # size and span refinements per locality (fewer when within 1%)
_FULL_ROUNDS = 3  # the same at full length, once the locality is chosen
_REFINE_STEPS = 2  # halvings of the locality step around the best grid point

_ALIBABA = ("tencent-cbs", "Alibaba's block traces are a cloud block service's; the Tencent CBS sample is the "
                           "cloud block storage we have")
_SYSTOR = ("systor", "the SYSTOR'17 LUN traces themselves (a 999-request excerpt)")
_MSR = ("msr-hm", "an MSR Cambridge server (hm_0, a 1,000-request excerpt)")
_WEB = ("websearch", "the web-search trace the paper's row names (MQSim's excerpt)")
_OTHER = ("cloudphysics", "no sample of this family; the largest real block trace we have (a VM's) stands in")

#: synthetic preset name -> (template, why that template)
PRESET_TEMPLATES = {
    "ali0": _ALIBABA, "ali1": _ALIBABA,
    **{f"lun{i}": _SYSTOR for i in range(6)},
    "phasedrr-ws_1": _WEB, "phasedrr-usr_0": _MSR, "phasedrr-web_0": _MSR,
    **{f"phasedrr-lun{i}": _SYSTOR for i in range(1, 5)}, "phasedrr-ali": _ALIBABA,
    "cocktail-alibaba_206": _ALIBABA, "cocktail-alibaba_188": _ALIBABA, "cocktail-usr1": _MSR,
    "cocktail-systor1": _SYSTOR, "cocktail-systor2": _SYSTOR, "cocktail-ads1": _OTHER, "cocktail-ads2": _OTHER,
    "cocktail-nexus5": _OTHER, "cocktail-msr_web": _MSR, "cocktail-websearch": _WEB,
    "hotr-fin2": ("tpcc", "Financial traces are OLTP; the TPC-C sample is the OLTP trace we have"),
    "hotr-msr_hm": _MSR, "hotr-hpc_46": _OTHER, "hotr-hpc_28": _OTHER,
}


def model_preset_names() -> list[str]:
    return list(PRESET_TEMPLATES)


@dataclass(frozen=True)
class Targets:
    """What a model preset must show: read ratio, mean read and write sizes (bytes), footprint (bytes of pages
    of ``page_bytes``), hot ratio (``hot_key`` of trace_stats), request count and mean arrival gap (ns)."""

    read_ratio: float
    read_size_bytes: float
    write_size_bytes: float
    footprint_bytes: float
    hot_ratio: float
    hot_key: str
    page_bytes: int
    n_requests: int
    mean_gap_ns: float


@dataclass(frozen=True)
class Knobs:
    """The calibrated transforms: size factors, span and locality.

    A ``span`` above 1 stretches the heat maps over that many times as many
    regions; below 1 it scales every offset by it (the model's
    ``address_scale``): the pattern laid over a smaller address space.
    ``locality`` in [-1, 1]: above 0 it is the concentration ``kappa`` of
    :func:`~flashrr.trace.model.transform.concentrated` (hotter hot spots, more
    pages read many times); below 0 it widens the window within which a fresh
    request avoids units already used, ``2 ** (-12 * locality)`` times (up to
    2**22 requests), moves every continuation probability that share of the
    way to 1 (:func:`~flashrr.trace.model.transform.sequential_scaled`) and
    lowers the share of fresh requests that may overlap recent ones by that
    share, so fewer pages are read twice, as in a scan."""

    read_factor: float
    write_factor: float
    span: float
    locality: float


def targets_for(name: str, n_requests: int | None = None, mean_gap_ns: float | None = None) -> Targets:
    """The statistics ``model:name`` must show at ``n_requests`` requests (default: the paper's)."""
    from ..synth import synth_params

    if name not in PRESET_TEMPLATES:
        raise ValueError(f"unknown model preset {name!r}; expected one of {', '.join(PRESET_TEMPLATES)}")
    p, n = synth_params(name, n_requests)
    if mean_gap_ns is None:
        mean_gap_ns = p.interarrival_mean_ns + (p.idle_period_mean_ns / p.burst_requests_mean
                                                if p.idle_period_mean_ns > 0 else 0.0)
    key = "hot_ratio_4" if p.hot_min_reads >= 4 else "hot_ratio"
    return Targets(p.read_ratio, p.read_size_mean_bytes, p.write_size_mean_bytes, float(p.footprint_bytes),
                   p.hot_set_ratio, key, int(p.align_bytes), int(n), float(mean_gap_ns))


def _base(name: str, t: Targets) -> WorkloadModel:
    template = PRESET_TEMPLATES[name][0]
    m = with_read_ratio(compacted(load_template(template)), t.read_ratio)
    m = with_mean_gap(m, t.mean_gap_ns) if TEMPLATES[template].timed else poisson_arrivals(m, t.mean_gap_ns)
    return m.replace(name=name)


_MAX_WINDOW = 1 << 22


def _apply(base: WorkloadModel, k: Knobs) -> WorkloadModel:
    m = scaled_sizes(base, k.read_factor, k.write_factor)
    if k.locality > 0:
        m = concentrated(m, k.locality)
    elif k.locality < 0:
        window = min(int(round(m.reuse_window_requests * 2.0 ** (-12.0 * k.locality))), _MAX_WINDOW)
        m = sequential_scaled(m.replace(reuse_window_requests=max(window, m.reuse_window_requests)), -k.locality)
        m = overlap_scaled(m, 1.0 + k.locality)
    return stretched(m, k.span) if k.span >= 1.0 else m.replace(address_scale=k.span)


def _measure(m: WorkloadModel, n: int, page: int) -> dict:
    return trace_stats(generate_trace(m, n, seed=CALIBRATION_SEED), page_size_bytes=page)


def _tune_sizes_and_stretch(base, t: Targets, k: Knobs, n: int, fp_target: float,
                            rounds: int = _ROUNDS) -> tuple[Knobs, dict]:
    st = {}
    last = None  # (log span, log footprint) of the previous round
    for _ in range(rounds):
        st = _measure(_apply(base, k), n, t.page_bytes)
        if all(abs(st[key] / want - 1.0) < 0.01 for key, want in (
                ("avg_read_size_bytes", t.read_size_bytes), ("avg_write_size_bytes", t.write_size_bytes),
                ("footprint_bytes", fp_target)) if st[key] and want):
            break
        rf = k.read_factor * (t.read_size_bytes / st["avg_read_size_bytes"] if st["avg_read_size_bytes"] else 1)
        wf = k.write_factor * (t.write_size_bytes / st["avg_write_size_bytes"] if st["avg_write_size_bytes"] else 1)
        span = k.span
        if st["footprint_bytes"]:
            # the footprint grows with the span more slowly than in proportion: step along the slope the last two
            # rounds measured (in logs; 1 at the first round, kept within [0.05, 2])
            now = (math.log(k.span), math.log(st["footprint_bytes"]))
            slope = 1.0
            if last is not None and abs(now[0] - last[0]) > 1e-9:
                slope = min(max((now[1] - last[1]) / (now[0] - last[0]), 0.05), 2.0)
            span = k.span * (fp_target / st["footprint_bytes"]) ** (1.0 / slope)
            last = now
        k = Knobs(rf, wf, min(max(span, 1e-9), 1e6), k.locality)
    return k, st


def calibrate(name: str, t: Targets) -> tuple[Knobs, dict]:
    """The knobs that make ``model:name`` meet ``t``, and the statistics of the calibration trace they give
    (see the module docstring)."""
    base = _base(name, t)
    n = min(t.n_requests, CALIBRATION_REQUESTS)
    fp = t.footprint_bytes * n / t.n_requests
    k = Knobs(1.0, 1.0, 1.0, 0.0)
    tuned: dict[float, tuple[Knobs, dict]] = {}  # locality -> tuned knobs and their statistics

    def at(locality: float):
        if locality not in tuned:
            tuned[locality] = _tune_sizes_and_stretch(base, t, Knobs(k.read_factor, k.write_factor, k.span,
                                                                     locality), n, fp)
        return tuned[locality]

    def error(locality: float) -> float:
        st = at(locality)[1]
        fp_err = abs(math.log(st["footprint_bytes"] / fp)) if st["footprint_bytes"] else math.inf
        return abs(st[t.hot_key] - t.hot_ratio) + fp_err

    grid = [-1.0, -0.5, 0.0, 0.5, 1.0]
    best = min(grid, key=error)
    step = 0.25
    for _ in range(_REFINE_STEPS):  # halve the step around the best point
        best = min((best - step, best, best + step), key=lambda x: error(min(max(x, -1.0), 1.0)))
        best = min(max(best, -1.0), 1.0)
        step /= 2
    k, st = at(best)
    # sizes and span again, at full length (the footprint grows more slowly than n)
    k, _ = _tune_sizes_and_stretch(base, t, k, t.n_requests, t.footprint_bytes, _FULL_ROUNDS)
    return k, _measure(_apply(base, k), t.n_requests, t.page_bytes)


#: Knobs calibrated for the reproductions' default and --quick plans, shipped with flashrr (written by
#: ``benchmarks/model_presets_table.py --save``), so a fresh install does not calibrate them again.
SHIPPED_KNOBS = Path(__file__).resolve().parent / "preset_knobs.json"


def calibration_key(name: str, t: Targets) -> str:
    """The key of a calibration: the preset, a hash of its template file, its targets and
    :data:`CALIBRATION_VERSION`."""
    template = TEMPLATES[PRESET_TEMPLATES[name][0]]
    h = hashlib.sha256(template.path.read_bytes())
    h.update(json.dumps([name, asdict(t), CALIBRATION_VERSION], sort_keys=True).encode())
    return f"{name}-{h.hexdigest()[:24]}"


def _cache_path(key: str) -> Path:
    root = Path(os.environ.get("FLASHRR_CACHE_DIR") or Path.home() / ".cache" / "flashrr")
    return root / "model-presets" / f"{key}.json"


@lru_cache(maxsize=1)
def _shipped() -> dict:
    try:
        return json.loads(SHIPPED_KNOBS.read_text())
    except (OSError, ValueError):
        return {}


@lru_cache(maxsize=64)
def _knobs(name: str, t: Targets) -> Knobs:
    key = calibration_key(name, t)
    if key in _shipped():
        return Knobs(**_shipped()[key]["knobs"])
    path = _cache_path(key)
    try:
        return Knobs(**json.loads(path.read_text())["knobs"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    k, st = calibrate(name, t)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({"knobs": asdict(k), "targets": asdict(t), "calibration_stats": st}, indent=1))
        tmp.replace(path)
    except OSError:
        pass  # a read-only home: calibrate again next time
    return k


def model_preset(name: str, n_requests: int | None = None, mean_gap_ns: float | None = None) -> WorkloadModel:
    """The model of paper trace ``name`` for a trace of ``n_requests`` requests (default: the paper's count);
    ``mean_gap_ns`` replaces the preset's mean arrival gap."""
    if mean_gap_ns is not None and not (math.isfinite(mean_gap_ns) and mean_gap_ns > 0):
        raise ValueError(f"mean_gap_ns: expected a positive number of ns (got {mean_gap_ns!r})")
    t = targets_for(name, n_requests, mean_gap_ns)
    k = _knobs(name, t)
    m = _apply(_base(name, t), k)
    template = PRESET_TEMPLATES[name]
    source = {"preset": name, "template": template[0], "template_reason": template[1],
              "targets": asdict(t), "knobs": asdict(k), "requests": t.n_requests}
    return m.replace(source=source, fit={})
