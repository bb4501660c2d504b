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

``calibrate PAPER [--default-plan] [--jobs J] [--traces a,b] [--no-snapshots]``: runs the load
calibration of Cocktail's or HotR's paper-scale (or default) plan from scratch in a temporary
directory, on ``J`` processes (0: this one), with the aged devices' snapshots (as ``reproduce``
runs it) or without, and prints its wall time, the CPU time of this process and of its
workers (s), the load average (1 min) before and after, and the factors found.

Run: ``python benchmarks/paper_scale_cost.py count shuffler`` or
``python benchmarks/paper_scale_cost.py time shuffler --trace ali1 --policy page --group main``.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import time


def paper_specs(name: str) -> tuple:
    """``(plan, {group: sweep spec})`` of paper ``name``'s paper-scale plan."""
    from flashrr.reproduce import PAPERS

    paper = PAPERS[name]
    if not paper.has_traces:
        raise SystemExit(f"{name} has no sweeps: time it with 'flashrr reproduce {name} --paper-scale'")
    plan = paper.make_plan(paper_scale=True)
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
            rows.append({"paper": name, "group": g, "trace": t.trace_source, "policy": t.policy,
                         "params": t.params, "device": t.device.name, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "requests": n,
                         "requests_per_cpu_s": round(n / cpu) if cpu else None, "rr_count": s.get("rr_count"),
                         "gc_count": s.get("gc_count"),
                         "load_1min": [round(load0, 2), round(os.getloadavg()[0], 2)],
                         "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)})
            print(json.dumps(rows[-1]), flush=True)
    if not rows:
        raise SystemExit(f"no run of {name}'s paper-scale plan matches trace={trace!r} policy={policy!r} "
                         f"device={device!r} group={group!r}")
    return rows


def calibrate(name: str, paper_scale: bool, jobs: int, traces: str | None, snapshots: bool) -> dict:
    import tempfile
    from dataclasses import replace

    from flashrr.reproduce import PAPERS

    plan = PAPERS[name].make_plan(paper_scale=paper_scale)
    if traces:
        plan = replace(plan, traces=tuple(traces.split(",")))
    load0 = os.getloadavg()[0]
    c0, t0 = os.times(), time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        if name == "cocktail":
            from flashrr.papers.cocktail.plan import calibrated

            scales = dict(calibrated(plan, tmp, False, jobs, snapshots=snapshots).scales)
        elif name == "hotr":
            from flashrr.papers.hotr.plan import calibration

            scales = calibration(plan, tmp, False, jobs, snapshots=snapshots)
        else:
            raise SystemExit(f"{name} has no load calibration (cocktail and hotr do)")
    c1 = os.times()
    return {"paper": name, "paper_scale": paper_scale, "jobs": jobs, "snapshots": snapshots, "traces": len(scales),
            "wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(c1.user + c1.system - c0.user - c0.system, 1),
            "workers_cpu_s": round(c1.children_user + c1.children_system - c0.children_user - c0.children_system, 1),
            "load_1min": [round(load0, 2), round(os.getloadavg()[0], 2)], "scale_time": scales}


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
    k = sub.add_parser("calibrate", help="time the load calibration from scratch")
    k.add_argument("paper")
    k.add_argument("--default-plan", action="store_true", help="the default plan, not the paper-scale one")
    k.add_argument("--jobs", type=int, default=1, help="worker processes (0 or 1: this process)")
    k.add_argument("--traces", help="comma-separated trace names (default: the plan's)")
    k.add_argument("--no-snapshots", action="store_true", help="precondition every run (no aged-device snapshots)")
    args = ap.parse_args()
    if args.cmd == "count":
        print(json.dumps(count(args.paper)))
    elif args.cmd == "calibrate":
        print(json.dumps(calibrate(args.paper, not args.default_plan, args.jobs, args.traces, not args.no_snapshots)))
    else:
        time_runs(args.paper, args.trace, args.policy, args.device, args.group)


if __name__ == "__main__":
    main()
