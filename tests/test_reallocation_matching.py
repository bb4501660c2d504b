"""Reallocation's destination matching (flashrr.papers.phasedrr.policies.Reallocation with
``n_dest``; the compiled RR streams in budget mode, flashrr/_core/mechanisms/streams.pyx, and its
twin): which page lands on which open destination block, for the mandatory RR at the
threshold and for idle-time moves, on both engines; engine equivalence under
hypothesis with the invariant checks on."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import event, given, settings

from engine_helpers import CAPACITY_ERROR, assert_identical, build_engine, run_both, tiny_config
from flashrr.config import ConfigError, ReadRetryConfig
from flashrr.papers.phasedrr.policies import Reallocation
from strategies import reallocation_matching_case

ENGINES = ("compiled", "reference")
N = 8  # pages per block
H = 100  # RR threshold (block reads)
F = 4  # open destination blocks per lane
PAGE = 4096  # bytes (tiny_config)


def _cfg(retry=None):
    """One plane (one lane), blocks of 8 pages, H = 100; retry=None: no read-retry model, so
    Reallocation's saving is 0 and nothing moves before H."""
    return tiny_config(blocks=32, pages=N, rr=H, gc_ratio=0.1, retry=retry, t_read=85_000, t_prog=1_000_000,
                       t_erase=5_000_000)


def greedy(budgets, weights, cold_next, rooms=None):
    """An independent model of the matching: ``weights`` in placement order (hottest
    first); each page with weight goes to the largest remaining budget (first on a tie)
    and uses it up; weight 0 goes round-robin from ``cold_next``.  ``rooms``: free pages
    of each slot's block (default: never fills); a block that fills is replaced by a
    fresh one (budget H, N pages).  Returns the slots, the next cold slot and how many
    times each slot's block was replaced before each page was placed."""
    budgets, out, gens = list(budgets), [], []
    rooms = list(rooms) if rooms is not None else [N * len(weights) + 1] * len(budgets)
    gen = [0] * len(budgets)
    for w in weights:
        if w == 0:
            r, cold_next = cold_next, (cold_next + 1) % len(budgets)
        else:
            r = max(range(len(budgets)), key=lambda j: (budgets[j], -j))
        budgets[r] -= w
        rooms[r] -= 1
        out.append(r)
        gens.append(gen[r])
        if rooms[r] == 0:
            budgets[r], rooms[r], gen[r] = H, N, gen[r] + 1
    return out, cold_next, gens


def _reads(counts: dict) -> list:
    """Page reads giving each LPN its count, interleaved (round-robin over the LPNs)."""
    left, out = dict(counts), []
    while any(left.values()):
        for lpn in sorted(left):
            if left[lpn]:
                out.append(lpn)
                left[lpn] -= 1
    return out


class Driver:
    """A bound, preconditioned engine fed one request at a time (10 ms apart)."""

    def __init__(self, engine, policy, cfg, fill):
        self.eng = build_engine(engine, cfg, policy, fill)
        self.t = 0

    def read(self, lpns):
        for lpn in lpns:
            self.t += 10_000_000  # absolute arrival times (a Trace would start each one at 0)
            self.eng.run(np.array([self.t], np.int64), np.array([lpn * PAGE], np.int64), np.array([PAGE], np.int64),
                         np.zeros(1, bool))

    def block_of(self, lpn):
        return int(self.eng.state_view(self.t).l2p[lpn]) // N

    def slot_blocks(self):
        """Open block of each destination slot of lane 0 (stream 1 of the streams' arrays)."""
        return [int(b) for b in self.eng.mechanism("rr_streams").array("open_blk").reshape(-1, 4, 8)[0, 1, :F]]


# Victim A (LPNs 0-7, one block): counts at the RR; hottest first, fresh slots with budget H each:
# 0 (40) -> slot 0 (100 -> 60); 1 (25) -> 1 (75); 2 (15) -> 2 (85); 3 (10) -> 3 (90);
# 4 (6) -> 3 (the largest, 90 -> 84); 5 (4) -> 2 (85 -> 81); 6 and 7 (0) -> round-robin 0, 1.
A_COUNTS = {0: 40, 1: 25, 2: 15, 3: 10, 4: 6, 5: 4, 6: 0, 7: 0}
A_SLOT = {0: 0, 1: 1, 2: 2, 3: 3, 4: 3, 5: 2, 6: 0, 7: 1}
# Then LPN 6 (now in slot 0's block) is read 30 times: budgets = H - block reads - weight given:
# slot 0: 100 - 30 - (40 + 0) = 30; slot 1: 100 - 0 - 25 = 75; slot 2: 100 - 19 = 81; slot 3: 100 - 16 = 84.
# Victim B (LPNs 8-15): 8 (50) -> slot 3 (84 -> 34); 9 (20) -> 2 (81 -> 61); 10 (20) -> 1 (75 -> 55);
# 11 (5) -> 2 (61 -> 56); 12 (5) -> 2 (56 > 55); 13, 14, 15 (0) -> round-robin from slot 2: 2, 3, 0.
B_COUNTS = {8: 50, 9: 20, 10: 20, 11: 5, 12: 5, 13: 0, 14: 0, 15: 0}
B_SLOT = {8: 3, 9: 2, 10: 1, 11: 2, 12: 2, 13: 2, 14: 3, 15: 0}


