# Scheduler layer: dies, channels and queues of flash transactions.
# Twin: sched_py.py.  docs/model.md section 5 describes the rules.
# Times are int64 ns.  A *job* is one decided GC or RR migration; its
# transactions wait in per-die FIFO queues until they are booked.

from libc.stdint cimport INT64_MAX, int8_t, int32_t, int64_t, uint8_t, uint64_t
cimport cython

from .common cimport *


cdef void* _grow(void* p, int64_t n_bytes) except NULL nogil     # realloc, or MemoryError
cdef object _copied(const void* p, int64_t count, dtype)          # a NumPy copy of count items at p

ctypedef struct Txn:                   # one queued background transaction
    int64_t dur                        # sensing, programming or erase time (ns)
    uint64_t cmask                     # programs: components of (dsb, off) this transaction writes
    int32_t job                        # job id
    int32_t chan                       # channel of its transfers
    int32_t n_xfer                     # pages moved over the channel
    int32_t dsb                        # programs: destination superblock
    int32_t off                        # programs: destination page offset (of the first, in a run)
    int32_t count                      # a run: this many transactions, each after the one before
                                       # (reads; programs of consecutive offsets), none over the channel
    int8_t phase                       # PH_READ / PH_PROG / PH_ERASE

ctypedef struct Job:                   # one decided migration
    int64_t t0                         # when it was decided
    int64_t end[3]                     # latest end of its booked transactions, per phase
    int32_t left[3]                    # its transactions still queued, per phase
    int32_t lane, victim, event        # event: index into the rr or gc erase-time table
    int8_t kind                        # KIND_GC / KIND_RR

cdef enum:
    IVC = 64                           # busy intervals per channel chunk
    SLOT_PROG = 0                      # slot rings: booked background programs (timing.join_writes) ...
    SLOT_READ = 1                      # ... and reads (timing.join_reads)
    IVC_SPARE = 1024                   # dropped chunks kept for reuse, at most (1 MB)

ctypedef struct IvChunk:               # a run of a channel's busy intervals, sorted, disjoint
    int32_t n
    int64_t v[2 * IVC]                 # (start, end) pairs in ns

ctypedef struct FlushEnt:              # a flush transaction in the destage buffer (heap entry)
    int64_t end                        # when its program ends (ns)
    int64_t pages                      # its pages still counted in the buffer

ctypedef struct EraseEv:               # gc.free_pool = "erased": a booked erase whose end is not yet reached
    int64_t end                        # when the victim's last erase ends (ns)
    int64_t tag                        # 2 * event + kind + 1: unique per job, as Ftl.sb_tag holds it
    int32_t lane, victim

ctypedef struct UserWrite:             # timing.read_priority: a user program waiting for its die
    int64_t ready                      # its write's arrival, or the erase end that let its lane write (ns)
    int64_t dur                        # programming time (ns)
    uint64_t pmask                     # the die's planes it programs
    int32_t chan, n_xfer               # its pages' channel, and how many it moves over it
    int32_t req                        # its write request's slot in wreq
    int32_t off                        # its page offset in the block

ctypedef struct ProgSlot:              # timing.join_writes (join_reads): one booked background program
    int64_t start, end                 # (read) of a die: when it starts and ends (a read: its sensing) (ns)
    uint64_t pmask                     # the die's planes it programs, user pages joined to it included
    int32_t off                        # its page offset in the block

ctypedef struct WriteReq:              # timing.read_priority: a user write with programs not booked yet
    int64_t t                          # arrival (ns)
    int64_t done                       # latest end of its booked programs so far (ns)
    int32_t left                       # its programs not booked yet (held pages included)

ctypedef struct IdleMove:              # a policy page move waiting for idle time
    int64_t t                          # queued at
    int32_t lpn, src, dest             # page, its ppn when queued, destination component


