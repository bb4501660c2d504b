"""HotR hot-read replication (twin of ``hot_replicas.pyx``; the model is described
there and in docs/hotr.md): an R-LRU of recently read pages with read counts,
replicas of hot pages in a staging space, and redirection of reads whose die
is programming."""
from __future__ import annotations

from typing import NamedTuple

from collections import OrderedDict, deque

import numpy as np

from ..layout import CAUSE_MOVE, CAUSE_USER, Layout, die_channels
from ..options.static_die_py import ppn_die, program_blocked
from ..device.sched_py import PH_PROG, PH_READ
from ..roles_py import Mechanism
from . import counter_names


class ReplicationSpec(NamedTuple):
    """HotR: ``hot_threshold`` (R-LRU reads that make a page hot), ``capacity_pages``
    (replicas held), ``staging_dies``, ``op_mode`` (over-provisioned staging instead
    of dedicated dies), ``erase_blocks`` (an erasing die also redirects),
    ``rlru_entries`` (R-LRU length, at least ``capacity_pages``), ``staging_stop``
    (a full staging space refuses new replicas instead of giving one up) and
    ``blocked_only`` (only blocked reads update the R-LRU and make replicas)."""

    hot_threshold: int
    capacity_pages: int
    staging_dies: int
    op_mode: bool
    erase_blocks: bool
    rlru_entries: int
    staging_stop: bool
    blocked_only: bool


PENDING = -2  # the replica's program waits for a staging die (dedicated mode)


class Entry:
    """An R-LRU entry: reads while listed, replica die (-1 none, PENDING), when the replica's
    program ends (ns), and replicas lost so far (a queued program is for one of them)."""

    __slots__ = ("count", "rep", "ready", "gen")

    def __init__(self):
        self.count, self.rep, self.ready, self.gen = 1, -1, 0, 0


