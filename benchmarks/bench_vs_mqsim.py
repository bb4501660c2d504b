"""Speed against MQSim, side by side on one machine: the same requests on the same device.

    python benchmarks/bench_vs_mqsim.py --mqsim /path/to/MQSim [--workload uniform|zipf]
        [--n 1000000] [--rounds 3]

The device is ``validate_vs_mqsim.py``'s without GC (MLC, 8 channels x 4 chips x 4
planes, 128 blocks of 256 8-KiB pages per plane: 32 GiB).  The workloads, ``--n``
requests each, 70% reads, Poisson arrivals:

* ``uniform`` (the default): ``validate_vs_mqsim.py``'s 70/30 case, one-page requests
  uniform over 3 GiB, 100 us apart;
* ``zipf``: 4-32 KiB requests (a whole number of 4 KiB, uniform) starting at 8 KiB page
  boundaries, their first pages Zipf(0.99) by rank over 16 GiB with the ranks scattered by
  a seeded permutation, 50 us apart.  (At 4 KiB-aligned offsets MQSim stops with
  "Unlocking an LPA that has not been locked".)

Each runs behind MQSim's prefix (a sequential write of the footprint in 32 KiB requests,
then 1.1 s idle).  MQSim and flashrr run in alternating rounds; each round prints:

* MQSim's wall time for its whole run (parsing the trace, the prefix, the measured
  requests) and its requests per second over all the requests it simulated;
* flashrr's engine time for the same requests (the compiled request loop: the
  sequential fill of the footprint, then the measured requests) and the wall time of
  the whole ``flashrr.simulate`` call, with requests per second of each;
* the wall time of a first ``flashrr.simulate`` call in a fresh interpreter (the trace
  loaded from an ``.npz`` file beforehand, untimed; ``import flashrr`` untimed), what a
  user's first call costs, with its rate;
* the ratio of each flashrr speed to MQSim's.

The best round of each side is summarised at the end: a shared machine only slows a
run down.  Run ``uptime`` beside it and report the load.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mqsim_side  # noqa: E402
import validate_vs_mqsim as v  # noqa: E402

import flashrr  # noqa: E402


#: the ``zipf`` workload: Zipf exponent, footprint (bytes), mean gap (ns), request sizes (4 KiB units)
ZIPF_S, ZIPF_FOOTPRINT_BYTES, ZIPF_GAP_NS, ZIPF_UNITS = 0.99, 16 << 30, 50_000.0, (1, 8)

FIRST_CALL_CHILD = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[2])
import validate_vs_mqsim as v
import flashrr
z = np.load(sys.argv[1])
tr = flashrr.Trace(z["time_ns"], z["offset"], z["size"], z["is_write"], name="bench-vs-mqsim")
cfg = v.device(128).replace(fill_ratio=0.0)
t0 = time.perf_counter()
flashrr.simulate(cfg, tr)
print(json.dumps({"first_s": time.perf_counter() - t0}))
"""


def zipf_trace(n: int, seed: int = 1) -> flashrr.Trace:
    """The ``zipf`` workload (module docstring): ``n`` requests, 70% reads."""
    rng = np.random.default_rng(seed)
    pages = ZIPF_FOOTPRINT_BYTES // v.PAGE_BYTES
    gaps = rng.exponential(ZIPF_GAP_NS, n).astype(np.int64)
    t = np.cumsum(gaps) - gaps[0]
    w = 1.0 / np.arange(1, pages + 1, dtype=float) ** ZIPF_S
    lpn = rng.permutation(pages)[rng.choice(pages, n, p=w / w.sum())]
    size = rng.integers(ZIPF_UNITS[0], ZIPF_UNITS[1] + 1, n) * 4096
    last = pages - -(-size // v.PAGE_BYTES)  # a request never runs past the footprint
    offset = np.minimum(lpn, last) * v.PAGE_BYTES
    return flashrr.Trace(t, offset, size, rng.random(n) >= 0.7, name="bench-vs-mqsim-zipf")


def first_call(npz: Path) -> float:
    """Wall time (s) of a first ``flashrr.simulate`` call in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", FIRST_CALL_CHILD, str(npz), str(Path(__file__).resolve().parent)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])["first_s"]


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
    ap.add_argument("--workload", choices=("uniform", "zipf"), default="uniform")
    ap.add_argument("--n", type=int, default=1_000_000, help="measured requests")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workdir", type=Path, default=Path("out/mqsim-speed"))
    ap.add_argument("--timeout", type=float, default=1200.0)
    a = ap.parse_args(argv)
    if not a.mqsim.is_file():
        ap.error(f"--mqsim {a.mqsim}: no such file (build MQSim as shared/mqsim/README.md says)")
    if a.workload == "zipf":
        footprint = ZIPF_FOOTPRINT_BYTES // v.PAGE_BYTES
        tr = zipf_trace(a.n)
    else:
        footprint = (3 << 30) // v.PAGE_BYTES
        tr = v.measured_trace(a.n, 100_000.0, footprint, 0.7, 0.0, 1)
    t, off, size, w, _ = v.with_prefix(tr, footprint)
    a.workdir.mkdir(parents=True, exist_ok=True)
    npz = a.workdir / f"speed-{a.workload}.npz"
    np.savez(npz, time_ns=tr.time_ns, offset=tr.offset, size=tr.size, is_write=tr.is_write)
    path = a.workdir / f"speed-{a.workload}.trace"
    mqsim_side.write_trace(path, t, off, size, w)
    dev = mqsim_side.device_xml(128, False, 0)
    print(f"{a.workload}: {a.n:,d} measured requests after a {len(t) - a.n:,d}-request prefix; MQSim: {a.mqsim}")
    best_q = best_e = best_s = best_f = None
    for r in range(a.rounds):
        q = mqsim_side.run(a.mqsim, a.workdir, f"speed{r}", dev, mqsim_side.workload_xml(path, False), a.timeout)
        if q.failure:
            sys.exit(f"MQSim failed: {q.failure}")
        first_s = first_call(npz)
        f = flashrr_round(tr, footprint)
        q_rate, e_rate, s_rate = len(t) / q.wall_s, len(t) / f["engine_s"], a.n / f["simulate_s"]
        f_rate = a.n / first_s
        print(f"round {r + 1}: MQSim {q.wall_s:.2f} s ({q_rate / 1e3:.1f} K requests/s); flashrr engine "
              f"{f['engine_s']:.3f} s ({e_rate / 1e6:.2f} M/s, {e_rate / q_rate:.0f}x), whole simulate "
              f"{f['simulate_s']:.2f} s ({s_rate / 1e6:.2f} M/s, {s_rate / q_rate:.0f}x), first call in a "
              f"fresh process {first_s:.2f} s ({f_rate / 1e6:.2f} M/s, {f_rate / q_rate:.0f}x)", flush=True)
        best_q = max(best_q or 0, q_rate)
        best_e = max(best_e or 0, e_rate)
        best_s = max(best_s or 0, s_rate)
        best_f = max(best_f or 0, f_rate)
    print(f"best rounds: MQSim {best_q / 1e3:.1f} K requests/s; flashrr engine {best_e / 1e6:.2f} M/s "
          f"({best_e / best_q:.0f}x); whole simulate {best_s / 1e6:.2f} M/s ({best_s / best_q:.0f}x); "
          f"first call {best_f / 1e6:.2f} M/s ({best_f / best_q:.0f}x)")


if __name__ == "__main__":
    main()
