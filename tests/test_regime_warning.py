"""A run outside a sane regime says so (flashrr/regime_warning.py): a device past its ECC
(RRs on more than 1 in 100 flash page reads), the busiest die of a Baseline-like run (no
idle-time moves) busy more than 95% of the run, a device stuck in GC (WAF above 10).  Each limit is counted by hand on a tiny
device, one run on each side of it; the warning is a summary field, printed once by
``flashrr run`` and ``flashrr compare``, never an error."""
from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import flashrr
from engine_helpers import page_trace, tiny_config
from flashrr.cli import main
from flashrr.regime_warning import BUSY_LIMIT, RR_PER_READ_LIMIT, WAF_LIMIT, regime_warning, regime_warnings
from flashrr.trace.io import write_trace


def _summary(**kw) -> dict:
    return {"rr_count": 0, "flash_read_pages": 1000, "die_idle_fraction_min": 0.5, "busy_move_ns": 0, "waf": 1.0,
            **kw}


def test_the_limits_are_strict_and_each_names_its_cause():
    assert regime_warnings(_summary()) == []
    # exactly at each limit: no warning; one past it: the warning of that cause alone
    assert regime_warnings(_summary(rr_count=10, flash_read_pages=1000)) == []
    assert regime_warnings(_summary(rr_count=11, flash_read_pages=1000))[0].startswith("device past its ECC: 11 RRs")
    assert regime_warnings(_summary(die_idle_fraction_min=1 - BUSY_LIMIT)) == []
    assert "busy 96.0%" in regime_warning(_summary(die_idle_fraction_min=0.04))
    assert regime_warnings(_summary(waf=WAF_LIMIT)) == []
    assert regime_warning(_summary(waf=10.5)) == "device stuck in GC: WAF 10.5 (more than 10)"
    both = regime_warnings(_summary(rr_count=500, waf=12.0))
    assert len(both) == 2 and regime_warning(_summary(rr_count=500, waf=12.0)) == "; ".join(both)
    # the die limit holds Baseline-like runs alone: a scheme that moves pages in idle time fills the dies by design
    assert regime_warnings(_summary(busy_move_ns=1, die_idle_fraction_min=0.0)) == []
    assert BUSY_LIMIT == 0.95 and RR_PER_READ_LIMIT == 0.01 and WAF_LIMIT == 10.0


def test_the_papers_regime_flags_use_the_same_busy_limit():
    from flashrr.reproduce import plots, regime

    assert regime.BUSY_LIMIT is BUSY_LIMIT and plots.BUSY_LIMIT is BUSY_LIMIT


