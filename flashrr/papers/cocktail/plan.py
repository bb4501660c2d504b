"""What the Cocktail paper's reproduction runs (Zhang et al., TCAD 2023): Figs. 4, 5 and 8-14 and its claims.

The experiments run the ten Table II traces (synthetic ``cocktail-*`` presets, with
their RAF and repeat counts) on a scaled ``cocktail`` device:

=========  ================================================================  ==============
group      runs                                                              figures
=========  ================================================================  ==============
``main``   Baseline, redFTL, IPR, Cocktail (GC pages internal and separate)  10-14, claims
``ratio``  Cocktail, Eq. 2 ratio 1, 0.75, 0.5, 0.25, 0                       8
``share``  Cocktail, fixed RR share 1/n, n = 2, 4, 8, 16, 32, 64             9
``real``   ``main``'s schemes on the real sample of a row's family            10 (beside the
           (:data:`REAL_SAMPLES`: MQSim's web search excerpt for websearch)  traces)
``reads``  ``main``'s schemes on ali206 at the paper's read count            claims.md table
           (:data:`PAPER_READS`; below)
=========  ================================================================  ==============

Fig. 4 (request popularity) is a statistic of the traces; Fig. 5 (read counts of one
plane's blocks at the last RR, Baseline on ali206) comes from one extra run whose RR
hook copies the plane's block read counts.

Scale: the paper's device has 128 planes and its traces are not given in size.  The
default device keeps a plane exactly as Table I (2048 blocks of 256 pages, so the pool
capacity is 20..61 blocks) but has :data:`SCALED_PLANES` planes (1 channel x 2 chips) and
the data cache scaled with the planes (16 MiB).  ``--quick`` runs three traces
(:data:`QUICK_TRACES`, one of each kind), three ratios and three shares.
All sweep runs go to ``OUT/store``, so an interrupted reproduction resumes.

``--paper-scale`` (:data:`PAPER_SCALE`) runs the paper's own device: Table I's 8 channels x
4 chips x 2 dies x 2 planes = 128 planes, with the cache scaled with them back to the
``cocktail`` preset's full 256 MiB (MQSim's default cache; the paper gives none), all ten
Table II traces with Table II's RAF and repeat counts (as by default).  The paper does not
give its traces' request counts, so ``n_requests`` stays :data:`DEFAULT_N_REQUESTS`.

Regime (:data:`REGIME`; :mod:`flashrr.reproduce.regime`).  The paper runs MQSim (§V-A),
which preconditions a trace's own read, then written, addresses first and other pages up
to the workload's ``Initial_Occupancy_Percentage`` (70 for the trace-based flow of MQSim's
shipped ``workload.xml``): every trace is packed onto its footprint (``pack=stripe``) and the device
is filled to :data:`OCCUPANCY` of its logical space, then rewritten at random
(:data:`WARMUP_RATIO` of the filled pages, for MQSim's aged steady state; an
assumption).  Lengths: Baseline on ali206 makes 28,507 RRs on the 128-plane device
(§IV-B), scaled to the plan's planes; its Table II repeat count is multiplied
(``replays``) until Baseline makes that many.  Every other trace gets the same number of
requests after RAF and repeats ("a relatively similar amount of data for the ten traces",
§V-A), at least its Table II count.  MQSim's shipped ``ssdconfig.xml`` has
``Preemptible_GC_Enabled`` false, so GC and RR are not preempted: ``"gc-first"``.

Load calibration: the synthetic traces' arrival rates are assumptions.  The paper says
the ECC-retry time is about half of the mean response time on ali206, sys1 and sys2
(§V-B), so before the sweeps each of those traces' arrival time factor (``scale_time``,
applied after RAF, so the spread copies keep filling the gap to the next request) is
bisected until Baseline's retry time per request is :data:`TARGET_RETRY_SHARE` of its mean
response time.  The paper says nothing of the other traces' load; their factor is
bisected until Baseline's mean read wait is :data:`TARGET_READ_WAIT` (half) of its unloaded
mean read latency (the wait rule below), an assumption: an M/D/1 queue at a load of 0.5 waits
half a service time, and the paper's three stated traces, whose response time is about twice
their retry time, wait little.  Lengths come first (at the fixed factor ``128 / planes``: an RR count
does not depend on the arrival times), then the arrival factors at those lengths.  Both
go to ``OUT/lengths.csv`` and ``OUT/calibration.csv`` (reused on resume) and
``reproduce.json``.  ``Plan(target_busy=None)`` keeps the fixed ``128 / planes``.

The read-count group (``reads``): the paper's Baseline made its 28,507 RRs on ali206 in "more than
2.8 billion read requests" (§IV-B), at most 10.2 RRs per million reads, where the default
length replays a short twin until Baseline makes the RR count, at about six times that.  The
group runs ``main``'s schemes on ali206 with both of the paper's figures scaled to the plan's
planes: the twin generated at ``n`` requests is played until it has the paper's read requests
(after RAF; :meth:`Plan.plays_for`), and ``n`` (so the twin's footprint and spread) is bisected on
its log in :data:`READS_N_RANGE` until Baseline makes the paper's RR count (within
:data:`READS_TOL`, at most :data:`READS_STEPS` bisection steps; ``OUT/read_lengths.csv``).  Arrivals
are the fixed stretch (RR counts do not depend on them), so the group reports only the count
claims (:func:`flashrr.papers.cocktail.claims.read_count_claims`).  ``--quick`` and ``--paper-scale``
leave it out (its cost; :data:`PAPER_SCALE`).

The wait rule: Baseline's mean read latency is ``1 + W`` times its mean read latency at the
top of ``scale_range`` (arrivals so sparse that a read waits for no other request; one more
Baseline run per trace), W = ``target_read_wait``.  ``Plan(target_read_wait=None)`` selects the
busy rule instead: Baseline's busiest die busy :data:`TARGET_BUSY` of the run
(``1 - die_idle_fraction_min``), the same M/D/1 reasoning applied to the busy fraction, which
under the model twins' bursty arrivals left six of the seven traces' Baselines reading in 0.13
to 8.7 s (docs/cocktail.md).
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from ...reproduce.calibration import bisect_time_scale, calibrated_lengths, calibration_table
from ...reproduce.regime import Regime, occupancy_group, scaled_target
from ...reproduce.sweep_runs import SweepRuns, run_plan, snapshot_dir, tidy_rows
from ...reproduce.trace_specs import REAL_GROUP, real_group_spec, real_labels, split_real, with_replays, workload_spec

# Fig. 4's panel order
TRACES = ("ads1", "ads2", "alibaba_206", "alibaba_188", "msr_web", "systor1", "systor2", "nexus5", "usr1",
          "websearch")
LABELS = {"alibaba_206": "ali206", "alibaba_188": "ali188", "systor1": "sys1", "systor2": "sys2"}
# the quick plan's traces, one of each kind of the ten: ali206 (the RR anchor, §IV-B), sys1 (a trace that
# writes, one of the three whose retry time the paper states, §V-B) and msr_web (read only)
QUICK_TRACES = ("alibaba_206", "systor1", "msr_web")
SCHEMES = {"baseline": "Baseline", "redftl": "redFTL", "ipr": "IPR", "cocktail": "Cocktail",
           "cocktail-separate": "Cocktail (GC separate)"}
MAIN = ["Baseline", "redFTL", "IPR", "Cocktail"]
RATIOS = (1.0, 0.75, 0.5, 0.25, 0.0)
SHARES = (2, 4, 8, 16, 32, 64)
READS_GROUP = "reads"
GROUPS = ("main", "ratio", "share", "occupancy", REAL_GROUP, READS_GROUP)
# the shipped real sample of a row's family (flashrr.trace.samples), run in group "real" beside Fig. 10's traces:
# MQSim's web search excerpt for websearch; the MSR and SYSTOR excerpts are too short to ship
REAL_SAMPLES = (("websearch", "websearch"),)
PAPER_PLANES = 128
SCALED_PLANES = 8
DEFAULT_N_REQUESTS = 50_000
# the quick plan's traces are as long as the default's: the lengths come from ali206's RR count either way
QUICK_N_REQUESTS = DEFAULT_N_REQUESTS
# Baseline's RRs on ali206 on the paper's 128-plane device (§IV-B, Fig. 5's run)
PAPER_ALI206_RRS = 28_507
# ... in "more than 2.8 billion read requests" (§IV-B), read as the requests of the run (after RAF; the trace before
# RAF would halve the RRs per read): at most 28,507 / 2,800 = 10.2 RRs per million read requests
PAPER_ALI206_READS = 2_800_000_000
# the read-count group (module docstring): its traces, with the paper's read requests of each (on 128 planes), and
# the bisection of the generated request count: range, most steps, tolerance on the RR count (relative)
PAPER_READS = {"alibaba_206": PAPER_ALI206_READS}
READS_N_RANGE = (1_000_000, 16_000_000)
READS_STEPS = 6
READS_TOL = 0.10
# the Plan fields of the read-count group: the main lengths and arrival factors do not depend on them
READS_FIELDS = ("read_targets", "reads_range", "reads_steps", "reads_tol", "read_lengths")
# MQSim's shipped workload.xml: Initial_Occupancy_Percentage 70 for its trace-based flow
OCCUPANCY = 0.70
# random rewrites of this share of the filled pages before the replay: MQSim preconditions to an aged steady state
WARMUP_RATIO = 0.2
# Fig. 5 on a plan that did not lengthen ali206: at least the preset's own request count (1 M)
FIG5_N_REQUESTS = 1_000_000
# the length calibration's cap on multiples of Table II's repeat count
MAX_REPLAYS = 512
# the regime (module docstring); a trace without a stated count must make at least one RR
REGIME = Regime(placement="pack", occupancy=OCCUPANCY, warmup=WARMUP_RATIO, rr_floor=1,
                rr_targets=(("alibaba_206", PAPER_ALI206_RRS),), max_replays=MAX_REPLAYS)
# the traces whose arrival factor puts Baseline's retry time at half its mean response time (§V-B)
RETRY_TRACES = ("alibaba_206", "systor1", "systor2")
TARGET_RETRY_SHARE = 0.5
# the occupancy group's traces
OCCUPANCY_TRACES = ("alibaba_206", "systor1")
# the quick plan: three traces, three ratios and three shares
QUICK = dict(traces=QUICK_TRACES, n_requests=QUICK_N_REQUESTS, ratios=(1.0, 0.5, 0.0), shares=(2, 16, 64),
             occupancy_traces=("alibaba_206",), read_targets=())
# the paper-scale plan: Table I's 8 channels x 4 chips (128 planes, so the full 256 MiB cache) and the ten Table II
# traces; the request count is not in the paper and stays the default.  No read-count group: at 128 planes each of
# its runs plays the paper's whole 2.8 billion read requests (about 13 min a run at the default plan's speed, and up
# to READS_STEPS of them to size the twin); PAPER.make_plan(paper_scale=True, read_targets=tuple(PAPER_READS.items())) adds it
PAPER_SCALE = dict(channels=8, chips_per_channel=4, traces=TRACES, repeat=None, n_requests=DEFAULT_N_REQUESTS,
                   read_targets=())
# the load calibration (module docstring): Baseline's busiest die busy half of the run, within +-CALIBRATION_TOL,
# the arrival factor bisected (on its log) in SCALE_RANGE in at most CALIBRATION_STEPS steps per trace
# (a Baseline run each, and one more for the probe of bisect_time_scale)
TARGET_BUSY = 0.5
# the wait rule (module docstring): Baseline's mean read wait as a share of its unloaded mean read latency
# (0.5: M/D/1 at a load of 0.5); None keeps the busy rule
TARGET_READ_WAIT = 0.5
CALIBRATION_TOL = 0.02
CALIBRATION_STEPS = 12
SCALE_RANGE = (1 / 16, 4096.0)


def label(trace: str) -> str:
    """The paper's short name of a Table II trace (``ali206``, ``sys1``, ...)."""
    return LABELS.get(trace, trace)


