"""Engine speed on the ``shuffler`` preset with the Shuffler paper's ten traces.

    python benchmarks/bench_presets.py [--traces ali0,lun1,...] [--repeat R] [--policy baseline]
                                       [--replays K] [--reproduction] [--copyback]

The traces are the synthetic stand-ins of Shuffler's Table 2 (``synth:<name>``,
built once per trace before timing).  For every trace the compiled engine runs
``flashrr.simulate`` R times and the best run is reported, as

* requests per wall-clock second of the engine (``sim_wall_s``: preconditioning
  and replay), and
* requests per CPU second of the whole ``simulate`` call (``time.process_time``),
  which other processes on a shared machine disturb much less than wall time.

By default each trace is replayed once: the device then never fills, so neither GC
nor RR runs.  ``--reproduction`` runs the setting of ``flashrr reproduce shuffler``'s
``main`` group instead: the reproduction's trace parameters (extents aligned to
superpages) and ``DEFAULT_REPEAT`` (16) replays, under which every trace triggers
hundreds to thousands of RRs and GCs.  ``--replays`` sets the replays alone.
``--copyback`` moves GC and RR pages within their die (``gc.copyback = true``) in place of
the preset's MQSim moves through the controller.

The engine issue's floor is 4M requests/s per core on this preset.
"""
from __future__ import annotations

import argparse
import time

import flashrr
from flashrr.papers.shuffler.plan import DEFAULT_REPEAT, DEFAULT_TRACE_PARAMS
from flashrr.trace.synth import synth_trace

SHUFFLER_TRACES = ("ali0", "ali1", "lun0", "lun1", "lun2", "lun3", "lun4", "lun5", "gen0", "gen1")


def bench(name: str, repeat: int, policy: str, replays: int = 1, trace_params: dict | None = None,
          copyback: bool = False) -> dict:
    """Best-of-``repeat`` speeds of one trace replayed ``replays`` times (M requests/s, wall and CPU)."""
    trace = synth_trace(name, **(trace_params or {}))
    cfg = flashrr.SimConfig.preset("shuffler")
    if copyback:
        cfg = cfg.replace(copyback=True)
    best_wall = best_cpu = 0.0
    for _ in range(repeat):
        c0 = time.process_time()
        s = flashrr.simulate(cfg, trace, policy=policy, repeat=replays).summary
        cpu = time.process_time() - c0
        best_wall = max(best_wall, s["requests"] / s["sim_wall_s"] / 1e6)
        best_cpu = max(best_cpu, s["requests"] / cpu / 1e6)
    return {"trace": name, "requests": s["requests"], "wall": best_wall, "cpu": best_cpu,
            "rr_count": s["rr_count"], "gc_count": s["gc_count"], "waf": s["waf"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", default=",".join(SHUFFLER_TRACES), help="comma-separated synth preset names")
    ap.add_argument("--repeat", type=int, default=3, help="runs per trace; the best is reported")
    ap.add_argument("--policy", default="baseline")
    ap.add_argument("--replays", type=int, default=None, help="replays of each trace (simulate's repeat)")
    ap.add_argument("--reproduction", action="store_true",
                    help=f"the reproduction's main setting: its trace parameters and {DEFAULT_REPEAT} replays")
    ap.add_argument("--copyback", action="store_true", help="move GC and RR pages within their die")
    args = ap.parse_args()
    params = dict(DEFAULT_TRACE_PARAMS) if args.reproduction else {}
    replays = args.replays or (DEFAULT_REPEAT if args.reproduction else 1)
    print(f"shuffler preset{' with copyback' if args.copyback else ''}, policy {args.policy}, "
          f"{replays} replay(s) per trace"
          + (f", trace parameters {params}" if params else ""))
    rows = [bench(t, args.repeat, args.policy, replays, params, args.copyback) for t in args.traces.split(",")]
    print(f"{'trace':<6} {'requests':>11} {'M req/s (wall)':>15} {'M req/s (CPU)':>14} {'RRs':>6} {'GCs':>6} {'WAF':>6}")
    for r in rows:
        print(f"{r['trace']:<6} {r['requests']:>11,d} {r['wall']:>15.2f} {r['cpu']:>14.2f} "
              f"{r['rr_count']:>6} {r['gc_count']:>6} {r['waf']:>6.2f}")
    tot = sum(r["requests"] for r in rows)
    print(f"{'all':<6} {tot:>11,d} {tot / sum(r['requests'] / r['wall'] for r in rows):>15.2f} "
          f"{tot / sum(r['requests'] / r['cpu'] for r in rows):>14.2f}   (harmonic: total requests / total time)")


if __name__ == "__main__":
    main()
