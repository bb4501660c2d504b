"""What a paper's ``--paper-scale`` plan costs: its runs, and the wall time of chosen ones.

``count PAPER``: the paper-scale plan's distinct runs per sweep group and in all
(a run shared by two groups counts once, as the sweep store runs it once).

``time PAPER --trace T [--policy P] [--device D] [--group G]``: runs the plan's
runs that match (substrings of the trace spec, policy name and device name), one
after the other in this process, exactly as a sweep worker runs them, and prints
for each its wall time and this process's CPU time (s; on a busy machine the CPU time is
what the run takes on an idle core), the requests it replayed, the requests per CPU
second, its RR and GC counts, the load average (1 min) before and after, and this
process's peak RSS so far (MiB).
Cocktail's and HotR's arrival factors are not calibrated here: their runs use the
fixed factor (Cocktail: ``128 / planes``; HotR: 1), which changes their arrival times,
not their request counts.

``calibrate PAPER [--plan P] [--jobs J] [--traces a,b] [--no-snapshots] [--each]``: runs the
calibration of PhasedRR's (its lengths), Cocktail's (its lengths and loads) or HotR's (its loads)
paper-scale (or default, or quick) plan from scratch in a temporary directory, on ``J`` processes
(0: this one), with the aged devices' snapshots (as ``reproduce`` runs it) or without, and prints
its wall time, the CPU time of this process and of its workers (s), the load average (1 min)
before and after, and the factors found.  ``--each`` calibrates the traces one at a time in this
process and prints, per trace, a line ``{"paper", "stage": "calibration", "trace", "cpu_s"}``
that ``estimate --calls`` takes as one call (the critical path needs each trace's cost, not
their mean).  With ``--traces`` or ``--each`` the plan's real samples are left out.  Cocktail's
lengths come from ali206 alone, so each ``--each`` line of Cocktail includes that calibration,
which ``reproduce`` runs once.

``estimate [PAPER ...] [--runs F] [--store DIR] [--calls F] [--manifest F] [--plan P]``: what
the whole reproduction costs, from measured costs, without running it: per paper and for
``reproduce all`` (the papers one after another), the total CPU time, the critical path
and the wall time on 1, 2, 4 and 8 workers.  A paper is a chain of stages, each starting
when the one before has ended: its load calibration (one call per trace, on the workers),
its sweeps (one call per run, on the workers, every group's runs in group order with no wait
between groups, as the reproduction submits them; a run two groups share runs once), then
what the main process does after them (figures, claims).  The
critical path is the sum of each stage's longest call (the main process's stage whole:
it is one chain); the wall time on W workers gives
each call, in the order it is submitted, to the first worker free (as the local pool and,
on an idle cluster, Dask do), and beside it the same with the longest calls first.  The
plans are the current ones (``--plan paper-scale``, ``default`` or ``quick``), expanded as
the sweeps expand them.  Costs (CPU s of one call):

* ``--runs F``: JSON lines of ``time`` (a run's ``cpu_s`` by its ``key``);
* ``--store DIR``: a sweep store (``OUT/store`` of a reproduction): each stored run's
  ``call_wall_s``, the worker's whole call (imports, the trace's loading, preconditioning and
  replay), or in a store written before that column its ``sim_wall_s``, the engine's time
  only; neither holds what the main process and the scheduler spend around a call (storing
  the row, Dask's round trips);
* ``--calls F``: JSON lines ``{"paper", "stage", "cpu_s"}``, one call of stage
  ``calibration``, ``configurations`` (superblock-PV) or ``main`` (the main process after
  the workers), and the lines ``calibrate`` prints (``workers_cpu_s`` over ``traces`` calls);
* ``--manifest F``: a reproduction's ``reproduce.json``: its main process's time after the
  sweeps (``total_s`` less the calibration and the sweeps; for superblock-PV its figures'
  and tables' times), and superblock-PV's configurations (each one's evaluation, the
  latencies' modelling added to the first).

A run without a measured cost takes the mean of the measured runs most like it: the same
trace, device, policy and parameters (other seeds), else the same trace, device and
policy, else the same with the trace's pipeline ignored (a calibrated load factor is part
of it), else the same trace and device, else the same sweep group, else the paper; the
table counts the runs estimated and the notes say how.  A stage with nothing measured is
left out and named.

Run: ``python benchmarks/paper_scale_cost.py count shuffler``,
``python benchmarks/paper_scale_cost.py time shuffler --trace ali1 --policy page --group main >> runs.jsonl``,
``python benchmarks/paper_scale_cost.py estimate --runs runs.jsonl --store out/reproduce-all/hotr/store``.
"""
from __future__ import annotations

