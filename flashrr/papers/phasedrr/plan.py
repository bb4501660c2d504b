"""What the PhasedRR paper's reproduction runs (Li et al., MSST 2024): Figs. 2 and 4-10 and its claims.

The experiments are three sweeps over the synthetic Table II traces
(``phasedrr-ws_1 ... phasedrr-ali``) on the ``phasedrr`` device preset (Table I):

============  ==========================================================  ================
group         runs                                                        figures
============  ==========================================================  ================
``main``      Baseline, PhasedRR (Delta = ``delta_reads``), RL-RR and      5-10, claims
              Reallocation (counters charged to DRAM: "W-O") x traces
``sens``      PhasedRR with Delta in ``delta_values``                     4
``counters``  RL-RR and Reallocation without the DRAM charge ("W/o-O")   2
              on the read-intensive traces
``real``      ``main``'s schemes on the real sample of a row's family     5 (beside the
              (:data:`REAL_SAMPLES`: MQSim's web search excerpt for       traces)
              ws_1), repeated to the row's request count
============  ==========================================================  ================

All runs go to one :func:`flashrr.sweep.sweep` store under ``OUT/store``: an
interrupted reproduction resumes, and the PhasedRR run at the default Delta is
shared by ``main`` and ``sens``.  ``OUT/runs.csv`` has one row per run, with its
die idle fraction.

Arrivals.  Idle time decides PhasedRR's gain.  The presets' plain Poisson
arrivals (200 us mean gap) saturate the device on usr_0, web_0 and lun2, so by
default every trace gets ON/OFF arrivals (:data:`DEFAULT_TRACE_PARAMS`: bursts of
64 requests on average at the preset's gaps, then an exponential idle period of
50 ms on average; ``flashrr.trace.synth``).  These values were fixed before any
PhasedRR result was looked at; ``--trace-param idle_period_mean_ns=0`` gives the
plain presets back.  docs/phasedrr.md, "Reproduction", has the reasons.

Scale.  The paper replays each trace "repeatedly" (count not given); the default
is :data:`DEFAULT_REPEAT` replays at the paper's threshold H = 25,000.
``--quick`` runs three traces with a four-times smaller threshold, Delta and
early-move window (H = 6,250, Delta = 32 ... 256) and four replays, so that
blocks still reach H in a few minutes.

``--paper-scale`` (:data:`PAPER_SCALE`) is the default plan: the ``phasedrr``
device of Table I with its hard RR threshold of 25K reads (§IV-A, Table I), and
the eight Table II traces at their own request counts.  §IV-A repeats the traces
"to trigger a considerable number of RR operations" without giving the count,
so the replays stay :data:`DEFAULT_REPEAT`.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ...reproduce.sweep_runs import SweepRuns, run_plan, tidy_rows
from ...reproduce.trace_specs import REAL_GROUP, real_group_spec, split_real, workload_spec

TRACES = ("ws_1", "usr_0", "web_0", "lun1", "lun2", "lun3", "lun4", "ali")
READ_INTENSIVE = ("ws_1", "lun1", "lun2", "lun3", "lun4", "ali")  # Fig. 2 [A17]: all but usr_0 and web_0
# ws_1 (fits in the cache), usr_0 (write-dominant) and ali (the read-intensive trace whose blocks reach the
# threshold); the LUN traces and web_0 reach no RR at the quick scale (docs/phasedrr.md)
QUICK_TRACES = ("ws_1", "usr_0", "ali")
SCHEMES = {"baseline": "Baseline", "rl-rr": "RL-RR", "reallocation": "Reallocation", "phasedrr": "PhasedRR"}
WITHOUT_OVERHEAD = " W/o-O"  # Fig. 2: counters not charged to the DRAM cache
WITH_OVERHEAD = " W-O"
DEFAULT_REPEAT = 16
QUICK_REPEAT = 4
QUICK_SCALE = 4
RR_THRESHOLD = 25_000
# the paper-scale plan (module docstring): Table I's threshold, Table II's traces and counts; replays not given
PAPER_SCALE = dict(traces=TRACES, n_requests=None, rr_threshold=RR_THRESHOLD, repeat=DEFAULT_REPEAT)
GROUPS = ("main", "sens", "counters", REAL_GROUP)
# the shipped real sample of a row's family (flashrr.trace.samples), run in group "real" beside Fig. 5's traces:
# MQSim's web search excerpt for ws_1 (WebSearch); the MSR and SYSTOR excerpts are too short to ship
REAL_SAMPLES = (("ws_1", "websearch"),)
DEVICE = "phasedrr"
# ON/OFF arrivals (flashrr.trace.synth): geometric bursts of 64 requests on average, each followed by an
# exponential idle period of 50 ms on average.  Fixed a priori (docs/phasedrr.md); not fitted to any result.
DEFAULT_TRACE_PARAMS = (("idle_period_mean_ns", 50_000_000), ("burst_requests_mean", 64))


@dataclass(frozen=True)
class Plan:
    """What to run.  ``rr_threshold``: H (block reads); ``delta_reads``: PhasedRR's
    Delta in ``main``; ``delta_values``: Fig. 4's Deltas; ``start_reads``: RL-RR's
    and Reallocation's early-move window before H (10 Delta, PhasedRR's window);
    ``repeat``: replays of each trace; ``n_requests``: requests per trace (None =
    the paper's count); ``trace_params``/``device_overrides``: extra ``(name,
    value)`` pairs for every synthetic trace / every device; ``real_samples``:
    ``(row, sample)`` pairs, the real sample run in row's place in group ``real``
    (its own arrival times, repeated to the row's request count)."""

    traces: tuple = TRACES
    n_requests: int | None = None
    repeat: int = DEFAULT_REPEAT
    seeds: tuple = (0,)
    rr_threshold: int = RR_THRESHOLD
    delta_reads: int = 256
    delta_values: tuple = (128, 256, 512, 1024)
    start_reads: int = 2560
    trace_params: tuple = DEFAULT_TRACE_PARAMS
    device_overrides: tuple = ()
    quick: bool = False
    paper_scale: bool = False
    workload: str = "model"
    real_samples: tuple = REAL_SAMPLES

    def __post_init__(self):
        if self.delta_reads not in self.delta_values:
            raise ValueError(f"reproduce phasedrr: delta_reads {self.delta_reads} must be one of delta_values "
                             f"{list(self.delta_values)} (Fig. 4 shares the main run)")

    def trace_spec(self, name: str) -> str:
        """The spec of paper row ``name``, or of the real sample a real-sample name stands for."""
        row, sample = split_real(self, name)
        if sample is not None:
            from ...trace.samples import sample_spec
            from ...trace.synth_presets import SYNTH_PRESETS

            return sample_spec(sample, self.n_requests or SYNTH_PRESETS[f"phasedrr-{row}"].n_requests,
                               {"fold": "modulo"})
        return workload_spec(f"phasedrr-{name}", self.n_requests, self.trace_params, self.workload)

    def device(self) -> dict:
        return {"preset": "phasedrr", "name": DEVICE, "rr_threshold_reads": self.rr_threshold,
                **dict(self.device_overrides)}

    def delta_label(self, delta: int) -> str:
        return f"Δ={delta}"


def quick_changes(full: Plan, k: int = QUICK_SCALE) -> dict:
    """The fields of the quick plan: :data:`QUICK_TRACES`, :data:`QUICK_REPEAT` replays and
    every count of block reads of ``full`` (H, Delta, the early-move window) divided by ``k``."""
    return dict(traces=QUICK_TRACES, repeat=QUICK_REPEAT, rr_threshold=full.rr_threshold // k,
                delta_reads=full.delta_reads // k, delta_values=tuple(d // k for d in full.delta_values),
                start_reads=full.start_reads // k)


class Runs(SweepRuns):
    """The tidy results of a PhasedRR reproduction (:class:`~flashrr.reproduce.sweep_runs.SweepRuns`)."""


def specs(plan: Plan) -> dict:
    """The sweep spec of every group (dicts for :func:`flashrr.sweep.sweep`)."""
    def common(traces):
        return {"seeds": list(plan.seeds), "repeat": plan.repeat, "traces": [plan.trace_spec(t) for t in traces],
                "devices": [plan.device()]}

    counters = {"start_reads": plan.start_reads}
    read_intensive = [t for t in plan.traces if t in READ_INTENSIVE]
    main = {"baseline": {}, "phasedrr": {"delta_reads": plan.delta_reads},
            "rl-rr": {**counters, "charge_metadata": True}, "reallocation": {**counters, "charge_metadata": True}}
    out = {
        "main": {**common(plan.traces), "policies": main},
        "sens": {**common(plan.traces), "policies": {"phasedrr": {"delta_reads": list(plan.delta_values)}}},
        "counters": {**common(read_intensive), "policies": {
            "rl-rr": {**counters, "charge_metadata": False}, "reallocation": {**counters, "charge_metadata": False}}},
    }
    return {**out, **real_group_spec(plan, common(()), main)}


def _scheme_label(group: str, row, plan: Plan) -> str:
    label = SCHEMES.get(row["policy_name"], row["policy_name"])
    if group == "sens":
        return plan.delta_label(int(row["param_delta_reads"]))
    if group == "counters":
        return label + WITHOUT_OVERHEAD
    return label


def tidy(group: str, df: pd.DataFrame, plan: Plan) -> pd.DataFrame:
    """Add ``group``, ``trace`` and ``scheme`` (labels of :data:`SCHEMES`, Delta or W/o-O) columns."""
    return tidy_rows(group, df, plan, lambda g, row: _scheme_label(g, row, plan))


def run(plan: Plan, out, groups=GROUPS, **kw) -> Runs:
    """Run (or resume) the sweeps of ``groups`` into ``out/store`` (``kw``: jobs, progress, timings, scheduler)."""
    return run_plan(Runs, specs(plan), tidy, plan, out, groups, **kw)
