"""Peak memory of a command and every process it starts.

Runs ``COMMAND`` and samples the resident set size (RSS) of it and all its
descendants every ``--interval`` seconds (psutil), then prints:

* ``peak_tree_rss_mb``: the largest sum of RSS over the whole process tree at
  one sample (MiB), what the machine must hold at once;
* ``peak_process_rss_mb``: the largest RSS of any one process (MiB), from the
  kernel's own count (``ru_maxrss`` of the reaped children), so it misses no
  short peak between samples;
* ``wall_s`` and the load average (1, 5, 15 min) before and after the run.

Run: ``python benchmarks/peak_rss.py [--interval S] -- COMMAND ...``, e.g.
``python benchmarks/peak_rss.py -- python -m flashrr.cli reproduce all --quick --jobs 2``.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import time

import psutil

MIB = 1 << 20


def tree_rss(proc: psutil.Process) -> int:
    """The summed RSS (bytes) of ``proc`` and its descendants that are alive now."""
    total = 0
    for p in [proc] + proc.children(recursive=True):
        try:
            total += p.memory_info().rss
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return total


def measure(command: list, interval: float = 0.2) -> dict:
    """Run ``command`` to its end; its exit code, wall time (s) and peak RSS figures (MiB)."""
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    child = subprocess.Popen(command)
    proc = psutil.Process(child.pid)
    peak = 0
    while child.poll() is None:
        try:
            peak = max(peak, tree_rss(proc))
        except psutil.NoSuchProcess:
            break
        time.sleep(interval)
    child.wait()
    wall = time.perf_counter() - t0
    kernel_peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    return {"returncode": child.returncode, "wall_s": round(wall, 1), "peak_tree_rss_mb": round(peak / MIB, 1),
            "peak_process_rss_mb": round(kernel_peak_kib / 1024, 1),
            "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--interval", type=float, default=0.2, help="seconds between RSS samples")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="the command (after --)")
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("give the command to measure after --")
    print(json.dumps({"command": " ".join(command), **measure(command, args.interval)}))


if __name__ == "__main__":
    main()