@dataclass(frozen=True)
class Plan:
    """What to run.  ``n_requests``: requests generated per trace before RAF and
    repeats; ``repeat``: None = Table II's repeat count, else this count for every
    trace; ``spacing``: arrival of the RAF copies (``same`` or ``spread``);
    ``channels``, ``chips_per_channel``: the device's size (each chip as Table I: 2 dies of 2
    planes), the data cache scaled with its planes; ``device_overrides``: extra ``(field, value)``
    pairs for the device; ``target_busy``:
    Baseline's busiest-die busy fraction the arrival factor is calibrated to (None: the
    fixed stretch ``128 / planes``); ``target_read_wait``: when set, the traces outside
    :data:`RETRY_TRACES` are calibrated to Baseline's mean read latency ``1 + target_read_wait``
    times its unloaded one in place of the busy fraction (module docstring); ``scales``:
    ``(trace, factor)`` pairs, filled by
    :func:`calibrated` (a trace without one uses the fixed stretch); ``calibration_*`` and
    ``scale_range``: the bisection's tolerance, most steps per trace and factor range;
    ``real_samples``: ``(row, sample)`` pairs, the real sample run in row's place in group
    ``real`` (its first ``n_requests`` requests, or repeated to about that many, then the
    row's RAF and repeats, with its own calibrated arrival factor); ``regime``: placement,
    occupancy and the length rule (module docstring); ``replays``: ``(trace, multiple)``
    pairs, each trace's Table II repeat count is multiplied by, filled by :func:`calibrated`;
    ``occupancy_traces``: the occupancy group's traces; ``read_targets``: the read-count group's
    traces (module docstring) as ``(trace, read requests on the paper's 128 planes)`` pairs (empty: no group),
    ``reads_range``, ``reads_steps`` and ``reads_tol`` the bisection of their generated request counts, and
    ``read_lengths`` the ``(trace, requests generated)`` pairs it found, filled by :func:`read_lengthened`."""

    traces: tuple = TRACES
    n_requests: int = DEFAULT_N_REQUESTS
    repeat: int | None = None
    seeds: tuple = (0,)
    ratios: tuple = RATIOS
    shares: tuple = SHARES
    spacing: str = "spread"
    channels: int = 1
    chips_per_channel: int = 2
    device_overrides: tuple = ()
    trace_params: tuple = ()
    target_busy: float | None = TARGET_BUSY
    target_read_wait: float | None = TARGET_READ_WAIT
    calibration_tol: float = CALIBRATION_TOL
    calibration_steps: int = CALIBRATION_STEPS
    scale_range: tuple = SCALE_RANGE
    scales: tuple = ()
    quick: bool = False
    paper_scale: bool = False
    workload: str = "model"
    real_samples: tuple = REAL_SAMPLES
    regime: Regime = REGIME
    replays: tuple = ()
    occupancy_traces: tuple = OCCUPANCY_TRACES
    read_targets: tuple = tuple(PAPER_READS.items())
    reads_range: tuple = READS_N_RANGE
    reads_steps: int = READS_STEPS
    reads_tol: float = READS_TOL
    read_lengths: tuple = ()

    def raf_repeat(self, trace: str) -> tuple:
        from ...trace.synth_presets import SYNTH_PRESETS

        md = SYNTH_PRESETS[f"cocktail-{trace}"].metadata
        return int(md["raf"]), int(self.repeat if self.repeat is not None else md["repeat"])

    def planes(self) -> int:
        """The device's planes before ``device_overrides``: ``channels`` x ``chips_per_channel`` chips of the
        ``cocktail`` preset's dies and planes (2 x 2, Table I)."""
        from ...config import SimConfig

        g = SimConfig.preset("cocktail").geometry
        return self.channels * self.chips_per_channel * g.dies_per_chip * g.planes_per_die

    def device_fields(self, occupancy: float | None = None) -> dict:
        """The device's sweep entry, at the regime's occupancy or at ``occupancy``."""
        # by default 8 of the 128 planes, and the data cache scaled with them (256 MiB * 8 / 128 = 16 MiB), so
        # the cache does not swallow the short traces' writes
        planes = self.planes()
        name = "cocktail" if planes == PAPER_PLANES else "cocktail-scaled"
        return {"preset": "cocktail", "name": name, "channels": self.channels,
                "chips_per_channel": self.chips_per_channel, "capacity_bytes": (256 << 20) * planes // PAPER_PLANES,
                **self.regime.device_fields(occupancy), **dict(self.device_overrides)}

    def device_config(self):
        from ...config import SimConfig

        d = self.device_fields()
        d.pop("preset")
        return SimConfig.preset("cocktail").replace(**d)

    length_device = device_config

    def length_unit(self, trace: str) -> int:
        """Plays of ``trace`` in one length unit: its row's Table II repeat count (or ``repeat``)."""
        return self.raf_repeat(split_real(self, trace)[0])[1]

    def rr_target(self, trace: str) -> int:
        """Baseline RRs trace ``trace`` is lengthened to: the paper's count scaled to the plan's planes."""
        n = self.regime.rr_target(split_real(self, trace)[0])
        return scaled_target(n, PAPER_PLANES, self.planes()) if n > 1 else n

    def replays_of(self, trace: str) -> int:
        """Plays of ``trace``: its length unit times its calibrated multiple (1 before calibration)."""
        return self.length_unit(trace) * int(dict(self.replays).get(trace, 1))

    def headline_claims(self) -> tuple:
        """The claims the occupancy group reports: ``(claim, metric, scheme, ref, paper %)`` (abstract)."""
        return (("RR count, Cocktail vs Baseline", "rr_count", "Cocktail", "Baseline", -40.77),
                ("avg response time, Cocktail vs Baseline", "io_latency_mean_ns", "Cocktail", "Baseline", -10.82),
                ("write amplification, Cocktail vs Baseline", "pages_moved_per_erase", "Cocktail", "Baseline",
                 -49.57))

    def paper_regime(self) -> dict:
        """The paper's Baseline figures on ali206 (§IV-B): its RRs scaled to the plan's planes, and its
        RRs per million read requests (a bound: "more than" 2.8 billion reads)."""
        return {"alibaba_206": {"rr_count": scaled_target(PAPER_ALI206_RRS, PAPER_PLANES, self.planes()),
                                "rr_per_m_reads": PAPER_ALI206_RRS * 1e6 / PAPER_ALI206_READS}}

    def read_target(self, trace: str) -> int:
        """The paper's read requests of ``trace`` (after RAF) scaled to the plan's planes (0: none given)."""
        n = dict(self.read_targets).get(trace, 0)
        return scaled_target(n, PAPER_PLANES, self.planes()) if n else 0

    def plays_for(self, trace: str, n_requests: int) -> int:
        """Plays of ``trace`` generated at ``n_requests`` requests that give it :meth:`read_target` read
        requests after RAF: its row's read ratio times RAF read requests per generated request (the
        twin's read ratio is calibrated to the row's)."""
        from ...trace.synth_presets import SYNTH_PRESETS

        raf, _ = self.raf_repeat(trace)
        per_play = n_requests * SYNTH_PRESETS[f"cocktail-{trace}"].row.read_ratio * raf
        return max(1, math.ceil(self.read_target(trace) / per_play))

    def reads_spec(self, trace: str, n_requests: int | None = None) -> str:
        """The read-count group's trace: ``trace`` generated at ``n_requests`` (default: its calibrated
        ``read_lengths``), at the fixed arrival factor, played :meth:`plays_for` times."""
        n = int(n_requests if n_requests is not None else dict(self.read_lengths)[trace])
        base = replace(self, n_requests=n, scales=()).base_spec(trace, self.stretch())
        return with_replays(base, self.plays_for(trace, n))

    def stretch(self) -> float:
        """The fixed arrival factor ``128 / planes``: each plane sees the paper's request rate."""
        g = self.device_config().geometry
        return PAPER_PLANES / (g.channels * g.chips_per_channel * g.dies_per_chip * g.planes_per_die)

    def base_spec(self, trace: str, scale: float | None = None) -> str:
        """The trace played once: placed as the regime says, its row's RAF, arrival factor ``scale``,
        else the calibrated one, else :meth:`stretch`.  A real-sample name (group ``real``) gets its
        sample with its row's RAF."""
        row, sample = split_real(self, trace)
        raf, _ = self.raf_repeat(row)
        stretch = scale if scale is not None else dict(self.scales).get(trace) or self.stretch()
        pipeline = {**self.regime.pipeline(), "amplify_reads": raf}
        if raf > 1 and self.spacing != "same":
            pipeline["amplify_spacing"] = self.spacing
        if stretch != 1:
            pipeline["scale_time"] = stretch
        if sample is not None:
            from ...trace.samples import sample_spec

            return sample_spec(sample, self.n_requests, pipeline)
        return workload_spec(f"cocktail-{trace}", self.n_requests, self.trace_params, self.workload, pipeline)

    def trace_spec(self, trace: str, scale: float | None = None) -> str:
        """The trace's pipeline spec: :meth:`base_spec` played :meth:`replays_of` times."""
        return with_replays(self.base_spec(trace, scale), self.replays_of(trace))


