"""Shuffler (Liao et al., TOS 2026): Latin-square card shuffling at superblock RR.

At every superblock-granularity read reclaim, Shuffler looks only at the *k*
block-level read counts ``BR_i`` of the superblock (no page counters, so no
DRAM cost) and picks a routine (Algorithm 1):

* ``Delta_i = |BR_i - mean(BR)| / mean(BR)`` for every component block (Eq. 7);
* **full** shuffling of all *k* blocks when ``max(Delta) >= delta_f``;
* otherwise **partial** shuffling of the blocks with ``Delta_i >= delta_p``,
  when there are more than one of them;
* otherwise **none**: a conventional RR (every page stays in its component).

Shuffling with *n* involved blocks splits the page offsets ``0..m-1`` of a
block into *n* cards by one random grouping, the same for every involved block
(Section 3.3), so card ``j`` of every block holds the same offsets.  Card ``j``
of the involved block at position ``i`` moves to the involved block at position
``(i - j) mod n`` (Eq. 9).  Each destination block therefore receives exactly
one card from each involved source block (a Latin square), and the pages that
shared an offset (a superpage) go to *n* distinct blocks; since pages keep
their source order within a destination block, a fully valid superblock
migrated into an aligned frontier keeps every superpage at one offset.

Interpretations (the paper leaves these open; each is a parameter):

* ``cards="random"`` (default): a fresh seeded random grouping of offsets at
  every shuffle ("before initiating a new shuffling round, data pages within
  each block are reorganized into multiple cards"), with card sizes differing
  by at most one page when *n* does not divide *m*.  ``"contiguous"`` uses
  fixed runs of consecutive offsets instead (no randomness; for ablations).
* Thresholds compare with ``>=``, as Algorithm 1 lines 6 and 15 do (the prose
  says "greater than"); ``Delta`` is computed as the single division
  ``|n*BR_i - sum(BR)| / sum(BR)`` of exact integers, so a count that lies
  exactly on a threshold compares equal to it.
* The partial set keeps component order; positions in Eq. 9 are positions in
  that set.  A partial set that holds every block is still labelled
  ``"partial"`` (Algorithm 1 reaches it through the partial branch).
* GC migrations are not shuffled (the paper shuffles only during RR).
* ``policy_time_s`` (Fig. 19) is wall-clock time, in seconds, spent inside
  Shuffler's hooks (routine selection, card forming and destination mapping);
  the paper measures the same work inside MQSim.
"""
from __future__ import annotations

import time

import numpy as np

from ...policy import EngineState, Policy, register_policy

ROUTINES = ("full", "partial", "none")
CARD_MODES = ("random", "contiguous")
# Mixed into the run seed so the card draws do not reuse the engine's warm-up stream.
_SEED_SALT = 0x5B_FF_1E


def block_deltas(block_reads) -> np.ndarray:
    """Eq. 7 for every component block: ``|BR_i - mean| / mean`` (unitless).

    ``block_reads`` is a sequence of non-negative read counts.  The mean is
    taken over all of them; if it is 0, every delta is 0.
    """
    br = np.asarray(block_reads, dtype=np.int64)
    total = int(br.sum())
    if br.size == 0 or total == 0:
        return np.zeros(br.size, dtype=np.float64)
    # |n*BR_i - S| / S: one correctly rounded division of exact integers
    return np.abs(br * br.size - total).astype(np.float64) / float(total)


