"""The read-reclaim policy interface.

A policy is a Python class.  The engine runs every request in compiled code and
calls the policy only at rare events: a read reclaim (RR), a garbage collection
(GC) migration, a GC victim choice.  Per-request mechanisms a policy needs are
*features* it declares, and the compiled engine provides them:

* ``page_counter_group`` (pages): keep one read counter per group of that many
  consecutive logical pages, incremented on every flash read of a page
  (0 = off).  Its DRAM cost is ``counter_bytes`` per counter, charged to the
  data cache through :meth:`Policy.metadata_bytes`.
* ``working_sets_spec()`` (PhasedRR), ``early_moves_spec()`` (RL-RR,
  Reallocation), ``replication_spec()`` (HotR), ``redundancy_spec()`` (Rails,
  TTFlash, Optimal), ``write_pool_spec()`` (Cocktail), ``rr_streams_spec()``
  (redFTL, IPR, Reallocation): return the typed spec of that compiled mechanism
  (``WorkingSetsSpec``, ``EarlyMovesSpec``, ``ReplicationSpec``,
  ``RedundancySpec``, ``WritePoolSpec``, ``RRStreamsSpec``; each declared in its
  mechanism's twin module, ``flashrr/_core/mechanisms/<name>_py.py``, with its
  modes as an ``IntEnum``) to switch it on, or None.  ``mechanism_specs()`` does the
  same for a mechanism without a method of its own (docs/policies.md).
* ``state.rr_threshold`` is a per-block RR threshold array a hook may write
  (e.g. to give read-balanced blocks a higher threshold); it is reset to the
  configured threshold when a block is erased.

Hooks (override only what you need; an hook that is not overridden costs
nothing, because the engine then uses its compiled default):

* ``on_read_reclaim(state, sb) -> str``: called when superblock ``sb`` is about
  to be reclaimed; returns a label for the routine used (kept in
  ``Result.rr_events``).
* ``place_migration(state, kind, sb, comps, offsets, lpns) -> array``: for an
  RR (``kind == "rr"``) or GC (``"gc"``) migration of ``sb``, the destination
  component index (``0 <= d < k``) of each valid page, given in source order
  (offset-major, then component).  Pages keep that order within a destination
  block.  Only called for kinds in ``place_kinds``.
* ``choose_gc_victim(state, lane, candidates, valid) -> sb``: pick a GC victim
  among closed superblocks ``candidates`` with ``valid`` valid pages.

``state`` is an :class:`EngineState`: NumPy views of the live engine arrays
(writes to ``rr_threshold`` take effect; treat the rest as read-only).
See ``docs/policies.md`` for a worked example.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ._core.hooks import EngineState, PolicyHooks


class Policy:
    """Base class: superblock-granularity RR that keeps every page in its component
    block (the Baseline).  Subclasses override hooks and class attributes."""

    name = "baseline"
    page_counter_group = 0  # pages per read counter; 0 = no counters
    counter_bytes = 0  # DRAM bytes per counter
    place_kinds: tuple = ("rr",)

    def __init__(self, **params):
        if params:
            raise TypeError(f"policy {self.name!r} takes no parameter {sorted(params)[0]!r}")

    def params(self) -> dict:
        """The parameters that define this policy instance (for result keys)."""
        return {}

    def bind(self, config, seed: int) -> None:
        """Called once before a run, with the device config and the run seed."""

    def device_config(self, config):
        """The device this policy runs on, given the configured one (schemes that add
        dies, Rails and TTFlash, return a larger one).  Called before :meth:`bind`."""
        return config

    def bind_trace(self, source, config) -> None:
        """Called once before a run with the trace source (policies sized by the
        trace, e.g. HotR's staging space).  Called after :meth:`bind`."""

    def extra_metrics(self) -> dict:
        """Columns this policy adds to the run's summary, read after the run."""
        return {}

    def metadata_bytes(self, config) -> int:
        """DRAM bytes the policy keeps (taken from the data cache)."""
        if not self.page_counter_group:
            return 0
        n_groups = -(-config.logical_pages // self.page_counter_group)
        return n_groups * self.counter_bytes

    # hooks: defined here so subclasses can call super(); the engine only calls overrides
    def on_read_reclaim(self, state: EngineState, sb: int) -> str:
        return "default"

    def place_migration(self, state: EngineState, kind: str, sb: int, comps, offsets, lpns):
        return comps

    def choose_gc_victim(self, state: EngineState, lane: int, candidates, valid) -> int:
        return int(candidates[int(np.argmin(valid))])

    def hooks(self) -> PolicyHooks:
        cls = type(self)

        def overridden(name):
            return getattr(cls, name) is not getattr(Policy, name)

        return PolicyHooks(
            page_counter_group=int(self.page_counter_group),
            place_kinds=tuple(self.place_kinds),
            on_read_reclaim=self.on_read_reclaim if overridden("on_read_reclaim") else None,
            place_migration=self.place_migration if overridden("place_migration") else None,
            choose_gc_victim=self.choose_gc_victim if overridden("choose_gc_victim") else None,
            working_sets=self.working_sets_spec(),
            early_moves=self.early_moves_spec(),
            replication=self.replication_spec(),
            redundancy=self.redundancy_spec(),
            write_pool=self.write_pool_spec(),
            rr_streams=self.rr_streams_spec(),
            mechanisms=tuple(self.mechanism_specs().items()),
        )

    def mechanism_specs(self) -> dict:
        """``{registry hook: spec}`` of registered mechanisms without a ``*_spec`` method of
        their own (flashrr/_core/mechanisms/__init__.py; docs/policies.md, "Writing a
        compiled mechanism")."""
        return {}

    def working_sets_spec(self) -> Optional[tuple]:
        """A ``WorkingSetsSpec`` to switch the compiled working sets on
        (flashrr/_core/mechanisms/working_sets.pyx), or None."""
        return None

    def early_moves_spec(self) -> Optional[tuple]:
        """An ``EarlyMovesSpec`` to switch the compiled counter-guided early moves on
        (flashrr/_core/mechanisms/early_moves.pyx), or None."""
        return None

    def replication_spec(self) -> Optional[tuple]:
        """A ``ReplicationSpec`` to switch the compiled HotR replicas on
        (flashrr/_core/mechanisms/hot_replicas.pyx), or None."""
        return None

    def redundancy_spec(self) -> Optional[tuple]:
        """A ``RedundancySpec`` to switch the compiled Rails, TTFlash or Optimal
        redundancy on (flashrr/_core/mechanisms/redundancy.pyx), or None."""
        return None

    def write_pool_spec(self) -> Optional[tuple]:
        """A ``WritePoolSpec`` to switch on Cocktail's compiled write pool
        (flashrr/_core/mechanisms/write_pool.pyx; needs superblock size 1), or None."""
        return None

    def rr_streams_spec(self) -> Optional[tuple]:
        """An ``RRStreamsSpec`` to switch on the compiled RR destination streams
        (flashrr/_core/mechanisms/streams.pyx; needs ``page_counter_group = 1`` and
        superblock size 1), or None."""
        return None

    def __repr__(self) -> str:
        p = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({p})"


class Baseline(Policy):
    """Conventional superblock-granularity RR: when any component block reaches
    the threshold, every valid page of the superblock moves, each staying in its
    component-block index.  With ``superblock.k == 1`` this is block RR."""

    name = "baseline"


POLICIES: dict[str, type] = {"baseline": Baseline}


def register_policy(cls: type) -> type:
    """Class decorator: make a policy available by its ``name`` to the API and CLI."""
    POLICIES[cls.name] = cls
    return cls


def registered_class(name) -> type:
    """The class registered under ``name`` (one name, not a combination).  Raises
    ValueError naming the registered names.  The built-in schemes are registered when
    :mod:`flashrr.policies` is imported; :func:`flashrr.policies.policy_class` looks a
    name up with them loaded."""
    try:
        return POLICIES[name]
    except (KeyError, TypeError):
        raise ValueError(f"policy: unknown policy {name!r}; expected one of {sorted(POLICIES)}, or names joined "
                         "by '+'") from None