def specs(plan: Plan) -> dict:
    """The sweep spec of every group (dicts for :func:`flashrr.sweep.sweep`)."""
    common = {"seeds": list(plan.seeds), "traces": [plan.trace_spec(t) for t in plan.traces],
              "devices": [plan.device_fields()]}
    main = {"baseline": {}, "redftl": {}, "ipr": {}, "cocktail": {"gc_writes": ["internal", "separate"]}}
    out = {
        "main": {**common, "keep": ["hist"], "policies": main},
        "ratio": {**common, "policies": {"cocktail": {"ratio": list(plan.ratios)}}},
        "share": {**common, "policies": {"cocktail": {"n": list(plan.shares)}}},
    }
    occ = occupancy_group(common, [plan.trace_spec(t) for t in plan.occupancy_traces if t in plan.traces],
                          plan.device_fields(), plan.regime, {"baseline": {}, "cocktail": {}})
    if plan.read_lengths:
        out[READS_GROUP] = {**common, "traces": [plan.reads_spec(t) for t, _ in plan.read_lengths],
                            "policies": main}
    return {**out, **occ, **real_group_spec(plan, common, main)}


def _scheme(group: str, row) -> str:
    name = row["policy_name"]
    if group == "ratio":
        return f"ratio={row['param_ratio']:g}"
    if group == "share":
        return f"n={int(row['param_n'])}"
    if name == "cocktail" and row.get("param_gc_writes") == "separate":
        return SCHEMES["cocktail-separate"]
    return SCHEMES.get(name, name)