@pytest.mark.parametrize("threshold, reads, warned", [(99, 990, True), (100, 1000, False)])
def test_past_the_ecc_counted_on_a_tiny_device(threshold, reads, warned):
    """Reads cycle over the 16 pages of one block, no writes, no cache: the block reaches the RR
    threshold every ``threshold`` reads and its pages move to a fresh block, so ``reads //
    threshold`` = 10 RRs in ``reads`` flash reads; 10 in 990 is past 1 in 100, 10 in 1,000 is not."""
    s = flashrr.simulate(tiny_config(rr=threshold), page_trace(np.arange(reads) % 16), "baseline").summary
    assert (s["rr_count"], s["flash_read_pages"]) == (reads // threshold, reads)
    assert bool(s["regime_warning"]) is warned
    assert ("device past its ECC" in s["regime_warning"]) is warned


@pytest.mark.parametrize("gap_ns, busy, warned", [(105, 100_000 / 104_995, True), (106, 100_000 / 105_994, False),
                                                  (0, 1.0, True)])
def test_an_overloaded_baseline_counted_on_a_tiny_device(gap_ns, busy, warned):
    """1,000 reads ``gap_ns`` apart on one die that takes 100 ns a read (no transfer time, RR off in
    effect): each read starts on arrival or when the previous one ends, so the die is busy 100,000
    ns of a run that ends at ``999 * gap + 100`` ns when the gap is at least 100.  A scheme that runs
    the same (Page: no idle-time move) gets the same warning."""
    trace = page_trace(np.arange(1000) % 16, gap_ns=gap_ns)
    s = flashrr.simulate(tiny_config(rr=10**6), trace, "baseline").summary
    assert 1 - s["die_idle_fraction_min"] == pytest.approx(busy, rel=1e-9)
    assert ("device overloaded" in s["regime_warning"]) is warned
    page = flashrr.simulate(tiny_config(rr=10**6), trace, "page").summary
    assert page["busy_move_ns"] == 0 and page["regime_warning"] == s["regime_warning"]


def test_idle_time_moves_are_not_overload():
    """PhasedRR moves pages in idle time (a working set of Delta-read blocks) on a device busy with
    reads: its busy share counts its own moves, so it is held to no die limit, and the warning
    names the run's cause, not its policy."""
    cfg = tiny_config(rr=400)
    trace = page_trace(np.arange(6000) % 64, gap_ns=105)
    s = flashrr.simulate(cfg, trace, "phasedrr", delta_reads=10).summary
    assert s["busy_move_ns"] > 0 and 1 - s["die_idle_fraction_min"] > BUSY_LIMIT
    assert "device overloaded" not in s["regime_warning"]


@pytest.mark.parametrize("op, warned", [(0.1, False), (0.06, True)])
def test_a_device_stuck_in_gc_on_a_tiny_device(op, warned):
    """Random single-page overwrites of a full 64-block device: the less spare space, the more pages
    GC moves per host write; the WAF is 1 + GC moves per host page written (9.0 at 10% spare, 11.2 at
    6%), and only past 10 is it flagged."""
    cfg = tiny_config(rr=10**6, op=op, fill_ratio=1.0, blocks=64)
    lpns = np.random.default_rng(1).integers(0, cfg.logical_pages, 5000)
    s = flashrr.simulate(cfg, page_trace(lpns, writes=np.ones(5000, bool), gap_ns=20_000), "baseline").summary
    assert s["waf"] == pytest.approx(1 + s["gc_page_moves"] / s["host_pages_written"])
    assert (s["waf"] > WAF_LIMIT) is warned
    assert ("device stuck in GC" in s["regime_warning"]) is warned


@pytest.fixture
def tiny_toml(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(tiny_config(rr=99).to_toml())
    trace = tmp_path / "cycle.mqsim.txt"
    write_trace(page_trace(np.arange(990) % 16), trace)
    return path, str(trace)


def test_run_prints_the_warning_once_and_still_succeeds(tiny_toml):
    path, trace = tiny_toml
    res = CliRunner().invoke(main, ["run", "--config", str(path), "--trace", trace])
    assert res.exit_code == 0, res.output
    assert res.stderr.count("warning: device past its ECC: 10 RRs in 990 flash page reads") == 1
    assert "rr_count" in res.stdout and "warning" not in res.stdout
    as_json = CliRunner().invoke(main, ["run", "--config", str(path), "--trace", trace, "--json"])
    assert as_json.exit_code == 0 and '"regime_warning": "device past its ECC' in as_json.stdout


def test_compare_prints_each_rows_warning_once_and_keeps_it_in_the_frame(tiny_toml):
    path, trace = tiny_toml
    spec = trace
    res = CliRunner().invoke(main, ["compare", "--policies", "baseline,page", "--preset", str(path), "--trace", spec,
                                    "--repeat", "1", "--jobs", "0"])
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("warning:")]
    assert [ln.split(":")[1].strip() for ln in lines] == ["baseline on tiny", "page on tiny"]
    assert all("device past its ECC" in ln for ln in lines) and "warning" not in res.stdout
    df = flashrr.compare(["baseline", "page"], trace=spec, preset=str(path), repeat=1, jobs=0)
    assert list(df["regime_warning"].str.startswith("device past its ECC")) == [True, True]
