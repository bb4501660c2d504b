"""Die-level redundancy (twin of ``redundancy.pyx``; the model is described
there and in docs/hotr.md): Rails' mirrored halves with time-sliced roles,
TTFlash's 4+1 rotated parity, and HotR Fig. 1(b)'s interference-free Optimal."""
from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numpy as np

from collections import deque

from ..layout import CAUSE_FLUSH, CAUSE_USER, Layout, die_channels
from ..options.static_die_py import PLACE_MOD, PLACE_RAID5, StaticDie, ppn_die, program_blocked, raid5_data_die, raid5_parity_die
from ..device.sched_py import PH_PROG, PH_READ
from ..roles_py import Mechanism
from . import counter_names



class RedundancyMode(IntEnum):
    """The scheme (redundancy.pxd's RED_* constants)."""

    RAILS = 1
    TTFLASH = 2
    OPTIMAL = 3


RED_RAILS, RED_TTFLASH, RED_OPTIMAL = RedundancyMode.RAILS, RedundancyMode.TTFLASH, RedundancyMode.OPTIMAL


class RedundancySpec(NamedTuple):
    """Rails, TTFlash or Optimal: ``mode`` (:class:`RedundancyMode`) and Rails'
    ``rails_period_ns`` (the time a half keeps one role; 1 for the others)."""

    mode: int
    rails_period_ns: int


