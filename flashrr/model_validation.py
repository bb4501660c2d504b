"""Does a fitted workload model stand in for its trace?  Replay both and compare.

:func:`validate_model` replays a real trace and traces generated from its model
(several seeds) on the same device, with the same policies and replays, and
returns one row per (policy, metric): the real value, the model's mean over
seeds and its range, the difference, and whether it meets the goal.

Goals (``docs/traces.md``, the workload model section): RR count, mean read
latency, read cache hit ratio and the hit ratio of a 1,024-page LRU cache fed
the read pages within 25% of the real trace's; the share of page reads in the
busiest 10% of 2 MiB regions within 5 points.  The other metrics (GC count,
WAF, p99 read latency, the LRU hit ratios at 8,192 and 65,536 pages, the KS
distance between the block read counts at RR of the two traces) are shown
without a goal.

:func:`validate_holdout` asks the harder question: does a model stand in for
data it was not fitted to?  It cuts the trace into halves by request count,
fits a model on one half and validates it against the other, both ways round,
with the same replays, table and goals.  Beside the model it replays the fitted
half itself as a stand-in for the other half (the ``reference`` columns): a
model that reproduced its half exactly would score what that half scores, so
the reference shows how far the halves of the trace agree with each other, the
part of a held-out miss that no model of one half can close.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["validate_model", "validate_holdout", "trace_halves", "region_top_share", "read_page_stack_distances",
           "GOALS", "METRICS", "LRU_PAGES", "ValidationReport", "HOLDOUT_SPLITS"]

#: metric -> (kind of goal, bound): "rel" = |model - real| <= bound * |real|; "abs" = |model - real| <= bound
GOALS = {"rr_count": ("rel", 0.25), "read_latency_mean_ns": ("rel", 0.25), "cache_read_hit_ratio": ("rel", 0.25),
         "region_top10_share": ("abs", 0.05), "lru_hit_1024": ("rel", 0.25)}
#: LRU cache sizes (pages of the device) whose hit ratio on the read pages is compared
LRU_PAGES = (1024, 8192, 65536)
#: metrics in display order: name -> label
METRICS = {"rr_count": "RR count", "gc_count": "GC count", "waf": "WAF", "cache_read_hit_ratio": "cache read hit",
           "read_latency_mean_ns": "read mean (us)", "read_latency_p99_ns": "read p99 (us)",
           "region_top10_share": "region top-10% share",
           **{f"lru_hit_{n}": f"LRU hit, {n:,} pages" for n in LRU_PAGES},
           "ks_block_reads_at_rr": "KS, block reads at RR"}
REGION_BYTES = 2 << 20


def region_top_share(trace, page_bytes: int = 8192, region_bytes: int = REGION_BYTES, fraction: float = 0.1) -> float:
    """Share of all page reads that fall in the busiest ``fraction`` of the ``region_bytes`` regions that reads
    touch (pages of ``page_bytes``; a read counts once for every page it touches)."""
    from .trace.locality import page_counts, region_counts, top_share

    reads = ~trace.is_write
    first = trace.offset[reads] // page_bytes
    last = (trace.offset[reads] + trace.size[reads] - 1) // page_bytes
    pages, counts = page_counts(first, last)
    _, per_region = region_counts(pages, counts, region_bytes // page_bytes)
    return top_share(per_region, fraction)


def read_page_stack_distances(trace, page_bytes: int = 8192) -> np.ndarray:
    """The LRU stack distance (distinct pages since its last read; -1 at a first read) of every page the reads
    of ``trace`` touch, in order (pages of ``page_bytes``; a read touches each of its pages once)."""
    from .trace.locality import expand_pages, stack_distances

    reads = ~trace.is_write
    _, pages = expand_pages(trace.offset[reads] // page_bytes,
                            (trace.offset[reads] + trace.size[reads] - 1) // page_bytes)
    return stack_distances(pages)


def _block_reads_at_rr(result) -> np.ndarray:
    ev = result.rr_events
    if ev is None or not len(ev):
        return np.zeros(0)
    return np.concatenate([np.asarray(b, dtype=np.float64).ravel() for b in ev["block_reads"]])


def _ks(a: np.ndarray, b: np.ndarray) -> float:
    if not a.size or not b.size:
        return math.nan
    from scipy.stats import ks_2samp

    return float(ks_2samp(a, b).statistic)


@dataclass
class ValidationReport:
    """``table``: one row per (policy, metric) with columns policy, metric, real, model (mean over seeds),
    model_min, model_max, diff (model - real: relative for a "rel" goal, in points for "abs"), goal and met
    (True, False, or None without a goal); with a reference trace (held out: the fitted half), also
    reference (its value) and reference_met (whether it meets the goal against real).  ``runs``: one row per
    replay (source real/model/reference, seed, policy, metrics).  ``reference_label`` names the reference
    in :meth:`text` (None: no reference)."""

    table: pd.DataFrame
    runs: pd.DataFrame
    model_name: str
    reference_label: str | None = None

    def text(self) -> str:
        lines = []
        keys = ["split", "policy"] if "split" in self.table else ["policy"]
        for key, block in self.table.groupby(keys, sort=False):
            lines.append(f"{key[0]}: policy {key[1]}" if len(keys) == 2 else f"policy {key[0]}")
            rows = []
            ref = self.reference_label is not None and "reference" in block
            for r in block.itertuples():
                rows.append((METRICS[r.metric], _fmt(r.metric, r.real), _fmt(r.metric, r.model),
                             f"{_fmt(r.metric, r.model_min)} .. {_fmt(r.metric, r.model_max)}", _diff(r),
                             r.goal if isinstance(r.goal, str) else "", _met(r.met))
                            + ((_fmt(r.metric, r.reference), _met(r.reference_met)) if ref else ()))
            heads = ("metric", "real", "model", "model range", "diff", "goal", "met") \
                + ((self.reference_label, "met") if ref else ())
            widths = [max(len(h), *(len(x[i]) for x in rows)) for i, h in enumerate(heads)]
            lines.append("  ".join(h.ljust(w) for h, w in zip(heads, widths)))
            lines.append("  ".join("-" * w for w in widths))
            lines += ["  ".join(x.ljust(w) for x, w in zip(row, widths)) for row in rows]
            lines.append("")
        return "\n".join(lines).rstrip()


def _met(v) -> str:
    if v is True or v is np.True_:
        return "yes"
    if v is False or v is np.False_:
        return "NO"
    return ""


def _fmt(metric: str, v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if metric.endswith("_ns"):
        return f"{v / 1e3:,.0f}"
    if metric in ("rr_count", "gc_count"):
        return f"{v:,.1f}" if v != int(v) else f"{int(v):,}"
    return f"{v:.3f}"


def _diff(r) -> str:
    if r.diff is None or (isinstance(r.diff, float) and math.isnan(r.diff)):
        return "n/a"
    kind = GOALS.get(r.metric, ("rel",))[0]
    return f"{r.diff * 100:+.1f} pts" if kind == "abs" else f"{r.diff * 100:+.1f}%"


def validate_model(trace, model=None, config="shuffler", policies=("baseline",), repeat: int = 16,
                   seeds=(1, 2, 3), n_requests: int | None = None, policy_params: dict | None = None,
                   fit_settings=None, progress=None) -> ValidationReport:
    """Replay ``trace`` (a Trace, a TraceSource or a trace spec) and ``len(seeds)`` traces of ``model`` (a
    WorkloadModel, a path to its TOML file, or None to fit one to ``trace`` with ``fit_settings``) on
    ``config`` with each of ``policies``, ``repeat`` times; ``n_requests`` is the generated length (default:
    the trace's).  ``policy_params`` maps a policy name to its parameters.  ``progress`` (optional) is called
    with a one-line message before each replay."""
    from .simulate import resolve_config, resolve_source
    from .trace.model import WorkloadModel, fit_model, load_model

    cfg = resolve_config(config)
    real = resolve_source(trace, cfg).to_trace()
    if model is None:
        model = fit_model(real, fit_settings)
    elif not isinstance(model, WorkloadModel):
        model = load_model(model)
    table, runs = _compare(real, model, cfg, policies, repeat, seeds, n_requests or len(real), policy_params or {},
                           progress)
    return ValidationReport(table, runs, model.name)


#: The two hold-out validations: (label, half fitted, half checked), halves 0 (first) and 1 (second).
HOLDOUT_SPLITS = (("fit 1st half, check 2nd", 0, 1), ("fit 2nd half, check 1st", 1, 0))


def trace_halves(trace) -> tuple:
    """The first and the second half of ``trace`` by request count (the first holds ``len // 2`` requests),
    each a Trace whose first request arrives at 0, named after the trace and the half."""
    mid = len(trace) // 2
    return tuple(trace.slice(a, b, name=f"{trace.name} ({which} half)")
                 for which, a, b in (("1st", 0, mid), ("2nd", mid, len(trace))))


def validate_holdout(trace, config="shuffler", policies=("baseline",), repeat: int = 16, seeds=(1, 2, 3),
                     policy_params: dict | None = None, fit_settings=None, progress=None) -> ValidationReport:
    """Held-out validation: for each split of :data:`HOLDOUT_SPLITS`, a model fitted (with ``fit_settings``) on
    one half of ``trace`` (see :func:`trace_halves`) is validated against the other half as
    :func:`validate_model` does (generated traces as long as the half checked).  The fitted half itself is
    replayed beside the model as a reference (``reference`` and ``reference_met`` columns, labelled "fitted
    half"): the score of a model that reproduced its half exactly.  The table and the runs carry a ``split``
    column naming the split; raises :class:`~flashrr.trace.model.ModelError` when a half is too short to
    fit."""
    from .simulate import resolve_config, resolve_source
    from .trace.model import fit_model

    cfg = resolve_config(config)
    real = resolve_source(trace, cfg).to_trace()
    halves = trace_halves(real)
    tables, runs, names = [], [], []
    for label, fitted, checked in HOLDOUT_SPLITS:
        model = fit_model(halves[fitted], fit_settings)
        names.append(model.name)
        note = None if progress is None else (lambda msg, label=label: progress(f"{label}: {msg}"))
        table, run = _compare(halves[checked], model, cfg, policies, repeat, seeds, len(halves[checked]),
                              policy_params or {}, note, reference=halves[fitted])
        tables.append(table.assign(split=label))
        runs.append(run.assign(split=label))
    table = pd.concat(tables, ignore_index=True)
    table["met"] = table["met"].astype(object)
    table["reference_met"] = table["reference_met"].astype(object)
    return ValidationReport(table[["split"] + [c for c in table.columns if c != "split"]],
                            pd.concat(runs, ignore_index=True), " / ".join(names), "fitted half")


def _goal(metric: str, value: float, real_v: float) -> tuple:
    """``(goal text, met, diff)`` of ``value`` against ``real_v`` for ``metric`` (:data:`GOALS`; goal and met
    None and diff relative, or nan, for a metric without a goal)."""
    if metric not in GOALS:
        return None, None, ((value - real_v) / real_v if real_v else math.nan)
    kind, bound = GOALS[metric]
    if kind == "rel":
        goal = f"within {bound:.0%}"
        diff = (value - real_v) / real_v if real_v else (0.0 if value == real_v else math.inf)
    else:
        goal = f"within {bound * 100:.0f} pts"
        diff = value - real_v
    return goal, (bool(abs(diff) <= bound + 1e-12) if math.isfinite(diff) else False), diff


def _compare(real, model, cfg, policies, repeat: int, seeds, n: int, policy_params: dict, progress,
             reference=None):
    """The table and the runs of :class:`ValidationReport` for ``real`` (a Trace) against ``model``, and
    against ``reference`` (a Trace replayed as it is; None: no reference columns)."""
    from .simulate import simulate
    from .trace.locality import lru_hit_ratios
    from .trace.model import ModelSource

    sources = [("real", None, real)]
    for s in seeds:
        sources.append(("model", s, ModelSource(model, n, seed=s).to_trace()))
    if reference is not None:
        sources.append(("reference", None, reference))
    rows = []
    blocks = {}
    for label, seed, tr in sources:
        share = region_top_share(tr, cfg.geometry.page_size_bytes)
        lru = lru_hit_ratios(read_page_stack_distances(tr, cfg.geometry.page_size_bytes), LRU_PAGES)
        for policy in policies:
            if progress is not None:
                progress(f"{label}{'' if seed is None else f' seed {seed}'}: {policy}")
            res = simulate(cfg, tr, policy=policy, repeat=repeat, **policy_params.get(policy, {}))
            s = res.summary
            row = {"source": label, "seed": seed, "policy": policy, "region_top10_share": share,
                   **{f"lru_hit_{n}": float(h) for n, h in zip(LRU_PAGES, lru)}}
            row.update({k: float(s[k]) for k in METRICS if k in s})
            rows.append(row)
            blocks[(label, seed, policy)] = _block_reads_at_rr(res)
    runs = pd.DataFrame(rows)
    table = []
    for policy in policies:
        r = runs[(runs.source == "real") & (runs.policy == policy)].iloc[0]
        m = runs[(runs.source == "model") & (runs.policy == policy)]
        real_blocks = blocks[("real", None, policy)]
        ks = [_ks(real_blocks, blocks[("model", s, policy)]) for s in seeds]
        if reference is not None:
            ref = runs[(runs.source == "reference") & (runs.policy == policy)].iloc[0]
            ref_ks = _ks(real_blocks, blocks[("reference", None, policy)])
        for metric in METRICS:
            if metric == "ks_block_reads_at_rr":
                vals = np.array(ks)
                real_v = math.nan
            else:
                vals = m[metric].to_numpy(dtype=np.float64)
                real_v = float(r[metric])
            mean = float(np.nanmean(vals)) if np.isfinite(vals).any() else math.nan
            lo = float(np.nanmin(vals)) if np.isfinite(vals).any() else math.nan
            hi = float(np.nanmax(vals)) if np.isfinite(vals).any() else math.nan
            if metric == "ks_block_reads_at_rr":
                goal, met, diff = None, None, math.nan
            else:
                goal, met, diff = _goal(metric, mean, real_v)
            row = {"policy": policy, "metric": metric, "real": real_v, "model": mean, "model_min": lo,
                   "model_max": hi, "diff": diff, "goal": goal, "met": met}
            if reference is not None:
                ref_v = ref_ks if metric == "ks_block_reads_at_rr" else float(ref[metric])
                row["reference"] = ref_v
                row["reference_met"] = _goal(metric, ref_v, real_v)[1]
            table.append(row)
    out = pd.DataFrame(table)
    out["met"] = out["met"].astype(object)
    if reference is not None:
        out["reference_met"] = out["reference_met"].astype(object)
    return out, runs
