"""Combined schemes: ``"shuffler+phasedrr"`` runs every part's mechanisms together.

A combined policy is named by its parts joined with ``+`` and takes each
part's parameters as ``PART.PARAM`` (``{"phasedrr.delta_reads": 128}``).
Its parts must not clash:

* two parts may not switch on the same mechanism, nor mechanisms that fill one
  exclusive role (``flashrr/_core/assembly.py``: read redirector, user-page
  placer, migration placer, write path); the error names both and the role;
* of the Python hooks, ``place_migration`` fills the migration-placer role and
  ``choose_gc_victim`` the GC-victim role, so at most one part may override each;
* parts that keep page counters must agree on the group size (one counter array
  serves them all);
* at most one part may change the device (``device_config``).

What runs, in the order the parts are named: every part's ``bind``,
``bind_trace`` and ``on_read_reclaim`` (the RR routine's label joins the
parts' labels with ``+``); the observers of the compiled mechanisms run in
registry order (``flashrr/_core/mechanisms/__init__.py``), whatever the order
of the parts.  ``metadata_bytes`` is the sum of the parts' (parts that share
the page counters are each charged for them: an upper bound), and
``extra_metrics`` merges the parts' columns.
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache

from ._core.invariants import EngineError
from .policy import Policy, PolicyHooks, registered_class

SEP = "+"
# PolicyHooks fields that are not mechanism specs
_PLAIN_FIELDS = ("page_counter_group", "place_kinds", "on_read_reclaim", "place_migration", "choose_gc_victim",
                 "mechanisms")


class CombineError(ValueError):
    """Two parts of a combined policy that cannot run together."""


def is_combined(name) -> bool:
    return isinstance(name, str) and SEP in name


def part_names(name: str) -> tuple:
    parts = tuple(p.strip() for p in name.split(SEP))
    if len(parts) < 2 or not all(parts):
        raise ValueError(f"policy: {name!r} is not a combination; expected names joined by {SEP!r}, "
                         "e.g. 'shuffler+phasedrr'")
    if len(set(parts)) != len(parts):
        raise ValueError(f"policy: {name!r} names a part twice")
    return parts


@lru_cache(maxsize=None)
def combined_class(name: str) -> type:
    """The policy class of combination ``name`` (parts checked to exist; clashes are
    found when it is made, because they may depend on the parts' parameters)."""
    parts = part_names(name)
    for p in parts:
        registered_class(p)
    label = SEP.join(parts)
    return type(f"Combined[{label}]", (CombinedPolicy,), {"name": label, "part_names": parts,
                                                          "__doc__": f"The parts {', '.join(parts)} together."})


def _declared_entries(part: Policy):
    """The registry entries of the mechanisms ``part`` switches on.  A policy declares
    mechanism ``X`` by overriding ``X_spec``, or by a ``mechanism_specs()`` key (a hook
    name or its own entry); its spec may need ``bind`` first, so the declaration is
    what counts here, and the engine builder checks the specs when the run starts."""
    from ._core import assembly
    from ._core.mechanism_entry import MechanismEntry

    by_hook = {e.hook: e for e in assembly.registry()}
    for e in by_hook.values():
        if getattr(type(part), f"{e.hook}_spec", None) is not getattr(Policy, f"{e.hook}_spec", None):
            yield e
    for key in part.mechanism_specs():
        e = key if isinstance(key, MechanismEntry) else by_hook.get(key)
        if e is not None:  # an unknown name is the engine builder's error to give
            yield e


class CombinedPolicy(Policy):
    """Base of the classes :func:`combined_class` makes; see the module docstring."""

    part_names: tuple = ()

    def __init__(self, **params):
        routed = {p: {} for p in self.part_names}
        for key, value in params.items():
            part, dot, param = key.partition(".")
            if not dot or part not in routed:
                raise TypeError(f"policy {self.name!r}: parameter {key!r} must be PART.PARAM with PART one of "
                                f"{list(self.part_names)}")
            routed[part][param] = value
        self.parts = [registered_class(p)(**routed[p]) for p in self.part_names]
        self.page_counter_group = self._counter_group()
        self.place_kinds = tuple(dict.fromkeys(k for p in self.parts for k in p.place_kinds))
        self._exclusive_hook("choose_gc_victim", "gc_victim_chooser")
        self._check_mechanisms()

    # ---------------------------------------------------------------- clashes
    def _counter_group(self) -> int:
        groups = {p.name: int(p.page_counter_group) for p in self.parts if p.page_counter_group}
        if len(set(groups.values())) > 1:
            raise CombineError(f"policy {self.name!r}: the parts keep page counters of different group sizes "
                               f"({', '.join(f'{n}: {g}' for n, g in groups.items())}); one counter array serves "
                               "them all")
        return next(iter(groups.values()), 0)

    def _overrides(self, hook: str) -> list:
        return [p for p in self.parts if getattr(type(p), hook) is not getattr(Policy, hook)]

    def _exclusive_hook(self, hook: str, role: str) -> None:
        owners = self._overrides(hook)
        if len(owners) > 1:
            raise CombineError(f"policy {self.name!r}: {owners[0].name!r} and {owners[1].name!r} both fill the "
                               f"exclusive role {role!r} ({hook}); they cannot run together")

    def _check_mechanisms(self) -> None:
        """Mechanisms and Python hooks of the parts against each other: one owner per
        mechanism, per exclusive role (``place_migration`` fills the migration placer)
        and for the device."""
        from ._core import assembly

        claims, owner = [], {}
        for p in self.parts:
            for e in _declared_entries(p):
                if e.hook in owner:
                    raise CombineError(f"policy {self.name!r}: {owner[e.hook]!r} and {p.name!r} both switch on the "
                                       f"mechanism {e.hook!r}")
                owner[e.hook] = p.name
                claims.append((f"{p.name!r} (mechanism {e.hook!r})", e.roles))
            if p in self._overrides("place_migration"):
                claims.append((f"{p.name!r} (place_migration)", ("migration_placer",)))
        try:
            assembly.check_roles(claims)
        except EngineError as err:
            raise CombineError(f"policy {self.name!r}: {err}") from None
        changers = [p.name for p in self.parts if type(p).device_config is not Policy.device_config]
        if len(changers) > 1:
            raise CombineError(f"policy {self.name!r}: {changers[0]!r} and {changers[1]!r} both change the device")

    # ---------------------------------------------------------------- the Policy interface
    def params(self) -> dict:
        return {f"{p.name}.{k}": v for p in self.parts for k, v in p.params().items()}

    def device_config(self, config):
        for p in self.parts:
            config = p.device_config(config)
        return config

    def bind(self, config, seed: int) -> None:
        for p in self.parts:
            p.bind(config, seed)

    def bind_trace(self, source, config) -> None:
        for p in self.parts:
            p.bind_trace(source, config)

    def metadata_bytes(self, config) -> int:
        return sum(int(p.metadata_bytes(config)) for p in self.parts)

    def extra_metrics(self) -> dict:
        out = {}
        for p in self.parts:
            out.update(p.extra_metrics())
        return out

    def hooks(self) -> PolicyHooks:
        hs = [p.hooks() for p in self.parts]
        rr = [h.on_read_reclaim for h in hs if h.on_read_reclaim is not None]
        specs = {}
        for f in dataclasses.fields(PolicyHooks):
            if f.name not in _PLAIN_FIELDS:
                specs[f.name] = next((getattr(h, f.name) for h in hs if getattr(h, f.name) is not None), None)
        return PolicyHooks(
            page_counter_group=self.page_counter_group,
            place_kinds=self.place_kinds,
            on_read_reclaim=self._rr_chain(rr) if len(rr) > 1 else (rr[0] if rr else None),
            place_migration=next((h.place_migration for h in hs if h.place_migration is not None), None),
            choose_gc_victim=next((h.choose_gc_victim for h in hs if h.choose_gc_victim is not None), None),
            mechanisms=tuple(kv for h in hs for kv in (h.mechanisms or ())),
            **specs,
        )

    @staticmethod
    def _rr_chain(hooks: list):
        def on_read_reclaim(state, sb):
            return SEP.join(str(h(state, sb)) for h in hooks)

        return on_read_reclaim
