"""PhasedRR (Li et al., MSST 2024): read reclaim without page counters.

The compiled mechanism (``flashrr/_core/mechanisms/working_sets.pyx``, twin
``working_sets_py.py``) does the per-read work; this class only switches it
on and charges its DRAM.  Per block, from the soft threshold
``S = H - delta_reads * sum(phase_mult)`` on (``H``: the block's RR threshold):

* three working sets (1 bit per page) over windows of ``phase_mult[0..2]``
  times ``delta_reads`` block reads (Delta, 2 Delta, 4 Delta);
* hottest pages (in all three sets) move in idle time during Phase I (the third
  window); whatever is left of them is forced at its end;
* hotter pages (in exactly two) move in idle time in Phase II
  (``phase_mult[3]`` Delta), the rest forced at its end;
* tepid pages (in exactly one) move in idle time when visited in Phase III
  (``phase_mult[4]`` Delta); cold pages and unmoved tepid pages wait for the
  hard threshold (the ordinary RR).

DRAM: the bitmaps take ``3 * ceil(pages_per_block / 8)`` bytes per candidate
block (96 B for 256 pages).  The cache is charged for a fixed pool of
``max_blocks`` candidate blocks (default 853 = 80 KiB / 96 B, the paper's
reported peak); a block that reaches ``S`` while the pool is full is not
tracked and waits for the hard threshold (counter ``ws_pool_full``).  The peak
actually used is reported as ``ws_peak_bytes``.  docs/phasedrr.md lists every
interpretation.
"""
from __future__ import annotations

from ...config import ConfigError
from ..._core.mechanisms.early_moves_py import EarlyMode, EarlyMovesSpec
from ..._core.mechanisms.streams_py import RRStreamsSpec, StreamMode, StreamSpec
from ..._core.mechanisms.working_sets_py import WorkingSetsSpec
from ...policy import Policy, register_policy

DEFAULT_PHASE_MULT = (1, 2, 4, 2, 1)
# 80 KiB / 96 B: the peak working-set memory PhasedRR reports (Fig. 10), in blocks of 256 pages
DEFAULT_MAX_BLOCKS = 853


