"""What the Shuffler paper's reproduction runs (Liao et al., TOS 2026): every figure of §2 and §4.

The experiments are five sweeps over the synthetic Table 2 traces
(``ali0 … gen1``) on the ``shuffler`` device preset (Table 1):

=========  ===============================================  ===================
group      runs                                             figures
=========  ===============================================  ===================
``main``   5 schemes x traces, 64 MB cache, 4-block SBs     2, 5-14, claims
``block``  Baseline with block management (k = 1)           1
``sens``   Shuffler over a grid of delta_f and delta_p      4
``sb32``   5 schemes x traces, 32-block superblocks         15, 19
``cache``  5 schemes x traces, 32 MB and 128 MB caches      16-18
=========  ===============================================  ===================

All runs go to one :func:`flashrr.sweep.sweep` store under ``OUT/store``, so an
interrupted reproduction resumes and runs shared by groups are done once.

Scale: the paper replays each trace 128 times.  The default here is
:data:`DEFAULT_REPEAT` replays of the full-length traces, which gives Baseline
hundreds to thousands of RRs per trace and keeps a whole reproduction near
half an hour on two cores.  ``--quick`` runs two traces at the default length, with
fewer parameter points (3 per sensitivity axis, the 32 MB cache alone in the cache study), to
check the pipeline in a few minutes: ali1 (a model twin) and gen0 (one of the paper's generated
traces).  At the default length a quick trace's changes are the default plan's, so its claims
are the default plan's claims on those traces (``experiments/trace_subsets.py`` recomputes a
default run's claims on a subset; docs/report.md, "Time", compares the two plans' counts).

``--paper-scale`` (:data:`PAPER_SCALE`) is the paper's own scale: :data:`PAPER_REPEAT`
replays of each trace (§4.1, "we repeated the benchmarks 128 times"), the ten
Table 2 traces at their full request counts, the 64 GB ``shuffler`` device of
Table 1 with 4-block superblocks (§4.1) and 32-block ones (§4.4.1), and the 32 MB
and 128 MB caches of §4.4.2: all as by default but the replays.  The delta_f and
delta_p points of Fig. 4 are not in the paper's text, so they stay the default's.

Regime (:data:`REGIME`; :mod:`flashrr.reproduce.regime`).  The paper runs MQSim (§4.1),
which preconditions a trace's own addresses first and other pages up to the workload's
``Initial_Occupancy_Percentage`` (70 for the trace-based flow of MQSim's shipped
``workload.xml``): every trace is packed onto its footprint in units of 4 pages (``pack=4``:
the superpage of the 4-block device and the synthetic traces' 32 KiB alignment, so every
page keeps its component block there; a 32-page unit, the 32-block device's superpage,
would spread the sparse LUN twins past the device) and the device filled to 70% of its
logical space.
The paper states the length itself (128 replays, §4.1), so no length is calibrated; a
trace whose Baseline makes no RR is flagged and kept out of the claims.  MQSim's shipped
``ssdconfig.xml`` has ``Preemptible_GC_Enabled`` false: the preset's ``"gc-first"``.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ...reproduce.regime import Regime, occupancy_group
from ...reproduce.sweep_runs import SweepRuns, run_plan, tidy_rows
from ...reproduce.trace_specs import workload_spec

TRACES = ("ali0", "ali1", "lun0", "lun1", "lun2", "lun3", "lun4", "lun5", "gen0", "gen1")
QUICK_TRACES = ("ali1", "gen0")
SCHEMES = {"baseline": "Baseline", "page": "Page", "page-8": "Page-8", "page-64": "Page-64", "shuffler": "Shuffler"}
DEFAULT_REPEAT = 16
PAPER_REPEAT = 128  # §4.1
QUICK_N_REQUESTS = None
# the quick plan: two traces as long as in the default plan, fewer parameter points (the cache study's 32 MB alone,
# which Fig. 16's claim reads); the occupancy group on its generated trace
QUICK = dict(traces=QUICK_TRACES, n_requests=QUICK_N_REQUESTS, repeat=DEFAULT_REPEAT, delta_f_values=(0.2, 0.3, 0.5),
             delta_p_values=(0.05, 0.1, 0.2), cache_sizes_mib=(32,), occupancy_traces=("gen0",))
# the paper-scale plan (module docstring): 128 replays of the ten Table 2 traces at their own request counts,
# and §4.4.2's caches
PAPER_SCALE = dict(traces=TRACES, n_requests=None, repeat=PAPER_REPEAT, cache_sizes_mib=(32, 128))
GROUPS = ("main", "block", "sens", "sb32", "cache", "occupancy")
# Synthetic traces start every extent on a superpage boundary (4 pages of 8 KiB on the
# shuffler device) and keep Table 2's touched footprint.  This reproduces the paper's
# Fig. 2 premise (component blocks far below the threshold at RR); with page-aligned
# extents the blocks are balanced and Shuffler has nothing to do (docs/shuffler.md).
# Override with --trace-param align_bytes=8192 for the page-aligned presets.
DEFAULT_TRACE_PARAMS = (("align_bytes", 32768), ("footprint_page_bytes", 8192))
MIB = 1 << 20
# MQSim's shipped workload.xml: Initial_Occupancy_Percentage 70 for its trace-based flow; packed in units of
# the 4-block device's superpage (4 pages, the synthetic traces' 32 KiB alignment), so a page keeps its
# component block there and its plane of a chip on the 32-block device; the paper gives the replays
REGIME = Regime(placement="pack", pack_unit=4, occupancy=0.70, rr_floor=0)
# the occupancy group's traces: one model twin (lun4) and one of the paper's generated traces (gen1), one of
# each kind of Table 2 row; on the twins Shuffler's RRs equal Baseline's (docs/shuffler.md), so a group of twins
# alone would show nothing of how its headline leans on the occupancy
OCCUPANCY_TRACES = ("lun4", "gen1")


@dataclass(frozen=True)
class Plan:
    """What to run.  ``repeat``: replays of each trace; ``n_requests``: requests
    per trace (None = the paper's count); ``trace_params``/``device_overrides``:
    extra ``(name, value)`` pairs for every synthetic trace / every device."""

    traces: tuple = TRACES
    n_requests: int | None = None
    repeat: int = DEFAULT_REPEAT
    seeds: tuple = (0,)
    delta_f_values: tuple = (0.2, 0.3, 0.4, 0.5)
    delta_p_values: tuple = (0.05, 0.1, 0.15, 0.2)
    cache_sizes_mib: tuple = (32, 128)
    trace_params: tuple = DEFAULT_TRACE_PARAMS
    device_overrides: tuple = ()
    quick: bool = False
    paper_scale: bool = False
    workload: str = "model"
    regime: Regime = REGIME
    occupancy_traces: tuple = OCCUPANCY_TRACES

    def trace_spec(self, name: str) -> str:
        return workload_spec(name, self.n_requests, self.trace_params, self.workload, self.regime.pipeline())

    def device(self, name: str, preset: str = "shuffler", occupancy: float | None = None, **fields) -> dict:
        """A sweep device entry at the regime's occupancy (or ``occupancy``) with ``fields`` set."""
        return {"preset": preset, "name": name, **self.regime.device_fields(occupancy), **dict(self.device_overrides),
                **fields}

    def replays_of(self, name: str) -> int:
        return self.repeat

    def rr_target(self, name: str) -> int:
        return self.regime.rr_target(name)

    def headline_claims(self) -> tuple:
        """The claims the occupancy group reports: ``(claim, metric, scheme, ref, paper %)`` (abstract)."""
        return (("RR count, Shuffler vs Baseline", "rr_count", "Shuffler", "Baseline", -14.5),
                ("read latency, Shuffler vs Baseline", "read_latency_mean_ns", "Shuffler", "Baseline", -12.9))


class Runs(SweepRuns):
    """The tidy results of a reproduction (:class:`~flashrr.reproduce.sweep_runs.SweepRuns`),
    with the block-vs-superblock frame of Fig. 1."""

    def management_frame(self) -> pd.DataFrame:
        """Baseline runs with block management (scheme ``Block``) and with 4-block
        superblocks (scheme ``Superblock``), for Fig. 1."""
        sb = self.frame("main")
        if not sb.empty:
            sb = sb[(sb["policy_name"] == "baseline") & (sb["device"] == "shuffler")].assign(scheme="Superblock")
        return pd.concat([self.frame("block"), sb], ignore_index=True)


def specs(plan: Plan) -> dict:
    """The sweep spec of every group (dicts for :func:`flashrr.sweep.sweep`)."""
    traces = [plan.trace_spec(t) for t in plan.traces]
    common = {"seeds": list(plan.seeds), "repeat": plan.repeat, "traces": traces}
    all_schemes = {name: {} for name in SCHEMES}
    occ = occupancy_group(common, [plan.trace_spec(t) for t in plan.occupancy_traces if t in plan.traces],
                          plan.device("shuffler"), plan.regime, {"baseline": {}, "shuffler": {}})
    return {
        **occ,
        "main": {**common, "devices": [plan.device("shuffler")], "policies": all_schemes,
                 "keep": ["rr_events", "hist"]},
        "block": {**common, "devices": [plan.device("shuffler-block", sb_planes=1)],
                  "policies": {"baseline": {}}},
        "sens": {**common, "devices": [plan.device("shuffler")],
                 "policies": {"shuffler": [{"delta_f": list(plan.delta_f_values), "delta_p": 0.1},
                                           {"delta_f": 0.3, "delta_p": list(plan.delta_p_values)}]}},
        "sb32": {**common, "devices": [plan.device("shuffler-32", preset="shuffler-32")], "policies": all_schemes},
        "cache": {**common, "devices": [plan.device(f"shuffler-{m}MB", capacity_bytes=m * MIB)
                                        for m in plan.cache_sizes_mib], "policies": all_schemes},
    }


def _scheme_label(group: str, row) -> str:
    if group == "sens":
        return f"dF={row['param_delta_f']:g}, dP={row['param_delta_p']:g}"
    if group == "block":
        return "Block"
    return SCHEMES.get(row["policy_name"], row["policy_name"])


def tidy(group: str, df: pd.DataFrame, plan: Plan) -> pd.DataFrame:
    """Add ``group``, ``trace`` and ``scheme`` columns to a sweep's result rows."""
    return tidy_rows(group, df, plan, _scheme_label)


def run(plan: Plan, out, groups=GROUPS, **kw) -> Runs:
    """Run (or resume) the sweeps of ``groups`` into ``out/store`` (``kw``: jobs, progress, timings, scheduler)."""
    return run_plan(Runs, specs(plan), tidy, plan, out, groups, **kw)