@cython.final
cdef class Scheduler:
    # ---- configuration
    cdef int32_t n_dies, n_chan, k, N, S, n_lanes, sched, destage_cap
    cdef int64_t t_xfer
    cdef bint gapfill
    cdef int32_t* comp_die             # [n_lanes*k] die of component c of lane l (borrowed)
    cdef int32_t* group_first          # [n_lanes] first die of the lane's die group ...
    cdef int32_t* group_len            # [n_lanes] ... and how many (dies are listed in group_dies)
    cdef int32_t* group_dies           # [n_lanes*k] sorted dies of each lane
    cdef int64_t* cnt                  # engine counters (borrowed)
    cdef object _keep                  # NumPy arrays that own the memory above and below

    # ---- dies
    cdef int64_t* die_free             # [n_dies] busy-until of every booked operation
    cdef int64_t* die_prog_end         # [n_dies] end of the latest booked program
    cdef int64_t* user_free            # [n_dies] end of the latest user or flush operation
    cdef int64_t* die_busy             # [n_dies] booked operation time
    cdef int32_t* die_q_progs          # [n_dies] queued, unbooked programs
    cdef int64_t* die_erase_end        # [n_dies] end of the latest booked erase (HotR's erase-blocks option)
    # ---- channels
    cdef int64_t* chan_free            # [n_chan] "busy-until" model
    cdef IvChunk*** ivc                # [n_chan] "gap-fill": chunks of busy intervals, in time order
    cdef int32_t* ivc_n                # [n_chan] chunks in use
    cdef int32_t* ivc_cap              # [n_chan] chunk slots allocated (the dropped ones included)
    cdef int32_t* ivc_lo               # [n_chan] dropped slots before the first live one (ivc and ivc_end
                                       # point past them, so a drop is O(1); _grow_chunks reclaims them)
    cdef int64_t** ivc_end             # [n_chan][chunk] end of each chunk's last interval, for the search
    cdef int64_t* ivc_dropped          # [n_chan] chunks dropped since time 0
    cdef IvChunk** ivc_spare           # chunks dropped and kept for reuse (a stack): a busy channel drops
    cdef int32_t ivc_spare_n           # and splits chunks all the time, and malloc/free cost more
    cdef int64_t* ivc_last_s           # [n_chan] start of the channel's last interval (when it has one):
                                       # a transfer before it skips the last chunk's lines
    cdef int64_t* die_finger           # [n_dies] where the die's last searched booking landed: chunk index
                                       # plus the channel's ivc_dropped then (a die books forward in time,
                                       # so its next booking is near; the search starts there)
    cdef int32_t* die_finger_ii        # [n_dies] and the interval's index in that chunk
    cdef int64_t horizon               # every booking from now on starts at or after this time
    # ---- background queues
    cdef Txn** q                       # [n_dies] ring buffers
    cdef int32_t* q_head
    cdef int32_t* q_len
    cdef int32_t* q_cap
    cdef int64_t bg_pending            # queued transactions, all dies
    cdef int64_t bg_next               # no queued transaction or idle move can start before this (ns);
                                       # set by Reclaim.run_bg's scan, -1 after any change to the queues
    cdef int64_t* hs                   # [n_dies] run_bg's last look at each die: no queued transaction or
                                       # idle move of it can start before this (ns), INT64_MAX none ready
    cdef int8_t* hs_kind               # [n_dies] what starts then: 0 a queued transaction, 1 an idle move
    cdef uint8_t* hs_stale             # [n_dies] 1: the die's queues changed since (look again)
    cdef bint hs_all_stale             # a job finished a phase: the heads it held back on any die may go
    cdef int32_t* hs_stale_dies        # [n_dies] the dies marked in hs_stale since run_bg's last look
    cdef int32_t n_hs_stale
    cdef int32_t* hs_tree              # [2 * hs_leaves] tournament tree over the dies: node i holds the die
    cdef int32_t hs_leaves             # with the least (hs, hs_kind, die) below it; leaf hs_leaves + d is
                                       # die d (a power of two >= n_dies; spare leaves hold -1)
    cdef Job* jobs                     # [jobs_cap] by id; ids restart when nothing is queued
    cdef int32_t n_jobs, jobs_cap
    cdef int32_t* sb_erase_job         # [n_sb] job whose erase of this superblock is not booked, -1 none
    cdef int32_t* src_of               # [n_pages] source ppn of a move not programmed yet, -1 (user-first only)
    cdef int64_t n_src                 # entries set in src_of
    cdef int64_t* erase_end[2]         # [events] per job kind: when the event's last erase ended, -1 pending
    cdef int32_t n_events[2]
    cdef int32_t events_cap[2]
    # ---- policy idle moves
    cdef IdleMove** iq                 # [n_dies] ring buffers
    cdef int32_t* iq_head
    cdef int32_t* iq_len
    cdef int32_t* iq_cap
    cdef int64_t idle_pending
    # ---- user writes waiting for their die (timing.read_priority)
    cdef bint read_prio
    cdef UserWrite** uq                # [n_dies] ring buffers, in arrival order
    cdef int32_t* uq_head
    cdef int32_t* uq_len
    cdef int32_t* uq_cap
    cdef int64_t uw_pending            # queued user programs, all dies
    cdef WriteReq* wreq                # open write requests by slot; free slots are stacked in wreq_free
    cdef int32_t* wreq_free
    cdef int32_t wreq_cap, n_wreq_free
    cdef int64_t* wdone                # latencies (ns) of the write requests completed since the engine took them
    cdef int32_t n_wdone, wdone_cap
    # ---- background programs and reads user transactions may join (timing.join_writes, join_reads)
    cdef bint join_on                  # timing.join_writes
    cdef bint jr_on                    # timing.join_reads
    cdef bint joins_on                 # join_on or jr_on: transactions are joined, so none skips the queue
    cdef int32_t* comp_plane           # [n_lanes*k] plane within its die of component c of lane l (borrowed)
    cdef ProgSlot** slots[2]           # [SLOT_PROG or SLOT_READ][n_dies] ring buffers, in start order
    cdef int32_t* sl_head[2]
    cdef int32_t* sl_len[2]
    cdef int32_t* sl_cap[2]
    # ---- destage buffer: min-heap of flush program ends, one entry per flush transaction
    cdef FlushEnt* heap                # [heap_cap] (the reference keeps one entry per page)
    cdef int32_t heap_len, heap_cap
    cdef int64_t heap_pages            # pages in the buffer
    # ---- erase-end events (gc.free_pool = "erased"), unsorted; the earliest is found by a scan
    cdef bint ev_on
    cdef EraseEv* ev
    cdef int32_t n_ev, ev_cap
    cdef int64_t ev_min                # earliest end among them (INT64_MAX when none)

    cdef void reset(self) noexcept nogil                                      # empty clocks and queues, time 0
    # ---- resources
    cdef inline int64_t xfer(self, int32_t chan, int64_t t, int32_t n, int32_t die) except -1 nogil:
        """End (ns) of an n-page transfer of die on chan ready at t: the first free stretch long
        enough ("gap-fill"), or after the channel's last transfer ("busy-until").  Most
        gap-fill bookings land at or after the channel's last busy interval; the rest search."""
        cdef int64_t dur = n * self.t_xfer, e
        cdef IvChunk* c
        if not self.gapfill:
            e = imax(t, self.chan_free[chan]) + dur
            self.chan_free[chan] = e
            return e
        if dur == 0:
            return t
        cdef int32_t last = self.ivc_n[chan] - 1
        if last >= 0 and self.ivc_last_s[chan] <= t:   # at or after the last interval's start
            c = self.ivc[chan][last]
            if c.v[2 * c.n - 1] >= t:                  # inside it or touching it: grow it
                e = c.v[2 * c.n - 1] + dur
                c.v[2 * c.n - 1] = e
                self.ivc_end[chan][last] = e
                return e
            if c.n < IVC:                              # after it, with room in its chunk
                c.v[2 * c.n] = t
                c.v[1 + 2 * c.n] = t + dur
                c.n += 1
                self.ivc_end[chan][last] = t + dur
                self.ivc_last_s[chan] = t
                return t + dur
        return self.xfer_fit(chan, t, dur, die)
    cdef inline void prefetch_finger(self, int32_t die, int32_t chan) noexcept nogil:
        """Prefetch the lines a "gap-fill" channel search for die would start from (no effect
        on results): the chunk and the interval where its last searched booking landed."""
        cdef int64_t ci = self.die_finger[die] - self.ivc_dropped[chan]
        cdef IvChunk* c
        if 0 <= ci < self.ivc_n[chan]:
            c = self.ivc[chan][ci]
            prefetch(c)
            prefetch(&c.v[2 * self.die_finger_ii[die]])
    cdef int64_t xfer_fit(self, int32_t chan, int64_t t, int64_t dur, int32_t die) except -1 nogil
    cdef int iv_insert(self, int32_t chan, int32_t ci, int32_t ii, int64_t s, int64_t e) except -1 nogil
    cdef IvChunk** _grow_chunks(self, int32_t chan) noexcept nogil
    cdef IvChunk* _chunk_new(self) except NULL nogil                       # a spare chunk, else a new one
    cdef void _chunk_drop(self, IvChunk* c) noexcept nogil                   # keep it as a spare, or free it
    cdef inline int64_t op(self, int32_t die, int32_t chan, int32_t phase, int32_t n_xfer, int64_t ready,
                    int64_t dur, int32_t cause) except -1 nogil:
        cdef int64_t start = imax(ready, self.die_free[die]), end
        if phase == PH_READ:
            end = start + dur
            if n_xfer:
                end = self.xfer(chan, end, n_xfer, die)
        elif phase == PH_PROG:
            end = (self.xfer(chan, start, n_xfer, die) if n_xfer else start) + dur
            self.die_prog_end[die] = end
        else:
            end = start + dur
            self.die_erase_end[die] = end
        self.die_free[die] = end
        self.die_busy[die] += end - start
        self.cnt[C_BUSY_USER + cause] += end - start
        return end
    cdef inline int64_t user_op(self, int32_t die, int32_t chan, int32_t phase, int32_t n_xfer, int64_t t,
                         int64_t dur, int32_t cause) except -1 nogil:
        cdef int64_t wait, end
        if cause == CAUSE_USER:
            wait = self.die_free[die] - imax(t, self.user_free[die])
            if wait > 0:
                add_wide(self.cnt, C_USER_WAIT_BG, wait)
        end = self.op(die, chan, phase, n_xfer, t, dur, cause)
        self.user_free[die] = end
        return end
    # ---- background jobs
    cdef int32_t new_job(self, int8_t kind, int32_t lane, int32_t victim, int64_t t) except -1 nogil
    cdef int queue(self, int32_t job, int32_t phase, int32_t die, int32_t chan, int32_t n_xfer, int64_t dur,
                   int32_t dsb, int32_t off, uint64_t cmask, int32_t count) except -1 nogil
    cdef int set_src(self, int64_t dst, int64_t src) except -1 nogil          # dst is read at src until programmed
    cdef int64_t head_start(self, int32_t die, int32_t max_job) noexcept nogil  # start of the die's head, -1 if none
    cdef int64_t next_start(self, int32_t die) noexcept nogil  # of its first user program, head or idle move
    cdef inline void changed(self, int32_t die) noexcept nogil:
        """The die's queues changed: run_bg looks at it again."""
        if not self.hs_stale[die]:
            self.hs_stale[die] = 1
            self.hs_stale_dies[self.n_hs_stale] = die
            self.n_hs_stale += 1
        self.bg_next = -1
    cdef inline bint hs_before(self, int32_t a, int32_t b) noexcept nogil:
        """Die a's next background start comes before die b's: the least (hs, hs_kind, die)
        (-1, a spare leaf, comes last)."""
        if b < 0:
            return a >= 0
        if a < 0:
            return False
        if self.hs[a] != self.hs[b]:
            return self.hs[a] < self.hs[b]
        if self.hs_kind[a] != self.hs_kind[b]:
            return self.hs_kind[a] < self.hs_kind[b]
        return a < b
    cdef inline void hs_play(self, int32_t i) noexcept nogil:
        """Node i of the tournament tree takes the winner of its two children."""
        cdef int32_t l = self.hs_tree[2 * i], r = self.hs_tree[2 * i + 1]
        self.hs_tree[i] = r if self.hs_before(r, l) else l
    cdef inline void hs_update(self, int32_t die) noexcept nogil:
        """Die's hs changed: replay its path of the tournament tree."""
        cdef int32_t i = (self.hs_leaves + die) >> 1
        while i >= 1:
            self.hs_play(i)
            i >>= 1
    cdef void hs_rebuild(self) noexcept nogil                               # every node of the tree again
    cdef inline int64_t hs_others(self, int32_t die) noexcept nogil:
        """The least hs (ns) of the dies other than ``die`` (the tree's winner): the winners
        of the subtrees beside die's path; INT64_MAX if none."""
        cdef int32_t i = self.hs_leaves + die, w
        cdef int64_t least = INT64_MAX
        while i > 1:
            w = self.hs_tree[i ^ 1]
            if w >= 0 and self.hs[w] < least:
                least = self.hs[w]
            i >>= 1
        return least
    cdef int book_head(self, int32_t die, int64_t start, int64_t before) except -1 nogil
    cdef int force(self, int32_t job) except -1 nogil                         # book the job's die group until it is done
    cdef bint job_pending(self, int32_t job) noexcept nogil
    cdef int set_erase_end(self, int32_t job, int64_t end) except -1 nogil       # the job's erases are booked
    cdef bint pop_erase_ev(self, int64_t t, EraseEv* out) noexcept nogil      # earliest ending by t, if any
    cdef inline int64_t erase_tag(self, int32_t job) noexcept nogil:
        """The tag of a job's erase event, unique per job (its event index per kind)."""
        return 2 * self.jobs[job].event + self.jobs[job].kind + 1
    # ---- user writes waiting for their die (timing.read_priority)
    cdef int32_t write_req(self, int64_t t, int64_t done, int32_t left) except -1 nogil  # a slot in wreq
    cdef int queue_write(self, int32_t die, int32_t chan, int32_t n_xfer, int64_t ready, int64_t dur,
                         int32_t req, int32_t off, uint64_t pmask) except -1 nogil
    cdef int book_write(self, int32_t die) except -1 nogil                  # the die's first queued user program
    cdef int write_part_done(self, int32_t req, int64_t end) except -1 nogil  # one of a request's programs ends
    cdef int take_write(self, int32_t die, int32_t chan, int32_t n_xfer, int64_t ready, int64_t dur,
                        int32_t req, int32_t off, uint64_t pmask) except -1 nogil  # join (join_writes) or queue
    # ---- background programs and reads user transactions join (timing.join_writes, join_reads)
    cdef uint64_t tx_planes(self, int32_t die, const Txn* tx) noexcept nogil  # tx's planes of die
    cdef ProgSlot* new_slot(self, int32_t kind, int32_t die) except NULL nogil
    cdef void drop_slots_before(self, int32_t kind, int32_t die, int64_t t) noexcept nogil
    cdef ProgSlot* find_slot(self, int32_t kind, int32_t die, int64_t t, int32_t off, uint64_t pmask,
                             int64_t dur) noexcept nogil
    cdef int add_slots(self, int32_t die, const Txn* tx, int64_t end, int64_t m) except -1 nogil
    cdef int64_t ride(self, ProgSlot* s, int32_t die, int32_t chan, int32_t n_xfer, int64_t ready,
                      int64_t dur) except -1 nogil
    cdef int add_read_slots(self, int32_t die, const Txn* tx, int64_t start, int64_t m) except -1 nogil
    cdef int64_t join_read(self, int32_t die, int32_t chan, int32_t n_xfer, int64_t t, int64_t dur,
                           int32_t off, uint64_t pmask) except -2 nogil
    # ---- idle moves
    cdef int push_idle(self, int32_t die, int32_t lpn, int32_t src, int32_t dest, int64_t t) except -1 nogil
    cdef IdleMove pop_idle(self, int32_t die) noexcept nogil
    # ---- destage buffer
    cdef int64_t destage(self, const int64_t* ends, int32_t n, int64_t t) except -1 nogil  # when it has room
    cdef int destage_push(self, int64_t end, int32_t pages) except -1 nogil
    cdef void _heap_pop(self) noexcept nogil
