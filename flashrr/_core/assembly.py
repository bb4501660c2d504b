"""The engine builder both engines use: which mechanisms a policy switches on,
the role slots they fill, and the clashes that are refused.

Roles (roles.pxd describes each call point):

* chained, any number, called in registry order: ``read_observer``,
  ``request_observer``, ``erase_observer``, ``write_observer``;
* exclusive, at most one mechanism each: ``read_redirector``, ``user_placer``,
  ``migration_placer``, ``write_path``.

The user-page placer is also filled by the device's own static placement
(``page_placement.placement`` ``"static_die"`` or ``"static_lane"``) when no
mechanism claims it; a mechanism with its own static layout (Rails, TTFlash)
replaces it, and one that places pages by its own rules (write pool, RR
streams) is refused beside it.
"""
from __future__ import annotations

import importlib
from types import SimpleNamespace

from .invariants import READ_PRIORITY_WITH_POLICY_WRITES, STALL_WITH_EARLY_MOVES, STATIC_WITH_POLICY_PLACEMENT
from .invariants import EngineError
from .mechanism_entry import CHAINED_ROLES, EXCLUSIVE_ROLES, HEAD_OF, MechanismEntry
from .mechanisms import MECHANISMS
from .options.static_die_py import PLACE_LANE, PLACE_MOD  # plain ints, the same in static_die.pxd


def registry() -> tuple:
    """The registry's lines (``flashrr/_core/mechanisms/__init__.py``), in registry order."""
    return MECHANISMS


def declared(hooks) -> list:
    """``[(entry, spec)]`` of the mechanisms ``hooks`` switch on: the registry's in
    registry order, then those a policy declares with their own entry
    (``Policy.mechanism_specs`` keyed by a :class:`MechanismEntry`)."""
    if hooks is None:
        return []
    extra = dict(getattr(hooks, "mechanisms", ()) or ())
    out = []
    for e in registry():
        spec = extra.pop(e.hook, None) if e.hook in extra else getattr(hooks, e.hook, None)
        if spec is not None:
            out.append((e, spec))
    for key in [k for k in extra if isinstance(k, MechanismEntry)]:  # declared by the policy itself
        if extra[key] is not None:
            out.append((key, extra[key]))
        del extra[key]
    if extra:
        names = sorted(e.hook for e in registry())
        raise EngineError(f"policy hooks: unknown mechanism {sorted(extra)[0]!r}; expected one of {names}")
    return out


def check_roles(claims: list) -> None:
    """``claims``: ``[(name, roles)]``, a name per mechanism (or per policy with its
    mechanism in brackets).  Raises EngineError naming both and the role when two
    claim one exclusive role."""
    owner = {}
    for name, roles in claims:
        for r in roles:
            if r in EXCLUSIVE_ROLES:
                if r in owner:
                    raise EngineError(f"{owner[r]} and {name} both fill the exclusive role {r!r}; they cannot run "
                                      "together")
                owner[r] = name


def build(ctx: SimpleNamespace, hooks, reference: bool) -> SimpleNamespace:
    """Make the mechanisms ``hooks`` declare and fill the role slots.

    ``ctx``: the engine's parts (layout, ftl, sched, rc, counters, comp_die,
    block_reads, rr_threshold, page_counters, page_counts, seed).  Returns
    ``mechanisms`` (hook -> object), the chain heads ``readers``,
    ``requesters``, ``erasers``, ``writers``, the exclusive slots
    ``redirector``, ``placer``, ``migration_placer``, ``write_path``, and
    ``counters`` (``[(names, mechanism)]``) for the mechanisms' own counters.  It refuses
    what no engine can run: two claims on an exclusive role, RR streams without one
    page counter per LPN, request observers with ``gc.write_stall``, request observers
    and write paths with ``timing.read_priority``, and a device placement beside a
    mechanism that places user pages itself."""
    L = ctx.layout
    chosen = declared(hooks)
    if any(e.hook == "rr_streams" for e, _ in chosen) and hooks.page_counter_group != 1:
        raise EngineError("rr_streams need one page counter per logical page (page_counter_group = 1)")
    made = []
    claims = []
    for e, spec in chosen:
        m = e.make(ctx, spec, reference)
        roles = tuple(e.roles)
        placer = getattr(m, e.placer)(ctx) if e.placer else m
        made.append((e, m, roles, placer))
        claims.append((f"mechanism {e.hook!r}", roles))
    check_roles(claims)
    out = SimpleNamespace(mechanisms={}, readers=None, requesters=None, erasers=None, writers=None,
                          redirector=None, placer=None, migration_placer=None, write_path=None, counters=[])
    tails = {}
    for e, m, roles, placer in made:
        out.mechanisms[e.hook] = m
        for r in roles:
            if r in CHAINED_ROLES:
                if r in tails:
                    m.link(r, tails[r])
                else:
                    setattr(out, HEAD_OF[r], m)
                tails[r] = m
        if "read_redirector" in roles:
            out.redirector = m
        if "user_placer" in roles:
            out.placer = placer
        if "migration_placer" in roles:
            out.migration_placer = m
        if "write_path" in roles:
            out.write_path = m
        if e.counters:
            if len(m.counter_values()) != len(e.counters):
                raise EngineError(f"mechanism {e.hook!r}: counter_values() gives {len(m.counter_values())} values "
                                  f"for the {len(e.counters)} counters of its registry line")
            out.counters.append((e.counters, m))
    if L.static_die or L.static_lane:
        if out.placer is None:
            cls = getattr(importlib.import_module(f"flashrr._core.options.static_die{'_py' if reference else ''}"),
                          "StaticDie")
            out.placer = cls(ctx, PLACE_LANE if L.static_lane else PLACE_MOD)
        elif not any(e.placer for e, _, roles, _ in made if "user_placer" in roles):
            raise EngineError(STATIC_WITH_POLICY_PLACEMENT)
    if L.gc_write_stall and out.requesters is not None:
        raise EngineError(STALL_WITH_EARLY_MOVES)
    if L.read_priority and (out.requesters is not None or out.write_path is not None):
        raise EngineError(READ_PRIORITY_WITH_POLICY_WRITES)
    return out


