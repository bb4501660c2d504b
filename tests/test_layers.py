"""The layers of the package (docs/layers.md): every import stays inside what the
rooms table there allows, the engine imports only itself and the configuration, and
no two modules import each other in a circle.  The import graph is read from the
sources (``import_graph.py``: imports anywhere in a module, the ``cimport``s of the
compiled sources, modules named by strings); the first tests check that reader on a
small package made for them."""
from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest

from import_graph import cycles, import_graph

ROOT = Path(__file__).resolve().parent.parent
LAYERS_DOC = ROOT / "docs" / "layers.md"
ENGINE_MAY_IMPORT = ("flashrr._core", "flashrr.config")


def rooms_table(text: str) -> dict:
    """``{room: (module patterns, rooms it may import)}`` from the table of docs/layers.md
    whose header is ``| room | modules | holds | may import |``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"\|\s*room\s*\|\s*modules\s*\|", line))
    rooms = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        room, modules, _, may = (cell.strip() for cell in line.strip("|").split("|"))
        patterns = tuple(re.findall(r"`([^`]+)`", modules))
        rooms[room] = (patterns, () if may == "nothing" else tuple(r.strip() for r in may.split(",")))
    return rooms


def room_of(module: str, rooms: dict) -> str | None:
    """The room whose matching pattern is the longest, or None."""
    best = max(((len(p), room) for room, (patterns, _) in rooms.items() for p in patterns
                if fnmatch.fnmatchcase(module, p)), default=None)
    return best[1] if best else None


def violations(graph: dict, rooms: dict) -> list:
    """``"a -> b (file:line): room x may not import room y"`` for every import the table forbids."""
    out = []
    for a, targets in sorted(graph.items()):
        ra = room_of(a, rooms)
        for b, where in sorted(targets.items()):
            rb = room_of(b, rooms)
            if rb != ra and rb not in rooms[ra][1]:
                out.append(f"{a} -> {b} ({where[0][0]}:{where[0][1]}): room {ra!r} may not import room {rb!r}")
    return out


def engine_reaching_up(graph: dict) -> list:
    """Imports of an engine module (``flashrr._core``) of anything but the engine and the configuration."""
    return [f"{a} -> {b} ({where[0][0]}:{where[0][1]})" for a, targets in sorted(graph.items())
            if a == "flashrr._core" or a.startswith("flashrr._core.")
            for b, where in sorted(targets.items())
            if not any(b == m or b.startswith(m + ".") for m in ENGINE_MAY_IMPORT)]


@pytest.fixture(scope="module")
def graph():
    return import_graph(ROOT, "flashrr")


@pytest.fixture(scope="module")
def rooms():
    return rooms_table(LAYERS_DOC.read_text())


def _package(tmp_path: Path, files: dict) -> dict:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return import_graph(tmp_path, "pkg")


def test_the_reader_sees_every_kind_of_import(tmp_path):
    """Module-level, in-function and TYPE_CHECKING imports; a sibling through the package
    face and directly; cimports of a .pxd and imports of a .pyx (not those in its
    docstring or comments); a full module name in a string; a lazy face's names."""
    g = _package(tmp_path, {
        "pkg/__init__.py": "from ._lazy import lazy_attributes\n"
                           "__getattr__, __dir__ = lazy_attributes(__name__, {'f': '.b'}, submodules=('c',))\n",
        "pkg/_lazy.py": "def lazy_attributes(*a, **k):\n    return None, None\n",
        "pkg/a.py": "import typing\nif typing.TYPE_CHECKING:\n    from .b import B\n"
                    "def f():\n    from . import c\n    from pkg import Name\n",
        "pkg/b.py": "MODULES = {'x': 'pkg.sub.d'}\n",
        "pkg/c.py": '"""Names pkg.a in its docstring: not an import."""\n',
        "pkg/sub/__init__.py": "",
        "pkg/sub/d.pxd": "from ..c cimport T\ncimport numpy as cnp\n",
        "pkg/sub/d.pyx": '"""\nfrom ..a import f  (a docstring)\n"""\n# import pkg.b\n'
                         "from . import e\nfrom ..b import (MODULES,\n    x)\n",
        "pkg/sub/e.py": "import pkg.sub.d as d\n",
    })
    assert {m: sorted(t) for m, t in g.items()} == {
        "pkg": ["pkg._lazy", "pkg.b", "pkg.c"], "pkg._lazy": [], "pkg.a": ["pkg", "pkg.b", "pkg.c"],
        "pkg.b": ["pkg.sub.d"], "pkg.c": [], "pkg.sub": [], "pkg.sub.d": ["pkg.b", "pkg.c", "pkg.sub.e"],
        "pkg.sub.e": ["pkg.sub.d"]}
    assert cycles(g) == [["pkg.b", "pkg.sub.d", "pkg.sub.e"]]  # b -> d by its string, d -> b, d <-> e


def test_a_circle_through_a_package_face_is_found(tmp_path):
    """A module that takes its sibling through the face, while the face imports the module."""
    g = _package(tmp_path, {
        "pkg/__init__.py": "from .one import ONE\nfrom .two import TWO\n",
        "pkg/one.py": "ONE = 1\n",
        "pkg/two.py": "def two():\n    from . import ONE\n    return ONE\nTWO = 2\n",
    })
    assert cycles(g) == [["pkg", "pkg.two"]]
    g = _package(tmp_path, {"pkg/two.py": "from .one import ONE\nTWO = 2\n"})
    assert cycles(g) == []


def test_the_rooms_table_forbids_what_it_does_not_list():
    rooms = rooms_table("| room | modules | holds | may import |\n|---|---|---|---|\n"
                        "| low | `pkg.low`, `pkg.low.*` | x | nothing |\n"
                        "| high | `pkg`, `pkg.*` | y | low |\n")
    assert rooms == {"low": (("pkg.low", "pkg.low.*"), ()), "high": (("pkg", "pkg.*"), ("low",))}
    assert room_of("pkg.low.deep", rooms) == "low" and room_of("pkg.top", rooms) == "high"
    graph = {"pkg.top": {"pkg.low.deep": [("pkg/top.py", 3)]}, "pkg.low.deep": {"pkg.top": [("pkg/low/deep.py", 7)]},
             "pkg.low": {}}
    assert violations(graph, rooms) == ["pkg.low.deep -> pkg.top (pkg/low/deep.py:7): room 'low' may not import "
                                        "room 'high'"]


def test_every_module_has_a_room_and_every_room_named_exists(graph, rooms):
    assert [m for m in sorted(graph) if room_of(m, rooms) is None] == []
    assert {r for _, may in rooms.values() for r in may} <= set(rooms)


def test_no_import_leaves_what_its_room_may_import(graph, rooms):
    assert violations(graph, rooms) == []


def test_the_engine_imports_only_itself_and_the_configuration(graph):
    """The compiled sources are read too: engine.pyx, the device layers' .pxd maps."""
    assert "flashrr._core.device.common" in graph["flashrr._core.engine"]  # a cimport is seen
    assert engine_reaching_up(graph) == []


def test_no_two_modules_import_each_other_in_a_circle(graph):
    assert cycles(graph) == []