def card_of_offsets(n_offsets: int, n_cards: int, rng=None) -> np.ndarray:
    """Card index (``0..n_cards-1``) of every page offset of a block.

    With an ``rng`` the offsets are grouped at random (a permutation cut into
    ``n_cards`` runs whose sizes differ by at most one); without one, card
    ``j`` is the ``j``-th run of consecutive offsets.  The same array applies
    to every involved block, which is what keeps superpages together.
    """
    if n_cards < 1:
        raise ValueError(f"n_cards must be >= 1, got {n_cards}")
    order = rng.permutation(n_offsets) if rng is not None else np.arange(n_offsets)
    cards = np.empty(n_offsets, dtype=np.int32)
    cards[order] = (np.arange(n_offsets, dtype=np.int64) * n_cards // max(n_offsets, 1)).astype(np.int32)
    return cards


def latin_destinations(comps, offsets, involved, card_of_offset) -> np.ndarray:
    """Destination component of each page under Eq. 9.

    ``comps``/``offsets``: source component and page offset of each page;
    ``involved``: sorted component indices taking part (size n);
    ``card_of_offset``: card index of each offset.  A page of involved block at
    position ``i`` in card ``j`` goes to involved position ``(i - j) mod n``;
    pages of other blocks stay where they are.
    """
    comps = np.asarray(comps)
    dest = comps.astype(np.int32).copy()
    involved = np.asarray(involved, dtype=np.int64)
    n = involved.size
    if n < 2:
        return dest
    pos = np.full(int(max(comps.max(initial=0), involved.max())) + 1, -1, dtype=np.int64)
    pos[involved] = np.arange(n)
    src_pos = pos[comps]
    moving = src_pos >= 0
    cards = np.asarray(card_of_offset)[np.asarray(offsets)[moving]]
    dest[moving] = involved[(src_pos[moving] - cards) % n]
    return dest


@register_policy
class Shuffler(Policy):
    """Shuffler: card shuffling over a Latin square at superblock RR.

    Parameters: ``delta_f`` (full-shuffling threshold on Eq. 7's Delta,
    unitless, default 0.30), ``delta_p`` (partial-shuffling threshold, default
    0.10; ``0 <= delta_p <= delta_f``), ``cards`` (``"random"`` or
    ``"contiguous"`` grouping of offsets into cards).  No DRAM metadata.

    Extra metrics: ``shuffle_full``, ``shuffle_partial``, ``shuffle_none``
    (RRs per routine), ``shuffle_pages_relocated`` (pages moved to another
    component block) and ``policy_time_s`` (seconds in Shuffler's code).
    """

    name = "shuffler"
    place_kinds = ("rr",)

    def __init__(self, delta_f: float = 0.30, delta_p: float = 0.10, cards: str = "random"):
        super().__init__()
        for label, v in (("delta_f", delta_f), ("delta_p", delta_p)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v) or v < 0:
                raise ValueError(f"shuffler: {label} must be a finite number >= 0, got {v!r}")
        if delta_p > delta_f:
            raise ValueError(f"shuffler: delta_p ({delta_p}) must not exceed delta_f ({delta_f})")
        if cards not in CARD_MODES:
            raise ValueError(f"shuffler: cards must be one of {CARD_MODES}, got {cards!r}")
        self.delta_f = float(delta_f)
        self.delta_p = float(delta_p)
        self.cards = cards
        self.bind(None, 0)

    def params(self) -> dict:
        return {"delta_f": self.delta_f, "delta_p": self.delta_p, "cards": self.cards}

    def bind(self, config, seed: int) -> None:
        self._rng = np.random.default_rng([int(seed), _SEED_SALT])
        self._plan: dict[int, tuple] = {}  # sb -> (involved components, card of each offset)
        self._counts = dict.fromkeys(ROUTINES, 0)
        self._relocated = 0
        self._time_s = 0.0

    @staticmethod
    def select_routine(block_reads, delta_f: float = 0.30, delta_p: float = 0.10) -> tuple[str, tuple]:
        """Algorithm 1 on the read counts of a superblock's component blocks.

        Returns ``(routine, involved)``: ``("full", all indices)`` when
        ``max Delta >= delta_f``; ``("partial", indices with Delta >= delta_p)``
        when that set has more than one block; ``("none", ())`` otherwise.
        """
        if int(np.asarray(block_reads, dtype=np.int64).sum()) <= 0:
            return "none", ()  # no reads at all: nothing to balance
        deltas = block_deltas(block_reads)
        if deltas.max() >= delta_f:
            return "full", tuple(range(deltas.size))
        partial = tuple(int(i) for i in np.flatnonzero(deltas >= delta_p))
        if len(partial) > 1:
            return "partial", partial
        return "none", ()

    def on_read_reclaim(self, state: EngineState, sb: int) -> str:
        t0 = time.perf_counter()
        routine, involved = self.select_routine(state.superblock_block_reads(sb), self.delta_f, self.delta_p)
        self._counts[routine] += 1
        if routine == "none":
            self._plan.pop(sb, None)
        else:
            rng = self._rng if self.cards == "random" else None
            cards = card_of_offsets(state.layout.pages_per_block, len(involved), rng)
            self._plan[sb] = (np.asarray(involved, dtype=np.int64), cards)
        self._time_s += time.perf_counter() - t0
        return routine

    def place_migration(self, state: EngineState, kind: str, sb: int, comps, offsets, lpns):
        if kind != "rr" or sb not in self._plan:
            return comps
        t0 = time.perf_counter()
        involved, cards = self._plan.pop(sb)
        dest = latin_destinations(comps, offsets, involved, cards)
        self._relocated += int(np.count_nonzero(dest != comps))
        self._time_s += time.perf_counter() - t0
        return dest

    def extra_metrics(self) -> dict:
        return {"shuffle_full": self._counts["full"], "shuffle_partial": self._counts["partial"],
                "shuffle_none": self._counts["none"], "shuffle_pages_relocated": self._relocated,
                "policy_time_s": self._time_s}
