"""Page-level read reuse of every real sample against its model, in sample and held out: a table of docs/traces.md.

For each sample of ``tests/data`` (the list of ``model_validation_table.py``;
``tests/data/README.md`` says where each comes from and its licence), three
ways as in that table (*in sample*: the model of the whole sample against it;
*held out* both ways: a model of one half, by request count, against the other
half), print the page-level LRU hit ratio of the reads at 1,024, 8,192 and
65,536 pages (8 KiB pages; the hit ratio of an LRU cache of that many pages fed
the read pages in order, first touches counted as misses) and the median stack
distance of the re-read pages, trace / model, the model the mean over seeds
1-3 (the median over the seeds that re-read) of traces as long as the requests checked.  A ratio within 25% of the
trace's is marked ✓.  No device is simulated, so the whole table takes seconds
to a minute.

    python benchmarks/model_reuse_table.py [--seeds 3] [--samples a,b] [--fit-param KEY=VALUE ...]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model_validation_table import DATA, SAMPLES, page_read_reuse  # noqa: E402

CAPACITIES = (1024, 8192, 65536)  # pages
TOLERANCE = 0.25                  # the goal for the LRU hit ratio at 1,024 pages, applied at each size


def _cells(real, model) -> tuple[list[str], list[bool]]:
    """``real`` and ``model``: (hit ratios at CAPACITIES, median re-read distance in pages)."""
    cells, met = [], []
    for r, m in zip(real[0], model[0]):
        ok = abs(m - r) <= TOLERANCE * r + 1e-12
        met.append(ok)
        cells.append(f"{r:.3f} / {m:.3f} {'✓' if ok else '✗'}")
    cells.append(" / ".join("n/a" if d != d else f"{d:,.0f}" for d in (real[1], model[1])))
    return cells, met


def _model_reuse(model, n: int, seeds) -> tuple[np.ndarray, float]:
    from flashrr.trace.model import generate_trace

    got = [page_read_reuse(generate_trace(model, n, seed=s), CAPACITIES) for s in seeds]
    medians = [g[1] for g in got if g[1] == g[1]]  # a seed with no re-read has no median
    return np.mean([g[0] for g in got], axis=0), float(np.mean(medians)) if medians else float("nan")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--samples", default=None, help="comma-separated sample files (default: all)")
    ap.add_argument("--fit-param", action="append", default=[], metavar="KEY=VALUE",
                    help="a fit setting for every model (repeatable)")
    args = ap.parse_args(argv)
    import flashrr
    from flashrr.model_validation import HOLDOUT_SPLITS, trace_halves
    from flashrr.trace.model import fit_model
    from flashrr.trace.model.fit import fit_settings_from

    settings = fit_settings_from(args.fit_param)
    seeds = tuple(range(1, args.seeds + 1))
    samples = [s for s in SAMPLES if args.samples is None or s[0] in args.samples.split(",")]
    heads = ["trace", "requests", "model"] + [f"LRU {c:,} pages" for c in CAPACITIES] + ["median re-read distance"]
    print("| " + " | ".join(heads) + " |")
    print("|" + "---|" * len(heads))
    met_by = {"in sample": [], "held out": []}
    for name, label in samples:
        t0 = time.perf_counter()
        trace = flashrr.read_trace(str(DATA / name))
        halves = trace_halves(trace)
        checks = [("in sample", trace, trace)]
        checks += [(f"held out, {'1st → 2nd' if f == 0 else '2nd → 1st'}", halves[f], halves[c])
                   for _, f, c in HOLDOUT_SPLITS]
        for kind, fitted, checked in checks:
            model = fit_model(fitted, settings)
            cells, met = _cells(page_read_reuse(checked, CAPACITIES), _model_reuse(model, len(checked), seeds))
            met_by["in sample" if kind == "in sample" else "held out"].append(met)
            print(f"| {label} | {len(checked):,} | {kind} | " + " | ".join(cells) + " |")
        print(f"{label}: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    print("\n| rows | " + " | ".join(f"LRU {c:,} within 25%" for c in CAPACITIES) + " | all three |")
    print("|---|" + "---|" * (len(CAPACITIES) + 1))
    for kind, rows in met_by.items():
        per = [sum(r[i] for r in rows) for i in range(len(CAPACITIES))]
        print(f"| {kind} | " + " | ".join(f"{p}/{len(rows)}" for p in per)
              + f" | {sum(all(r) for r in rows)}/{len(rows)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
