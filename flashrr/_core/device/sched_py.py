"""Scheduler layer (twin of ``sched.pyx``): dies, channels and the queues of
background flash transactions.  docs/model.md section 5 gives the rules.

A *job* is one decided GC or RR migration.  Its transactions wait in per-die
FIFO queues: its programs wait for all of its reads, its erases for all of its
programs.  All times are integer ns."""
from __future__ import annotations

import heapq
from collections import deque

import numpy as np

from ..invariants import EngineError
from ..layout import CAUSE_GC, CAUSE_RR, CAUSE_USER, CAUSES, Layout

PH_READ, PH_PROG, PH_ERASE = 0, 1, 2  # phases of a job, in the order its transactions run
KIND_GC, KIND_RR = 0, 1


class Job:
    """One decided migration.  ``left[ph]``: its transactions of phase ``ph`` still
    queued; ``end[ph]``: the latest end (ns) of those booked."""

    __slots__ = ("id", "kind", "event", "lane", "victim", "t0", "left", "end")

    def __init__(self, jid: int, kind: int, event: int, lane: int, victim: int, t0: int):
        self.id, self.kind, self.event, self.lane, self.victim, self.t0 = jid, kind, event, lane, victim, t0
        self.left = [0, 0, 0]
        self.end = [t0, t0, t0]

    def pending(self) -> bool:
        return any(self.left)


def erase_tag(job: Job) -> int:
    """The tag of a job's erase event, unique per job (as the compiled EraseEv.tag)."""
    return 2 * job.event + job.kind + 1


class Txn:
    """One queued background transaction on one die.  ``dsts``: the ppns a program writes, or
    the ppns a read senses."""

    __slots__ = ("job", "phase", "die", "chan", "n_xfer", "dur", "dsts")

    def __init__(self, job: Job, phase: int, die: int, chan: int, n_xfer: int, dur: int, dsts=()):
        self.job, self.phase, self.die, self.chan, self.n_xfer, self.dur, self.dsts = (
            job, phase, die, chan, n_xfer, dur, dsts)


