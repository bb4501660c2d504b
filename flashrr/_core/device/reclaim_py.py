"""Reclaim layer (twin of ``reclaim.pyx``): read counts and retry, greedy GC,
read reclaim, migrations, and the loop that starts background work and policy
idle moves in time order.  A migration changes the FTL when it is decided; the
scheduler books its transactions.  docs/model.md sections 2, 4 and 5."""
from __future__ import annotations

import numpy as np

from ..invariants import EngineError
from ..layout import CAUSE_GC, CAUSE_MOVE, CAUSE_RR, PPM, SB_CLOSED, SB_FREE, SB_VICTIM, SCHED_FCFS, SCHED_USER_FIRST, Layout
from .ftl_py import Ftl
from .sched_py import KIND_GC, KIND_RR, PH_ERASE, PH_PROG, PH_READ, Scheduler, erase_tag
from .block_mix_py import BlockMix
from .event_log_py import GC_ROUTINE, RR_ROUTINE, EventLog
from ..device_state import copied, set_copied


class Reclaim:
    def __init__(self, layout: Layout, ftl: Ftl, sched: Scheduler, counters: dict, hooks, state_view, check_fn):
        """``state_view(t)`` builds the EngineState hooks see; ``check_fn()`` checks the
        FTL invariants after every migration (None: not checked)."""
        L = self.L = layout
        self.ftl, self.sched, self.c = ftl, sched, counters
        self.hooks = hooks
        self.state_view, self.check_fn = state_view, check_fn
        self.block_reads = np.zeros(L.n_blocks, dtype=np.int32)  # flash reads since erase
        self.block_erases = np.zeros(L.n_blocks, dtype=np.int32)  # erases since the device was new (P/E)
        self.rr_threshold = np.full(L.n_blocks, L.rr_threshold_reads, dtype=np.int32)  # writable by policies
        self.rr_touched = np.zeros(L.n_superblocks, dtype=np.uint8)  # a page moved by RR logic since erase
        self.erasers = None  # head of the erase-observer chain (roles_py.py), None: none
        self.pv = None  # per-block program/erase latencies (PVTiming); None: the timing's constants
        self.mix = BlockMix(L.n_blocks)  # pages programmed per block by kind since its erase (all schemes)
        self.mig = None  # migration placer (roles_py.py; None: the GC/RR frontier takes every page)
        self.em = None  # error-model state of the blocks (errors_py.py; None: the model is off)
        self.rr_log = EventLog(L.k)  # one record per RR migration
        self.gc_log = EventLog(L.k)  # and per GC migration
        self.in_mig = False  # a migration is being decided
        self.untimed = False  # precondition: decide, book nothing

    def state(self) -> dict:
        """P/E counts, RR thresholds and block mixes, for a snapshot (the read counts are 0 then)."""
        out = copied(self, ("block_erases", "rr_threshold", "rr_touched"))
        out.update(self.mix.state())
        return out

    def restore(self, state: dict) -> None:
        """Set the state :meth:`state` returned (same layout)."""
        set_copied(self, state, ("block_erases", "rr_threshold", "rr_touched"), "reclaim")
        self.mix.restore(state)

    def retries(self, blk: int) -> int:
        """Read retries of block ``blk`` at its current read count (under the error model's
        retry, the steps of its state as last looked up; an uncorrectable read took them all)."""
        if self.em is not None and self.em.retry_on:
            return min(self.em.steps(blk), self.em.S)
        r = int(self.block_reads[blk]) * PPM
        thr = int(self.rr_threshold[blk])
        return sum(1 for s in self.L.retry_steps_ppm if r >= int(s) * thr)

    def die_of(self, ppn: int) -> int:
        L = self.L
        blk = ppn // L.pages_per_block
        return int(L.comp_die[(blk // L.k // L.sb_per_lane) * L.k + blk % L.k])

    # ------------------------------------------------------------------ GC
    def run_gc(self, lane: int, t: int) -> None:
        """Collect one greedy victim per allocation made below the GC threshold."""
        if self.in_mig:
            return
        L, ftl = self.L, self.ftl
        full = L.pages_per_superblock
        n = 0
        while (ftl.gc_due[lane] > 0 and n < L.sb_per_lane and ftl.below_gc(lane)
               and ftl.unerased[lane] < L.gc_max_in_flight):
            victim = self.gc_victim(lane, t)
            if victim < 0 or ftl.sb_valid[victim] >= full:
                break  # nothing to gain; allocation fails later if space truly runs out
            ftl.gc_due[lane] -= 1
            self.migrate(victim, False, t)
            n += 1
        ftl.gc_due[lane] = 0

    def erase_event(self, t: int, collect: bool):
        """gc.free_pool = "erased": take the booked erase that ends first, if it ends by
        ``t`` (None: none).  Its superblock joins its lane's pool; if ``collect`` and the
        lane is still below the GC threshold, with fewer than max_victims_in_flight victims whose erase
        has not ended, one more victim is decided at that erase's end, then the victims
        its own allocations owe.  Returns (decided, lane, end)."""
        L, ftl = self.L, self.ftl
        ev = self.sched.pop_erase_ev(t)
        if ev is None:
            return None
        end, tag, lane, sb = ev
        if ftl.sb_tag.get(sb) == tag:
            del ftl.sb_tag[sb]
            ftl.unerased[lane] -= 1
        if not collect or self.in_mig or not ftl.below_gc(lane) or ftl.unerased[lane] >= L.gc_max_in_flight:
            return False, lane, end
        victim = self.gc_victim(lane, end)
        if victim < 0 or ftl.sb_valid[victim] >= L.pages_per_superblock:
            return False, lane, end
        self.c["gc_at_erase"] += 1
        self.migrate(victim, False, end)
        self.run_gc(lane, end)
        return True, lane, end

    def gc_victim(self, lane: int, t: int) -> int:
        """The closed superblock of ``lane`` with the fewest valid pages (lowest id on a tie),
        or the policy's choice; -1 if there is none."""
        L, ftl = self.L, self.ftl
        S = L.sb_per_lane
        if self.hooks is not None and self.hooks.choose_gc_victim is not None:
            cand = np.flatnonzero(ftl.sb_state[lane * S:(lane + 1) * S] == SB_CLOSED) + lane * S
            if cand.size == 0:
                return -1
            v = int(self.hooks.choose_gc_victim(self.state_view(t), lane, cand, ftl.sb_valid[cand].copy()))
            if v not in set(cand.tolist()):
                raise EngineError(f"policy choose_gc_victim returned {v}, not a closed superblock of lane {lane}")
            return v
        best, best_valid = -1, None
        for r in range(S):
            sb = lane * S + r
            if ftl.sb_state[sb] == SB_CLOSED and (best < 0 or ftl.sb_valid[sb] < best_valid):
                best, best_valid = sb, int(ftl.sb_valid[sb])
        return best

    # ------------------------------------------------------------------ migration
    def migrate(self, victim: int, is_rr: bool, t: int, routine: str = GC_ROUTINE) -> None:
        """Decide the migration of every valid page of ``victim`` to the GC/RR frontier and
        its erase, at ``t``: the FTL changes now; the scheduler books its transactions."""
        L, ftl = self.L, self.ftl
        k, N, S = L.k, L.pages_per_block, L.sb_per_lane
        lane = victim // S
        kind = "rr" if is_rr else "gc"
        self.in_mig = True
        mig = self.mig
        if mig is not None:
            mig.victim_chosen(victim)
        ftl.detach_frontier(victim)
        ftl.sb_state[victim] = SB_VICTIM
        em = self.em
        margin = None  # the RBER margin of an RR with the error model on
        if em is not None:  # the victim's blocks as they are now; its RBER margin if an RR
            own = range(victim * k, (victim + 1) * k)
            for b in own:
                em.touch(b, t)
            if is_rr:
                margin = em.margin(own, t, self.block_reads[own.start:own.stop])
        reads_at_trigger = self.block_reads[victim * k:(victim + 1) * k].copy()
        comps, offs, lpns = [], [], []
        for off in range(N):
            for c in range(k):
                lpn = int(ftl.p2l[(victim * k + c) * N + off])
                if lpn >= 0:
                    comps.append(c)
                    offs.append(off)
                    lpns.append(lpn)
        comps_a = np.array(comps, dtype=np.int32)
        dest = comps_a
        hooks = self.hooks
        fixed = bool(hooks is not None and hooks.place_migration is not None and kind in hooks.place_kinds and comps)
        if fixed:  # a policy chooses each page's column
            dest = hooks.place_migration(self.state_view(t), kind, victim, comps_a,
                                         np.array(offs, dtype=np.int32), np.array(lpns, dtype=np.int32))
            dest = np.asarray(dest)
            if dest.shape != comps_a.shape or (dest.size and (dest.min() < 0 or dest.max() >= k)):
                raise EngineError(f"policy place_migration must return {len(comps)} component indices in "
                                  f"[0, {k}), got shape {dest.shape}")
            dest = dest.astype(np.int32)
        base = lane * k
        n = len(comps)
        dest = np.array(dest, dtype=np.int32)  # a page the frontier spills takes its new column
        # writes: place in source order, then one program per (dest superblock, offset, die)
        new_ppns = np.empty(n, dtype=np.int64)
        placed_by = mig if mig is not None and mig.places_migration(is_rr) else None
        order = range(n)
        if placed_by is not None:
            placed_by.plan_migration(victim, is_rr, lpns)
            order = placed_by.migration_order(n)
        aligned = L.gc_aligned_moves and k > 1 and placed_by is None
        if aligned and not is_rr and not fixed:  # gc.aligned_moves, GC: the frontier's order and columns
            order, planned = ftl.gc_plan(lane, offs, [int(c) for c in dest])
            dest[:] = planned
        for q in order:
            if aligned and is_rr and (q == 0 or offs[q] != offs[q - 1]):  # RR: each victim row in one frontier row
                j = q + 1
                while j < n and offs[j] == offs[q]:
                    j += 1
                dest[q:j] = ftl.gc_row(lane, [int(c) for c in dest[q:j]], fixed)
            ppn = -1 if placed_by is None else placed_by.migration_page(lane, q, lpns[q], int(dest[q]))
            if ppn < 0:
                ppn = ftl.gc_slot(lane, int(dest[q]))
                dest[q] = (ppn // N) % k
            (self.mix.rr if is_rr else self.mix.gc)[ppn // N] += 1
            if em is not None:
                em.programmed(ppn // N, t)
            if ftl.check:
                ftl.ppn_version[ppn] = ftl.ppn_version[ftl.l2p[lpns[q]]]
            ftl.remap(lpns[q], ppn)
            new_ppns[q] = ppn
        txns = []  # (phase, die, chan, n_xfer, dur, dsts) in booking order
        # reads: one transaction per (source row, die), after the placement (a spilled page
        # may cross to another die)
        i = 0
        while i < n:
            j = i
            while j < n and offs[j] == offs[i]:
                j += 1
            dies_seen = []
            for q in range(i, j):
                d = int(L.comp_die[base + comps[q]])
                if d not in dies_seen:
                    dies_seen.append(d)
            for d in dies_seen:
                extra, xfer, chan, srcs = 0, 0, 0, []
                for q in range(i, j):
                    if int(L.comp_die[base + comps[q]]) == d:
                        extra = max(extra, self.retries(victim * k + comps[q]))
                        chan = int(L.comp_chan[base + comps[q]])
                        srcs.append((victim * k + int(comps[q])) * N + int(offs[q]))
                        if int(L.comp_die[base + int(dest[q])]) != d or not L.gc_copyback:
                            xfer += 1
                txns.append((PH_READ, d, chan, xfer, L.t_read_ns + int(L.retry_extra_ns[extra]), tuple(srcs)))
            i = j
        if n:
            ddie = L.comp_die[base + dest]
            key = ((new_ppns // N // k) * N + new_ppns % N) * L.n_dies + ddie
            order = np.argsort(key, kind="stable")
            q0 = 0
            while q0 < n:
                q1 = q0
                xfer = 0
                while q1 < n and key[order[q1]] == key[order[q0]]:
                    q = order[q1]
                    if int(L.comp_die[base + comps[q]]) != int(ddie[q]) or not L.gc_copyback:
                        xfer += 1
                    q1 += 1
                dsts = tuple(int(new_ppns[order[q]]) for q in range(q0, q1))
                txns.append((PH_PROG, int(ddie[order[q0]]), int(L.comp_chan[base + dest[order[q0]]]), xfer,
                             L.t_program_ns if self.pv is None else self.pv.program_ns(dsts), dsts))
                q0 = q1
        self.c["flash_pages_programmed"] += n
        # erase: one multi-plane erase per die of the lane
        dies_seen = []
        for c in range(k):
            d = int(L.comp_die[base + c])
            if d not in dies_seen:
                dies_seen.append(d)
                txns.append((PH_ERASE, d, 0, 0, L.t_erase_ns if self.pv is None else self.pv.erase_ns(victim, d), ()))
        blocks = slice(victim * k, (victim + 1) * k)
        mix = tuple(int(a[blocks].sum()) for a in (self.mix.user, self.mix.rr, self.mix.gc))
        for a in (self.mix.user, self.mix.rr, self.mix.gc):
            a[blocks] = 0
        self.block_reads[blocks] = 0
        self.block_erases[blocks] += 1
        self.rr_threshold[blocks] = L.rr_threshold_reads
        if em is not None:
            for b in range(victim * k, (victim + 1) * k):
                em.erased(b)
        m = self.erasers
        while m is not None:
            for c in range(k):
                m.block_erased(victim * k + c)
            m = m.next_eraser
        if mig is not None:
            mig.migration_moved(lpns)
        if is_rr or (self.rr_touched[victim] and n == 0):  # RR erased it, or RR moves emptied it
            self.c["erases_rr"] += k
        else:
            self.c["erases_gc"] += k
        if is_rr and n and not self.rr_touched[victim]:
            self.c["rr_episodes"] += 1
        self.rr_touched[victim] = 0
        ftl.sb_state[victim] = SB_FREE
        ftl.free[lane].append(victim)
        self.c["erase_count"] += k
        self.c[kind + "_count"] += 1
        self.c[kind + "_page_moves"] += n
        if is_rr:
            for name, v in zip(("rr_victim_user_pages", "rr_victim_rr_pages", "rr_victim_gc_pages"), mix):
                self.c[name] += v
            self.c["rr_second_time"] += mix[1] > 0
        if self.check_fn is not None:
            self.check_fn()
        (self.rr_log if is_rr else self.gc_log).add(t, victim, lane, reads_at_trigger, n, routine, mix, margin)
        self.in_mig = False
        if mig is not None:
            mig.migration_done(lane)
        if not self.untimed:
            moves = [(int(new_ppns[q]), (victim * k + comps[q]) * N + offs[q]) for q in range(n)]
            self.schedule(is_rr, victim, lane, t, txns, moves)

    def schedule(self, is_rr: bool, victim: int, lane: int, t: int, txns: list, moves: list) -> None:
        """Hand a decided migration's transactions to the scheduler.  ``moves``: its
        (destination ppn, source ppn) pairs."""
        L, sc = self.L, self.sched
        kind = KIND_RR if is_rr else KIND_GC
        job = sc.new_job(kind, lane, victim, t)
        if L.gc_erased_pool:  # the victim is on the free list, but not in the pool until its erase ends
            self.ftl.sb_tag[victim] = erase_tag(job)
            self.ftl.unerased[lane] += 1
        if L.scheduler == SCHED_FCFS:  # book everything now, each at t, in creation order
            end = t
            for phase, d, chan, xfer, dur, _ in txns:
                e = sc.op(d, chan, phase, xfer, t, dur, CAUSE_RR if is_rr else CAUSE_GC)
                if phase == PH_ERASE:
                    end = max(end, e)
            sc.set_erase_end(job, end)
            return
        for phase, d, chan, xfer, dur, dsts in txns:
            sc.queue(job, phase, d, chan, xfer, dur, dsts)
        if L.scheduler == SCHED_USER_FIRST and self.ftl.pool_size(lane) >= L.gc_hard_threshold_sb:
            for dst, src in moves:  # reads of moved pages go to the old place until they are programmed
                sc.set_src(dst, src)
            return
        sc.force(job)  # "gc-first", or urgent: booked at once

    def read_reclaim(self, sb: int, t: int) -> None:
        L = self.L
        k = L.k
        blocks = slice(sb * k, (sb + 1) * k)
        if self.ftl.sb_state[sb] in (SB_FREE, SB_VICTIM) or not np.any(
                self.block_reads[blocks] >= self.rr_threshold[blocks]):
            return  # erased meanwhile (by GC or an earlier RR)
        routine = RR_ROUTINE
        if self.hooks is not None and self.hooks.on_read_reclaim is not None:
            routine = str(self.hooks.on_read_reclaim(self.state_view(t), sb) or RR_ROUTINE)
        self.migrate(sb, True, t, routine)
        self.run_gc(sb // L.sb_per_lane, t)

    # ------------------------------------------------------------------ the background loop
    def run_bg(self, until: int) -> None:
        """Start, earliest first, every queued transaction and policy idle move that can
        start before ``until`` (ns).  A die's queued user programs (timing.read_priority)
        go before its background transactions, and its idle moves wait until both queues
        are empty.  Ties: queued transactions before idle moves, then the lowest die."""
        sc = self.sched
        while True:
            best = None
            for d in range(self.L.n_dies):
                if sc.uq[d]:
                    key = (sc.write_start(d), 0, d)
                elif sc.q[d]:
                    s = sc.head_start(d)
                    if s < 0:
                        continue
                    key = (s, 0, d)
                elif sc.iq[d]:
                    key = (max(sc.iq[d][0][3], int(sc.die_free[d])), 1, d)
                else:
                    continue
                if best is None or key < best:
                    best = key
            if best is None or best[0] >= until:
                return
            start, kind, d = best
            if kind == 0 and sc.uq[d]:
                sc.book_write(d)
            elif kind == 0:
                sc.book_head(d, start)
            else:
                self.idle_move(d, start)

    def idle_move(self, die: int, start: int) -> None:
        """Run the next idle move of ``die`` at ``start``, unless its page moved meanwhile."""
        lpn, src, dest, _ = self.sched.pop_idle(die)
        if int(self.ftl.l2p[lpn]) != src:
            self.c["idle_moves_dropped"] += 1
            return
        self.c["idle_moves"] += 1
        self.move_page(die, lpn, src, dest, start, CAUSE_MOVE)

    def move_page(self, die: int, lpn: int, src: int, dest: int, start: int, cause: int) -> None:
        """Move ``lpn`` from ``src`` (on ``die``) to component ``dest`` of its lane's GC/RR
        frontier (or where the migration placer puts it): read from ``start``,
        then program; the source superblock has had an RR move."""
        L, ftl, sc = self.L, self.ftl, self.sched
        k, N = L.k, L.pages_per_block
        lane = src // N // k // L.sb_per_lane
        if not self.rr_touched[src // N // k]:
            self.rr_touched[src // N // k] = 1
            self.c["rr_episodes"] += 1
        self.in_mig = True
        ppn = -1 if self.mig is None else self.mig.move_page_slot(lane, lpn, src // N)
        if ppn < 0:
            ppn = ftl.gc_slot(lane, dest)
            dest = (ppn // N) % k
        self.in_mig = False
        if ftl.check:
            ftl.ppn_version[ppn] = ftl.ppn_version[src]
        ftl.remap(lpn, ppn)
        self.mix.rr[ppn // N] += 1
        if self.em is not None:
            self.em.programmed(ppn // N, start)
        self.c["flash_pages_programmed"] += 1
        ddie = self.die_of(ppn)
        cross = 1 if ddie != die or not L.gc_copyback else 0
        extra = int(L.retry_extra_ns[self.retries(src // N)])
        r_end = sc.op(die, int(L.comp_chan[lane * k + (src // N) % k]), PH_READ, cross, start,
                      L.t_read_ns + extra, cause)
        sc.op(ddie, int(L.comp_chan[lane * k + dest]), PH_PROG, cross, r_end,
              L.t_program_ns if self.pv is None else self.pv.page_ns(ppn), cause)
        self.run_gc(lane, start)
