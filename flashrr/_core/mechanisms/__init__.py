"""The mechanisms a policy switches on, one registry line each.

A mechanism is a compiled module here (``<module>.pyx`` and ``.pxd``, a
subclass of :class:`flashrr._core.roles.Mechanism`) with its pure-Python twin
beside it (``<module>_py.py``).  A policy switches it on by returning a spec
from the hook named in its line (a ``PolicyHooks`` field, or an entry of
``PolicyHooks.mechanisms``); the engine builder (``flashrr/_core/assembly.py``)
makes it with ``Class(ctx, spec)`` and puts it in the slots of its roles.
The order of the lines is the order in which observers of one role are called.
"""
from ..assembly import MechanismEntry

MECHANISMS = (
    MechanismEntry("working_sets", "working_sets", "WorkingSets", ("read_observer", "erase_observer")),
    MechanismEntry("early_moves", "early_moves", "EarlyMoves", ("read_observer", "request_observer",
                                                                 "erase_observer")),
    MechanismEntry("replication", "hot_replicas", "HotReplicas", ("read_observer", "write_observer",
                                                                   "read_redirector")),
    MechanismEntry("redundancy", "redundancy", "Redundancy", ("read_redirector", "write_path", "user_placer"),
                   placer="static_placement"),
    MechanismEntry("write_pool", "write_pool", "WritePool", ("user_placer", "migration_placer")),
    MechanismEntry("rr_streams", "streams", "Streams", ("user_placer", "migration_placer", "erase_observer")),
)
