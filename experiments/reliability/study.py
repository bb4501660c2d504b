"""A small study the error model makes possible: per scheme, the RR trigger against
uncorrectable reads against read latency, on a fresh and an aged device, with new and
month-old data.

    PYTHONPATH=. python experiments/reliability/study.py [--jobs 2] [--repeat 1]

(from the repository root).  Device: the ``shuffler`` preset (10,000-read RR threshold),
its main-job trace (``flashrr compare``'s ali1) replayed ``--repeat`` times.  Error models,
both with Cocktail's 3 retry steps of 95 us each:

* ``fit-cocktail``: TLC fitted to Cocktail's retry table (read uncorrectable past the third
  step at 10,240 reads on fresh, 90-day-old data), at 0, 1,000 and 3,000 P/E cycles;
* ``mlc``: the MLC preset with its 40-bit ECC, at 3,000 P/E cycles.

Triggers: ``count N``, RR at N block reads (5,000 / 10,000 / 20,000); ``rber 0.9``, RR when
the worst page reaches 90% of the last step's capability (not run for TLC at 3,000 P/E
cycles with 30-day-old data: the worst page is past the last step before any read, so the
trigger would reclaim a block at every read).  Retry steps come from the model.

Prints a markdown table; the table in docs/reliability.md ("A study") comes from it.
"""
import argparse
from concurrent.futures import ProcessPoolExecutor

SCHEMES = ("baseline", "shuffler", "phasedrr", "hotr")
DAY_S = 86_400
DEVICES = (("fit-cocktail", 0), ("fit-cocktail", 1000), ("fit-cocktail", 3000), ("mlc", 3000))
NO_RBER = {("fit-cocktail", 3000, 30)}  # (model, P/E, data age in days) past the capability at 0 reads


def run(case):
    import flashrr
    from flashrr.compare import DEFAULT_TRACE
    from flashrr.config import ReadRetryConfig, SimConfig

    scheme, preset, pe, age_days, trigger, repeat = case
    cfg = SimConfig.preset("shuffler").replace(
        error_model={"enabled": True, "rber_preset": preset, "initial_pe_mean": float(pe),
                     "initial_pe_sd": pe / 30, "data_age_s": age_days * DAY_S},
        read_retry=ReadRetryConfig.from_model(ReadRetryConfig.cocktail(95_000)))
    if trigger[0] == "count":
        cfg = cfg.replace(rr_threshold_reads=trigger[1])
    else:
        cfg = cfg.replace(trigger="rber", rber_fraction=trigger[1])
    res = flashrr.simulate(cfg, DEFAULT_TRACE, policy=scheme, repeat=repeat)
    s = res.summary
    margin = res.rr_events["rber_margin"].min() if len(res.rr_events) else float("nan")
    return case, {"rr": s["rr_count"], "unc": s["uncorrectable_reads"], "flash": s["flash_read_pages"],
                  "moves": s["rr_page_moves"],
                  "mean": s["read_latency_mean_ns"] / 1e3, "p9999": s["read_latency_p9999_ns"] / 1e3,
                  "share": s["retry_time_share"], "margin": margin}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    triggers = [("count", n) for n in (5_000, 10_000, 20_000)] + [("rber", 0.9)]
    cases = [(scheme, preset, pe, age, trig, a.repeat)
             for preset, pe in DEVICES for age in (0, 30) for trig in triggers for scheme in SCHEMES
             if not (trig[0] == "rber" and (preset, pe, age) in NO_RBER)]
    with ProcessPoolExecutor(a.jobs) as ex:
        out = dict(ex.map(run, cases))
    print("| model | P/E | data age | trigger | scheme | RRs | RR page moves | uncorrectable reads | of flash reads "
          "| read mean (us) | read p99.99 (us) | retry share | min RR margin |")
    print("|---" * 13 + "|")
    for case in cases:
        scheme, preset, pe, age, trig, _ = case
        r = out[case]
        t = f"count {trig[1]:,}" if trig[0] == "count" else f"rber {trig[1]}"
        print(f"| {preset} | {pe:,} | {age} d | {t} | {scheme} | {r['rr']:,} | {r['moves']:,} | {r['unc']:,} "
              f"| {r['unc'] / max(r['flash'], 1):.2%} | {r['mean']:,.1f} | {r['p9999']:,.1f} | {r['share']:.3f} "
              f"| {r['margin']:.3f} |")


if __name__ == "__main__":
    main()
