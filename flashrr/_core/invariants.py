"""The FTL invariants both engines are checked against (invariant mode)."""
from __future__ import annotations

import numpy as np

from .layout import SB_FREE, Layout


def check_state(L: Layout, l2p, p2l, sb_valid, sb_state, n_filled: int = 0) -> None:
    """Raise AssertionError unless the mapping is a bijection onto valid pages, the
    per-superblock valid counts match, and no LPN below ``n_filled`` was lost."""
    assert np.all(l2p[:n_filled] >= 0), f"LPN {int(np.argmax(l2p[:n_filled] < 0))} was lost"
    mapped = np.flatnonzero(l2p >= 0)
    ppns = l2p[mapped]
    assert np.unique(ppns).size == ppns.size, "two LPNs map to the same physical page"
    assert np.array_equal(p2l[ppns], mapped), "p2l does not invert l2p"
    assert np.count_nonzero(p2l >= 0) == mapped.size, "a physical page is valid without a logical owner"
    per_sb = np.bincount(ppns // (L.pages_per_block * L.k), minlength=L.n_superblocks)
    assert np.array_equal(per_sb, sb_valid), "superblock valid counts are wrong"
    assert not np.any((sb_state == SB_FREE) & (sb_valid > 0)), "a free superblock holds valid pages"
