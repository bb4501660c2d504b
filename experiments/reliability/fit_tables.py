"""Print how the reliability model's fits reproduce the papers' retry tables,
and the RR thresholds the fitted model implies at other device states.

    PYTHONPATH=. python experiments/reliability/fit_tables.py [--growth linear|geometric]

(from the repository root; PYTHONPATH makes this checkout's flashrr the one imported)

Tables 1-2 in docs/reliability.md come from this script.
"""
import argparse

import numpy as np

from flashrr.reliability import FIT_TARGETS, fitted_to, trigger_reads

# off every table's switch points (k/7, k/8, 0.7/0.8/0.9), where the two step rules differ by their boundary
SAMPLES = (0.0, 0.1, 0.2, 0.3, 0.45, 0.55, 0.65, 0.72, 0.78, 0.83, 0.88, 0.93, 0.97, 1.02, 1.1, 1.2)
GRID = np.linspace(0.0, 1.2, 4801)
DAY_S = 86_400


def fit_rows(growth: str) -> list:
    rows = []
    for name in FIT_TARGETS:
        f = fitted_to(name, growth)
        steps, bad = f.model_steps(SAMPLES)
        paper = f.table_steps(SAMPLES)
        cells = [f"{p}/{s}{'U' if b else ''}" for p, s, b in zip(paper, steps, bad)]
        g_steps, _ = f.model_steps(GRID)
        diff = np.abs(g_steps - f.table_steps(GRID))
        rows.append((name, f.model.gamma, f.ladder.factor, int(diff.max()), 100 * float(np.mean(diff > 0)), cells))
    return rows


def threshold_rows() -> list:
    rows = []
    for name in ("phasedrr", "cocktail"):
        f = fitted_to(name)
        for pe in (0, 1000, 3000):
            for days in (1, 90, 365):
                hard = trigger_reads(f.model, f.ecc, pe, days * DAY_S, 1.0)
                last = trigger_reads(f.model, f.ecc, pe, days * DAY_S, 1.0, f.ladder)
                rows.append((name, pe, days, int(hard), int(last)))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--growth", default="linear", choices=("linear", "geometric"))
    a = ap.parse_args(argv)
    print(f"steps paper/model at reads/threshold (U = uncorrectable), growth = {a.growth}")
    print("| table | gamma | factor | max diff | grid points off | " + " | ".join(f"{x:g}" for x in SAMPLES) + " |")
    print("|---" * (5 + len(SAMPLES)) + "|")
    for name, gamma, factor, worst, off, cells in fit_rows(a.growth):
        print(f"| {name} | {gamma:.3g} | {factor:.4g} | {worst} | {off:.2f}% | " + " | ".join(cells) + " |")
    print("\nRR threshold (block reads) the fitted model implies, worst page at 100% of the capability")
    print("| fit | P/E | retention (days) | hard decision | last retry step |")
    print("|---|---|---|---|---|")
    for row in threshold_rows():
        print("| {} | {} | {} | {:,} | {:,} |".format(*row))


if __name__ == "__main__":
    main()
