"""Why Page-8 and Page-64 read faster than Baseline on the LUN twins: their counters or their placement?

    python experiments/shuffler/page_placement.py [--trace lun1] [--replays 16] [--device shuffler]
                                                  [--moves aligned|per-block] [--schemes baseline,...] [--jobs J]

Runs, on the default Shuffler plan's device and twin of the trace (regime placement and
occupancy), Baseline, Page-8 and four variants that take Page-8 apart:

* ``page-8-keep``: Page-8's counters charged to the cache, every moved page kept in its
  component block (Baseline's placement);
* ``page-8-free``: Page-8 with no counter charged (``counter_bytes=0``);
* ``even-split``: no counters; at an RR every component takes an equal share of the moved pages,
  in source order (Page's split without its weights);
* ``lpn-deal``: no counters; the moved pages dealt round-robin over the components in LPN order,
  so consecutive LPNs land side by side, as in a freshly written superpage.

It prints each run's read latency, RR count, RR page moves, user flash transactions and
flash read time.  ``--moves per-block`` (``gc.aligned_moves = false``) gives each block of the
GC/RR frontier its own write point: on ``lun1`` at 16 replays (docs/shuffler.md, "Where we
differ") the counters then do nothing and the placement does it all, since those write points
split superpages when a victim's components hold unequal numbers of valid pages and Page-N's
equal split puts its groups back together.  ``--moves aligned`` (the presets') keeps each
victim row in one frontier row.
``--device shuffler-32`` runs the 32-block superblock.  A default-length run of a LUN twin takes
about half a minute.
"""
import argparse
from concurrent.futures import ProcessPoolExecutor

import numpy as np

VARIANTS = ("baseline", "page-8", "page-8-keep", "page-8-free", "even-split", "lpn-deal")


def _register_variants() -> None:
    """The variants of Page-8 above, registered as policies (in each process that runs one)."""
    from flashrr.papers.shuffler.page import Page8, balanced_assignment
    from flashrr.policy import register_policy

    class Page8Keep(Page8):
        name = "page-8-keep"

        def place_migration(self, state, kind, sb, comps, offsets, lpns):
            return comps

    class EvenSplit(Page8):
        name = "even-split"

        def metadata_bytes(self, config):
            return 0

        def place_migration(self, state, kind, sb, comps, offsets, lpns):
            return comps if kind != "rr" else balanced_assignment(np.zeros(len(lpns)), state.layout.k)

    class LpnDeal(Page8):
        name = "lpn-deal"

        def metadata_bytes(self, config):
            return 0

        def place_migration(self, state, kind, sb, comps, offsets, lpns):
            if kind != "rr":
                return comps
            lp = np.asarray(lpns)
            dest = np.empty(len(lp), dtype=np.int32)
            dest[np.argsort(lp, kind="stable")] = np.arange(len(lp)) % state.layout.k
            return dest

    for cls in (Page8Keep, EvenSplit, LpnDeal):
        register_policy(cls)


def run_one(args: tuple) -> dict:
    trace, replays, device, aligned, scheme = args
    import flashrr
    from flashrr.reproduce import paper_named

    _register_variants()
    plan = paper_named("shuffler").plan_from_options(False, None, (), (), "model", False)
    fields = plan.device(device, preset=device)  # the plan's sweep entry: preset, name, regime fields
    fields.pop("name")
    cfg = flashrr.SimConfig.preset(fields.pop("preset")).replace(**fields).replace(aligned_moves=aligned)
    policy, params = ("page-8", {"counter_bytes": 0}) if scheme == "page-8-free" else (scheme, {})
    s = flashrr.simulate(cfg, plan.trace_spec(trace), policy=policy, repeat=replays, **params).summary
    return {"scheme": scheme, "read_us": s["read_latency_mean_ns"] / 1e3, "rr_count": s["rr_count"],
            "rr_page_moves": s["rr_page_moves"], "user_txns_m": s["user_flash_transactions"] / 1e6,
            "flash_read_s": s["user_read_flash_ns"] / 1e9}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default="lun1")
    ap.add_argument("--replays", type=int, default=16)
    ap.add_argument("--device", default="shuffler", choices=("shuffler", "shuffler-32"))
    ap.add_argument("--moves", default="aligned", choices=("aligned", "per-block"),
                    help="gc.aligned_moves on (the presets') or off")
    ap.add_argument("--schemes", default=",".join(VARIANTS))
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    schemes = a.schemes.split(",")
    unknown = sorted(set(schemes) - set(VARIANTS))
    if unknown:
        ap.error(f"--schemes: unknown {', '.join(unknown)}; expected some of {', '.join(VARIANTS)}")
    jobs = [(a.trace, a.replays, a.device, a.moves == "aligned", s) for s in schemes]
    with ProcessPoolExecutor(a.jobs) as pool:
        rows = list(pool.map(run_one, jobs))
    print(f"{a.trace} x {a.replays} replays on {a.device}, {a.moves} moves")
    print(f"{'scheme':<12} {'read (us)':>10} {'RRs':>6} {'RR moves':>10} {'user txns (M)':>14} {'flash read (s)':>15}")
    for r in rows:
        print(f"{r['scheme']:<12} {r['read_us']:>10,.1f} {r['rr_count']:>6,} {r['rr_page_moves']:>10,} "
              f"{r['user_txns_m']:>14.2f} {r['flash_read_s']:>15,.0f}")


if __name__ == "__main__":
    main()