def tidy(group: str, df: pd.DataFrame, plan: Plan) -> pd.DataFrame:
    """Add ``group``, ``trace`` (short label) and ``scheme`` columns to a sweep's rows."""
    reads = {plan.reads_spec(t): t for t, _ in plan.read_lengths} if group == READS_GROUP else None
    return tidy_rows(group, df, plan, _scheme, label, more_specs=reads)


class CocktailRuns(SweepRuns):
    """:class:`~flashrr.reproduce.sweep_runs.SweepRuns` with traces named by their labels."""

    @property
    def labels(self) -> list:
        return [label(t) for t in self.plan.traces]

    def row_names(self) -> list:
        return self.labels


# ------------------------------------------------------------------------------ calibrations
def baseline_load(plan: Plan, trace: str, scale: float, snapshot=None, unloaded_ns: float | None = None) -> float:
    """Baseline's load on the plan's device and ``trace`` (its calibrated length) with arrival
    factor ``scale``, as the calibration targets it: for a trace of :data:`RETRY_TRACES`, 1 minus
    the share of the mean response time spent in ECC retries (retry time per request over the mean
    response time, Fig. 11's dark bar over the whole bar); for the others, the busiest die's busy
    fraction (``1 - die_idle_fraction_min``), or with ``unloaded_ns`` (the wait rule) the share of
    the mean read latency spent waiting, ``1 - unloaded_ns / read_latency_mean_ns``.  All fall as
    the factor grows.  The aged device comes from the snapshot directory ``snapshot`` if given."""
    from ...reproduce.calibration import baseline_summary

    s = baseline_summary(plan.device_config(), plan.trace_spec(trace, scale), snapshot)
    if split_real(plan, trace)[0] in RETRY_TRACES:
        total = s["requests"] * s["io_latency_mean_ns"]
        return 1.0 - (s["retry_time_ns"] / total if total else 0.0)
    if unloaded_ns is not None:
        latency = s["read_latency_mean_ns"]
        return 1.0 - unloaded_ns / latency if latency > 0 else 0.0
    return 1.0 - s["die_idle_fraction_min"]


