"""Reproduce the Shuffler paper (Liao et al., TOS 2026): every figure of §2 and §4.

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
:func:`reproduce` then writes ``OUT/figNN_<name>.{png,pdf,csv}`` for every
figure, ``OUT/claims.{csv,md}``, ``OUT/runs.csv`` (one row per run) and
``OUT/reproduce.json`` (the plan and the wall time of every step, in s).

Scale: the paper replays each trace 128 times.  The default here is
:data:`DEFAULT_REPEAT` replays of the full-length traces, which gives Baseline
hundreds to thousands of RRs per trace and keeps a whole reproduction near
half an hour on two cores; ``--repeat 128`` is the paper's setting (about 4x
longer).  ``--quick`` runs three traces, fewer parameter points and fewer
replays, to check the pipeline in a few minutes.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from urllib.parse import urlencode

import pandas as pd

TRACES = ("ali0", "ali1", "lun0", "lun1", "lun2", "lun3", "lun4", "lun5", "gen0", "gen1")
QUICK_TRACES = ("ali1", "lun4", "gen1")
SCHEMES = {"baseline": "Baseline", "page": "Page", "page-8": "Page-8", "page-64": "Page-64", "shuffler": "Shuffler"}
DEFAULT_REPEAT = 16
QUICK_REPEAT = 8
QUICK_N_REQUESTS = None
GROUPS = ("main", "block", "sens", "sb32", "cache")
# Synthetic traces start every extent on a superpage boundary (4 pages of 8 KiB on the
# shuffler device) and keep Table 2's touched footprint.  This reproduces the paper's
# Fig. 2 premise (component blocks far below the threshold at RR); with page-aligned
# extents the blocks are balanced and Shuffler has nothing to do (docs/shuffler.md).
# Override with --trace-param align_bytes=8192 for the page-aligned presets.
DEFAULT_TRACE_PARAMS = (("align_bytes", 32768), ("footprint_page_bytes", 8192))
MIB = 1 << 20


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

    @classmethod
    def make(cls, quick: bool = False, repeat: int | None = None, **changes) -> "Plan":
        """The full plan, or the quick one; ``repeat`` and ``changes`` override it."""
        plan = cls()
        if quick:
            plan = replace(plan, traces=QUICK_TRACES, n_requests=QUICK_N_REQUESTS, repeat=QUICK_REPEAT,
                           delta_f_values=(0.2, 0.3, 0.5), delta_p_values=(0.05, 0.1, 0.2), quick=True)
        if repeat is not None:
            plan = replace(plan, repeat=int(repeat))
        return replace(plan, **changes) if changes else plan

    def trace_spec(self, name: str) -> str:
        params = {}
        if self.n_requests is not None:
            params["n_requests"] = int(self.n_requests)
        params.update(dict(self.trace_params))
        return f"synth:{name}" + (f"?{urlencode(params)}" if params else "")

    def device(self, name: str, preset: str = "shuffler", **fields) -> dict:
        return {"preset": preset, "name": name, **dict(self.device_overrides), **fields}


@dataclass
class Runs:
    """The tidy results of a reproduction: ``frames[group]`` has one row per run
    (the sweep's columns plus ``group``, ``trace`` (preset name) and ``scheme``
    (display label)); ``store`` is the sweep store holding the kept events."""

    frames: dict
    store: Path
    plan: Plan
    _artifacts: dict = field(default_factory=dict)

    def frame(self, group: str) -> pd.DataFrame:
        return self.frames.get(group, pd.DataFrame())

    def artifacts(self, key: str) -> dict:
        """Kept ``rr_events`` / ``hist`` of run ``key`` (cached)."""
        if key not in self._artifacts:
            from ..sweep import load_run_artifacts

            self._artifacts[key] = load_run_artifacts(self.store, key)
        return self._artifacts[key]

    def table(self, group: str, metric: str, device: str | None = None, schemes=None) -> pd.DataFrame:
        """``metric`` as traces x schemes (mean over seeds), traces in plan order."""
        df = self.frame(group)
        if device is not None and not df.empty:
            df = df[df["device"] == device]
        return pivot(df, metric, self.plan.traces, schemes)

    def management_frame(self) -> pd.DataFrame:
        """Baseline runs with block management (scheme ``Block``) and with 4-block
        superblocks (scheme ``Superblock``), for Fig. 1."""
        sb = self.frame("main")
        if not sb.empty:
            sb = sb[(sb["policy_name"] == "baseline") & (sb["device"] == "shuffler")].assign(scheme="Superblock")
        return pd.concat([self.frame("block"), sb], ignore_index=True)


def pivot(df: pd.DataFrame, metric: str, traces, schemes=None) -> pd.DataFrame:
    """Rows of tidy runs as a traces x schemes table of ``metric`` (mean over
    seeds); rows in ``traces`` order, columns in ``schemes`` order (if given)."""
    if df.empty or metric not in df.columns:
        return pd.DataFrame()
    t = df.pivot_table(index="trace", columns="scheme", values=metric, aggfunc="mean", sort=False)
    order = [s for s in (schemes or t.columns) if s in t.columns]
    return t.reindex(index=[x for x in traces if x in t.index], columns=order)


def specs(plan: Plan) -> dict:
    """The sweep spec of every group (dicts for :func:`flashrr.sweep.sweep`)."""
    traces = [plan.trace_spec(t) for t in plan.traces]
    common = {"seeds": list(plan.seeds), "repeat": plan.repeat, "traces": traces}
    all_schemes = {name: {} for name in SCHEMES}
    return {
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
    if df.empty:
        return df
    label = {plan.trace_spec(t): t for t in plan.traces}
    df = df.copy()
    df["group"] = group
    df["trace"] = [label.get(s, s) for s in df["trace_source"]]
    df["scheme"] = [_scheme_label(group, r) for _, r in df.iterrows()]
    return df


def run(plan: Plan, out, groups=GROUPS, jobs: int | None = None, progress: bool = True,
        timings: dict | None = None) -> Runs:
    """Run (or resume) the sweeps of ``groups`` into ``out/store``."""
    from .common import run_groups

    frames = run_groups(specs(plan), tidy, plan, out, groups, jobs, progress, timings)
    return Runs(frames, Path(out) / "store", plan)


def reproduce(out, quick: bool = False, repeat: int | None = None, jobs: int | None = None, progress: bool = True,
              figures=None, plan: Plan | None = None, trace_params=(), device_overrides=()) -> dict:
    """Run the experiments and write every figure, ``claims.csv``/``claims.md``,
    ``runs.csv`` and ``reproduce.json`` into ``out``.  ``figures``: a subset of
    :data:`~flashrr.reproduce.shuffler_figures.FIGURES` ids (default: all).
    ``trace_params`` / ``device_overrides``: ``(name, value)`` pairs added to
    every synthetic trace spec (after :data:`DEFAULT_TRACE_PARAMS`, so they
    override it) / every device; ignored when ``plan`` is given.
    Returns ``{"figures": {id: [paths]}, "claims": DataFrame, "timings": {...}}``."""
    from .common import make_figures, write_manifest
    from .shuffler_claims import claims, write_claims
    from .shuffler_figures import FIGURES

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    plan = plan or Plan.make(quick=quick, repeat=repeat, trace_params=DEFAULT_TRACE_PARAMS + tuple(trace_params),
                             device_overrides=tuple(device_overrides))
    wanted = list(FIGURES) if figures is None else list(figures)
    unknown = [f for f in wanted if f not in FIGURES]
    if unknown:
        raise ValueError(f"reproduce shuffler: unknown figure(s) {unknown}; expected some of {list(FIGURES)}")
    with_claims = figures is None
    groups = [g for g in GROUPS if with_claims or any(g in FIGURES[f].groups for f in wanted)]
    timings: dict = {}
    t0 = time.perf_counter()
    runs = run(plan, out, groups, jobs=jobs, progress=progress, timings=timings)
    pd.concat([runs.frame(g) for g in groups], ignore_index=True).to_csv(out / "runs.csv", index=False)
    written = make_figures(FIGURES, wanted, runs, out, timings)
    table = None
    if with_claims:
        table = claims(runs)
        write_claims(table, out, plan)
    timings["total_s"] = round(time.perf_counter() - t0, 2)
    write_manifest(out, "shuffler", asdict(plan), timings)
    return {"figures": written, "claims": table, "timings": timings}


def figure_main(fid: str, argv=None) -> None:
    """Entry point of the per-figure scripts in ``experiments/shuffler/``:
    ``python figNN_name.py [--quick] [--repeat N] [--jobs J] [--out DIR]``."""
    from .common import figure_cli
    from .shuffler_figures import FIGURES

    figure_cli("shuffler", fid, FIGURES, reproduce, argv)
