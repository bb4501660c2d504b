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

Regime (:class:`~flashrr.reproduce.regime.Regime`, :data:`REGIME`).  SSDsim, the paper's
simulator (§IV-A), maps before the replay only the pages a trace reads
(``pre_process_page``), so a trace occupies its own footprint: every trace is packed onto
its touched pages (``pack=stripe``) and the device is filled with them alone (occupancy 0, the
footprint).  The paper warms the device up with "write-intensive workloads" (§IV-A), as
SSDsim's ``make_aged`` leaves invalid pages in place; flashrr has no such ageing without
moving data (a random rewrite would scatter the trace's pages), so no warm-up runs
[A15].  Each trace is replayed until Baseline makes :data:`RR_FLOOR` RRs: the paper
repeats its traces "to trigger a considerable number of RR operations" (§IV-A) and says
every trace but ws_1 reclaims (Fig. 5); ws_1 "fits in the cache" and is played once.  The
replays are calibrated on Baseline alone (``OUT/lengths.csv``), capped at
:data:`MAX_REPLAYS`; ``--repeat N`` fixes N replays for every trace instead.  The
``occupancy`` group runs Baseline and PhasedRR on :data:`OCCUPANCY_TRACES` at the
regime's occupancies (0.5 ... 1.0 of the logical space), for the headline claim's
sensitivity.

Scale.  ``--quick`` keeps Table I's threshold, Delta and early-move window, so each RR
costs what it costs in the default plan and the retry levels fall where they fall there,
and runs fewer traces instead: three (:data:`QUICK_TRACES`), each replayed until Baseline
makes a quarter of the floor (:data:`QUICK_RR_FLOOR`), at most :data:`QUICK_MAX_REPLAYS`
times.

``--paper-scale`` (:data:`PAPER_SCALE`): the ``phasedrr`` device of Table I with its hard
RR threshold of 25K reads (§IV-A, Table I), the eight Table II traces at their own
request counts, and a replay cap of :data:`PAPER_MAX_REPLAYS`.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace

import pandas as pd

from ...reproduce.regime import Regime, occupancy_group
from ...reproduce.sweep_runs import SweepRuns, run_plan, snapshot_dir, tidy_rows
from ...reproduce.trace_specs import REAL_GROUP, real_group_spec, real_labels, split_real, with_replays, workload_spec

TRACES = ("ws_1", "usr_0", "web_0", "lun1", "lun2", "lun3", "lun4", "ali")
READ_INTENSIVE = ("ws_1", "lun1", "lun2", "lun3", "lun4", "ali")  # Fig. 2 [A17]: all but usr_0 and web_0
# ws_1 (fits in the cache) and the two traces whose Baseline reclaims within 11 replays at Table I's H in the
# default plan, usr_0 and web_0; ali's Baseline makes no RR in 32 replays and the LUN twins need 28-51 replays
# for 200 RRs (docs/phasedrr.md)
QUICK_TRACES = ("ws_1", "usr_0", "web_0")
SCHEMES = {"baseline": "Baseline", "rl-rr": "RL-RR", "reallocation": "Reallocation", "phasedrr": "PhasedRR"}
WITHOUT_OVERHEAD = " W/o-O"  # Fig. 2: counters not charged to the DRAM cache
WITH_OVERHEAD = " W-O"
RR_THRESHOLD = 25_000
# Baseline RRs each reclaiming trace is replayed to: "a considerable number of RR operations" (§IV-A) has no
# number, so this floor is an assumption, set before any result was looked at
RR_FLOOR = 200
# the quick plan's floor, a quarter of RR_FLOOR.  At Table I's H the RRs come late in a run and in bursts, so it
# saves few replays (usr_0 6 against 9, web_0 10 against 11); the quick plan is short because it leaves out ali
# and the LUN twins
QUICK_RR_FLOOR = RR_FLOOR // 4
MAX_REPLAYS = 64
QUICK_MAX_REPLAYS = 32
PAPER_MAX_REPLAYS = 256
# SSDsim maps only the trace's read pages before the replay: packed traces, the footprint alone filled, no
# random warm-up (module docstring); ws_1 fits in the cache and does not reclaim (Fig. 5's caption)
REGIME = Regime(placement="pack", occupancy=0.0, warmup=0.0, rr_floor=RR_FLOOR, no_rr=("ws_1",),
                max_replays=MAX_REPLAYS)
# the occupancy group's traces: the write-dominant and the read-intensive trace (the quick plan: usr_0 alone)
OCCUPANCY_TRACES = ("usr_0", "ali")
# the paper-scale plan (module docstring): Table I's threshold, Table II's traces and counts; replays not given
PAPER_SCALE = dict(traces=TRACES, n_requests=None, rr_threshold=RR_THRESHOLD,
                   regime=Regime(placement="pack", occupancy=0.0, warmup=0.0, rr_floor=RR_FLOOR, no_rr=("ws_1",),
                                 max_replays=PAPER_MAX_REPLAYS))
GROUPS = ("main", "sens", "counters", "occupancy", REAL_GROUP)
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
    ``repeat``: replays of every trace, or None for each trace's calibrated replays
    (``replays``: ``(trace, replays)`` pairs, filled by :func:`calibrated`; see the module
    docstring); ``regime``: placement, occupancy and the length rule;
    ``occupancy_traces``: the occupancy group's traces; ``n_requests``: requests per trace
    (None = the paper's count); ``trace_params``/``device_overrides``: extra ``(name,
    value)`` pairs for every synthetic trace / every device; ``real_samples``:
    ``(row, sample)`` pairs, the real sample run in row's place in group ``real``
    (its own arrival times, repeated to the row's request count)."""

    traces: tuple = TRACES
    n_requests: int | None = None
    repeat: int | None = None
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
    regime: Regime = REGIME
    replays: tuple = ()
    occupancy_traces: tuple = OCCUPANCY_TRACES

    def __post_init__(self):
        if self.delta_reads not in self.delta_values:
            raise ValueError(f"reproduce phasedrr: delta_reads {self.delta_reads} must be one of delta_values "
                             f"{list(self.delta_values)} (Fig. 4 shares the main run)")

    def base_spec(self, name: str) -> str:
        """The spec of paper row ``name`` (or of the real sample a real-sample name stands for), placed
        as the regime says, played once."""
        row, sample = split_real(self, name)
        if sample is not None:
            from ...trace.samples import sample_spec
            from ...trace.synth_presets import SYNTH_PRESETS

            return sample_spec(sample, self.n_requests or SYNTH_PRESETS[f"phasedrr-{row}"].n_requests,
                               self.regime.pipeline())
        return workload_spec(f"phasedrr-{name}", self.n_requests, self.trace_params, self.workload,
                             self.regime.pipeline())

    def replays_of(self, name: str) -> int:
        """Replays of trace ``name``: ``repeat`` when given, else its calibrated count (1 before calibration)."""
        return int(self.repeat) if self.repeat is not None else int(dict(self.replays).get(name, 1))

    def trace_spec(self, name: str) -> str:
        """The spec a sweep runs for ``name``: :meth:`base_spec` replayed :meth:`replays_of` times."""
        return with_replays(self.base_spec(name), self.replays_of(name))

    def length_unit(self, name: str) -> int:
        return 1

    def rr_target(self, name: str) -> int:
        """Baseline RRs trace ``name`` is replayed to (a real sample: its row's)."""
        return self.regime.rr_target(split_real(self, name)[0])

    def device(self, occupancy: float | None = None) -> dict:
        """The device's sweep entry, at the regime's occupancy or at ``occupancy``."""
        return {"preset": "phasedrr", "name": DEVICE, "rr_threshold_reads": self.rr_threshold,
                **self.regime.device_fields(occupancy), **dict(self.device_overrides)}

    def headline_claims(self) -> tuple:
        """The claims the occupancy group reports: ``(claim, metric, scheme, ref, paper %)`` (§IV-C-1)."""
        return (("read latency, PhasedRR vs Baseline", "read_latency_mean_ns", "PhasedRR", "Baseline", -24.5),
                ("I/O latency, PhasedRR vs Baseline", "io_latency_mean_ns", "PhasedRR", "Baseline", -17.1))

    def length_device(self):
        """The device the lengths are calibrated on (the main runs')."""
        from ...config import SimConfig

        d = self.device()
        d.pop("preset"), d.pop("name")
        return SimConfig.preset("phasedrr").replace(name=DEVICE, **d)

    def delta_label(self, delta: int) -> str:
        return f"Δ={delta}"


def quick_changes(full: Plan) -> dict:
    """The fields of the quick plan: :data:`QUICK_TRACES`, Baseline's target of :data:`QUICK_RR_FLOOR` RRs,
    a replay cap of :data:`QUICK_MAX_REPLAYS` and the occupancy group on usr_0 alone.  H, Delta and the
    early-move window stay ``full``'s (module docstring)."""
    return dict(traces=QUICK_TRACES, regime=replace(full.regime, rr_floor=QUICK_RR_FLOOR,
                                                    max_replays=QUICK_MAX_REPLAYS),
                occupancy_traces=("usr_0",))


class Runs(SweepRuns):
    """The tidy results of a PhasedRR reproduction (:class:`~flashrr.reproduce.sweep_runs.SweepRuns`)."""


def specs(plan: Plan) -> dict:
    """The sweep spec of every group (dicts for :func:`flashrr.sweep.sweep`)."""
    def common(traces):
        return {"seeds": list(plan.seeds), "traces": [plan.trace_spec(t) for t in traces], "devices": [plan.device()]}

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
    occ = occupancy_group(common(()), [plan.trace_spec(t) for t in plan.occupancy_traces if t in plan.traces],
                          plan.device(), plan.regime, {"baseline": {}, "phasedrr": {"delta_reads": plan.delta_reads}})
    return {**out, **occ, **real_group_spec(plan, common(()), main)}


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


def calibrated(plan: Plan, out, progress: bool = True, jobs: int | None = 1, scheduler: str | None = None,
               snapshots: bool = True) -> Plan:
    """``plan`` with ``replays`` filled: each trace's replays from Baseline's RR count
    (:func:`~flashrr.reproduce.calibration.calibrated_lengths`, reused from ``OUT/lengths.csv``).
    Unchanged when ``plan.repeat`` fixes the replays or the plan has them already."""
    from ...reproduce.calibration import calibrated_lengths

    if plan.repeat is not None or plan.replays:
        return plan
    key = {k: v for k, v in asdict(plan).items() if k not in ("traces", "seeds", "delta_reads", "delta_values",
                                                                 "start_reads", "quick", "paper_scale", "replays",
                                                                 "occupancy_traces", "real_samples")}
    names = list(plan.traces) + [t for t in real_labels(plan)]
    found = calibrated_lengths(plan, out, names, key, progress, jobs, scheduler,
                               snapshot_dir(out) if snapshots else None)
    return replace(plan, replays=tuple(found.items()))


def run(plan: Plan, out, groups=GROUPS, timings: dict | None = None, **kw) -> Runs:
    """Calibrate the replays (:func:`calibrated`), then run (or resume) the sweeps of ``groups`` into
    ``out/store`` (``kw``: jobs, progress, scheduler, snapshots)."""
    t0 = time.perf_counter()
    plan = calibrated(plan, out, kw.get("progress", True), kw.get("jobs"), kw.get("scheduler"),
                      kw.get("snapshots", True))
    if timings is not None:
        timings["calibration_s"] = round(time.perf_counter() - t0, 2)
    return run_plan(Runs, specs(plan), tidy, plan, out, groups, timings=timings, **kw)