def uses_wait_rule(plan: Plan, trace: str) -> bool:
    """Whether ``trace``'s factor is calibrated on Baseline's read wait (``plan.target_read_wait``)."""
    return plan.target_read_wait is not None and split_real(plan, trace)[0] not in RETRY_TRACES


def unloaded_read_latency(plan: Plan, trace: str, snapshot=None) -> float:
    """Baseline's mean read latency (ns) on ``trace`` at the top of ``plan.scale_range``: the
    reference of the wait rule."""
    from ...reproduce.calibration import baseline_summary

    s = baseline_summary(plan.device_config(), plan.trace_spec(trace, plan.scale_range[1]), snapshot)
    return float(s["read_latency_mean_ns"])


def load_target(plan: Plan, trace: str) -> float:
    """The value of :func:`baseline_load` the calibration aims at for ``trace``: under the wait
    rule a wait of ``target_read_wait`` unloaded latencies is ``w / (1 + w)`` of the latency."""
    if split_real(plan, trace)[0] in RETRY_TRACES:
        return 1.0 - TARGET_RETRY_SHARE
    if uses_wait_rule(plan, trace):
        return plan.target_read_wait / (1.0 + plan.target_read_wait)
    return plan.target_busy


def calibrate(plan: Plan, trace: str, snapshot=None) -> tuple[float, float]:
    """``(factor, load)``: the arrival factor that brings Baseline's :func:`baseline_load` within
    ``plan.calibration_tol`` of :func:`load_target` (or nearest it after ``plan.calibration_steps``
    runs).  Under the wait rule one more Baseline run, first, measures the unloaded read latency
    (:func:`unloaded_read_latency`).  With a snapshot directory, the runs after the first restore the
    aged device the first saved."""
    unloaded = unloaded_read_latency(plan, trace, snapshot) if uses_wait_rule(plan, trace) else None
    return bisect_time_scale(lambda f: baseline_load(plan, trace, f, snapshot, unloaded), load_target(plan, trace),
                             plan.scale_range, plan.calibration_steps, plan.calibration_tol)