#: Roles whose calls happen while the engine preconditions (the fill's and warm-up's GC).
PRECONDITION_ROLES = ("erase_observer", "migration_placer")


def precondition_acts(hooks) -> list:
    """Why ``hooks`` change what preconditioning does or leaves, one phrase each (empty:
    they do not, and a device preconditioned without them is the same): a mechanism in
    a role called during GC (:data:`PRECONDITION_ROLES`; an erase observer that
    ``erase_resets_only`` does not count), a static layout of its own
    (its placer takes the fill), or a policy hook that chooses GC victims or places GC
    pages.  The user placers of the write pool and RR streams are off while the engine
    preconditions."""
    if hooks is None:
        return []
    out = []
    for e, _ in declared(hooks):
        roles = [r for r in e.roles if r in PRECONDITION_ROLES and not (r == "erase_observer" and e.erase_resets_only)]
        if roles:
            out.append(f"mechanism {e.hook!r} ({', '.join(roles)})")
    out += [f"mechanism {e.hook!r} (its static layout places the fill)" for e, _ in declared(hooks)
            if e.placer and "user_placer" in e.roles]
    if hooks.choose_gc_victim is not None:
        out.append("hook choose_gc_victim")
    if hooks.place_migration is not None and "gc" in hooks.place_kinds:
        out.append("hook place_migration of GC pages")
    return out


def snapshot_blockers(hooks) -> list:
    """The parts of ``precondition_acts(hooks)`` a snapshot cannot hold, one phrase each:
    a policy hook (its Python state), or a mechanism acting during preconditioning whose
    class has no ``state()``/``restore()`` pair.  Empty: the policy's aged device can come
    from a snapshot keyed by the policy."""
    if hooks is None:
        return []
    out = []
    for e, _ in declared(hooks):
        acting = any(r in PRECONDITION_ROLES and not (r == "erase_observer" and e.erase_resets_only) for r in e.roles)
        cls = getattr(importlib.import_module(f"flashrr._core.mechanisms.{e.module}_py"), e.cls)
        if acting and not hasattr(cls, "state"):
            out.append(f"mechanism {e.hook!r} keeps no snapshot state")
    if hooks.choose_gc_victim is not None:
        out.append("hook choose_gc_victim")
    if hooks.place_migration is not None and "gc" in hooks.place_kinds:
        out.append("hook place_migration of GC pages")
    return out


def counter_values(slots: SimpleNamespace) -> dict:
    """``{name: value}`` of the counters the switched-on mechanisms report; a name two
    of them report (the read redirectors' ``redirected_*``) is their sum."""
    out = {}
    for names, m in slots.counters:
        for name, v in zip(names, m.counter_values()):
            out[name] = out.get(name, 0) + int(v)
    return out


def registry_counter_names() -> tuple:
    """Every counter name of the registry's lines, in registry order, each once: the
    summary's mechanism columns (0 for a mechanism that is off)."""
    return tuple(dict.fromkeys(name for e in registry() for name in e.counters))


def reset_counters(slots: SimpleNamespace) -> None:
    """Zero the mechanisms' own counters (after preconditioning, like the engine's)."""
    for m in slots.mechanisms.values():
        m.reset_counters()