class Redundancy(Mechanism):
    def __init__(self, ctx, spec):
        """``spec``: (mode, period_ns): mode 1 Rails, 2 TTFlash, 0 Optimal."""
        super().__init__()
        layout, sched, ftl, counters = ctx.layout, ctx.sched, ctx.ftl, ctx.counters
        L = self.L = layout
        self.sched, self.ftl, self.c = sched, ftl, counters
        self.reset_counters()
        self.mode, self.period = int(spec[0]), int(spec[1])
        self.n_data = L.n_dies // 2
        self.n_groups = L.n_dies // 5
        self.die_chan = die_channels(L)
        self.rd_free = np.zeros(L.n_dies, dtype=np.int64)  # Optimal: each die's read-only timeline
        self.cur_p = 0
        self.stamp: dict[int, int] = {}  # LPN -> period of its last host write
        self.fifo: list = []  # LPNs written in the current period, each once
        self.flush = [deque() for _ in range(L.n_dies)]  # per die: (lpn, ready ns) flush programs not booked
        self.f_left = 0
        self.prev_t = 0  # arrival of the previous request (the scheduler's previous horizon)
        self.redirect_blocked = False

    def counter_values(self) -> list:
        return list(self.ctr.values())

    def reset_counters(self) -> None:
        self.ctr = dict.fromkeys(counter_names("redundancy"), 0)

    def write(self, host, t: int, lpn0: int, lpn1: int) -> int:
        """The write path (see redundancy.pyx's ``write``); returns the end."""
        if self.mode == RED_OPTIMAL:
            return host.program_user_pages(range(lpn0, lpn1 + 1), t)
        if self.mode == RED_RAILS:
            self.switch(t)
            self.stamp_writes(lpn0, lpn1)
            if self.writes_to_a():
                return host.program_user_pages(range(lpn0, lpn1 + 1), t)
            for lpn in range(lpn0, lpn1 + 1):  # map the A copy now; it is programmed at the flush
                host.map_user_page(lpn, t)
            return self.program_b(lpn0, lpn1, t)
        done, lpn = t, lpn0
        while lpn <= lpn1:  # TTFlash: one stripe at a time
            last = min(lpn | 3, lpn1)
            ready = self.stripe_reads(lpn, last - lpn + 1, t)
            done = max(done, host.program_user_pages(range(lpn, last + 1), ready))
            done = max(done, self.parity_program(lpn >> 2, ready))
            lpn = last + 1
        return done

    def static_placement(self, ctx):
        """Rails and TTFlash place user pages by their own layout; Optimal has none."""
        if self.mode == RED_OPTIMAL:
            return None
        rails = self.mode == RED_RAILS
        return StaticDie(ctx, PLACE_MOD if rails else PLACE_RAID5, ctx.layout.n_dies // 2 if rails else 0)
    def die_of(self, ppn: int) -> int:
        return ppn_die(self.L, ppn)

    def blocked(self, die: int, t: int) -> bool:
        return program_blocked(self.sched, die, t)

    def read1(self, die: int, t: int) -> int:
        return self.sched.user_op(die, int(self.die_chan[die]), PH_READ, 1, t, self.L.t_read_ns, CAUSE_USER)

    def redirect(self, misses: list, ppns: list, where: list, extras: list, t: int):
        """Serve the pages that do not go to their FTL copy; returns the others
        (misses, ppns, where, extras); ``redirect_end`` = the latest end of those served (0 if none)."""
        c = self.ctr
        keep = ([], [], [], [])
        redirect_end = 0
        self.redirect_blocked = False
        redirected = False
        if self.mode == RED_RAILS:
            self.switch(t)
        for i, lpn in enumerate(misses):
            if self.mode == RED_RAILS:
                if self.stamp.get(lpn) == self.cur_p:
                    redirect_end = max(redirect_end, t + self.L.t_dram_ns)
                    c["rails_buffer_hits"] += 1
                    continue
                if self.cur_p % 2 == 0:  # half A takes the writes: read half B
                    die = self.n_data + lpn % self.n_data
                    self.redirect_blocked |= self.blocked(die, t)
                    redirect_end = max(redirect_end, self.read1(die, t))
                    c["redirected_pages"] += 1
                    redirected = True
                    continue
            elif self.mode == RED_OPTIMAL:
                die = self.die_of(where[i])
                if self.blocked(die, t):
                    end = max(t, int(self.rd_free[die])) + self.L.t_read_ns + self.L.t_xfer_page_ns
                    self.rd_free[die] = end
                    redirect_end = max(redirect_end, end)
                    c["redirected_pages"] += 1
                    self.redirect_blocked = True
                    redirected = True
                    continue
            else:
                die = self.die_of(where[i])
                if self.blocked(die, t):
                    s = lpn >> 2
                    for m in range(4):
                        if 4 * s + m != lpn:
                            redirect_end = max(redirect_end, self.read1(raid5_data_die(4 * s + m, self.n_groups), t))
                    redirect_end = max(redirect_end, self.read1(raid5_parity_die(s, self.n_groups), t))
                    c["reconstruction_reads"] += 4
                    c["reconstructed_pages"] += 1
                    self.redirect_blocked = True
                    redirected = True
                    continue
            for out, v in zip(keep, (lpn, ppns[i], where[i], extras[i])):
                out.append(v)
        if redirected:
            c["redirected_reads"] += 1
        self.redirect_end = redirect_end
        return keep

    # ------------------------------------------------------------------ Rails
    def writes_to_a(self) -> bool:
        return self.cur_p % 2 == 0

    def switch(self, t: int) -> None:
        """At a request's arrival ``t``: periods that ended by ``t`` queue their LPNs for the
        next write half (what the old write half still owes is booked at once); then the
        queued flush programs that can start by ``t`` are booked."""
        sc = self.sched
        h, sc.horizon = sc.horizon, self.prev_t  # book from the previous arrival on, as run_bg does
        while self.cur_p < t // self.period:
            self.cur_p += 1
            if self.f_left:
                self.drain(t, True)
            for lpn in self.fifo:
                die = self.die_of(int(self.ftl.l2p[lpn])) if self.cur_p % 2 == 0 else self.n_data + lpn % self.n_data
                self.flush[die].append((lpn, t))
                self.f_left += 1
            self.fifo = []
        if self.f_left:
            self.drain(t, False)
        sc.horizon = h
        self.prev_t = t

    def drain(self, t: int, force: bool) -> None:
        """Book each die's queued flush programs, in order, while they can start by ``t``
        (every one of them if ``force``)."""
        sc = self.sched
        for d, q in enumerate(self.flush):
            while q:
                ready = max(q[0][1], self.prev_t)
                if not force and max(ready, int(sc.die_free[d])) > t:
                    break
                sc.op(d, int(self.die_chan[d]), PH_PROG, 1, ready, self.L.t_program_ns, CAUSE_FLUSH)
                self.ctr["mirror_programs"] += 1
                self.c["flash_pages_programmed"] += 1
                self.f_left -= 1
                q.popleft()

    def stamp_writes(self, lpn0: int, lpn1: int) -> None:
        for lpn in range(lpn0, lpn1 + 1):
            if self.stamp.get(lpn) != self.cur_p:
                self.stamp[lpn] = self.cur_p
                self.fifo.append(lpn)

    def program_b(self, lpn0: int, lpn1: int, t: int) -> int:
        end = t
        for lpn in range(lpn0, lpn1 + 1):
            die = self.n_data + lpn % self.n_data
            end = max(end, self.sched.user_op(die, int(self.die_chan[die]), PH_PROG, 1, t, self.L.t_program_ns,
                                              CAUSE_USER))
        self.ctr["mirror_programs"] += lpn1 - lpn0 + 1
        self.c["flash_pages_programmed"] += lpn1 - lpn0 + 1
        return end

    # ------------------------------------------------------------------ TTFlash
    def stripe_reads(self, lpn: int, w: int, t: int) -> int:
        """Reads a write of ``w`` pages from ``lpn`` (one stripe) needs first; returns when
        its programs may start."""
        s, ready = lpn >> 2, t
        if w == 4:
            return t
        if w == 1:  # read-modify-write: old data and old parity
            ready = max(ready, self.read1(raid5_data_die(lpn, self.n_groups), t))
            ready = max(ready, self.read1(raid5_parity_die(s, self.n_groups), t))
            self.ctr["parity_reads"] += 2
            return ready
        for m in range(4):  # reconstruct-write: the untouched data pages
            l2 = 4 * s + m
            if l2 < lpn or l2 >= lpn + w:
                ready = max(ready, self.read1(raid5_data_die(l2, self.n_groups), t))
        self.ctr["parity_reads"] += 4 - w
        return ready

    def parity_program(self, stripe: int, t: int) -> int:
        die = raid5_parity_die(stripe, self.n_groups)
        self.ctr["parity_programs"] += 1
        self.c["flash_pages_programmed"] += 1
        return self.sched.user_op(die, int(self.die_chan[die]), PH_PROG, 1, t, self.L.t_program_ns, CAUSE_USER)