class Scheduler:
    def __init__(self, layout: Layout, counters: dict):
        self.L = layout
        self.c = counters
        L = layout
        self.group_dies = [sorted({int(d) for d in L.comp_die[lane * L.k:(lane + 1) * L.k]})
                           for lane in range(L.n_lanes)]
        self.reset()

    def reset(self) -> None:
        """Clocks, channels, queues and the destage buffer, all empty at time 0."""
        L = self.L
        self.die_free = np.zeros(L.n_dies, dtype=np.int64)  # busy-until of every booked operation
        self.die_prog_end = np.zeros(L.n_dies, dtype=np.int64)  # end of the latest booked program
        self.user_free = np.zeros(L.n_dies, dtype=np.int64)  # end of the latest user or flush operation
        self.die_busy = np.zeros(L.n_dies, dtype=np.int64)  # booked operation time per die
        self.die_q_progs = np.zeros(L.n_dies, dtype=np.int64)  # queued, unbooked programs per die
        self.die_erase_end = np.zeros(L.n_dies, dtype=np.int64)  # end of the latest booked erase (HotR option)
        self.chan_free = np.zeros(L.n_channels, dtype=np.int64)  # "busy-until" channels
        self.chan_iv = [[] for _ in range(L.n_channels)]  # "gap-fill" channels: sorted busy [start, end)
        self.horizon = 0  # every booking from now on starts at or after this time
        self.q = [deque() for _ in range(L.n_dies)]  # background transactions per die, FIFO
        self.bg_pending = 0
        self.next_job = 0
        self.sb_erase_job: dict[int, Job] = {}  # superblock -> job whose erase is not booked yet
        self.src_of: dict[int, int] = {}  # destination ppn -> source ppn of a move not programmed yet
        self.erase_end = ([], [])  # per job kind, per event: when its last erase ended (ns), -1 pending
        self.iq = [deque() for _ in range(L.n_dies)]  # policy idle moves: (lpn, src ppn, dest comp, t)
        self.idle_pending = 0
        self.destage_heap: list = []  # min-heap of flush program ends (ns), one entry per page
        # gc.free_pool = "erased": booked erases whose end is not reached yet, (end, tag, lane, victim)
        self.erase_evs: list = []
        # timing.read_priority: user programs waiting for their die, FIFO per die:
        # (ready ns, chan, n_xfer, dur ns, request slot, page offset, plane mask)
        self.uq = [deque() for _ in range(L.n_dies)]
        # timing.join_writes: booked background programs per die, in start order:
        # [start ns, end ns, page offset, plane mask (joined user pages included)]
        self.slots = [deque() for _ in range(L.n_dies)]
        # timing.join_reads: booked background reads per die, in start order:
        # [start ns, sensing end ns, page offset, plane mask (joined user pages included)]
        self.read_slots = [deque() for _ in range(L.n_dies)]
        self.uw_pending = 0
        self.wreq: dict = {}  # request slot -> [arrival ns, latest end booked so far ns, programs not booked]
        self.next_wreq = 0
        self.wdone: list = []  # latencies (ns) of the write requests completed since the engine took them

    # ------------------------------------------------------------------ resources
    def xfer(self, chan: int, t: int, n: int) -> int:
        """Move ``n`` pages over channel ``chan`` no earlier than ``t``; returns the end (ns)."""
        dur = n * self.L.t_xfer_page_ns
        if not self.L.channel_gapfill:
            end = max(t, int(self.chan_free[chan])) + dur
            self.chan_free[chan] = end
            return end
        if dur == 0:
            return t
        iv = self.chan_iv[chan]
        h = 0
        while h < len(iv) and iv[h][1] <= self.horizon:  # intervals no booking can reach any more
            h += 1
        if h:
            del iv[:h]
        s, i = t, 0
        while i < len(iv):  # the first gap at or after t that is long enough
            a, b = iv[i]
            if b <= s:
                i += 1
                continue
            if a >= s + dur:
                break
            s = b
            i += 1
        e = s + dur
        if i > 0 and iv[i - 1][1] == s:
            iv[i - 1][1] = e
            if i < len(iv) and iv[i][0] == e:
                iv[i - 1][1] = iv[i][1]
                del iv[i]
        elif i < len(iv) and iv[i][0] == e:
            iv[i][0] = s
        else:
            iv.insert(i, [s, e])
        return e

    def op(self, die: int, chan: int, phase: int, n_xfer: int, ready: int, dur: int, cause: int) -> int:
        """Book one flash transaction on ``die``, no earlier than ``ready``; returns its end (ns).

        A read senses for ``dur`` and then moves ``n_xfer`` pages out over the
        channel; a program moves its pages in first and then programs for
        ``dur``; an erase holds the die for ``dur``."""
        start = max(ready, int(self.die_free[die]))
        if phase == PH_READ:
            end = start + dur
            if n_xfer:
                end = self.xfer(chan, end, n_xfer)
        elif phase == PH_PROG:
            end = (self.xfer(chan, start, n_xfer) if n_xfer else start) + dur
            self.die_prog_end[die] = end
        else:
            end = start + dur
            self.die_erase_end[die] = end
        self.die_free[die] = end
        self.die_busy[die] += end - start
        self.c["busy_" + CAUSES[cause] + "_ns"] += end - start
        return end

    def user_op(self, die: int, chan: int, phase: int, n_xfer: int, t: int, dur: int, cause: int) -> int:
        """A user (or cache flush) transaction arriving at ``t``: booked at once, in arrival order."""
        if cause == CAUSE_USER:  # count its wait behind background work
            wait = int(self.die_free[die]) - max(t, int(self.user_free[die]))
            if wait > 0:
                self.c["user_wait_behind_bg_ns"] += wait
        end = self.op(die, chan, phase, n_xfer, t, dur, cause)
        self.user_free[die] = end
        return end

    def book_op(self, die, chan, phase, n_xfer, ready, dur, cause) -> int:
        """``op`` under the name the compiled scheduler exposes to Python (for tests)."""
        return self.op(die, chan, phase, n_xfer, ready, dur, cause)

    def set_horizon(self, t: int) -> None:
        """``horizon = t``, under the name the compiled scheduler exposes to Python (for tests)."""
        self.horizon = t

    # ------------------------------------------------------------------ background jobs
    def new_job(self, kind: int, lane: int, victim: int, t: int) -> Job:
        ev = self.erase_end[kind]
        ev.append(-1)
        job = Job(self.next_job, kind, len(ev) - 1, lane, victim, t)
        self.next_job += 1
        return job

    def queue(self, job: Job, phase: int, die: int, chan: int, n_xfer: int, dur: int, dsts=()) -> None:
        self.q[die].append(Txn(job, phase, die, chan, n_xfer, dur, dsts))
        job.left[phase] += 1
        if phase == PH_PROG:
            self.die_q_progs[die] += 1
        self.bg_pending += 1
        if phase == PH_ERASE:
            self.sb_erase_job[job.victim] = job

    def set_src(self, dst: int, src: int) -> None:
        """Until ``dst`` is programmed, its data is read at ``src`` (or where ``src`` waits)."""
        self.src_of[dst] = self.src_of.get(src, src)

    def head_start(self, die: int, max_job: int | None = None) -> int:
        """When the head of ``die``'s queue can start (ns), or -1 if there is none, it waits
        for transactions of its job not booked yet, or its job is after ``max_job``."""
        q = self.q[die]
        if not q:
            return -1
        tx = q[0]
        job = tx.job
        if max_job is not None and job.id > max_job:
            return -1
        if tx.phase == PH_READ:
            ready = job.t0
        elif tx.phase == PH_PROG:
            if job.left[PH_READ]:
                return -1
            ready = job.end[PH_READ]
        else:
            if job.left[PH_READ] or job.left[PH_PROG]:
                return -1
            ready = max(job.end[PH_READ], job.end[PH_PROG])
        return max(ready, int(self.die_free[die]))

    def book_head(self, die: int, start: int) -> None:
        tx = self.q[die].popleft()
        job = tx.job
        self.bg_pending -= 1
        if tx.phase == PH_READ and self.L.join_reads:  # sensing from when op() below starts it
            self.add_read_slot(die, tx, max(start, int(self.die_free[die])))
        end = self.op(die, tx.chan, tx.phase, tx.n_xfer, start, tx.dur, CAUSE_RR if job.kind == KIND_RR else CAUSE_GC)
        if tx.phase == PH_PROG:
            self.die_q_progs[die] -= 1
            for d in tx.dsts:
                self.src_of.pop(d, None)
            if self.L.join_writes:
                self.add_slot(die, tx, end)
        job.left[tx.phase] -= 1
        job.end[tx.phase] = max(job.end[tx.phase], end)
        if tx.phase == PH_ERASE and job.left[PH_ERASE] == 0:
            self.set_erase_end(job, end)
            if self.sb_erase_job.get(job.victim) is job:
                del self.sb_erase_job[job.victim]

    def set_erase_end(self, job: Job, end: int) -> None:
        """Record when ``job``'s last erase ends; with gc.free_pool = "erased" that end becomes
        an event for Reclaim.erase_event."""
        self.erase_end[job.kind][job.event] = end
        if self.L.gc_erased_pool:
            self.erase_evs.append((end, erase_tag(job), job.lane, job.victim))

    def pop_erase_ev(self, t: int):
        """The erase-end event that ends first (then lowest tag), if it ends by ``t``; else None."""
        if not self.erase_evs:
            return None
        ev = min(self.erase_evs)
        if ev[0] > t:
            return None
        self.erase_evs.remove(ev)
        return ev

    def force(self, job: Job) -> None:
        """Book the die group of ``job``'s lane, earliest start first (lowest die on a tie),
        until ``job`` is fully booked: urgent GC, "gc-first", or a superblock about to be
        reused.  Lanes that share a die share all of their dies, so the group is closed."""
        dies = self.group_dies[job.lane]
        while job.pending():
            best, best_s = -1, 0
            for d in dies:
                s = self.head_start(d, job.id)
                if s >= 0 and (best < 0 or s < best_s):
                    best, best_s = d, s
            if best < 0:
                raise EngineError(f"scheduler: job {job.id} cannot be booked (a dependency never ran)")
            self.book_head(best, best_s)

    # ------------------------------------------------------------------ user writes (timing.read_priority)
    def write_req(self, t: int, done: int, left: int) -> int:
        """A slot for a user write that arrived at ``t`` with ``left`` programs (and held
        pages) not booked; ``done``: its completion so far (ns)."""
        r = self.next_wreq
        self.next_wreq += 1
        self.wreq[r] = [t, done, left]
        return r

    def queue_write(self, die: int, chan: int, n_xfer: int, ready: int, dur: int, req: int, off: int,
                    pmask: int) -> None:
        """Queue a user program of request slot ``req`` on ``die``, ready at ``ready`` (ns), of
        the planes ``pmask`` at page offset ``off``."""
        self.uq[die].append((ready, chan, n_xfer, dur, req, off, pmask))
        self.uw_pending += 1

    def write_start(self, die: int) -> int:
        """When the die's first queued user program can start (ns)."""
        return max(self.uq[die][0][0], int(self.die_free[die]))

    def book_write(self, die: int) -> None:
        """Book the die's first queued user program at :meth:`write_start`; when it is its
        request's last, the request's latency joins ``wdone``."""
        ready, chan, n_xfer, dur, req, _, _ = self.uq[die].popleft()
        self.uw_pending -= 1
        self.write_part_done(req, self.user_op(die, chan, PH_PROG, n_xfer, ready, dur, CAUSE_USER))

    def write_part_done(self, req: int, end: int) -> None:
        """One program of request slot ``req`` ends at ``end`` (ns); after its last, the
        request's latency joins ``wdone``."""
        r = self.wreq[req]
        r[1] = max(r[1], end)
        r[2] -= 1
        if r[2] == 0:
            self.wdone.append(r[1] - r[0])
            del self.wreq[req]

    def take_write(self, die: int, chan: int, n_xfer: int, ready: int, dur: int, req: int, off: int,
                   pmask: int) -> None:
        """A user program of request slot ``req`` ready at ``ready`` (ns), of the planes ``pmask``
        at page offset ``off``: with timing.join_writes it joins the first background program
        slot of ``die`` that starts at or after ``ready`` at that offset with none of those planes
        (:meth:`ride`); otherwise it waits in the die's queue (:meth:`queue_write`)."""
        if self.L.join_writes:
            slot = self._find_slot(self.slots[die], ready, off, pmask, 0)
            if slot is not None:
                slot[3] |= pmask
                self.write_part_done(req, self.ride(slot, chan, n_xfer, ready, dur))
                return
        self.queue_write(die, chan, n_xfer, ready, dur, req, off, pmask)

    # ------------------------------------------------------------------ joined transactions (join_writes, join_reads)
    def _planes(self, ppns) -> tuple:
        """(page offset of the first, mask of the planes within their die) of ``ppns``."""
        L = self.L
        pmask = 0
        for ppn in ppns:
            blk = ppn // L.pages_per_block
            idx = (blk // L.k // L.sb_per_lane) * L.k + blk % L.k
            pmask |= 1 << int(L.comp_plane_in_die[idx])
        return ppns[0] % L.pages_per_block, pmask

    def _new_slot(self, q: deque, slot: list) -> list:
        """Append ``slot`` to the ring ``q`` after the slots that start before the horizon are
        dropped (no arrival can join them any more); returns it."""
        self._drop_slots_before(q, self.horizon)
        q.append(slot)
        return slot

    @staticmethod
    def _drop_slots_before(q: deque, t: int) -> None:
        while q and q[0][0] < t:
            q.popleft()

    def _find_slot(self, q: deque, t: int, off: int, pmask: int, dur: int):
        """The first slot of ``q`` that starts at or after ``t`` (ns), at page offset ``off``, with
        none of the planes ``pmask`` and lasting at least ``dur`` (ns); None if none.  The slots
        that start before ``t`` are dropped."""
        self._drop_slots_before(q, t)
        for slot in q:
            if slot[2] == off and not slot[3] & pmask and slot[1] - slot[0] >= dur:
                return slot
        return None

    def add_slot(self, die: int, tx: Txn, end: int) -> None:
        """The background program ``tx`` just booked on ``die``, ending at ``end`` (ns), takes
        the user programs waiting on the die that are ready by its start, at its page offset,
        on planes it does not program yet, in queue order; then it is kept for the user
        writes that arrive before it starts (:meth:`take_write`)."""
        off, pmask = self._planes(tx.dsts)
        slot = self._new_slot(self.slots[die], [end - tx.dur, end, off, pmask])
        keep = deque()
        for w in self.uq[die]:
            ready, chan, n_xfer, dur, req, w_off, w_mask = w
            if ready > slot[0] or w_off != off or w_mask & slot[3]:
                keep.append(w)
                continue
            self.uw_pending -= 1
            slot[3] |= w_mask
            self.write_part_done(req, self.ride(slot, chan, n_xfer, ready, dur))
        self.uq[die] = keep

    def ride(self, slot: list, chan: int, n_xfer: int, ready: int, dur: int) -> int:
        """A user program joined to ``slot``: its pages cross the channel in the first free
        stretch from the later of ``ready`` and n_xfer transfers before the slot starts (never
        before the horizon); it ends with the slot, or its own program time after its
        transfer if that is later (ns)."""
        x_end = self.xfer(chan, max(ready, slot[0] - n_xfer * self.L.t_xfer_page_ns, self.horizon), n_xfer)
        return max(slot[1], x_end + dur)

    def add_read_slot(self, die: int, tx: Txn, start: int) -> None:
        """The background read ``tx`` (``dsts``: its source pages) about to be booked on ``die``
        from ``start`` (ns) becomes a slot for the user reads that arrive before it starts."""
        off, pmask = self._planes(tx.dsts)
        self._new_slot(self.read_slots[die], [start, start + tx.dur, off, pmask])

    def join_read(self, die: int, chan: int, n_xfer: int, t: int, dur: int, off: int, pmask: int) -> int:
        """A user read arriving at ``t`` (ns), sensing for ``dur``, joins the first read slot of
        ``die`` that starts at or after ``t``, at page offset ``off``, with none of the planes
        ``pmask`` and a sensing time of at least ``dur``: returns when its pages have crossed
        the channel after that sensing (ns), or -1."""
        slot = self._find_slot(self.read_slots[die], t, off, pmask, dur)
        if slot is None:
            return -1
        slot[3] |= pmask
        return self.xfer(chan, slot[1], n_xfer)

    # ------------------------------------------------------------------ idle moves
    def push_idle(self, die: int, lpn: int, src: int, dest: int, t: int) -> None:
        self.iq[die].append((lpn, src, dest, t))
        self.idle_pending += 1

    def pop_idle(self, die: int) -> tuple:
        self.idle_pending -= 1
        return self.iq[die].popleft()

    # ------------------------------------------------------------------ destage buffer
    def destage(self, ends: list, t: int) -> int:
        """Flushes ending at ``ends`` enter the buffer at ``t`` (finished ones leave it);
        returns when it has room again (ns): ``t``, or the end of the flush that makes room."""
        heap = self.destage_heap
        while heap and heap[0] <= t:
            heapq.heappop(heap)
        for e in ends:
            heapq.heappush(heap, e)
        ready = t
        while len(heap) > self.L.destage_pages:
            ready = max(ready, heapq.heappop(heap))
        return ready