def test_the_hand_counts_agree_with_the_model():
    order_a = sorted(A_COUNTS, key=lambda p: (-A_COUNTS[p], p))
    slots, cold, _ = greedy([H] * F, [A_COUNTS[p] for p in order_a], 0)
    assert dict(zip(order_a, slots)) == A_SLOT and cold == 2
    order_b = sorted(B_COUNTS, key=lambda p: (-B_COUNTS[p], p))
    slots, _, _ = greedy([30, 75, 81, 84], [B_COUNTS[p] for p in order_b], cold)
    assert dict(zip(order_b, slots)) == B_SLOT


@pytest.mark.parametrize("engine", ENGINES)
def test_mandatory_rr_places_pages_by_remaining_read_budget(engine):
    d = Driver(engine, Reallocation(start_reads=40), _cfg(), fill=16)
    a, b = d.block_of(0), d.block_of(8)
    assert a != b and all(d.block_of(p) == a for p in A_COUNTS) and all(d.block_of(p) == b for p in B_COUNTS)
    d.read(_reads(A_COUNTS))  # 100 reads of block A: the last one triggers its RR
    slots = d.slot_blocks()
    assert min(slots) >= 0 and len(set(slots)) == F and a not in slots and b not in slots
    assert {p: slots.index(d.block_of(p)) for p in A_COUNTS} == A_SLOT
    before = int(d.eng.state_view(d.t).block_reads[slots[0]])
    d.read([6] * 30)
    assert int(d.eng.state_view(d.t).block_reads[slots[0]]) == before + 30
    d.read(_reads(B_COUNTS))  # block B's RR
    assert d.slot_blocks() == slots  # no slot filled
    assert {p: slots.index(d.block_of(p)) for p in B_COUNTS} == B_SLOT
    assert all(d.block_of(p) == slots[A_SLOT[p]] for p in A_SLOT)  # A's pages stayed


@pytest.mark.parametrize("engine", ENGINES)
def test_a_destination_block_that_fills_is_replaced_by_a_fresh_one(engine):
    """n_dest = 2, victims A then B with A_COUNTS / B_COUNTS.  A: 0 (40) -> slot 0 (60);
    1 (25) -> 1 (75); 2 (15) -> 1 (60); 3 (10) -> 0 (tie 60/60: 50); 4 (6) -> 1 (54);
    5 (4) -> 1 (50); 6, 7 (0) -> 0, 1.  Slot 0 holds 3 pages, slot 1 holds 5 (3 free).
    B, budgets 100 - 0 - 50 = 50 each: 8 (50) -> slot 0 (0); 9 (20) -> 1 (30); 10 (20) ->
    1 (10); 11 (5) -> 1 (5), which fills slot 1's block: a fresh one (budget 100) takes
    the slot; 12 (5) -> the fresh block (95); 13, 14, 15 (0) -> 0, 1 (fresh), 0."""
    a_slot = {0: 0, 1: 1, 2: 1, 3: 0, 4: 1, 5: 1, 6: 0, 7: 1}
    b_place = {8: (0, 0), 9: (1, 0), 10: (1, 0), 11: (1, 0), 12: (1, 1), 13: (0, 0), 14: (1, 1), 15: (0, 0)}
    order_a = sorted(A_COUNTS, key=lambda p: (-A_COUNTS[p], p))
    slots, cold, _ = greedy([H, H], [A_COUNTS[p] for p in order_a], 0)
    assert dict(zip(order_a, slots)) == a_slot
    order_b = sorted(B_COUNTS, key=lambda p: (-B_COUNTS[p], p))
    slots, _, gens = greedy([50, 50], [B_COUNTS[p] for p in order_b], cold, rooms=[N - 3, N - 5])
    assert dict(zip(order_b, zip(slots, gens))) == b_place
    d = Driver(engine, Reallocation(start_reads=40, n_dest=2), _cfg(), fill=16)
    d.read(_reads(A_COUNTS))
    first = d.slot_blocks()[:2]
    assert {p: first.index(d.block_of(p)) for p in A_COUNTS} == a_slot
    d.read(_reads(B_COUNTS))
    second = d.slot_blocks()[:2]
    assert second[0] == first[0] and second[1] not in (first[1], -1)
    blocks = [first, second]
    assert {p: d.block_of(p) for p in B_COUNTS} == {p: blocks[g][r] for p, (r, g) in b_place.items()}


