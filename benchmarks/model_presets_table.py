"""The papers' traces on the workload model: what each model preset reaches against its table row.

For every trace of every paper's default reproduction plan (``flashrr
reproduce``, workload ``model``), resolve the plan's trace spec (this
calibrates the model preset, or reads its knobs from the cache), generate the
trace and print one Markdown row: the template it takes its shape from, the
request count, then the table's value and the generated trace's for the read
ratio, the mean read size, the footprint and the hot ratio (Shuffler's pages
read twice or more, or PhasedRR's four or more), the calibrated knobs and the
calibration's wall time.

    python benchmarks/model_presets_table.py [--quick] [--papers shuffler,phasedrr,cocktail,hotr] [--save]

``--save`` adds the knobs it used to the ones flashrr ships
(``flashrr/trace/model/preset_knobs.json``), under their calibration key.

``--quick`` uses the ``--quick`` plans.  The footprint and hot ratio are
measured at the page size the synthetic preset uses (8 KiB, HotR's 4 KiB).
"""
from __future__ import annotations

import argparse
import sys
import time

from flashrr.reproduce import PAPERS
from flashrr.trace.model.presets import SHIPPED_KNOBS, PRESET_TEMPLATES, calibration_key, model_preset, targets_for
from flashrr.trace.pipeline import open_trace_spec, parse_trace_spec
from flashrr.trace.stats import trace_stats

PREFIX = {"shuffler": "", "phasedrr": "phasedrr-", "cocktail": "cocktail-", "hotr": "hotr-"}
GiB = 1 << 30
SAVED: dict = {}


def rows(paper: str, quick: bool):
    plan = PAPERS[paper].make_plan(quick=quick)
    for trace in plan.traces:
        name = PREFIX[paper] + trace
        if name not in PRESET_TEMPLATES:
            continue
        spec = parse_trace_spec(plan.trace_spec(trace))
        n, gap = spec.synth_params.get("n_requests"), spec.synth_params.get("mean_gap_ns")
        t0 = time.perf_counter()
        model = model_preset(name, n, gap)
        calib_s = time.perf_counter() - t0
        source, _ = open_trace_spec(f"model:{name}" + (f"?n_requests={n}" if n else "")
                                    + (f"{'&' if n else '?'}mean_gap_ns={gap}" if gap else ""))
        t = targets_for(name, n, gap)
        st = trace_stats(source.to_trace(), page_size_bytes=t.page_bytes)
        k = model.source["knobs"]
        SAVED[calibration_key(name, t)] = {"knobs": k, "targets": model.source["targets"]}
        yield (paper, trace, PRESET_TEMPLATES[name][0], t.n_requests,
               f"{t.read_ratio:.3f} / {st['read_ratio']:.3f}",
               f"{t.read_size_bytes / 1024:.1f} / {st['avg_read_size_bytes'] / 1024:.1f}",
               f"{t.footprint_bytes / GiB:.3f} / {st['footprint_bytes'] / GiB:.3f}",
               f"{t.hot_ratio:.3f} / {st[t.hot_key]:.3f}",
               f"{k['span']:.3g}, {k['locality']:+.2f}", f"{calib_s:.0f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--papers", default="shuffler,phasedrr,cocktail,hotr")
    ap.add_argument("--save", action="store_true", help="add the knobs to the ones flashrr ships")
    args = ap.parse_args(argv)
    heads = ("paper", "trace", "template", "requests", "read ratio", "read KiB", "footprint GiB", "hot ratio",
             "span, locality", "calibration s")
    print("| " + " | ".join(heads) + " |")
    print("|" + "---|" * len(heads))
    for paper in args.papers.split(","):
        for row in rows(paper.strip(), args.quick):
            print("| " + " | ".join(str(x) if not isinstance(x, int) else f"{x:,}" for x in row) + " |", flush=True)
    if args.save:
        import json

        shipped = json.loads(SHIPPED_KNOBS.read_text()) if SHIPPED_KNOBS.exists() else {}
        shipped.update(SAVED)
        SHIPPED_KNOBS.write_text(json.dumps(shipped, indent=1, sort_keys=True) + "\n")
        print(f"{len(SAVED)} calibrations saved to {SHIPPED_KNOBS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
