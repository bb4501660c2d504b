"""The workload model: fit time, generation speed, and memory while streaming.

Measures, on the model fitted to the CloudPhysics sample
(``tests/data/cloudphysics-io.mqsim.txt.gz``, 113,872 requests):

* ``fit``: ``fit_model`` on the sample (already in memory), best of three;
* ``compiled``: the compiled kernel generating 10^6 and 10^7 requests, read
  through ``ModelSource.chunks()`` at the default chunk size, in requests per
  CPU second (``time.process_time``, which other jobs on a shared machine
  disturb much less than wall time) and per wall second;
* ``reference``: the pure-Python twin on 10^5 requests;
* ``--huge``: a streaming run of 10^8 requests with the compiled kernel.

Each generation runs in a fresh process that loads the model from its file,
so the memory printed for it is that run's own: the resident set once the
model is loaded and at the end (``/proc/self/statm``), and the peak
(``resource.getrusage(...).ru_maxrss``, which includes the imports).  Equal
figures for 10^6, 10^7 and 10^8 requests show that memory does not grow with
the length of a generated trace.

Run: ``python benchmarks/bench_model.py [--huge] [--fit-param KEY=VALUE ...]`` (about 12 s without --huge
on the project's 2-core machine, about 50 s with it).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "data" / "cloudphysics-io.mqsim.txt.gz"
FIT_ROUNDS = 3


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def rss_mib() -> float:
    """The resident set now (Linux ``/proc/self/statm``; NaN elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return float("nan")
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def child(model_path: str, n: int, engine: str) -> None:
    """Generate ``n`` requests of the model in ``model_path`` chunk by chunk; print one JSON line."""
    from flashrr.trace.model import ModelSource, load_model

    model = load_model(model_path)
    rss_before = rss_mib()
    src = ModelSource(model, n, seed=1, engine=engine)
    c0, w0 = time.process_time(), time.perf_counter()
    total = writes = 0
    for chunk in src.chunks():
        total += len(chunk)
        writes += int(chunk.is_write.sum())  # touch every chunk, as a consumer would
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    assert total == n
    print(json.dumps({"n": n, "engine": engine, "cpu_s": cpu, "wall_s": wall, "writes": writes,
                      "rss_model_mib": rss_before, "rss_end_mib": rss_mib(), "rss_peak_mib": peak_rss_mib()}))


def run_child(model_path: Path, n: int, engine: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(model_path), str(n), engine],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--huge", action="store_true", help="also stream 10^8 requests")
    ap.add_argument("--fit-param", action="append", default=[], metavar="KEY=VALUE",
                    help="fit with a setting other than the default (a FitSettings field, its value a Python literal), "
                         "e.g. fresh_avoids_near=False for the model without the near window's units avoided")
    ap.add_argument("--child", nargs=3, metavar=("MODEL", "N", "ENGINE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2])
        return

    from flashrr.trace.io import read_trace
    from flashrr.trace.model import compiled_kernel_available, fit_model, save_model
    from flashrr.trace.model.fit import fit_settings_from

    if not compiled_kernel_available():
        sys.exit("the compiled model kernel is not built: python setup.py build_ext --inplace")
    trace = read_trace(SAMPLE)
    cpu_times, wall_times = [], []
    for _ in range(FIT_ROUNDS):
        c0, w0 = time.process_time(), time.perf_counter()
        model = fit_model(trace, fit_settings_from(args.fit_param))
        cpu_times.append(time.process_time() - c0)
        wall_times.append(time.perf_counter() - w0)
    rows = [("fit", len(trace), min(cpu_times), min(wall_times), None, None, None)]
    with tempfile.TemporaryDirectory() as tmp:
        path = save_model(model, Path(tmp) / "cloudphysics.toml")
        plan = [(10**5, "reference"), (10**6, "compiled"), (10**7, "compiled")]
        if args.huge:
            plan.append((10**8, "compiled"))
        for n, engine in plan:
            r = run_child(path, n, engine)
            rows.append((f"generate ({engine})", n, r["cpu_s"], r["wall_s"], r["rss_model_mib"], r["rss_end_mib"],
                         r["rss_peak_mib"]))

    print(f"model of {SAMPLE.name} ({len(trace):,} requests): {model.region_bytes >> 20} MiB regions, "
          f"{sum(len(h.start) for op in (model.read, model.write) for h in op.phases):,} heat-map segments")
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{os.cpu_count()} CPUs")
    head = ("step", "requests", "CPU s", "wall s", "req / CPU s", "req / wall s", "RSS: model loaded", "at end",
            "peak")
    lines = []
    for step, n, cpu, wall, *rss in rows:
        lines.append((step, f"{n:,}", f"{cpu:.3f}", f"{wall:.3f}", f"{n / cpu:,.0f}", f"{n / wall:,.0f}",
                      *("" if v is None else f"{v:,.0f} MiB" for v in rss)))
    widths = [max(len(h), *(len(x[i]) for x in lines)) for i, h in enumerate(head)]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    print("  ".join("-" * w for w in widths))
    for x in lines:
        print("  ".join(v.ljust(w) for v, w in zip(x, widths)))


if __name__ == "__main__":
    main()
