"""The base of every mechanism of the reference engine (twin of ``roles.pyx``;
roles.pxd lists the roles).  Each method is a no-op here: a mechanism overrides
the methods of the roles it declares."""
from __future__ import annotations


class Mechanism:
    places_fill = False  # user-page placer: the precondition fill goes through it too

    def __init__(self):
        self.next_reader = self.next_request = self.next_eraser = self.next_writer = None
        self.redirect_end = 0  # set by redirect(): when its own reads end (ns)
        self.redirect_blocked = False  # set by redirect(): one of its reads waited behind a program

    def page_read(self, ppn: int, blk: int, reads: int, threshold: int, done: int) -> None:
        pass

    def reads_done(self, done: int) -> None:
        pass

    def arrival(self, t: int) -> None:
        pass

    def request_done(self, done: int) -> None:
        pass

    def block_erased(self, blk: int) -> None:
        pass

    def host_write(self, lpn0: int, lpn1: int) -> None:
        pass

    def redirect(self, lpns: list, ppns: list, locs: list, extras: list, t: int) -> tuple:
        """The pages left for their own dies: ``(lpns, ppns, locs, extras)``."""
        return lpns, ppns, locs, extras

    def user_page(self, lpn: int) -> int:
        return 0

    # ---- migration placer: where the pages of RR and GC migrations and of single page moves go
    def victim_chosen(self, victim: int) -> None:
        pass

    def places_migration(self, is_rr: bool) -> bool:
        """False: the migration's pages go to the GC/RR frontier."""
        return False

    def plan_migration(self, victim: int, is_rr: bool, lpns: list) -> None:
        pass

    def migration_order(self, n: int):
        """The order in which the migration's n pages are placed (source indices)."""
        return range(n)

    def migration_page(self, lane: int, q: int, lpn: int, dest: int) -> int:
        """The ppn of page q of the migration; -1: the GC/RR frontier (component ``dest``)."""
        return -1

    def migration_moved(self, lpns: list) -> None:
        pass

    def migration_done(self, lane: int) -> None:
        pass

    def move_page_slot(self, lane: int, lpn: int, src_blk: int) -> int:
        """The ppn a single page move of ``lpn`` takes; -1: the GC/RR frontier."""
        return -1

    # ---- write path: a host write that does not go through the data cache
    def write(self, host, t: int, lpn0: int, lpn1: int) -> int:
        """Write LPNs lpn0..lpn1 arriving at ``t`` through ``host`` (the engine:
        ``program_user_pages(lpns, t)``, ``map_user_page(lpn, t)``); returns the end (ns)."""
        return t

    def counter_values(self) -> list:
        """The values of the counters the registry entry names, in its order."""
        return []

    def reset_counters(self) -> None:
        """Zero those counters (the engine calls it after preconditioning)."""

    def link(self, role: str, after: "Mechanism") -> None:
        """Chain this mechanism after ``after`` in the observer role ``role``."""
        attr = {"read_observer": "next_reader", "request_observer": "next_request",
                "erase_observer": "next_eraser", "write_observer": "next_writer"}.get(role)
        if attr is None:
            raise ValueError(f"role {role!r} does not chain")
        setattr(after, attr, self)
