"""A sweep run on a model trace: generated on every replay, or generated once and held.

Runs one run of ``--trace`` (a model preset of the workload model, default the
Shuffler paper's ``ali1``, 2.34 M requests) with ``--repeat`` replays on the
``shuffler`` device under Baseline, two ways, alternately for ``--rounds`` rounds:

* ``streamed``: ``flashrr.simulate`` on the spec, which generates the trace chunk by
  chunk on every replay and never holds it;
* ``held``: as a sweep worker runs it (``flashrr.sweep.worker.execute``, a fresh trace
  cache each round), which generates the trace once, holds it as its requests and
  replays that.

It prints, per round and way, the CPU time (s) of this process, the wall time (s),
the load average (1 min) and the RR count (equal both ways), then the best of each.

Run: ``python benchmarks/bench_trace_cache.py [--trace ali1] [--repeat 8] [--rounds 2]``.
"""
from __future__ import annotations

import argparse
import json
import os
import time


def timed(fn) -> dict:
    load = os.getloadavg()[0]
    c0, w0 = time.process_time(), time.perf_counter()
    summary = fn()
    return {"cpu_s": round(time.process_time() - c0, 2), "wall_s": round(time.perf_counter() - w0, 2),
            "load_1min": round(load, 2), "rr_count": summary["rr_count"], "requests": summary["requests"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default="ali1", help="model preset (flashrr.trace.model.presets)")
    ap.add_argument("--repeat", type=int, default=8, help="replays per run")
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds")
    args = ap.parse_args()

    import flashrr.sweep.worker as worker
    from flashrr.simulate import simulate
    from flashrr.sweep.identity import TraceHashCache, trace_identities
    from flashrr.sweep.spec import load_spec

    spec = f"model:{args.trace}?mean_gap_ns=200000.0&fold=modulo"
    sweep = load_spec({"traces": [spec], "devices": ["shuffler"], "policies": {"baseline": {}},
                       "repeat": args.repeat})
    (task,) = sweep.expand(trace_identities(sweep.trace_targets(), TraceHashCache(None)))
    simulate(task.device, f"model:{args.trace}?n_requests=1000&mean_gap_ns=200000.0&fold=modulo")  # warm imports

    def streamed():
        return simulate(task.device, spec, "baseline", repeat=args.repeat).summary

    def held():
        worker._CACHE = worker.TraceCache(worker.TRACE_CACHE_SIZE)
        out = worker.execute(task)
        if not out.ok:
            raise SystemExit(out.error)
        return out.summary

    rows = []
    for r in range(args.rounds):
        for way, fn in (("streamed", streamed), ("held", held)):
            rows.append({"round": r, "way": way, **timed(fn)})
            print(json.dumps(rows[-1]), flush=True)
    best = {w: min(x["cpu_s"] for x in rows if x["way"] == w) for w in ("streamed", "held")}
    print(json.dumps({"trace": args.trace, "repeat": args.repeat, "best_cpu_s": best,
                      "speedup": round(best["streamed"] / best["held"], 2)}))


if __name__ == "__main__":
    main()
