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
