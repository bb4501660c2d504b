"""benchmarks/model_reuse_table.py: page-level read reuse of a sample against its model."""
import sys
from pathlib import Path

import numpy as np

from flashrr.trace.core import Trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import model_reuse_table  # noqa: E402
from model_validation_table import page_read_reuse  # noqa: E402

PAGE = 8192


def _reads(pages, sizes=None, writes=()):
    """One request per entry of ``pages`` (8 KiB pages), reads unless its index is in ``writes``."""
    n = len(pages)
    sizes = [1] * n if sizes is None else sizes
    return Trace(np.arange(n, dtype=np.int64) * 1000, np.asarray(pages, dtype=np.int64) * PAGE,
                 np.asarray(sizes, dtype=np.int64) * PAGE, np.isin(np.arange(n), list(writes)))


def test_lru_ratios_and_median_counted_by_hand():
    # A B A C B A: stack distances -1 -1 1 -1 2 2; LRU of 2 pages hits the first re-read of A only
    ratios, median = page_read_reuse(_reads([0, 1, 0, 2, 1, 0]), (1, 2, 3))
    assert np.allclose(ratios, [0 / 6, 1 / 6, 3 / 6])
    assert median == 2


def test_a_two_page_read_is_two_pages_and_writes_are_left_out():
    # read pages 0-1, write page 0 (not counted), read page 1: page 1 comes back at distance 0
    ratios, median = page_read_reuse(_reads([0, 0, 1], sizes=[2, 1, 1], writes=(1,)), (1,))
    assert np.allclose(ratios, [1 / 3])
    assert median == 0


def test_no_re_read_has_no_median():
    ratios, median = page_read_reuse(_reads([0, 1, 2]), (4,))
    assert ratios[0] == 0 and median != median


def test_the_table_has_three_rows_per_sample_and_counts_its_marks(capsys):
    assert model_reuse_table.main(["--samples", "msr-hm_0-sample.msr.csv.gz", "--seeds", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out if line.startswith("| MSR hm_0 |")]
    assert [r.split(" | ")[2] for r in rows] == ["in sample", "held out, 1st → 2nd", "held out, 2nd → 1st"]
    marks = [[c.endswith("✓") for c in r.split(" | ")[3:6]] for r in rows]
    summary = {line.split(" | ")[0]: line.split(" | ")[1:5] for line in out if line.startswith("| in sample")
               or line.startswith("| held out |")}
    assert summary["| in sample"][0] == f"{int(marks[0][0])}/1"
    assert summary["| held out"][2] == f"{sum(m[2] for m in marks[1:])}/2"


def test_validation_summary_counts_the_fitted_half_in_the_models_place(capsys):
    """The summary's "fitted half" rows count the goals the fitted half meets, on the rows where Baseline
    reclaims on the half checked (LRU: on every row), as the model's rows do."""
    from model_validation_table import _print_summary, _reference_cell

    goals = ("rr_count", "read_latency_mean_ns", "cache_read_hit_ratio", "region_top10_share", "lru_hit_1024")
    yes = dict.fromkeys(goals, True)
    no_rr = {**yes, "rr_count": False}
    summary = [("cocktail", "a", "held out 1st → 2nd", True, no_rr),
               ("cocktail", "a", "fitted half 1st → 2nd", True, yes),
               ("cocktail", "b", "held out 1st → 2nd", False, yes),      # no RR on the half checked
               ("cocktail", "b", "fitted half 1st → 2nd", False, no_rr)]
    _print_summary(summary)
    out = capsys.readouterr().out.splitlines()
    lines = {line.split(" | ")[1]: line for line in out if line.startswith("| cocktail")}
    assert lines["held out"] == "| cocktail | held out | 1 of 2 | 0/1 | 1/1 | 1/1 | 1/1 | 0/1 | 2/2 |"
    assert lines["fitted half"] == "| cocktail | fitted half | 1 of 2 | 1/1 | 1/1 | 1/1 | 1/1 | 1/1 | 2/2 |"
    assert _reference_cell(no_rr) == "3/4, LRU ✓"
    assert _reference_cell({**no_rr, "lru_hit_1024": False}) == "3/4, LRU ✗"
