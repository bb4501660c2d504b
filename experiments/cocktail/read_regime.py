"""Cocktail's schemes on one Table II trace at a chosen size: how much of the reads end in an RR.

    python experiments/cocktail/read_regime.py [--trace T] [--requests N] [--replays R] [--scale F] [--jobs J]
                                               [--out DIR]

The paper's Baseline made 28,507 RRs on ali206, a trace of "more than 2.8 billion read
requests" (§IV-B): at most 10.2 RRs per million read requests.  The default plan replays a
50,000-request twin until Baseline makes the RR count (scaled to its 8 planes), at 63 RRs per
million reads.  This script runs Baseline, redFTL, IPR and Cocktail (both A1 readings) on the
default plan's device with the twin of trace T (default alibaba_206) generated at N requests and
played R times its Table II repeat count (defaults 5,000,000 and 20: for ali206 about 2.8 billion
x 8 / 128 = 175 M read requests after RAF), and prints each scheme's RR count, RRs per million
read requests, GC count and pages moved per erase, with its change against Baseline.
``flashrr reproduce cocktail`` runs the same five on ali206 in its read-count group (``reads``), at
the size its bisection finds; this script runs a size of your choosing.

``--scale`` sets the arrival time factor (default the plan's fixed stretch, 128 / 8).  RR counts do
not depend on it, but a device that falls behind its arrivals holds its backlog in memory
(docs/report.md, "Peak memory": msr_web at the fixed stretch passed 9 GB in a run), so give the
high-RAF traces the factor the reproduction calibrated for them (``calibration.csv``; msr_web
1,024).  Writes DIR/read_regime.csv (default out/cocktail-read-regime); the aged device is kept in
DIR/snapshots for the next call.
"""
import argparse
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

SCHEMES = (("Baseline", "baseline", {}), ("redFTL", "redftl", {}), ("IPR", "ipr", {}),
           ("Cocktail", "cocktail", {}), ("Cocktail (GC separate)", "cocktail", {"gc_writes": "separate"}))
COLUMNS = ("reads", "rr_count", "gc_count", "erase_count", "pages_moved_per_erase")


def run(args):
    import flashrr
    from flashrr.papers.cocktail.plan import Plan

    trace, n, replays, scale, policy, params, snapshots = args
    plan = Plan(n_requests=n, replays=((trace, replays),), scales=((trace, scale),) if scale else ())
    r = flashrr.simulate(plan.device_config(), plan.trace_spec(trace), policy=policy, snapshot=snapshots, **params)
    return {c: r.summary[c] for c in COLUMNS}


def main(argv=None):
    import pandas as pd

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default="alibaba_206", help="a Table II trace (alibaba_206, systor1, ...)")
    ap.add_argument("--requests", type=int, default=5_000_000, help="requests generated before RAF and replays")
    ap.add_argument("--replays", type=int, default=20)
    ap.add_argument("--scale", type=float, default=None, help="arrival time factor (default 128 / planes)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="out/cocktail-read-regime")
    a = ap.parse_args(argv)
    out = Path(a.out)
    (out / "snapshots").mkdir(parents=True, exist_ok=True)
    # Baseline first, alone: it makes the aged device's snapshot the other runs start from
    jobs = [(a.trace, a.requests, a.replays, a.scale, policy, params, str(out / "snapshots"))
            for _, policy, params in SCHEMES]
    rows = [run(jobs[0])]
    with ProcessPoolExecutor(max(1, a.jobs)) as pool:
        rows += list(pool.map(run, jobs[1:]))
    df = pd.DataFrame(rows, index=[s[0] for s in SCHEMES])
    df["rr_per_m_reads"] = df["rr_count"] * 1e6 / df["reads"]
    for c in ("rr_count", "gc_count", "pages_moved_per_erase"):
        df[f"{c}_vs_baseline_pct"] = (df[c] / df.loc["Baseline", c] - 1) * 100
    df.to_csv(out / "read_regime.csv")
    print(f"{a.trace} twin, {a.requests:,} requests x {a.replays} x its Table II repeats on the default plan's device "
          "(paper, ali206: Baseline 28,507 RRs on 128 planes = 1,782 on 8, at most 10.2 per million reads)")
    print(df.round(1).to_string())
    print(f"wrote {out / 'read_regime.csv'}")


if __name__ == "__main__":
    main()
