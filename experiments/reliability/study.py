"""A small study the error model makes possible: per scheme, the RR trigger against
uncorrectable reads against read latency, on a fresh and an aged device, with new and
month-old data.

    PYTHONPATH=. python experiments/reliability/study.py [--jobs 2] [--repeat 1]

(from the repository root).  Device: the ``shuffler`` preset (10,000-read RR threshold),
its main-job trace (``flashrr compare``'s ali1) replayed ``--repeat`` times.  Error model:
TLC fitted to Cocktail's retry table (``fit-cocktail``: its 3 steps of 95 us each, read
uncorrectable past the third at about 10,240 reads on fresh, 90-day-old data).  Rows:

* trigger ``count N``: RR at N block reads (5,000 / 10,000 / 20,000), retry from the model;
* trigger ``rber 0.9``: RR when the worst page reaches 90% of the last step's capability
  (fresh device only: at 3,000 P/E cycles the fit leaves no read count under the
  capability, so every read would trigger an RR).

Prints a markdown table; the table in docs/reliability.md ("A study") comes from it.
"""
import argparse
from concurrent.futures import ProcessPoolExecutor

SCHEMES = ("baseline", "shuffler", "phasedrr", "hotr")
DAY_S = 86_400


def run(case):
    import flashrr
    from flashrr.compare import DEFAULT_TRACE
    from flashrr.config import ReadRetryConfig, SimConfig

    scheme, pe, age_days, trigger, repeat = case
    cfg = SimConfig.preset("shuffler").replace(
        error_model={"enabled": True, "rber_preset": "fit-cocktail", "initial_pe_mean": float(pe),
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
                  "mean": s["read_latency_mean_ns"] / 1e3, "p9999": s["read_latency_p9999_ns"] / 1e3,
                  "share": s["retry_time_share"], "margin": margin}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    cases = []
    for pe in (0, 3000):
        for age in (0, 30):
            triggers = [("count", n) for n in (5_000, 10_000, 20_000)] + ([("rber", 0.9)] if pe == 0 else [])
            for trig in triggers:
                for scheme in SCHEMES:
                    cases.append((scheme, pe, age, trig, a.repeat))
    with ProcessPoolExecutor(a.jobs) as ex:
        out = dict(ex.map(run, cases))
    print("| P/E | data age | trigger | scheme | RRs | uncorrectable reads | of flash reads | read mean (us) "
          "| read p99.99 (us) | retry share | min RR margin |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for case in cases:
        scheme, pe, age, trig, _ = case
        r = out[case]
        t = f"count {trig[1]:,}" if trig[0] == "count" else f"rber {trig[1]}"
        print(f"| {pe:,} | {age} d | {t} | {scheme} | {r['rr']:,} | {r['unc']:,} | {r['unc'] / max(r['flash'], 1):.2%} "
              f"| {r['mean']:,.1f} | {r['p9999']:,.1f} | {r['share']:.3f} | {r['margin']:.3f} |")


if __name__ == "__main__":
    main()
