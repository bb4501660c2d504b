"""gc.aligned_moves: GC and RR write each victim row (its valid pages at one offset) to one
row of the GC/RR frontier, so a superpage's pages stay at one offset for multi-plane
reads; off, each block of the frontier has its own write point and they drift apart."""
from __future__ import annotations

import numpy as np
import pytest

import flashrr
from engine_helpers import page_trace, tiny_config
from flashrr.config import ConfigError, SimConfig
from flashrr.policies import Shuffler


def _aligned(cfg, on: bool):
    return cfg.replace(aligned_moves=on)


def _pairs_trace(seed=5, n_reads=30_000):
    """LPN 1023 read first (so preconditioning fills whole superblocks), then every third
    superpage's LPN 4s rewritten (block 0 of its row loses a page, so the victims' blocks
    hold unequal numbers of valid pages), then two-page reads of (4s, 4s+1).  Returns the
    trace and how many of the reads are of a rewritten pair."""
    rng = np.random.default_rng(seed)
    rewritten = np.arange(0, 256, 3)
    pairs = rng.integers(0, 256, n_reads)
    starts = np.concatenate([[1023], 4 * rewritten, 4 * pairs])
    writes = np.zeros(starts.size, bool)
    writes[1:1 + rewritten.size] = True
    pages = np.ones(starts.size, np.int64)
    pages[1 + rewritten.size:] = 2
    return page_trace(starts, writes=writes, pages=pages), int(np.isin(pairs, rewritten).sum())


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_baseline_rr_keeps_a_superpage_together_only_when_aligned(engine):
    """A pair that RR moves stays one multi-plane read with aligned moves: every read of
    an untouched pair is one transaction, a read of a rewritten pair (LPN 4s now
    elsewhere) at most two.  With one write point per block, block 0's falls behind the
    others at each RR and most pairs split."""
    cfg = tiny_config(planes=4, sb_planes=4, blocks=16, pages=64, rr=150, cache_pages=0)
    trace, n_split = _pairs_trace()
    n_reads = 30_000
    out = {}
    for on in (False, True):
        s = flashrr.simulate(_aligned(cfg, on), trace, policy="baseline", engine=engine,
                             check_invariants=True).summary
        assert s["rr_count"] > 50 and s["gc_count"] == 0
        out[on] = s["user_flash_transactions"] - 1 - 86     # less LPN 1023's read and the 86 writes
    assert n_reads <= out[True] <= n_reads + n_split
    assert out[False] > 1.3 * (n_reads + n_split)


class _Probe(Shuffler):
    """Shuffler that keeps the engine state it was shown (views stay live)."""

    name = "shuffler-probe-aligned"

    def place_migration(self, state, kind, sb, comps, offsets, lpns):
        self.state = state
        self.dest = super().place_migration(state, kind, sb, comps, offsets, lpns)
        self.comps = np.array(comps)
        self.lpns = np.array(lpns)
        return self.dest


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_policys_columns_stay_and_its_rows_stay_together(engine):
    """A full shuffle of a superblock whose rows 1 and 5 lost their block-0 page and rows 2
    and 6 their other three (LPNs rewritten): with aligned moves every page lands on the
    block Shuffler chose (a one-page row does not take the free column of the three-page
    row before it) and every source row's pages sit at one offset of one superblock; with
    one write point per block, block 0's falls behind and later rows split."""
    cfg = tiny_config(planes=4, sb_planes=4, blocks=16, pages=8, rr=10, cache_pages=0)
    rewritten = [4, 9, 10, 11, 20, 25, 26, 27]
    lpns = [31] + rewritten + [0] * 12
    writes = [False] + [True] * len(rewritten) + [False] * 12
    for on in (True, False):
        probe = _Probe()
        res = flashrr.simulate(_aligned(cfg, on), page_trace(lpns, writes=writes), policy=probe, engine=engine,
                               check_invariants=True)
        assert len(res.rr_events) == 1 and res.rr_events["routine"].iloc[0] == "full"
        N, k = 8, 4
        ppn = probe.state.l2p[probe.lpns].astype(np.int64)
        blk, off = np.divmod(ppn, N)
        sb, comp = np.divmod(blk, k)
        src_row = probe.lpns // 4
        rows_together = all(len(set(zip(sb[src_row == r], off[src_row == r]))) == 1 for r in range(8))
        if on:
            assert np.array_equal(comp, probe.dest)
            assert rows_together
        else:
            assert not rows_together


def test_off_by_default_and_on_for_the_shuffler_presets():
    assert SimConfig.preset("phasedrr").gc.aligned_moves is False
    assert SimConfig.preset("shuffler").gc.aligned_moves is True
    assert SimConfig.preset("shuffler-32").gc.aligned_moves is True


def test_a_bad_value_names_the_field():
    with pytest.raises(ConfigError, match="true or false") as err:
        SimConfig.preset("shuffler").replace(aligned_moves="yes")
    assert "gc.aligned_moves" in str(err.value)


def test_gc_packs_victim_rows_without_leaving_pages_unwritten():
    """Ftl.gc_plan (reference twin; the equivalence tests hold the compiled one to it), counted
    by hand on a fresh frontier of four columns.  Victim rows of 3, 2, 1, 4 and 3 pages: the
    3-page row takes frontier row 0 and the 1-page row, found by the lookahead, its last
    column; the 2-page row row 1 with its own columns; the 4-page row fits nowhere, so its
    first two pages fill row 1 and the rest go whole to row 2; the last 3-page row splits
    over rows 2 and 3.  Thirteen pages take thirteen slots: none is left unwritten."""
    from flashrr._core.engine_py import ReferenceEngine
    from flashrr._core.layout import build_layout

    cfg = _aligned(tiny_config(planes=4, sb_planes=4, blocks=16, pages=8), True)
    ftl = ReferenceEngine(build_layout(cfg), None).ftl
    ftl.open_gc(0)
    offs = [0, 0, 0, 1, 1, 2, 3, 3, 3, 3, 4, 4, 4]
    own = [0, 1, 2, 0, 1, 0, 0, 1, 2, 3, 1, 2, 3]
    order, cols = ftl.gc_plan(0, offs, own)
    assert order == [0, 1, 2, 5, 3, 4, 6, 7, 8, 9, 10, 11, 12]
    assert cols == [0, 1, 2, 0, 1, 3, 2, 3, 2, 3, 1, 0, 3]
    rows = {}
    for q in order:                                          # write them as the engine does
        ppn = ftl.gc_slot(0, cols[q])
        rows.setdefault(ppn % 8, []).append(q)
    assert rows == {0: [0, 1, 2, 5], 1: [3, 4, 6, 7], 2: [8, 9, 10, 11], 3: [12]}


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_gc_with_aligned_moves_keeps_the_device_running_when_full(engine):
    """A full 4-block-superblock device under random one-page rewrites: its GC victims hold rows
    of every size, so a GC that left a row's free columns unwritten would gain little from
    each victim and run the lanes out of free superblocks; packing the rows, 20,000 rewrites
    finish, with a WAF of a few pages per write."""
    cfg = tiny_config(planes=4, sb_planes=4, blocks=16, pages=16, op=0.2, gc_ratio=0.1, rr_enabled=False,
                      fill_ratio=1.0)
    lpns = np.random.default_rng(1).integers(0, cfg.logical_pages, 20_000)
    s = flashrr.simulate(_aligned(cfg, True), page_trace(lpns, writes=np.ones(lpns.size, bool)), engine=engine,
                         check_invariants=True).summary
    assert s["gc_count"] > 1_000 and 1 < s["waf"] < 20