def lengthened(plan: Plan, out, progress: bool = True, jobs: int | None = 1, scheduler: str | None = None,
               snapshot=None) -> Plan:
    """``plan`` with ``replays`` filled (module docstring): ali206's multiple of its Table II repeat
    count from Baseline's RR count (:func:`~flashrr.reproduce.calibration.calibrated_lengths`, at the
    fixed arrival factor), and every other trace's the smallest that gives it at least as many requests
    after RAF and repeats as ali206 has.  Unchanged when ``plan.repeat`` fixes the replays or the plan
    has them already."""
    if plan.repeat is not None or plan.replays:
        return plan
    anchor = "alibaba_206"
    fixed = replace(plan, scales=())
    key = {k: v for k, v in asdict(fixed).items() if k not in ("traces", "seeds", "ratios", "shares", "quick",
                                                                  "paper_scale", "real_samples", "occupancy_traces",
                                                                  "target_busy", "target_read_wait", "calibration_tol",
                                                                  "calibration_steps", "scale_range") + READS_FIELDS}
    m = calibrated_lengths(fixed, out, [anchor], key, progress, jobs, scheduler, snapshot)[anchor]
    target = m * fixed.length_unit(anchor) * _requests_per_play(fixed, anchor)
    names = list(plan.traces) + real_labels(plan)
    replays = {t: max(1, math.ceil(target / (fixed.length_unit(t) * _requests_per_play(fixed, t)))) for t in names}
    replays[anchor] = m
    return replace(plan, replays=tuple(replays.items()))


