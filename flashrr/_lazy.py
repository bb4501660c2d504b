"""Package faces whose names are imported on first use (PEP 562).

A package's ``__init__`` names each public attribute and the submodule that
holds it; the submodule is imported when the attribute is first read, so
importing the package costs only the package.  This keeps the libraries a
submodule needs (SciPy, pandas, pyarrow) out of a process that never uses
that submodule::

    __getattr__, __dir__ = lazy_attributes(__name__, {"read_trace": ".io", ...})
"""
from __future__ import annotations

import importlib
import pkgutil
import sys
from typing import Callable


def lazy_attributes(package: str, where: dict[str, str], submodules: tuple[str, ...] = ()
                    ) -> tuple[Callable[[str], object], Callable[[], list]]:
    """``(__getattr__, __dir__)`` for the package named ``package``.

    ``where[name]`` is the submodule (relative to the package, e.g. ``".io"``)
    whose attribute ``name`` the package shows; each name in ``submodules`` is
    a submodule shown as itself (``flashrr.compare`` the module, not its
    function).  A name read once is stored on the package, so later reads do
    not come back here.  No name of ``where`` may be a submodule's name
    (ValueError): importing that submodule sets the package's attribute of that
    name to the module, and ``__getattr__`` would never be asked for it."""
    clash = {m.name for m in pkgutil.iter_modules(sys.modules[package].__path__)} & set(where)
    if clash:
        raise ValueError(f"lazy_attributes: {sorted(clash)} both an attribute and a submodule of {package}")

    def __getattr__(name: str):
        if name in submodules:
            value = importlib.import_module(f"{package}.{name}")
        elif name in where:
            value = getattr(importlib.import_module(where[name], package), name)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list:
        return sorted(set(vars(sys.modules[package])) | set(where) | set(submodules))

    return __getattr__, __dir__