@pytest.mark.parametrize("engine", ENGINES)
def test_the_four_hottest_pages_go_to_four_different_blocks_when_budgets_are_equal(engine):
    """Guide §7 test 15: equal budgets (all slots fresh), any counts: the 4 hottest pages
    take one block each."""
    counts = {0: 7, 1: 30, 2: 3, 3: 20, 4: 20, 5: 10, 6: 5, 7: 5}
    d = Driver(engine, Reallocation(start_reads=40), _cfg(), fill=8)
    d.read(_reads(counts))
    slots = d.slot_blocks()
    hottest = sorted(counts, key=lambda p: (-counts[p], p))[:4]
    assert len({d.block_of(p) for p in hottest}) == 4 and all(d.block_of(p) in slots for p in counts)


@pytest.mark.parametrize("engine", ENGINES)
def test_idle_moves_use_the_same_matching(engine):
    """With the retry model, block A becomes a candidate at 60 reads (H - start_reads);
    then every request end queues its hottest page with a count (saving >= cost), which
    moves before the next request (10 ms gaps).  Reads of block B (LPN 8) keep A's counts
    and the destination blocks' reads fixed, so the moves are the matching of
    greedy(): 0 (20) -> slot 0 (100 -> 80); 1 (14) -> 1 (86); 2 (10) -> 2 (90);
    3 (8) -> 3 (92); 4 (5) -> 3 (92 -> 87); 5 (3) -> 2 (90 -> 87).  LPNs 6 and 7 (count 0:
    no saving) stay in A."""
    counts = {0: 20, 1: 14, 2: 10, 3: 8, 4: 5, 5: 3, 6: 0, 7: 0}
    expect = {0: 0, 1: 1, 2: 2, 3: 3, 4: 3, 5: 2}
    order = sorted(expect, key=lambda p: (-counts[p], p))
    assert dict(zip(order, greedy([H] * F, [counts[p] for p in order], 0)[0])) == expect  # the hand count
    d = Driver(engine, Reallocation(start_reads=40), _cfg(ReadRetryConfig.ldpc_progressive(85_000, 24_000, 7)), 16)
    a = d.block_of(0)
    d.read(_reads(counts))  # 60 reads of A
    moved = []
    for _ in range(10):
        d.read([8])
        moved = [p for p in counts if d.block_of(p) != a]
    assert sorted(moved) == sorted(expect)
    slots = d.slot_blocks()
    assert {p: slots.index(d.block_of(p)) for p in expect} == expect
    assert d.block_of(6) == d.block_of(7) == a
    given = d.eng.mechanism("rr_streams").array("given").reshape(-1, 4, 8)[0, 1, :F]
    assert list(given) == [20, 14, 10 + 3, 8 + 5]


@pytest.mark.parametrize("engine", ENGINES)
def test_n_dest_zero_sends_pages_to_the_gc_rr_frontier(engine):
    """n_dest=0: the mandatory RR keeps the old placement, one frontier block for all pages."""
    d = Driver(engine, Reallocation(start_reads=40, n_dest=0), _cfg(), fill=8)
    d.read(_reads(A_COUNTS))
    assert len({d.block_of(p) for p in A_COUNTS}) == 1
    assert d.eng.mechanism("rr_streams") is None  # no stream is switched on


def test_parameters_are_validated():
    with pytest.raises(ValueError, match="n_dest"):
        Reallocation(n_dest=9)
    with pytest.raises(ValueError, match="n_dest"):
        Reallocation(n_dest=True)
    assert Reallocation().params()["n_dest"] == F
    cfg = tiny_config(planes=2, sb_planes=2)
    with pytest.raises(ConfigError, match="superblock size must be 1"):
        Reallocation().bind(cfg, 0)
    Reallocation(n_dest=0).bind(cfg, 0)  # the frontier placement works with superblocks


@settings(max_examples=40, deadline=None)
@given(reallocation_matching_case())
def test_engines_identical_with_the_matching(case):
    """Both engines, invariant checks on (bijection, version stamps): same summaries,
    histograms and event tables."""
    cfg, trace, pol, seed = case
    a, b = run_both(cfg, trace, pol, seed=seed, check_invariants=True)
    assert_identical(a, b, allow_error=CAPACITY_ERROR)
    if isinstance(a, Exception):
        return
    event(f"idle moves: {'yes' if a.summary['idle_moves'] else 'no'}; RR: {'yes' if a.summary['rr_count'] else 'no'}")
    event(f"a destination block filled: {'yes' if a.summary['stream_blocks'] > pol.n_dest * cfg.geometry.n_planes else 'no'}")
    assert a.summary["stream_pages"] >= a.summary["idle_moves"]
