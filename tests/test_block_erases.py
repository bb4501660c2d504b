"""Erases per block (``Result.block_erases``): every block's P/E cycles since the device was
new, the preconditioning's included, on both engines."""
import numpy as np
from hypothesis import given, settings

import flashrr
from engine_helpers import run_both, tiny_config
from strategies import any_device_case


@settings(max_examples=60, deadline=None)
@given(any_device_case())
def test_blocks_of_a_superblock_are_erased_together_and_the_run_counts_are_included(case):
    cfg, trace, repeat, seed = case
    try:
        res = flashrr.simulate(cfg, trace, repeat=repeat, seed=seed)
    except flashrr.EngineError:
        return  # a tiny device out of spare space: no result to check
    per_sb = res.block_erases.reshape(-1, cfg.superblock.k)
    assert (per_sb == per_sb[:, :1]).all()  # a superblock's k blocks are erased together
    assert res.block_erases.min() >= 0
    # the summary counts the erases after preconditioning; the array counts every erase
    assert int(res.block_erases.sum()) >= res.summary["erase_count"]


def test_preconditioning_erases_count_and_the_run_adds_its_own():
    # a full, tiny device warmed up by random writes erases blocks before the trace starts
    cfg = tiny_config(blocks=24, pages=8, op=0.35, gc_ratio=0.15, rr_enabled=False, fill_ratio=1.0,
                      warmup_random_writes_ratio=1.0)
    lpns = np.arange(cfg.logical_pages)
    idle = flashrr.simulate(cfg, flashrr.Trace(np.zeros(1, np.int64), np.zeros(1, np.int64),
                                               np.full(1, 4096), np.zeros(1, bool)))
    assert idle.summary["erase_count"] == 0 and idle.block_erases.sum() > 0  # warm-up GC only
    writes = flashrr.Trace(np.arange(len(lpns)) * 10_000, lpns * 4096, np.full(len(lpns), 4096),
                           np.ones(len(lpns), bool))
    busy = flashrr.simulate(cfg, writes)
    assert busy.summary["erase_count"] > 0
    assert busy.block_erases.sum() == idle.block_erases.sum() + busy.summary["erase_count"]


def test_both_engines_count_the_same_erases_per_block():
    cfg = tiny_config(blocks=24, pages=8, op=0.35, gc_ratio=0.15, rr=3, fill_ratio=1.0,
                      warmup_random_writes_ratio=0.5)
    rng = np.random.default_rng(4)
    n = 400
    lpn = rng.integers(0, cfg.logical_pages, n)
    trace = flashrr.Trace(np.arange(n) * 2_000, lpn * 4096, np.full(n, 4096), rng.random(n) < 0.5)
    a, b = run_both(cfg, trace)
    assert a.block_erases.sum() > 0 and np.array_equal(a.block_erases, b.block_erases)
