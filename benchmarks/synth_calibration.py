"""Check every synthetic-trace preset against its paper row, at the paper's request count.

    python -m benchmarks.synth_calibration [--seed 0] [--markdown] [preset ...]   (from the repository root)

Generates each preset (default: all) with ``synth_trace(name, seed=seed)``,
measures it with ``trace_stats`` (8 KiB pages; 4 KiB for the HotR presets,
whose device has 4 KiB pages), and prints the paper's value next to the
measured one, with the generation and measurement times.  ``--markdown`` prints
the table used in ``docs/synth.md``.  Exits with status 1 if a preset misses a
tolerance: read ratio +-1 point, mean read (HotR: request) size +-5%, hot ratio
+-3 points, footprint +-5%, exact request count.
"""
from __future__ import annotations

import argparse
import sys
import time

from flashrr.trace.stats import trace_stats
from flashrr.trace.synth import synth_trace
from flashrr.trace.synth_presets import GB, KB, SYNTH_PRESETS

TOL_RATIO_POINTS = 0.01
TOL_SIZE_REL = 0.05
TOL_HOT_POINTS = 0.03
TOL_FOOTPRINT_REL = 0.05


def check(name: str, seed: int) -> dict:
    """Generate preset ``name`` at its paper count; return paper values, measured values and failures."""
    preset = SYNTH_PRESETS[name]
    row = preset.row
    t0 = time.perf_counter()
    trace = synth_trace(name, seed=seed)
    t1 = time.perf_counter()
    stats = trace_stats(trace, page_size_bytes=preset.params["align_bytes"])
    t2 = time.perf_counter()
    fails = []
    if stats["requests"] != (row.n_requests or preset.n_requests):
        fails.append("requests")
    if abs(stats["read_ratio"] - row.read_ratio) > TOL_RATIO_POINTS:
        fails.append("read_ratio")
    size_key, size_target = (("avg_read_size_bytes", row.read_size_bytes) if row.read_size_bytes
                             else ("avg_request_size_bytes", row.request_size_bytes))
    if size_target and abs(stats[size_key] / size_target - 1) > TOL_SIZE_REL:
        fails.append(size_key)
    if row.hot_ratio is not None and abs(stats[row.hot_ratio_key] - row.hot_ratio) > TOL_HOT_POINTS:
        fails.append(row.hot_ratio_key)
    if row.footprint_bytes and abs(stats["footprint_bytes"] / row.footprint_bytes - 1) > TOL_FOOTPRINT_REL:
        fails.append("footprint_bytes")
    return dict(name=name, row=row, stats=stats, size_key=size_key, fails=fails, gen_s=t1 - t0, stats_s=t2 - t1,
                assumed_n=preset.n_requests, assumed_fp=preset.params["footprint_bytes"],
                assumed_size=preset.params["read_size_mean_bytes"], assumed_hot=preset.params["hot_set_ratio"])


def _pct(x, digits=1):
    return f"{100 * x:.{digits}f}%"


def _paper(value, assumed, fmt):
    """The paper's value, or flashrr's assumption in italics where the paper has none."""
    return fmt(value) if value is not None else f"*{fmt(assumed)}*"


def markdown(results, seed: int) -> str:
    lines = [
        f"Measured with `trace_stats` on `synth_trace(name, seed={seed})` at the paper's request count; "
        "8 KiB pages (4 KiB for `hotr-*`).  Paper / flashrr; *italic* paper values are flashrr's assumptions "
        "(the paper does not give them).  Size is the mean read size (mean request size for `hotr-*`); "
        "Hot R is `hot_ratio` for Shuffler and the others, `hot_ratio_4` for PhasedRR.",
        "",
        "| preset | requests | read ratio | size (KB) | Hot R | footprint (GB) |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        row, s = r["row"], r["stats"]
        n_paper = _paper(row.n_requests, r["assumed_n"], lambda v: f"{v:,}")
        size_paper = _paper(row.read_size_bytes or row.request_size_bytes, r["assumed_size"],
                            lambda v: f"{v / KB:.1f}")
        hot_paper = _paper(row.hot_ratio, r["assumed_hot"], _pct)
        fp_paper = _paper(row.footprint_bytes, r["assumed_fp"], lambda v: f"{v / GB:.2f}")
        lines.append(
            f"| {r['name']} | {n_paper} / {s['requests']:,} | {_pct(row.read_ratio, 2)} / "
            f"{_pct(s['read_ratio'], 2)} | {size_paper} / {s[r['size_key']] / KB:.2f} | {hot_paper} / "
            f"{_pct(s[row.hot_ratio_key])} | {fp_paper} / {s['footprint_bytes'] / GB:.3f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("presets", nargs="*", default=list(SYNTH_PRESETS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    results = [check(name, args.seed) for name in args.presets]
    if args.markdown:
        print(markdown(results, args.seed))
    else:
        for r in results:
            s = r["stats"]
            print(f"{r['name']:24s} n={s['requests']:>9,} rr={s['read_ratio']:.4f} "
                  f"size={s[r['size_key']] / KB:6.2f}KB hot2={s['hot_ratio']:.3f} hot4={s['hot_ratio_4']:.3f} "
                  f"fp={s['footprint_bytes'] / GB:7.3f}GB gen={r['gen_s']:.2f}s stats={r['stats_s']:.2f}s "
                  f"{'FAIL ' + ','.join(r['fails']) if r['fails'] else 'ok'}")
    return 1 if any(r["fails"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