def ws_bytes_per_block(pages_per_block: int) -> int:
    """Modelled DRAM (bytes) of one block's three 1-bit-per-page working sets."""
    return 3 * ((int(pages_per_block) + 7) // 8)


def phase_bounds(rr_threshold: int, delta_reads: int, phase_mult=DEFAULT_PHASE_MULT) -> tuple:
    """``(S, t1, t2, t3, t4)`` in block reads: the soft threshold and the starts of
    WS II, WS III (Phase I), Phase II and Phase III, for a block RR threshold ``H``."""
    s = int(rr_threshold) - int(delta_reads) * sum(phase_mult)
    out = [s]
    for m in phase_mult[:4]:
        out.append(out[-1] + int(delta_reads) * int(m))
    return tuple(out)


@register_policy
class PhasedRR(Policy):
    """PhasedRR.  Parameters: ``delta_reads`` (Delta, block reads, default 256),
    ``phase_mult`` (lengths of WS I, WS II, WS III = Phase I, Phase II, Phase III in
    units of Delta, default (1, 2, 4, 2, 1)), ``max_blocks`` (candidate blocks the
    working-set pool holds and the cache is charged for, default 853)."""

    name = "phasedrr"
    place_kinds = ()

    def __init__(self, delta_reads: int = 256, phase_mult=DEFAULT_PHASE_MULT, max_blocks: int = DEFAULT_MAX_BLOCKS):
        super().__init__()
        if isinstance(delta_reads, bool) or not isinstance(delta_reads, int) or delta_reads < 1:
            raise ValueError(f"phasedrr: delta_reads must be a positive integer (block reads), got {delta_reads!r}")
        mult = tuple(phase_mult) if isinstance(phase_mult, (list, tuple)) else ()
        if len(mult) != 5 or any(isinstance(m, bool) or not isinstance(m, int) or m < 1 for m in mult):
            raise ValueError(f"phasedrr: phase_mult must be 5 positive integers (WS I, WS II, WS III, Phase II, "
                             f"Phase III lengths in units of delta_reads), got {phase_mult!r}")
        if isinstance(max_blocks, bool) or not isinstance(max_blocks, int) or max_blocks < 1:
            raise ValueError(f"phasedrr: max_blocks must be a positive integer, got {max_blocks!r}")
        self.delta_reads, self.phase_mult, self.max_blocks = delta_reads, mult, max_blocks

    def params(self) -> dict:
        return {"delta_reads": self.delta_reads, "phase_mult": list(self.phase_mult), "max_blocks": self.max_blocks}

    def bind(self, config, seed: int) -> None:
        if config is None:
            return
        thr = config.read_reclaim.rr_threshold_reads
        span = self.delta_reads * sum(self.phase_mult)
        if span > thr:
            raise ConfigError(f"phasedrr: delta_reads * sum(phase_mult) = {span} block reads exceeds "
                              f"read_reclaim.rr_threshold_reads = {thr}; the soft threshold would be negative")

    def pool_blocks(self, config) -> int:
        return min(self.max_blocks, config.geometry.n_blocks)

    def metadata_bytes(self, config) -> int:
        return self.pool_blocks(config) * ws_bytes_per_block(config.geometry.pages_per_block)

    def working_sets_spec(self):
        return WorkingSetsSpec(self.delta_reads, self.phase_mult, self.max_blocks)


# ------------------------------------------------------------------ the paper's counter-based baselines

DEFAULT_START_READS = 10 * 256  # the same soft threshold as PhasedRR's default: H - 10 Delta


class _CounterEarlyRR(Policy):
    """Shared by RL-RR and Reallocation: one 2-byte read counter per logical page,
    charged to the DRAM cache (``charge_metadata=False`` gives the paper's "W/o-O"
    variant of Fig. 2), and the compiled early moves of ``flashrr/_core/mechanisms/early_moves.pyx``
    from ``start_reads`` block reads before the RR threshold."""

    page_counter_group = 1
    counter_bytes = 2
    place_kinds = ()
    mode = 0

    def __init__(self, start_reads: int = DEFAULT_START_READS, charge_metadata: bool = True):
        super().__init__()
        if isinstance(start_reads, bool) or not isinstance(start_reads, int) or start_reads < 1:
            raise ValueError(f"{self.name}: start_reads must be a positive integer (block reads), got {start_reads!r}")
        if not isinstance(charge_metadata, bool):
            raise ValueError(f"{self.name}: charge_metadata must be True or False, got {charge_metadata!r}")
        self.start_reads, self.charge_metadata = start_reads, charge_metadata

    def params(self) -> dict:
        return {"start_reads": self.start_reads, "charge_metadata": self.charge_metadata}

    def metadata_bytes(self, config) -> int:
        return super().metadata_bytes(config) if self.charge_metadata else 0

    def _rl(self) -> tuple:
        return (0.0, 0.0, 0.0)

    def early_moves_spec(self):
        return EarlyMovesSpec(self.mode, self.start_reads, *self._rl())


@register_policy
class RlRR(_CounterEarlyRR):
    """RL-RR (Li et al., TODAES 2020) as a stand-in (docs/phasedrr.md): from
    ``start_reads`` before the RR threshold, a tabular Q-learning agent decides at the
    end of every request how many of the head candidate's hottest pages (by page
    counter) to have queued for idle time, from the last two idle gaps.  Parameters:
    ``alpha`` (0.1), ``gamma`` (0.9), ``epsilon`` (0.05, drawn from the run seed)."""

    name = "rl-rr"
    mode = EarlyMode.RL_RR

    def __init__(self, start_reads: int = DEFAULT_START_READS, charge_metadata: bool = True, alpha: float = 0.1,
                 gamma: float = 0.9, epsilon: float = 0.05):
        super().__init__(start_reads, charge_metadata)
        for label, v in (("alpha", alpha), ("gamma", gamma), ("epsilon", epsilon)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
                raise ValueError(f"rl-rr: {label} must be a number in [0, 1], got {v!r}")
        self.alpha, self.gamma, self.epsilon = float(alpha), float(gamma), float(epsilon)

    def params(self) -> dict:
        return {**super().params(), "alpha": self.alpha, "gamma": self.gamma, "epsilon": self.epsilon}

    def _rl(self) -> tuple:
        return (self.alpha, self.gamma, self.epsilon)


MAX_DEST = 8  # open blocks per stream and lane the streams mechanism holds


@register_policy
class Reallocation(_CounterEarlyRR):
    """Reallocation (Liao et al., TECS 2022) as a stand-in (docs/phasedrr.md).

    Timing: from ``start_reads`` before the RR threshold, the head candidate's hottest
    page moves in idle time when its read-retry saving ``w / sum(w) * (H - c) *
    retry_extra(c)`` is at least the expected cost ``t_move * min(1, t_move / mean idle
    gap)``.

    Matching: every page moved by RR logic (idle moves and the mandatory RR at H) goes
    to one of ``n_dest`` (4) open destination blocks per lane (the compiled RR streams
    in budget mode): hottest first, each page with a read count to the block with the
    largest read budget left (its RR threshold minus its block reads minus the counts
    of the pages already placed in it), which the count is taken from; pages with count
    0 round-robin.  Page counters restart when a page is programmed.  ``n_dest=0``
    sends every page to the lane's GC/RR frontier instead.  Block-level: with
    ``n_dest > 0`` the superblock size must be 1."""

    name = "reallocation"
    mode = EarlyMode.REALLOCATION

    def __init__(self, start_reads: int = DEFAULT_START_READS, charge_metadata: bool = True, n_dest: int = 4):
        super().__init__(start_reads, charge_metadata)
        if isinstance(n_dest, bool) or not isinstance(n_dest, int) or not 0 <= n_dest <= MAX_DEST:
            raise ValueError(f"reallocation: n_dest must be an integer from 0 to {MAX_DEST} (open destination "
                             f"blocks per lane; 0 = the GC/RR frontier), got {n_dest!r}")
        self.n_dest = n_dest
        self._pages_per_block = None

    def params(self) -> dict:
        return {**super().params(), "n_dest": self.n_dest}

    def bind(self, config, seed: int) -> None:
        if config is None or not self.n_dest:
            return
        if config.superblock.k != 1:
            raise ConfigError(f"reallocation: the destination matching (n_dest = {self.n_dest}) is block-level; "
                              f"superblock size must be 1 (superblock.sb_* = 1), got {config.superblock.k}; "
                              f"or use n_dest=0")
        self._pages_per_block = config.geometry.pages_per_block

    def rr_streams_spec(self):
        if not self.n_dest:
            return None
        if self._pages_per_block is None:
            raise ConfigError("reallocation: bind(config, seed) must be called before the engine is built")
        return RRStreamsSpec(StreamMode.BUDGET, 65535, (StreamSpec(1, self._pages_per_block, self.n_dest, -1),))
