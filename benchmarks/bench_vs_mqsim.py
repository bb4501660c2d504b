"""Speed against MQSim, side by side on one machine: the same requests on the same device.

    python benchmarks/bench_vs_mqsim.py --mqsim /path/to/MQSim [--n 1000000] [--rounds 3]

The workload is ``validate_vs_mqsim.py``'s 70/30 case without GC (MLC, 8 channels x 4
chips x 4 planes, 128 blocks of 256 8-KiB pages per plane; ``--n`` one-page requests,
Poisson arrivals 100 us apart, uniform over 3 GiB), behind MQSim's prefix (a sequential
write of the footprint in 32 KiB requests, then 1.1 s idle).  MQSim and flashrr run in
alternating rounds; each round prints:

* MQSim's wall time for its whole run (parsing the trace, the prefix, the measured
  requests) and its requests per second over all the requests it simulated;
* flashrr's engine time for the same requests (the compiled request loop: the
  sequential fill of the footprint, then the measured requests) and the wall time of
  the whole ``flashrr.simulate`` call, with requests per second of each;
* the ratio of the two speeds (engine and whole call).

The best round of each side is summarised at the end: a shared machine only slows a
run down.  Run ``uptime`` beside it and report the load.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mqsim_side  # noqa: E402
import validate_vs_mqsim as v  # noqa: E402

import flashrr  # noqa: E402


def flashrr_round(tr: flashrr.Trace, footprint: int) -> dict:
    """The compiled engine on the measured requests after a sequential fill of the footprint."""
    from flashrr._core import load_compiled_engine
    from flashrr._core.layout import build_layout
    from flashrr.policy import Baseline

    cfg = v.device(128)
    eng = load_compiled_engine()(build_layout(cfg), Baseline().hooks(), 0, False)
    t0 = time.perf_counter()
    eng.precondition(footprint, np.zeros(0, np.int64))
    eng.run(tr.time_ns, tr.offset, tr.size, tr.is_write, 1)
    eng.finish()
    engine_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    flashrr.simulate(cfg.replace(fill_ratio=0.0), tr)
    return {"engine_s": engine_s, "simulate_s": time.perf_counter() - t1}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mqsim", type=Path, required=True, help="a built, patched MQSim binary")
    ap.add_argument("--n", type=int, default=1_000_000, help="measured requests")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workdir", type=Path, default=Path("out/mqsim-speed"))
    ap.add_argument("--timeout", type=float, default=1200.0)
    a = ap.parse_args(argv)
    if not a.mqsim.is_file():
        ap.error(f"--mqsim {a.mqsim}: no such file (build MQSim as shared/mqsim/README.md says)")
    footprint = (3 << 30) // v.PAGE_BYTES
    tr = v.measured_trace(a.n, 100_000.0, footprint, 0.7, 0.0, 1)
    t, off, size, w, _ = v.with_prefix(tr, footprint)
    a.workdir.mkdir(parents=True, exist_ok=True)
    path = a.workdir / "speed.trace"
    mqsim_side.write_trace(path, t, off, size, w)
    dev = mqsim_side.device_xml(128, False, 0)
    print(f"{a.n:,d} measured requests after a {len(t) - a.n:,d}-request prefix; MQSim: {a.mqsim}")
    best_q = best_e = best_s = None
    for r in range(a.rounds):
        q = mqsim_side.run(a.mqsim, a.workdir, f"speed{r}", dev, mqsim_side.workload_xml(path, False), a.timeout)
        if q.failure:
            sys.exit(f"MQSim failed: {q.failure}")
        f = flashrr_round(tr, footprint)
        q_rate, e_rate, s_rate = len(t) / q.wall_s, len(t) / f["engine_s"], a.n / f["simulate_s"]
        print(f"round {r + 1}: MQSim {q.wall_s:.2f} s ({q_rate / 1e3:.1f} K requests/s); flashrr engine "
              f"{f['engine_s']:.3f} s ({e_rate / 1e6:.2f} M/s, {e_rate / q_rate:.0f}x), whole simulate "
              f"{f['simulate_s']:.2f} s ({s_rate / 1e6:.2f} M/s, {s_rate / q_rate:.0f}x)", flush=True)
        best_q = max(best_q or 0, q_rate)
        best_e = max(best_e or 0, e_rate)
        best_s = max(best_s or 0, s_rate)
    print(f"best rounds: MQSim {best_q / 1e3:.1f} K requests/s; flashrr engine {best_e / 1e6:.2f} M/s "
          f"({best_e / best_q:.0f}x); whole simulate {best_s / 1e6:.2f} M/s ({best_s / best_q:.0f}x)")


if __name__ == "__main__":
    main()
