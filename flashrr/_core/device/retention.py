"""Retention buckets: how the engine indexes the error model's tables by the age of a
block's data.

Retention is discretised in buckets of ``q = retention / quantum`` (integer
quanta, ``error_model.retention_quantum_s``), four per power of two: bucket ``j``
is ``q = j`` for ``j < 4``, else ``q`` in ``[(4 + m) * 2**(e - 2), (5 + m) *
2**(e - 2))`` with ``e = j // 4 + 1``, ``m = j % 4``.  A bucket's tables are
evaluated at its upper edge (in quanta), so a block's retention is rounded up by
less than a quarter (at least one quantum); the last bucket, ``N_RET_BUCKETS - 1``,
holds every older block.  The tables are built above the engine
(``flashrr/reliability/engine_tables.py``) on these buckets; ``errors.pyx`` computes
the same bucket in C (``SUB`` there must equal this one)."""
from __future__ import annotations

import numpy as np

SUB = 2                                   # log2 of the retention buckets per power of two
N_RET_BUCKETS = 4 * 30                    # buckets 0 .. 119 cover retentions below 2**31 quanta


def ret_bucket(q: int) -> int:
    """The retention bucket of ``q`` >= 0 quanta (module docstring)."""
    if q < (1 << SUB):
        return int(q)
    e = int(q).bit_length() - 1
    return min(((e - SUB + 1) << SUB) + ((q >> (e - SUB)) & ((1 << SUB) - 1)), N_RET_BUCKETS - 1)


def bucket_lower(j) -> np.ndarray:
    """Lowest retention (quanta) of bucket(s) ``j``."""
    j = np.asarray(j, dtype=np.int64)
    e = (j >> SUB) + SUB - 1
    m = j & ((1 << SUB) - 1)
    big = np.left_shift(np.int64(1) << SUB | m, np.maximum(e - SUB, 0))
    return np.where(j < (1 << SUB), j, big)


def bucket_upper(j) -> np.ndarray:
    """One past the highest retention (quanta) of bucket(s) ``j``: where the tables are evaluated."""
    return bucket_lower(np.asarray(j, dtype=np.int64) + 1)
