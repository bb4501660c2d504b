"""The import graph of a package, read from its sources: which module imports which.

A module is a ``.py`` file, or a compiled module (its ``.pyx`` and ``.pxd`` together);
a package is its ``__init__``.  An edge ``a -> b`` is any import of ``b`` written in
``a``, wherever it stands (module level, inside a function, under ``TYPE_CHECKING``):

* ``import p.q`` and ``from p.q import name`` lead to ``p.q``; ``from p import q``
  leads to the submodule ``p.q`` when there is one, else to the package ``p`` (the
  name is the package's), so a module that takes a sibling through its package's
  face is seen doing so.  Importing a submodule runs its parent packages, but those
  implicit edges are not counted: a package's own ``__init__`` runs first anyway.
* ``cimport`` and ``import`` lines of ``.pyx`` and ``.pxd`` sources, read as text
  (comments and triple-quoted strings removed first).
* Imports by name written as strings: a string naming a module of the package in full
  (``"flashrr.papers.shuffler.paper"``, as a registry of lazily imported modules
  holds), and, in a package face built with ``lazy_attributes``, a relative name
  (``".io"``) or a bare submodule name.  Names computed at run time (f-strings) are
  not seen.

Only edges between modules of the package are kept.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

SOURCE_SUFFIXES = (".py", ".pyx", ".pxd")
_CYTHON_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<dots>\.*)(?P<mod>[\w.]*)[ \t]+c?import[ \t]+(?P<names>\([^)]*\)|[^\n]+)"
    r"|c?import[ \t]+(?P<plain>[\w. ,\t]+))", re.M)
_TRIPLE_QUOTED = re.compile(r'"""(?:.|\n)*?"""|\'\'\'(?:.|\n)*?\'\'\'')
_COMMENT = re.compile(r"#[^\n]*")


def module_files(root: Path, package: str) -> dict:
    """``{module name: [source files]}`` of ``package`` (a folder under ``root``)."""
    out: dict = {}
    for path in sorted((root / package).rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES or "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.setdefault(".".join(parts), []).append(path)
    return out


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name of ``from <level dots><name> import ...`` written in ``module``."""
    if level == 0:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _python_imports(module: str, is_package: bool, path: Path) -> list:
    """``[(target, names or None, line)]`` of a ``.py`` file, and the module names its
    strings spell (``names`` ``"string"``: only a module of exactly that name counts)."""
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, None, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((_absolute(module, is_package, node.level, node.module), [a.name for a in node.names],
                        node.lineno))
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    lazy_face = any(isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", None)) == "lazy_attributes"
                    for n in ast.walk(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value
            if re.fullmatch(r"[A-Za-z_]\w*(\.\w+)+", text):
                out.append((text, "string", node.lineno))
            elif lazy_face and re.fullmatch(r"\.[\w.]+", text):
                out.append((_absolute(module, is_package, 1, text[1:]), "string", node.lineno))
            elif lazy_face and is_package and re.fullmatch(r"\w+", text):
                out.append((f"{module}.{text}", "string", node.lineno))
    return out


def _cython_imports(module: str, is_package: bool, path: Path) -> list:
    """``[(target, names or None, line)]`` of a ``.pyx`` or ``.pxd`` file."""
    text = path.read_text()
    blanked = _TRIPLE_QUOTED.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    blanked = _COMMENT.sub("", blanked)
    out = []
    for m in _CYTHON_IMPORT.finditer(blanked):
        line = blanked.count("\n", 0, m.start()) + 1
        if m["plain"] is not None:
            out += [(part.split()[0], None, line) for part in m["plain"].split(",") if part.strip()]
        else:
            names = [n.split()[0] for n in m["names"].strip("()").replace("\n", " ").split(",") if n.strip()]
            out.append((_absolute(module, is_package, len(m["dots"]), m["mod"]), names, line))
    return out


def import_graph(root: Path, package: str) -> dict:
    """``{module: {imported module: [(file, line), ...]}}`` for the modules of
    ``package`` under ``root`` (see the module docstring for what counts)."""
    files = module_files(root, package)
    graph: dict = {m: {} for m in files}
    for module, paths in files.items():
        for path in paths:
            is_package = path.stem == "__init__"
            read = _python_imports if path.suffix == ".py" else _cython_imports
            for target, names, line in read(module, is_package, path):
                if names == "string":
                    if target in files and target != module:
                        graph[module].setdefault(target, []).append((str(path.relative_to(root)), line))
                    continue
                targets = [f"{target}.{n}" if f"{target}.{n}" in files else target for n in names] if names else [target]
                for t in targets:
                    while t not in files and "." in t:  # ``import p.q.name`` of an attribute: its module
                        t = t.rsplit(".", 1)[0]
                    if t in files and t != module:
                        graph[module].setdefault(t, []).append((str(path.relative_to(root)), line))
    return graph


def cycles(graph: dict) -> list:
    """The import circles of ``graph``: its strongly connected components of more than
    one module, each sorted, found by Tarjan's algorithm (iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        component.append(m)
                        if m == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out
