"""What the superblock process-variation paper's reproduction runs (Tseng et al.,
"Are Superpages Super-fast?"): Tables I, II and V and Figs. 6, 12-15.

The paper measured 24 dies (4 planes, 400 superblocks per die) at P/E points
0 to 3,000 in steps of 200.  We run every assembly configuration of
:data:`flashrr.pv.calibrate.CONFIGS` on the calibrated PV model with the same
shape, re-assembling at every P/E point, and pool all superblocks.
The reproduction (:mod:`flashrr.papers.superblock_pv.reproduction`) writes into ``out``:

* ``table1_directions``, ``table2_str_rank_window``, ``table5_extra_latency``
  (``.csv`` and ``.md``, ours next to the paper's), ``overheads.csv`` (checks,
  metadata, wall time of every configuration);
* ``figNN_<name>.{png,pdf,csv}`` for Figs. 6, 12, 13, 14 and 15;
* ``claims.csv`` / ``claims.md`` and ``reproduce.json`` (plan, wall times in s).

``--quick`` uses 4 dies and the P/E points 0, 1,500 and 3,000 (seconds).
``--paper-scale`` (:data:`PAPER_SCALE`) is the default plan: 24 dies (§IV-B, "24
NAND flash memory chips"), 4 planes each (§VI-A), 400 superblocks per die and P/E
point (§IV-A, direction 4) and the 16 P/E points 0 to 3,000 in steps of 200 (§IV-B).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial

import pandas as pd

from ...pv.calibrate import CONFIG_BY_LABEL, CONFIGS, improvements
from ...pv.evaluate import PAPER_PE_POINTS, evaluate_on
from ...pv.model import PVModel, PVParams

# the quick plan: 4 dies and three P/E points (seconds)
QUICK = dict(dies=4, pe_points=(0, 1500, 3000))
# the paper-scale plan (module docstring): the paper's dies, planes, superblocks per die and P/E points
PAPER_SCALE = dict(dies=24, planes=4, blocks=400, pe_points=PAPER_PE_POINTS)


@dataclass(frozen=True)
class Plan:
    """What to run: ``dies`` modelled dies of ``planes`` x ``blocks``, drawn with
    ``seed``, at every P/E point of ``pe_points``; ``params`` = model parameters
    (None = the calibrated defaults)."""

    dies: int = 24
    planes: int = 4
    blocks: int = 400
    seed: int = 2024
    pe_points: tuple = PAPER_PE_POINTS
    params: PVParams | None = None
    quick: bool = False
    paper_scale: bool = False

@dataclass
class Runs:
    """``results[label]``: :func:`flashrr.pv.evaluate.evaluate_on` of that
    configuration, pooled over the plan's dies and P/E points."""

    plan: Plan
    results: dict = field(default_factory=dict)

    def per_sb(self, label: str) -> pd.DataFrame:
        r = self.results[label]["per_sb"]
        return pd.DataFrame(r).assign(label=label)

    def improvements(self) -> pd.DataFrame:
        return improvements(self.results)


def run(plan: Plan, labels=None, timings: dict | None = None, jobs: int | None = 1,
        scheduler: str | None = None) -> Runs:
    """Evaluate the configurations ``labels`` (default: all; Random always) on the plan's model,
    one configuration per call, in this process or on ``jobs`` local processes or the Dask
    cluster at ``scheduler`` (:func:`~flashrr.sweep.calls.call_each`; each worker models
    the plan's latencies once).  The results are the same either way; only the measured wall
    times differ."""
    labels = list(dict.fromkeys(["Random"] + list(labels or CONFIG_BY_LABEL)))
    unknown = [x for x in labels if x not in CONFIG_BY_LABEL]
    if unknown:
        raise ValueError(f"reproduce superblock-pv: unknown configuration(s) {unknown}")
    from ...sweep.calls import call_each

    ordered = [c.label for c in CONFIGS if c.label in labels]
    try:
        done = dict(call_each(partial(evaluate_config, plan), ordered, jobs, scheduler))
    finally:
        _LATENCIES.clear()  # this process's copy (2.3 GB at paper scale)
    runs = Runs(plan)
    for label in ordered:
        result, model_s, eval_s = done[label]
        runs.results[label] = result
        if timings is not None:
            c = CONFIG_BY_LABEL[label]
            timings["model_s"] = max(timings.get("model_s", 0.0), model_s)
            timings[f"{c.method}{dict(c.params).get('window', '')}_s"] = eval_s
    return runs


# the latencies modelled for one plan in this process: {plan: [Latencies per P/E point]}; run()
# empties it in the calling process, and a Dask worker keeps it until another plan's call
_LATENCIES: dict = {}


def evaluate_config(plan: Plan, label: str) -> tuple:
    """``(result, model_s, eval_s)``: :func:`~flashrr.pv.evaluate.evaluate_on` of configuration
    ``label`` on the plan's latencies, the seconds spent modelling those (0 when this process
    had them from an earlier call) and the seconds of the evaluation."""
    model_s = 0.0
    if plan not in _LATENCIES:
        _LATENCIES.clear()
        t0 = time.perf_counter()
        model = PVModel(plan.params, dies=plan.dies, planes=plan.planes, blocks=plan.blocks, seed=plan.seed)
        _LATENCIES[plan] = [model.latencies(int(pe)) for pe in plan.pe_points]
        model_s = round(time.perf_counter() - t0, 2)
    c = CONFIG_BY_LABEL[label]
    t1 = time.perf_counter()
    result = evaluate_on(c.method, _LATENCIES[plan], seed=plan.seed, **c.kwargs)
    return result, model_s, round(time.perf_counter() - t1, 2)
