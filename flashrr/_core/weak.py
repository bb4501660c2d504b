"""Callbacks into an engine that do not keep it alive."""
from __future__ import annotations

import weakref


def weak_method(obj, name: str):
    """``obj.name`` as a callable holding only a weak reference to ``obj``.

    The reclaim layer calls back into its engine (the hooks' state view, the invariant
    check). A bound method there would close a reference cycle, engine -> layer ->
    engine, that only the cyclic garbage collector frees, so a finished run's
    device-sized arrays would stay in memory until it runs."""
    ref = weakref.ref(obj)

    def call(*args):
        return getattr(ref(), name)(*args)

    return call
