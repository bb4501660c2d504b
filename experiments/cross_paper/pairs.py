"""Every pair of schemes that composes, beside the schemes alone, on the cross-paper device:
RR count against mean read latency.

    python experiments/cross_paper/pairs.py [--out DIR] [--jobs J] [--repeat N] [--trace T]

Writes DIR/pairs.{png,pdf,csv} and DIR/pairs_clashes.txt (the pairs that do not compose, and
why); default DIR: out/cross_paper.  The device is the cross-paper figure's (docs/compare.md).
"""
import argparse
from flashrr.compare import (CROSS_PAPER_POLICIES, DEFAULT_REPEAT, DEFAULT_TRACE, compare, composable_pairs,
                             cross_paper_device, format_table, pairs_figure, write_figure)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out/cross_paper")
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=DEFAULT_REPEAT)
    ap.add_argument("--trace", default=DEFAULT_TRACE)
    a = ap.parse_args(argv)
    pairs, clashes = composable_pairs()
    df = compare(list(CROSS_PAPER_POLICIES) + pairs, trace=a.trace, preset=cross_paper_device(), repeat=a.repeat,
                 jobs=a.jobs, progress=True)
    out = write_figure(df, pairs_figure(df), a.out, "pairs")
    (out / "pairs_clashes.txt").write_text("".join(f"{p}: {why}\n" for p, why in clashes.items()))
    print(format_table(df))
    print(f"{len(pairs)} pairs compose, {len(clashes)} clash; wrote {out}/pairs.png, .pdf, .csv, pairs_clashes.txt")


if __name__ == "__main__":
    main()