import argparse
import heapq
import json
import os
import resource
import statistics
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

#: the worker counts of the estimate's wall-time columns
WORKERS = (1, 2, 4, 8)
#: papers whose reproduction calibrates its traces (lengths or loads) before the sweeps
CALIBRATED = ("phasedrr", "cocktail", "hotr")


def make_plan(name: str, which: str = "paper-scale"):
    """Paper ``name``'s plan: ``paper-scale``, ``default`` or ``quick``."""
    from flashrr.reproduce import PAPERS

    return PAPERS[name].make_plan(quick=which == "quick", paper_scale=which == "paper-scale")


def paper_specs(name: str, which: str = "paper-scale") -> tuple:
    """``(plan, {group: sweep spec})`` of paper ``name``'s plan (:func:`make_plan`)."""
    from flashrr.reproduce import PAPERS

    paper = PAPERS[name]
    if not paper.has_traces:
        raise SystemExit(f"{name} has no sweeps: time it with 'flashrr reproduce {name} --paper-scale'")
    plan = make_plan(name, which)
    if name == "hotr":
        from flashrr.papers.hotr.plan import specs

        return plan, specs(plan, {t: 1.0 for t in plan.traces})
    module = __import__(f"flashrr.papers.{name}.plan", fromlist=["specs"])
    return plan, module.specs(plan)


def group_tasks(all_specs: dict) -> dict:
    """``{group: [RunTask]}`` with every run key in the first group that has it."""
    from flashrr.sweep.identity import TraceHashCache, trace_identities
    from flashrr.sweep.spec import load_spec

    seen, out = set(), {}
    for group, raw in all_specs.items():
        spec = load_spec(raw)
        tasks = spec.expand(trace_identities(spec.trace_targets(), TraceHashCache(None)))
        out[group] = [t for t in tasks if t.key not in seen]
        seen.update(t.key for t in tasks)
    return out


def count(name: str) -> dict:
    plan, all_specs = paper_specs(name)
    groups = group_tasks(all_specs)
    return {"paper": name, "runs": sum(len(v) for v in groups.values()),
            "per_group": {g: len(v) for g, v in groups.items()}}