def _requests_per_play(plan: Plan, trace: str) -> int:
    """Requests of one play of ``trace`` after RAF (generated once per process)."""
    from ...reproduce.calibration import cached_trace

    return cached_trace(plan.base_spec(trace), plan.device_config()).info().n_requests


def calibrated(plan: Plan, out, progress: bool = True, jobs: int | None = 1, scheduler: str | None = None,
               snapshots: bool = True) -> Plan:
    """``plan`` with its lengths (:func:`lengthened`) and then ``scales`` filled: every trace's
    calibrated arrival factor at its length, from ``OUT/calibration.csv`` when it was made for the same
    plan; the other traces are calibrated one per call on ``jobs`` processes or the Dask cluster at
    ``scheduler`` (:func:`~flashrr.reproduce.calibration.calibration_table`), with ``snapshots`` from and
    into the sweeps' ``OUT/store/snapshots``.  The factors are kept when ``plan.target_busy`` is None
    or the plan already has its scales."""
    snapshot = snapshot_dir(out) if snapshots else None
    plan = lengthened(plan, out, progress, jobs, scheduler, snapshot)
    if plan.target_busy is None or plan.scales:
        return plan
    key = {k: v for k, v in asdict(plan).items() if k not in ("traces", "seeds", "ratios", "shares", "quick",
                                                                 "paper_scale", "scales", "real_samples",
                                                                 "occupancy_traces") + READS_FIELDS}
    if plan.target_read_wait is None:  # the busy rule: tables made before the wait rule existed still match
        del key["target_read_wait"]
    scales = calibration_table(Path(out) / "calibration.csv", key, list(plan.traces) + real_labels(plan),
                               partial(calibrate, plan, snapshot=snapshot), "baseline_load", progress, jobs,
                               scheduler)
    return replace(plan, scales=tuple(scales.items()))


def reads_ratio(plan: Plan, trace: str, n_requests: int, snapshot=None) -> float:
    """Baseline's RR count on the read-count group's ``trace`` generated at ``n_requests`` requests
    (:meth:`Plan.reads_spec`) over the plan's RR target for it: falls as ``n_requests`` grows (the
    same read count spread over a longer twin, so fewer of its blocks reach the threshold)."""
    from ...reproduce.calibration import baseline_summary

    s = baseline_summary(plan.device_config(), plan.reads_spec(trace, n_requests), snapshot)
    return float(s["rr_count"]) / plan.rr_target(trace)


def calibrate_reads(plan: Plan, trace: str, snapshot=None) -> tuple[int, float]:
    """``(n_requests, ratio)``: the generated request count at which Baseline, at the paper's read count,
    makes the paper's RR count (:func:`reads_ratio` within ``plan.reads_tol`` of 1, or nearest it after
    ``plan.reads_steps`` runs; a bisection on the log of the count in ``plan.reads_range``)."""
    n, ratio = bisect_time_scale(lambda f: reads_ratio(plan, trace, int(round(f)), snapshot), 1.0,
                                 plan.reads_range, plan.reads_steps, plan.reads_tol)
    return int(round(n)), ratio


