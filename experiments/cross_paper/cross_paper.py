"""The cross-paper figure: every RR scheme of the four papers and its baselines on one
device and one trace, read latency against RR count.

    python experiments/cross_paper/cross_paper.py [--out DIR] [--jobs J] [--repeat N] [--preset P] [--trace T]

Writes DIR/cross_paper.{png,pdf,csv} (default DIR: out/cross_paper).  The device and trace defaults, and why,
are in docs/compare.md.
"""
import argparse
from flashrr.compare import (CROSS_PAPER_POLICIES, DEFAULT_REPEAT, DEFAULT_TRACE, compare,
                             cross_paper_device, cross_paper_figure, format_table, write_figure)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out/cross_paper")
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=DEFAULT_REPEAT)
    ap.add_argument("--preset", default=None, help="device preset (default: cocktail without data cache)")
    ap.add_argument("--trace", default=DEFAULT_TRACE)
    a = ap.parse_args(argv)
    df = compare(CROSS_PAPER_POLICIES, trace=a.trace, preset=a.preset or cross_paper_device(), repeat=a.repeat, jobs=a.jobs, progress=True)
    out = write_figure(df, cross_paper_figure(df), a.out, "cross_paper")
    print(format_table(df))
    print(f"wrote {out}/cross_paper.png, .pdf, .csv")


if __name__ == "__main__":
    main()
