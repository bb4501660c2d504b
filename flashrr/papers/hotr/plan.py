"""What the HotR paper's reproduction runs (Wu et al., DATE 2019): Figs. 1(b, c)
and 5-9 and its headline claims (docs/hotr.md).

Traces: the synthetic Table III presets ``hotr-fin2``, ``hotr-msr_hm``,
``hotr-hpc_46``, ``hotr-hpc_28``.  The paper's arrival intensity is unknown,
so each trace is first **time-scaled** (``scale_time``) until Baseline on the
TLC ``hotr`` device blocks about :data:`TARGET_BLOCKED` of its reads (the
paper's 33.0% average, Fig. 1(b)): a bisection on the log of the factor, run on
the first ``calibration_requests`` requests.  The factors go to
``OUT/calibration.csv`` and are reused by a resumed run.

=========  ===============================================  ===========
group      runs                                             figures
=========  ===============================================  ===========
``main``   Baseline, Rails, TTFlash, HotR x traces (TLC)     1(b), 5-8
``flash``  Baseline, HotR x traces on SLC, MLC, QLC          9 (TLC from main)
``optimal``  Optimal (reads never wait for programs), TLC     1(b)
=========  ===============================================  ===========

Fig. 1(c) comes from the traces themselves (page access classes).  Runs go to
one :func:`flashrr.sweep.sweep` store under ``OUT/store``, so an interrupted
reproduction resumes.  ``--quick`` uses 40,000 requests per trace and a
20,000-request calibration (a few minutes on two cores).

Regime (:data:`REGIME`; :mod:`flashrr.reproduce.regime`): every trace is packed onto its
footprint (``pack=stripe``) and the device holds the footprint alone, as a trace-driven run of
the MSR SSD model writes only what the trace touches.  Read reclaim is off on this device,
so no length is calibrated and no trace is expected to reclaim.  The ``occupancy`` group
runs Baseline and HotR at the regime's occupancies (0.5 ... 1.0 of the logical space).

``--paper-scale`` (:data:`PAPER_SCALE`) is the default plan: the four Table III
traces at Table III's I/O counts (``n_requests=None``), each played once (§IV-A
names no repeats), on the TLC ``hotr`` device and its SLC/MLC/QLC variants
(Fig. 9).  The calibration prefix is flashrr's own step, not the paper's, and
stays :data:`CALIBRATION_REQUESTS`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pandas as pd

from ...reproduce.calibration import bisect_time_scale, calibration_table
from ...reproduce.regime import Regime, occupancy_group
from ...reproduce.sweep_runs import SweepRuns, run_sweeps, snapshot_dir, store_dir
from ...reproduce.trace_specs import workload_spec

TRACES = ("fin2", "msr_hm", "hpc_46", "hpc_28")
SCHEMES = {"baseline": "Baseline", "rails": "Rails", "ttflash": "TTFlash", "hotr": "HotR"}
FLASH = {"slc": "hotr-slc", "mlc": "hotr-mlc", "tlc": "hotr", "qlc": "hotr-qlc"}
GROUPS = ("main", "flash", "optimal", "occupancy")
TARGET_BLOCKED = 0.33
QUICK_N_REQUESTS = 40_000
QUICK_CALIBRATION = 20_000
# the quick plan: every trace, shorter, and a shorter calibration prefix
QUICK = dict(n_requests=QUICK_N_REQUESTS, calibration_requests=QUICK_CALIBRATION)
CALIBRATION_REQUESTS = 100_000
# the paper-scale plan (module docstring): Table III's traces and I/O counts, each played once
PAPER_SCALE = dict(traces=TRACES, n_requests=None, repeat=1)
SCALE_RANGE = (1 / 64, 64.0)
# packed traces on their footprint alone; RR is off on the hotr devices, so no trace reclaims
REGIME = Regime(placement="pack", occupancy=0.0, rr_floor=0, no_rr=TRACES)
BISECTION_STEPS = 9


@dataclass(frozen=True)
class Plan:
    """What to run.  ``n_requests``: requests per trace (None = Table III's count);
    ``calibration_requests``: the prefix the time scale is calibrated on;
    ``target_blocked``: Baseline's blocked share of reads to calibrate to;
    ``trace_params``/``device_overrides``: extra ``(name, value)`` pairs."""

    traces: tuple = TRACES
    n_requests: int | None = None
    calibration_requests: int = CALIBRATION_REQUESTS
    target_blocked: float = TARGET_BLOCKED
    repeat: int = 1
    seeds: tuple = (0,)
    trace_params: tuple = ()
    device_overrides: tuple = ()
    quick: bool = False
    paper_scale: bool = False
    workload: str = "model"
    regime: Regime = REGIME

    def trace_spec(self, name: str, scale: float | None = None, first: int | None = None) -> str:
        pipeline = {}
        if first is not None:
            pipeline["first"] = int(first)
        pipeline.update(self.regime.pipeline())
        if scale is not None:
            pipeline["scale_time"] = repr(float(scale))
        return workload_spec(f"hotr-{name}", self.n_requests, self.trace_params, self.workload, pipeline)

    def device(self, preset: str, occupancy: float | None = None) -> dict:
        """A sweep device entry: ``preset`` at the regime's occupancy (or ``occupancy``)."""
        return {"preset": preset, "name": preset, **self.regime.device_fields(occupancy), **dict(self.device_overrides)}

    def config(self):
        """The TLC device (``hotr`` preset with the regime's occupancy and ``device_overrides``): the
        device calibration runs on and the one a trace is packed onto when a figure reads the trace itself."""
        from ...config import SimConfig

        d = self.device("hotr")
        d.pop("preset"), d.pop("name")
        return SimConfig.preset("hotr").replace(**d)

    def replays_of(self, name: str) -> int:
        return self.repeat

    def rr_target(self, name: str) -> int:
        return 0

    def headline_claims(self) -> tuple:
        """The claims the occupancy group reports: ``(claim, metric, scheme, ref, paper %)`` (abstract)."""
        return (("response time, HotR vs Baseline", "io_latency_mean_ns", "HotR", "Baseline", -21.8),)


@dataclass
class Runs(SweepRuns):
    """``frames[group]``: one row per run with ``trace``, ``scheme`` and ``flash``
    columns added; ``scales``: the calibrated time factor of each trace.  Its
    ``table`` selects a flash type rather than a device."""

    scales: dict = field(default_factory=dict)

    def table(self, metric: str, group: str = "main", flash: str = "tlc", schemes=None) -> pd.DataFrame:
        """``metric`` as traces x schemes (mean over seeds)."""
        df = pd.concat([self.frame(g) for g in GROUPS], ignore_index=True) if group == "all" \
            else self.frame(group)
        if df.empty or metric not in df.columns:
            return pd.DataFrame()
        df = df[df["flash"] == flash]
        t = df.pivot_table(index="trace", columns="scheme", values=metric, aggfunc="mean", sort=False)
        order = [s for s in (schemes or list(SCHEMES.values()) + ["Optimal"]) if s in t.columns]
        return t.reindex(index=[x for x in self.plan.traces if x in t.index], columns=order)


# ------------------------------------------------------------------------------ calibration
def blocked_share(plan: Plan, name: str, scale: float, snapshot=None) -> float:
    """Baseline's blocked share of reads on the TLC device, on the calibration prefix; the
    aged device from the snapshot directory ``snapshot`` if given (:func:`flashrr.simulate`)."""
    from ...simulate import simulate

    s = simulate(plan.config(), plan.trace_spec(name, scale, plan.calibration_requests), "baseline",
                 snapshot=snapshot).summary
    return s["blocked_reads"] / s["reads"] if s["reads"] else 0.0


def calibrate(plan: Plan, name: str, snapshot=None) -> tuple[float, float]:
    """The time factor (bisection on its log) that brings Baseline's blocked share of
    reads nearest ``plan.target_blocked``; returns ``(factor, share)``.  The share
    falls as the factor grows (sparser arrivals).  With a snapshot directory, the runs
    after the first restore the aged device the first saved."""
    return bisect_time_scale(lambda f: blocked_share(plan, name, f, snapshot), plan.target_blocked, SCALE_RANGE,
                             BISECTION_STEPS)


def calibration(plan: Plan, out, progress: bool = True, jobs: int | None = 1, scheduler: str | None = None,
                snapshots: bool = True) -> dict:
    """``{trace: factor}``, from ``OUT/calibration.csv`` when it was made for this plan; the
    other traces are calibrated one per call on ``jobs`` processes or the Dask cluster at
    ``scheduler`` (:func:`~flashrr.reproduce.calibration.calibration_table`), with
    ``snapshots`` from and into the sweeps' ``OUT/store/snapshots``."""
    key = {"n_requests": plan.n_requests, "calibration_requests": plan.calibration_requests,
           "target_blocked": plan.target_blocked, "trace_params": list(plan.trace_params),
           "device_overrides": list(plan.device_overrides), "regime": repr(plan.regime)}
    return calibration_table(Path(out) / "calibration.csv", key, plan.traces,
                             partial(calibrate, plan, snapshot=snapshot_dir(out) if snapshots else None),
                             "blocked_share", progress, jobs, scheduler)


# ------------------------------------------------------------------------------ sweeps
def specs(plan: Plan, scales: dict) -> dict:
    traces = [plan.trace_spec(t, scales[t]) for t in plan.traces]
    common = {"seeds": list(plan.seeds), "repeat": plan.repeat, "traces": traces}
    return {
        "main": {**common, "devices": [plan.device("hotr")], "policies": {name: {} for name in SCHEMES},
                 "keep": ["hist"]},
        "flash": {**common, "devices": [plan.device(FLASH[f]) for f in ("slc", "mlc", "qlc")],
                  "policies": {"baseline": {}, "hotr": {}}},
        "optimal": {**common, "devices": [plan.device("hotr")], "policies": {"optimal": {}}},
        **occupancy_group(common, traces, plan.device("hotr"), plan.regime, {"baseline": {}, "hotr": {}}),
    }


def tidy(group: str, df: pd.DataFrame, plan: Plan, scales: dict) -> pd.DataFrame:
    if df.empty:
        return df
    label = {plan.trace_spec(t, scales[t]): t for t in plan.traces}
    flash_of = {v: k for k, v in FLASH.items()}
    df = df.copy()
    df["group"] = group
    df["trace"] = [label.get(s, s) for s in df["trace_source"]]
    df["scheme"] = [SCHEMES.get(p, p.capitalize()) for p in df["policy_name"]]
    df["flash"] = [flash_of.get(d.split("+")[0], d) for d in df["device"]]
    df["cost"] = [1.0 if p == "baseline" else c for p, c in zip(df["policy_name"], df.get("cost_factor", 1.0))]
    df["blocked_share"] = df["blocked_reads"] / df["reads"].where(df["reads"] > 0)
    df["redirected_share"] = df["redirected_reads"] / df["reads"].where(df["reads"] > 0)
    return df


def run(plan: Plan, out, groups=GROUPS, jobs: int | None = None, progress: bool = True,
        timings: dict | None = None, scheduler: str | None = None, snapshots: bool = True) -> Runs:
    """Calibrate the time factors (:func:`calibration`), then run (or resume) the sweeps of ``groups``
    into ``out/store``, both on ``jobs`` local processes or the Dask cluster at ``scheduler``."""
    t0 = time.perf_counter()
    scales = calibration(plan, out, progress, jobs, scheduler, snapshots)
    if timings is not None:
        timings["calibration_s"] = round(time.perf_counter() - t0, 2)
    frames = run_sweeps(specs(plan, scales), groups, out, lambda g, df: tidy(g, df, plan, scales), jobs, progress,
                        timings, scheduler, snapshots)
    return Runs(frames, store_dir(out), plan, scales=scales)