def read_lengthened(plan: Plan, out, progress: bool = True, jobs: int | None = 1, scheduler: str | None = None,
                    snapshot=None) -> Plan:
    """``plan`` with ``read_lengths`` filled for the traces of its ``read_targets`` that it runs, from and
    into ``OUT/read_lengths.csv`` (:func:`calibrate_reads`; Baseline only).  Unchanged when the plan has them
    already or fixes its replays."""
    names = [t for t, n in plan.read_targets if n and t in plan.traces]
    if plan.read_lengths or plan.repeat is not None or not names:
        return plan
    key = {"device": plan.device_fields(), "workload": plan.workload, "spacing": plan.spacing,
           "trace_params": plan.trace_params, "stretch": plan.stretch(), "range": plan.reads_range,
           "steps": plan.reads_steps, "tol": plan.reads_tol,
           "targets": [(t, plan.rr_target(t), plan.read_target(t)) for t in names]}
    found = calibration_table(Path(out) / "read_lengths.csv", key, names,
                              partial(calibrate_reads, plan, snapshot=snapshot), "baseline_rr_ratio", progress, jobs,
                              scheduler, factor="n_requests")
    return replace(plan, read_lengths=tuple((t, int(n)) for t, n in found.items()))


# ------------------------------------------------------------------------------ sweeps
def run(plan: Plan, out, groups=GROUPS, timings: dict | None = None, **kw) -> CocktailRuns:
    """Calibrate the lengths and arrival factors (:func:`calibrated`) and, when ``groups`` has the read-count
    group, its request counts (:func:`read_lengthened`), then run (or resume) the sweeps
    of ``groups`` into ``out/store`` (``kw``: jobs, progress, scheduler, snapshots); the runs keep the
    calibrated plan and ``out`` (Fig. 5 caches its snapshot there)."""
    t0 = time.perf_counter()
    plan = calibrated(plan, out, kw.get("progress", True), kw.get("jobs"), kw.get("scheduler"),
                      kw.get("snapshots", True))
    if READS_GROUP in groups:
        plan = read_lengthened(plan, out, kw.get("progress", True), kw.get("jobs"), kw.get("scheduler"),
                               snapshot_dir(out) if kw.get("snapshots", True) else None)
    if timings is not None:
        timings["calibration_s"] = round(time.perf_counter() - t0, 2)
    runs = run_plan(CocktailRuns, specs(plan), tidy, plan, out, groups, timings=timings, **kw)
    runs.out = Path(out)
    return runs


def last_rr_snapshot(plan: Plan, trace: str = "alibaba_206", lane: int = 0, out=None) -> pd.DataFrame:
    """Fig. 5's data: Baseline on ``trace`` at its calibrated length (ali206's reaches the paper's RR
    count, scaled), or with at least :data:`FIG5_N_REQUESTS` requests when the plan did not lengthen it;
    the block read counts (and valid pages) of plane ``lane`` at its last RR, one row per block.  Cached
    as ``OUT/fig05_snapshot.csv``."""
    from ...policy import Baseline
    from ...reproduce.calibration import cached_trace
    from ...simulate import simulate

    if trace not in dict(plan.replays):  # not lengthened (a plan that fixes its replays): the preset's own length
        plan = replace(plan, n_requests=max(plan.n_requests, FIG5_N_REQUESTS))
    spec = plan.trace_spec(trace)
    cache = Path(out) / "fig05_snapshot.csv" if out is not None else None
    if cache is not None and cache.exists():
        df = pd.read_csv(cache)
        if len(df) and "trace_spec" in df.columns and df["trace_spec"].iloc[0] == spec:  # the same run: resume
            return df

    class Snapshot(Baseline):
        name = "baseline"  # the Baseline; the hook only copies state

        def __init__(self):
            super().__init__()
            self.reads = None
            self.rr = 0

        def on_read_reclaim(self, state, sb):
            S = state.layout.sb_per_lane
            if sb // S == lane:
                self.reads = state.block_reads[lane * S:(lane + 1) * S].copy()
                self.valid = state.sb_valid[lane * S:(lane + 1) * S].copy()
            self.rr += 1
            return "default"

    pol = Snapshot()
    simulate(plan.device_config(), cached_trace(spec, plan.device_config()), policy=pol)
    S = plan.device_config().geometry.blocks_per_plane
    reads = pol.reads if pol.reads is not None else np.zeros(S, np.int64)
    valid = pol.valid if pol.reads is not None else np.zeros(S, np.int64)
    df = pd.DataFrame({"block": np.arange(S), "block_reads": reads, "valid_pages": valid, "rr_count": pol.rr,
                       "trace_spec": spec})
    if cache is not None:
        df.to_csv(cache, index=False)
    return df
