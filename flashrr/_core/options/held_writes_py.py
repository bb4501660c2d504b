"""Held user writes under gc.write_stall (twin of ``held_writes.pyx``): a user page whose
lane's pool of erased superblocks is below the GC threshold, with a victim in flight,
waits for the lane's next erase end (MQSim's ``Stop_servicing_writes``).  The engine
maps the page at arrival and keeps it here; it books the program when an erase lets
the lane write again, and records the request's latency when its last page is booked."""
from __future__ import annotations



class HeldWrites:
    def __init__(self):
        self.pages: list = []  # [ppn, lane, req], oldest first
        self.reqs: list = []  # [arrival ns, latest end so far ns, pages still held]; ids restart when none is open
        self.open_reqs = 0

    def new_req(self, t: int, done: int, left: int) -> int:
        if self.open_reqs == 0:
            self.reqs.clear()
        self.reqs.append([t, done, left])
        self.open_reqs += 1
        return len(self.reqs) - 1

    def hold(self, ppn: int, lane: int, req: int) -> None:
        self.pages.append((ppn, lane, req))

    def page_booked(self, req: int, end: int) -> bool:
        """One held page of ``req`` is booked to end at ``end``; True if the request is complete."""
        r = self.reqs[req]
        r[1] = max(r[1], end)
        r[2] -= 1
        if r[2] == 0:
            self.open_reqs -= 1
            return True
        return False
