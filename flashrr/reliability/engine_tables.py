"""The error model as the engine uses it: lookup tables of block read counts.

The engine never evaluates the RBER model on a read.  It looks up, for a block's
P/E cycles and the retention bucket of its data, two kinds of read counts that
this module computes once per P/E value (NumPy, on a rare event):

* ``trigger``: the block read count at which the worst page's expected errors
  reach ``read_reclaim.rber_fraction`` of the capability (the ``"rber"`` RR
  trigger, :func:`flashrr.reliability.trigger_reads`);
* ``switch[s]`` for ``s = 0 .. S``: the block read count from which a read needs
  more than ``s`` retry steps, i.e. the worst page expects more errors than step
  ``s`` corrects; a read at or past ``switch[S]`` is uncorrectable.

Retention is discretised in the engine's buckets (``flashrr/_core/device/retention.py``,
four per power of two of the data's age in quanta); a bucket's tables are evaluated at
its upper edge.  Read counts are int32; a count that is never reached is stored as
``INT32_MAX``.

The engines hold one table over a range of P/E counts, from the lowest initial
count to ``PE_HEADROOM`` past the highest, and extend it (:meth:`ErrorTables.grown`)
when an erase takes a block past its end; both call :meth:`ErrorTables.rows` with the
same ranges and :meth:`ErrorTables.margin`, so they see the same numbers.
"""
from __future__ import annotations

import numpy as np

from .._core.device.retention import N_RET_BUCKETS, bucket_upper
from ..config import ConfigError, SimConfig
from .ecc import ECC, RetryLadder
from .presets import ecc_preset, rber_preset
from .trigger import NEVER, reads_to_errors, trigger_reads
from .wear import draw_initial_pe

INT32_MAX = 2**31 - 1
NS_PER_S = 1_000_000_000
PE_HEADROOM = 64                          # P/E counts a table covers beyond the highest it was built for


def _model_of(cfg: SimConfig):
    """(RBER model, ECC, ladder factor) of the config's preset."""
    em = cfg.error_model
    if em.rber_preset.startswith("fit-"):
        from .fit import fitted_to

        f = fitted_to(em.rber_preset[4:], em.ladder_growth)
        model, ecc, factor = f.model, f.ecc, f.ladder.factor
    else:
        model, ecc = rber_preset(em.rber_preset), ecc_preset(em.rber_preset)
        factor = 0.5 if em.ladder_growth == "linear" else 1.5
    if em.ecc_t_bits:
        ecc = ECC(ecc.codeword_bytes, em.ecc_t_bits)
    return model, ecc, em.ladder_factor or factor


class ErrorTables:
    """What the engine needs of the error model for one run (``cfg.error_model`` on)."""

    def __init__(self, cfg: SimConfig, n_blocks: int):
        em = cfg.error_model
        if not em.enabled:
            raise ConfigError("error_model.enabled: must be true to build the engine's error tables (got False)")
        self.model, self.ecc, factor = _model_of(cfg)
        self.trigger_on = cfg.read_reclaim.trigger == "rber"
        self.retry_on = cfg.read_retry.retry_model == "rber"
        self.fraction = float(cfg.read_reclaim.rber_fraction)
        #: the worst word-line layer's RBER multiplier: the tables and margins are its worst page's
        self.layer = float(em.worst_layer_factor)
        #: the retry ladder: the read_retry table's steps under "rber", else none (hard decision only)
        extra = cfg.read_retry.extra_ns_by_retries() if self.retry_on else (0,)
        self.ladder = RetryLadder(extra, em.ladder_growth, factor)
        self.n_steps = self.ladder.n_steps
        #: capability (bits per codeword) the trigger and the RR margin refer to: the ladder's last step
        self.capability = float(self.ladder.capability(self.ecc)[-1])
        self.quantum_ns = max(1, int(round(em.retention_quantum_s * NS_PER_S)))
        self.age_ns = int(round(em.data_age_s * NS_PER_S))
        self.initial_pe = (draw_initial_pe(n_blocks, em.initial_pe_mean, em.initial_pe_sd, em.initial_pe_seed)
                           .astype(np.int32))
        top = np.iinfo(np.int64).max
        # int64 [buckets]: where each bucket ends (ns of retention), saturated; the last never ends
        self.upper_ns = np.array([min(int(u) * self.quantum_ns, top) for u in bucket_upper(np.arange(N_RET_BUCKETS))],
                                 dtype=np.int64)
        self.upper_ns[-1] = top
        self._ret_s = bucket_upper(np.arange(N_RET_BUCKETS)) * (self.quantum_ns / NS_PER_S)

    @staticmethod
    def _counts(r: np.ndarray) -> np.ndarray:
        return np.where(r == NEVER, INT32_MAX, np.minimum(r, INT32_MAX)).astype(np.int32)

    def rows(self, pe_lo: int, pe_hi: int) -> np.ndarray:
        """int32 ``[pe_hi - pe_lo, N_RET_BUCKETS, 1 + n_steps + 1]``: for each P/E count in
        ``[pe_lo, pe_hi)`` and retention bucket, the trigger read count, then ``switch[0 ..
        n_steps]`` (module docstring).  One vectorised evaluation per call."""
        pe = np.arange(pe_lo, pe_hi, dtype=np.float64)[:, None]
        out = np.empty((pe_hi - pe_lo, N_RET_BUCKETS, self.n_steps + 2), np.int32)
        ret = self._ret_s[None, :]
        first = trigger_reads(self.model, self.ecc, pe, ret, self.fraction, self.ladder, self.layer)
        out[:, :, 0] = self._counts(first)
        for s, cap in enumerate(self.ladder.capability(self.ecc)):
            out[:, :, 1 + s] = self._counts(reads_to_errors(self.model, self.ecc, pe, ret, cap, True, self.layer))
        return out

    def initial_range(self) -> tuple:
        """P/E counts the first table covers: the initial draws, and PE_HEADROOM erases more."""
        return int(self.initial_pe.min()), int(self.initial_pe.max()) + 1 + PE_HEADROOM

    @staticmethod
    def grown(pe_lo: int, pe_hi: int, pe: int) -> int:
        """The new end of a table over ``[pe_lo, pe_hi)`` that must cover ``pe``."""
        return max(pe + 1, pe_hi + max(PE_HEADROOM, (pe_hi - pe_lo) // 2))

    def margin(self, pe, retention_ns, reads) -> float | None:
        """RBER margin of a superblock at an RR: ``1 - errors / capability`` for the worst
        page of its worst block, ``errors`` the expected raw errors per codeword at the
        blocks' exact state (``pe`` cycles, ``retention_ns`` since each block's first
        program, ``reads``; arrays over the blocks holding data).  None for none."""
        pe = np.asarray(pe, dtype=np.float64)
        if pe.size == 0:
            return None
        ret_s = np.asarray(retention_ns, dtype=np.float64) / NS_PER_S
        rber = self.model.rber(pe, np.maximum(ret_s, 0.0), np.asarray(reads, np.float64), self.model.worst_page,
                               self.layer)
        return float(1.0 - self.ecc.expected_errors(rber).max() / self.capability)


def error_tables(cfg: SimConfig, n_blocks: int):
    """The run's :class:`ErrorTables`, or None when the error model is off."""
    return ErrorTables(cfg, n_blocks) if cfg.error_model.enabled else None
