"""Cache layer (twin of ``cache.pyx``): the DRAM data cache, LRU over pages,
write-back.  docs/model.md section 3 gives the rules."""
from __future__ import annotations

from collections import OrderedDict


class Cache:
    def __init__(self, cap: int):
        self.cap = cap  # pages
        self.d: OrderedDict[int, bool] = OrderedDict()  # lpn -> dirty; last = most recent

    def __contains__(self, lpn: int) -> bool:
        return lpn in self.d

    def touch(self, lpn: int, dirty: bool = False) -> None:
        """A hit: the page becomes most recent (and dirty if written)."""
        if dirty:
            self.d[lpn] = True
        self.d.move_to_end(lpn)

    def insert(self, lpn: int, dirty: bool, evicted_dirty: list) -> None:
        """Insert ``lpn`` as most recent; a dirty LRU victim is appended to ``evicted_dirty``."""
        if len(self.d) >= self.cap:
            old, old_dirty = self.d.popitem(last=False)
            if old_dirty:
                evicted_dirty.append(old)
        self.d[lpn] = dirty