class HotReplicas(Mechanism):
    def __init__(self, ctx, spec):
        """``spec``: (hot_threshold, capacity_pages, staging_dies, op_mode, erase_blocks,
        rlru_entries, staging_stop, blocked_only) from the policy."""
        super().__init__()
        L = self.L = ctx.layout
        self.sched = ctx.sched
        self.reset_counters()
        thr, cap, n_stage, op_mode, erase_blocks, n_max, staging_stop, blocked_only = spec
        self.staging_stop, self.blocked_only = bool(staging_stop), bool(blocked_only)
        self.thr, self.cap, self.n_stage = int(thr), int(cap), int(n_stage)
        self.n_max = max(int(n_max), self.cap)
        self.op_mode, self.erase_blocks = bool(op_mode), bool(erase_blocks)
        self.die_chan = die_channels(L)
        self.rlru: OrderedDict[int, Entry] = OrderedDict()  # LPN -> entry, LRU first, MRU last
        # the entries holding a replica (held or pending), least recently read or replicated first
        self.reps: OrderedDict[int, Entry] = OrderedDict()
        self.occupancy = 0
        self.rep_next = 0
        self.st_free = np.zeros(self.n_stage, dtype=np.int64)
        self.pending: list = []  # (lpn, entry, die of the original) owed a replica program
        self.bq: deque = deque()  # dedicated mode: (entry, gen, lpn, ready ns) replica programs waiting, FIFO
        self.redirect_blocked = False

    def counter_values(self) -> list:
        return list(self.ctr.values())

    def reset_counters(self) -> None:
        self.ctr = dict.fromkeys(counter_names("replication"), 0)

    def die_of(self, ppn: int) -> int:
        return ppn_die(self.L, ppn)

    def blocked(self, die: int, t: int) -> bool:
        return program_blocked(self.sched, die, t) or (self.erase_blocks and self.sched.die_erase_end[die] > t)

    def _drop(self, lpn: int) -> None:
        e = self.rlru.pop(lpn)
        if e.rep != -1:  # held or pending
            del self.reps[lpn]
            self.occupancy -= 1

    def redirect(self, misses: list, ppns: list, where: list, extras: list, t: int):
        """R-LRU update and redirection of the request's flash-read pages; returns the
        pages left for the original dies (misses, ppns, where, extras); ``redirect_end`` =
        the latest end of the redirected reads (0 if none)."""
        c = self.ctr
        keep = ([], [], [], [])
        redirect_end = 0
        self.pending = []
        if self.bq:
            self.drain(t)
        for i, lpn in enumerate(misses):
            die = self.die_of(where[i])
            if self.blocked_only and not self.blocked(die, t):
                for out, v in zip(keep, (lpn, ppns[i], where[i], extras[i])):
                    out.append(v)
                continue
            e = self.rlru.get(lpn)
            if e is not None:
                e.count += 1
                self.rlru.move_to_end(lpn)
                if e.rep != -1:
                    self.reps.move_to_end(lpn)
            else:
                if len(self.rlru) == self.n_max:
                    c["rlru_evictions"] += 1
                    self._drop(next(iter(self.rlru)))
                e = self.rlru[lpn] = Entry()
            if e.rep >= 0 and e.ready <= t and self.blocked(die, t):
                if self.op_mode:
                    end = self.sched.user_op(e.rep, int(self.die_chan[e.rep]), PH_READ, 1, t, self.L.t_read_ns,
                                             CAUSE_USER)
                else:
                    cost = self.L.t_read_ns + self.L.t_xfer_page_ns
                    end = max(t, int(self.st_free[e.rep])) + cost
                    self.st_free[e.rep] = end
                    c["busy_staging_ns"] += cost
                redirect_end = max(redirect_end, end)
                c["redirected_pages"] += 1
                continue
            if e.rep == -1 and e.count >= self.thr:
                self.pending.append((lpn, e, die))
            for out, v in zip(keep, (lpn, ppns[i], where[i], extras[i])):
                out.append(v)
        self.redirect_blocked = redirect_end > 0
        if redirect_end:
            c["redirected_reads"] += 1
        self.redirect_end = redirect_end
        return keep

    def reads_done(self, done: int) -> None:
        """Book the replica programs owed by this request, from ``done`` on; in a full
        staging space each takes the place of the replica least recently read or made,
        or (``staging_stop``) is refused."""
        c, L = self.ctr, self.L
        for lpn, e, orig in self.pending:
            if self.rlru.get(lpn) is not e or e.rep != -1:
                continue
            if self.occupancy == self.cap:
                if self.staging_stop:
                    c["replica_refusals"] += 1
                    continue
                _, v = self.reps.popitem(last=False)
                v.rep = -1
                v.gen += 1  # a program still queued for it is stale
                self.occupancy -= 1
                c["replica_drops"] += 1
            self.occupancy += 1
            self.reps[lpn] = e
            c["staging_occupancy_max"] = max(c["staging_occupancy_max"], self.occupancy)
            if self.op_mode:
                d = self.rep_next % L.n_dies
                if d == orig:
                    d = (d + 1) % L.n_dies
                self.rep_next = d + 1
                e.rep = d
                e.ready = self.sched.op(d, int(self.die_chan[d]), PH_PROG, 1, done, L.t_program_ns, CAUSE_MOVE)
                c["replica_writes"] += 1
            else:
                e.rep = PENDING
                self.bq.append((e, e.gen, lpn, done))
        self.pending = []

    def drain(self, t: int) -> None:
        """Book, in FIFO order, the queued replica programs that can start by ``t`` on the
        staging die free first; a program whose page lost its entry meanwhile is dropped."""
        L, c = self.L, self.ctr
        while self.bq:
            e, gen, lpn, ready = self.bq[0]
            if self.rlru.get(lpn) is e and e.gen == gen and e.rep == PENDING:
                d = int(np.argmin(self.st_free))
                start = max(ready, int(self.st_free[d]))
                if start > t:
                    break
                end = start + L.t_xfer_page_ns + L.t_program_ns
                self.st_free[d] = end
                c["busy_staging_ns"] += end - start
                e.rep, e.ready = d, end
                c["replica_writes"] += 1
            self.bq.popleft()

    def host_write(self, lpn0: int, lpn1: int) -> None:
        """A host write of lpn0..lpn1: a page with a replica loses its entry and replica."""
        for lpn in range(lpn0, lpn1 + 1):
            e = self.rlru.get(lpn)
            if e is not None and e.rep != -1:
                self._drop(lpn)
                self.ctr["replica_invalidations"] += 1