def time_runs(name: str, trace: str, policy: str | None, device: str | None, group: str | None) -> list:
    from flashrr.sweep.task import canonical_json
    from flashrr.sweep.worker import execute

    _, all_specs = paper_specs(name)
    rows = []
    for g, tasks in group_tasks(all_specs).items():
        if group is not None and g != group:
            continue
        for t in tasks:
            if trace not in t.trace_source or (policy is not None and t.policy != policy) or \
                    (device is not None and device not in t.device.name):
                continue
            load0 = os.getloadavg()[0]
            c0, t0 = time.process_time(), time.perf_counter()
            outcome = execute(t)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            if not outcome.ok:
                raise SystemExit(outcome.error)
            s = outcome.summary
            n = int(s.get("requests", 0))
            rows.append({"paper": name, "group": g, "key": t.key, "trace": t.trace_source, "policy": t.policy,
                         "params": t.params, "policy_params": canonical_json(t.key_params), "device": t.device.name, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "requests": n,
                         "requests_per_cpu_s": round(n / cpu) if cpu else None, "rr_count": s.get("rr_count"),
                         "gc_count": s.get("gc_count"),
                         "load_1min": [round(load0, 2), round(os.getloadavg()[0], 2)],
                         "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)})
            print(json.dumps(rows[-1]), flush=True)
    if not rows:
        raise SystemExit(f"no run of {name}'s paper-scale plan matches trace={trace!r} policy={policy!r} "
                         f"device={device!r} group={group!r}")
    return rows


def calibrate(name: str, which: str, jobs: int, traces: str | None, snapshots: bool) -> dict:
    import tempfile

    plan = make_plan(name, which)
    if traces:  # the named traces only: the real samples are left out
        plan = replace(plan, traces=tuple(traces.split(",")))
        if hasattr(plan, "real_samples"):
            plan = replace(plan, real_samples=())
    load0 = os.getloadavg()[0]
    c0, t0 = os.times(), time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        if name == "phasedrr":
            from flashrr.papers.phasedrr.plan import calibrated

            scales = dict(calibrated(plan, tmp, False, jobs, snapshots=snapshots).replays)
        elif name == "cocktail":
            from flashrr.papers.cocktail.plan import calibrated

            scales = dict(calibrated(plan, tmp, False, jobs, snapshots=snapshots).scales)
        elif name == "hotr":
            from flashrr.papers.hotr.plan import calibration

            scales = calibration(plan, tmp, False, jobs, snapshots=snapshots)
        else:
            raise SystemExit(f"{name} has no calibration (phasedrr, cocktail and hotr do)")
    c1 = os.times()
    return {"paper": name, "plan": which, "jobs": jobs, "snapshots": snapshots, "traces": len(scales),
            "wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(c1.user + c1.system - c0.user - c0.system, 1),
            "workers_cpu_s": round(c1.children_user + c1.children_system - c0.children_user - c0.children_system, 1),
            "load_1min": [round(load0, 2), round(os.getloadavg()[0], 2)], "scale_time": scales}


def calibrate_each(name: str, which: str, traces: str | None, snapshots: bool) -> None:
    """``calibrate --each``: each trace's calibration from scratch in this process, one JSON line each."""
    names = traces.split(",") if traces else list(make_plan(name, which).traces)
    for t in names:
        r = calibrate(name, which, 0, t, snapshots)
        print(json.dumps({"paper": name, "stage": "calibration", "trace": t, "cpu_s": r["cpu_s"],
                          "wall_s": r["wall_s"], "load_1min": r["load_1min"], "found": r["scale_time"]}), flush=True)


# ------------------------------------------------------------------------------ estimate: the arithmetic
@dataclass
class Stage:
    """One step of a paper's reproduction: ``costs`` (CPU s) of its calls in the order they
    are submitted, run side by side on the workers (``on_workers``) or one after the other
    in the main process; the next stage starts when the last call of this one has ended.
    ``estimated``: how many of the costs were estimated, not measured."""

    name: str
    costs: list
    on_workers: bool = True
    estimated: int = 0


def makespan(costs, workers: int, longest_first: bool = False) -> float:
    """When the last of ``costs`` ends (s) if each, in order (or longest first), starts on
    the first of ``workers`` workers to be free (the lowest-numbered of those free at once)."""
    free = [(0.0, w) for w in range(workers)]
    end = 0.0
    for c in sorted(costs, reverse=True) if longest_first else costs:
        t, w = heapq.heappop(free)
        heapq.heappush(free, (t + c, w))
        end = max(end, t + c)
    return end


def stage_wall(stage: Stage, workers: int, longest_first: bool = False) -> float:
    """Wall time (s) of ``stage`` with ``workers`` workers (a main-process stage: its calls' sum)."""
    if not stage.on_workers:
        return float(sum(stage.costs))
    return makespan(stage.costs, workers, longest_first)


def summarise(stages: list, workers=WORKERS) -> dict:
    """A paper's figures from its stages (s): ``cpu_s``, ``critical_path_s`` (each stage's
    longest call, a main-process stage whole), ``wall_s`` and ``wall_longest_first_s``
    ({workers: s}), ``calls`` and ``estimated`` (calls whose cost is estimated)."""
    return {
        "cpu_s": float(sum(sum(st.costs) for st in stages)),
        "critical_path_s": float(sum(stage_wall(st, 1) if not st.on_workers else max(st.costs, default=0.0)
                                     for st in stages)),
        "wall_s": {w: sum(stage_wall(st, w) for st in stages) for w in workers},
        "wall_longest_first_s": {w: sum(stage_wall(st, w, True) for st in stages) for w in workers},
        "calls": sum(len(st.costs) for st in stages),
        "estimated": sum(st.estimated for st in stages),
    }


def whole_command(papers: dict) -> dict:
    """``reproduce all``'s figures from each paper's :func:`summarise` (the papers run one
    after another, so every figure is their sum), and ``bound_s`` ({workers: s}): the least
    wall time any schedule could reach if the papers ran side by side, the total CPU over
    the workers or the longest paper's critical path, whichever is longer."""
    rows = list(papers.values())
    workers = list(rows[0]["wall_s"]) if rows else list(WORKERS)
    total = {k: sum(r[k] for r in rows) for k in ("cpu_s", "critical_path_s", "calls", "estimated")}
    for k in ("wall_s", "wall_longest_first_s"):
        total[k] = {w: sum(r[k][w] for r in rows) for w in workers}
    longest = max((r["critical_path_s"] for r in rows), default=0.0)
    total["bound_s"] = {w: max(total["cpu_s"] / w, longest) for w in workers}
    return total


# ------------------------------------------------------------------------------ estimate: the plans and costs
@dataclass(frozen=True)
class Run:
    """What makes runs alike: the trace spec, the device's name, the policy and its full
    parameters (canonical JSON); ``group``: the sweep group, when known."""

    trace: str
    device: str
    policy: str
    params: str
    group: str | None = None


def describe(task, group: str | None = None) -> Run:
    """The :class:`Run` of a sweep's ``RunTask``."""
    from flashrr.sweep.task import canonical_json

    return Run(task.trace_source, task.device.name, task.policy, canonical_json(task.key_params), group)


@dataclass
class Measured:
    """Measured costs (CPU s): ``runs``: run key -> ``(cost, Run)``; ``calls[paper][stage]``:
    the costs of that stage's calls in order."""

    runs: dict = field(default_factory=dict)
    calls: dict = field(default_factory=dict)

    def add_call(self, paper: str, stage: str, cost: float) -> None:
        self.calls.setdefault(paper, {}).setdefault(stage, []).append(float(cost))


def _json_lines(path) -> list:
    """The JSON objects of a file of JSON lines (blank lines and other text skipped, as
    ``time`` and ``calibrate`` print their rows among other output); ValueError naming the
    file and line for a line that starts with ``{`` but is not JSON."""
    out = []
    for i, line in enumerate(Path(path).read_text().splitlines(), 1):
        if line.lstrip().startswith("{"):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}, line {i}: not a JSON object ({e})") from None
    return out


def read_measured(runs=(), stores=(), calls=(), manifests=()) -> Measured:
    """:class:`Measured` from the files of ``estimate``'s options (module docstring)."""
    m = Measured()
    for path in runs:
        for row in _json_lines(path):
            if {"key", "cpu_s", "trace", "device", "policy", "policy_params"} <= set(row):
                m.runs[row["key"]] = (float(row["cpu_s"]), Run(row["trace"], row["device"], row["policy"],
                                                               row["policy_params"], row.get("group")))
    for path in stores:
        from flashrr.sweep import load_results

        df = load_results(path)
        call = df["call_wall_s"] if "call_wall_s" in df else None  # stores written before it have none
        cost = df["sim_wall_s"] if call is None else call.fillna(df["sim_wall_s"])
        for row, c in zip(df[["key", "trace_source", "device", "policy_name", "policy_params"]].itertuples(), cost):
            m.runs[row.key] = (float(c), Run(row.trace_source, row.device, row.policy_name, row.policy_params))
    for path in calls:
        for row in _json_lines(path):
            if "workers_cpu_s" in row and "traces" in row:  # a line of `calibrate`
                for _ in range(int(row["traces"])):
                    m.add_call(row["paper"], "calibration", float(row["workers_cpu_s"]) / int(row["traces"]))
            elif {"paper", "stage", "cpu_s"} <= set(row):
                m.add_call(row["paper"], row["stage"], row["cpu_s"])
    for path in manifests:
        read_manifest(m, json.loads(Path(path).read_text()))
    return m


def read_manifest(m: Measured, manifest: dict) -> None:
    """Add a reproduction's ``reproduce.json`` to ``m``: the main process's time after its
    workers' stages (for superblock-PV, its figures' and tables' times), and superblock-PV's
    configurations (each one's evaluation; the latencies' modelling added to the first)."""
    paper, t = manifest["paper"], manifest.get("timings_s", {})
    if paper == "superblock-pv":
        from flashrr.papers.superblock_pv.plan import CONFIGS

        names = [f"{c.method}{dict(c.params).get('window', '')}_s" for c in CONFIGS]
        evals = [float(t[k]) for k in names if k in t]
        if evals:
            evals[0] += float(t.get("model_s", 0.0))
        for cost in evals:
            m.add_call(paper, "configurations", cost)
        m.add_call(paper, "main", sum(float(v) for k, v in t.items() if k not in {*names, "model_s", "total_s"}))
        return
    workers = float(t.get("calibration_s", 0.0)) + sum(v for k, v in t.items() if k.startswith("sweep"))
    m.add_call(paper, "main", float(t.get("total_s", 0.0)) - workers)


#: how a run without a measured cost is matched to measured ones, most alike first
LIKENESS = (("same run but the seed", lambda r: (r.trace, r.device, r.policy, r.params)),
            ("same trace, device and policy", lambda r: (r.trace, r.device, r.policy)),
            ("same trace (any pipeline or load factor), device and policy",
             lambda r: (r.trace.split("?")[0], r.device, r.policy)),
            ("same trace (any pipeline or load factor) and device", lambda r: (r.trace.split("?")[0], r.device)),
            ("same group", lambda r: r.group),
            ("same paper", lambda r: () if r.group is not None else None))


def run_costs(groups: dict, measured: dict) -> tuple:
    """``({group: [cost per run]}, {likeness: runs estimated by it})`` for the runs of
    ``groups`` ({group: [RunTask]}) and ``measured`` (run key -> ``(cost, Run)``; runs of
    other plans too): a measured run's cost, else the mean of the measured runs most like
    it (:data:`LIKENESS`; a measured run outside the plan counts for none of its groups),
    else None (nothing measured like it)."""
    pairs = [(t.key, describe(t, g)) for g, tasks in groups.items() for t in tasks]
    in_plan = dict(pairs)
    known = [(replace(run, group=in_plan[key].group) if key in in_plan else run, cost)
             for key, (cost, run) in measured.items()]
    means = []
    for _, like in LIKENESS:
        classes: dict = {}
        for run, cost in known:
            if like(run) is not None:
                classes.setdefault(like(run), []).append(cost)
        means.append({k: statistics.fmean(v) for k, v in classes.items()})
    costs, used = {}, {}
    for key, run in pairs:
        cost = measured[key][0] if key in measured else None
        if cost is None:
            for (label, like), mean in zip(LIKENESS, means):
                cost = mean.get(like(run))
                if cost is not None:
                    used[label] = used.get(label, 0) + 1
                    break
        costs.setdefault(run.group, []).append(cost)
    return costs, used


def paper_stages(name: str, which: str, measured: Measured) -> tuple:
    """``(stages, notes)`` of paper ``name``'s ``which`` plan with ``measured`` costs; the
    notes name what is left out for want of a measurement, and how runs were estimated."""
    from flashrr.reproduce import PAPERS

    paper, calls, notes = PAPERS[name], measured.calls.get(name, {}), []
    stages = []
    if name in CALIBRATED or calls.get("calibration"):
        if calls.get("calibration"):
            stages.append(Stage("calibration", calls["calibration"]))
        else:
            notes.append("calibration not measured (left out)")
    if paper.has_traces:
        _, all_specs = paper_specs(name, which)
        ordered = {g: all_specs[g] for g in paper.groups if g in all_specs}
        tasks = group_tasks(ordered)
        costs, used = run_costs(tasks, measured.runs)
        sweep_costs, estimated = [], 0  # every group's runs on one set of workers, in group order
        for g, cs in costs.items():
            missing = sum(c is None for c in cs)
            if missing:
                notes.append(f"sweep {g}: {missing} of {len(cs)} runs with nothing measured like them (left out)")
            estimated += sum(t.key not in measured.runs for t in tasks[g]) - missing
            sweep_costs += [c for c in cs if c is not None]
        stages.append(Stage("sweeps", sweep_costs, True, estimated))
        notes += [f"{n} runs estimated from the {label}" for label, n in used.items()]
    elif calls.get("configurations"):
        stages.append(Stage("configurations", calls["configurations"]))
    else:
        notes.append("configurations not measured (left out)")
    if calls.get("main"):
        stages.append(Stage("main process", calls["main"], on_workers=False))
    else:
        notes.append("main process (figures, claims) not measured (left out)")
    return stages, notes


def estimate(papers: list, which: str, measured: Measured, workers=WORKERS) -> dict:
    """``{"papers": {name: summarise(...) + notes}, "all": whole_command(...)}``."""
    out = {}
    for name in papers:
        stages, notes = paper_stages(name, which, measured)
        out[name] = {**summarise(stages, workers), "stages": [st.name for st in stages], "notes": notes}
    return {"papers": out, "all": whole_command(out)}


def estimate_table(est: dict) -> str:
    """The estimate as a Markdown table (s; wall on W workers: submission order / longest first)."""
    workers = list(est["all"]["wall_s"])
    head = ["paper", "calls (estimated)", "CPU s", "critical path s"] + [f"wall on {w}" for w in workers]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def row(name, r):
        walls = [f"{r['wall_s'][w]:,.0f} / {r['wall_longest_first_s'][w]:,.0f}" for w in workers]
        return f"| {name} | {r['calls']} ({r['estimated']}) | {r['cpu_s']:,.0f} | {r['critical_path_s']:,.0f} | " \
            + " | ".join(walls) + " |"

    lines += [row(name, r) for name, r in est["papers"].items()]
    lines.append(row("all, one paper after another", est["all"]))
    lines.append("| any schedule, papers side by side: at least | | | | "
                 + " | ".join(f"{est['all']['bound_s'][w]:,.0f}" for w in workers) + " |")
    for name, r in est["papers"].items():
        lines += [f"- {name}: {note}" for note in r["notes"]]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("count", help="the paper-scale plan's distinct runs")
    c.add_argument("paper")
    t = sub.add_parser("time", help="time the matching runs one after the other")
    t.add_argument("paper")
    t.add_argument("--trace", required=True, help="substring of the run's trace spec")
    t.add_argument("--policy", help="policy name")
    t.add_argument("--device", help="substring of the device name")
    t.add_argument("--group", help="sweep group")
    k = sub.add_parser("calibrate", help="time a paper's calibration from scratch")
    k.add_argument("paper")
    k.add_argument("--plan", choices=["paper-scale", "default", "quick"], default="paper-scale")
    k.add_argument("--jobs", type=int, default=1, help="worker processes (0 or 1: this process)")
    k.add_argument("--traces", help="comma-separated trace names (default: the plan's)")
    k.add_argument("--no-snapshots", action="store_true", help="precondition every run (no aged-device snapshots)")
    k.add_argument("--each", action="store_true", help="one trace at a time in this process, a line per trace")
    e = sub.add_parser("estimate", help="CPU, critical path and wall time on 1-8 workers, from measured costs")
    e.add_argument("papers", nargs="*", help="papers (default: every paper, as reproduce all runs them)")
    e.add_argument("--plan", choices=["paper-scale", "default", "quick"], default="paper-scale")
    e.add_argument("--runs", action="append", default=[], help="JSON lines of `time` (repeatable)")
    e.add_argument("--store", action="append", default=[], help="a sweep store directory (repeatable)")
    e.add_argument("--calls", action="append", default=[], help="JSON lines of stage calls (repeatable)")
    e.add_argument("--manifest", action="append", default=[], help="a reproduce.json (repeatable)")
    e.add_argument("--json", action="store_true", help="print the estimate as JSON, not a table")
    args = ap.parse_args()
    if args.cmd == "estimate":
        from flashrr.reproduce import PAPERS

        measured = read_measured(args.runs, args.store, args.calls, args.manifest)
        est = estimate(args.papers or list(PAPERS), args.plan, measured)
        print(json.dumps(est) if args.json else estimate_table(est))
    elif args.cmd == "count":
        print(json.dumps(count(args.paper)))
    elif args.cmd == "calibrate" and args.each:
        calibrate_each(args.paper, args.plan, args.traces, not args.no_snapshots)
    elif args.cmd == "calibrate":
        print(json.dumps(calibrate(args.paper, args.plan, args.jobs, args.traces, not args.no_snapshots)))
    else:
        time_runs(args.paper, args.trace, args.policy, args.device, args.group)


if __name__ == "__main__":
    main()
