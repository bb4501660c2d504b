"""The papers as declared (``flashrr.papers.<paper>.paper.PAPER``) and the modules
around them: every PAPER is complete, every id it lists reaches the runner through
``flashrr reproduce PAPER --figure ID``, the command's help comes from the PAPER
objects, and no reproduction module imports another in a circle."""
from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from flashrr.cli.reproduce_cmds import reproduce_cmd
from flashrr.pv.calibrate import CONFIG_BY_LABEL
from flashrr.reproduce import PAPER_MODULES, PAPERS
from flashrr.reproduce.figures import Figure
from flashrr.reproduce.paper import Paper

ROOT = Path(__file__).resolve().parents[1]
NAMES = list(PAPER_MODULES)


@pytest.mark.parametrize("name", NAMES)
def test_every_paper_is_declared_completely(name):
    paper = PAPERS[name]
    assert isinstance(paper, Paper) and paper.name == name
    assert paper.title and paper.description and paper.figures
    assert all(isinstance(f, Figure) and f.stem.startswith(fid + "_") for fid, f in paper.figures.items())
    assert len(set(paper.output_ids)) == len(paper.output_ids)
    default, quick = paper.make_plan(), paper.make_plan(quick=True)
    assert not default.quick and quick.quick and quick != default
    assert callable(paper.claims) and callable(paper.claims_markdown)
    if paper.has_traces:  # a paper with sweeps: every group a figure needs is one it runs
        assert paper.run is not None and paper.groups
        assert {g for f in paper.figures.values() for g in f.groups} <= set(paper.groups)
        assert paper.make_plan(repeat=3).repeat == 3
    else:  # superblock-pv: its figures' groups are the assembly configurations they need
        assert {g for f in paper.figures.values() for g in f.groups} <= set(CONFIG_BY_LABEL)
        with pytest.raises(ValueError, match="no traces"):
            paper.plan_from_options(repeat=3)


def _recording(monkeypatch) -> list:
    """Every PAPER replaced by one whose run function records ``(name, figures, plan)`` instead of running."""
    import importlib

    calls = []

    def record(paper, plan, out, figures, jobs=None, scheduler=None):
        calls.append((paper.name, figures, plan))
        return {"figures": {f: [] for f in figures or ()}, "claims": None, "timings": {}}

    for name, module in PAPER_MODULES.items():
        mod = importlib.import_module(module)
        monkeypatch.setattr(mod, "PAPER", replace(mod.PAPER, reproduce=record))
    return calls


def test_jobs_and_scheduler_reach_a_paper_without_sweeps(monkeypatch, tmp_path):
    import importlib

    seen = []

    def record(paper, plan, out, figures, jobs=None, scheduler=None):
        seen.append((jobs, scheduler))
        return {"figures": {}, "claims": None, "timings": {}}

    mod = importlib.import_module(PAPER_MODULES["superblock-pv"])
    monkeypatch.setattr(mod, "PAPER", replace(mod.PAPER, reproduce=record))
    for extra in (["--jobs", "3"], ["--scheduler", "tcp://127.0.0.1:1"]):
        r = CliRunner().invoke(reproduce_cmd, ["superblock-pv", "--quick", "--out", str(tmp_path)] + extra)
        assert r.exit_code == 0, r.output
    assert seen == [(3, None), (None, "tcp://127.0.0.1:1")]


@pytest.mark.parametrize("name", NAMES)
def test_every_id_a_paper_lists_reaches_its_run_through_the_cli(name, monkeypatch, tmp_path):
    calls = _recording(monkeypatch)
    ids = PAPERS[name].output_ids
    args = [name, "--quick", "--out", str(tmp_path)]
    for fid in ids:
        args += ["--figure", fid]
    r = CliRunner().invoke(reproduce_cmd, args)
    assert r.exit_code == 0, r.output
    assert [(n, f) for n, f, _ in calls] == [(name, ids)] and calls[0][2].quick
    r = CliRunner().invoke(reproduce_cmd, [name, "--figure", "fig99", "--out", str(tmp_path)])
    assert r.exit_code != 0 and "unknown figure" in r.output and len(calls) == 1


def test_cli_help_lists_every_paper_from_its_declaration():
    r = CliRunner().invoke(reproduce_cmd, ["--help"])
    assert r.exit_code == 0
    text = " ".join(r.output.split())  # the per-paper lines are wrapped
    for name in NAMES:
        paper = PAPERS[name]
        assert f"{name}: {' '.join(paper.description.split())}" in text
        assert "--figure: " + ", ".join(paper.output_ids) in text
        if paper.trace_help:
            assert " ".join(paper.trace_help.split()) in text


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set) -> set:
    """The modules of ``modules`` that ``path`` imports anywhere in its body (in a function too).
    ``from P import m`` of a submodule ``m`` counts as importing ``P.m`` only: a package's own
    ``__init__`` runs before any of its submodules, so that edge is not an import of the module's."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            base = base[:len(base) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            submodules = {f"{target}.{a.name}" for a in node.names} & modules
            found |= submodules or {target}
    return {m for m in found if m in modules and m != name}


def test_no_reproduction_module_imports_another_in_a_circle():
    files = [p for d in ("flashrr/reproduce", "flashrr/papers", "flashrr/policies") for p in (ROOT / d).rglob("*.py")]
    files.append(ROOT / "flashrr/cli/reproduce_cmds.py")
    modules = {_module_name(p) for p in files}
    graph = {_module_name(p): _imports(p, modules) for p in files}
    assert graph["flashrr.papers.shuffler.figures"] >= {"flashrr.papers.shuffler.plan", "flashrr.reproduce.plots"}
    done, path = set(), []

    def visit(m):
        if m in path:
            pytest.fail("import cycle: " + " -> ".join(path[path.index(m):] + [m]))
        if m not in done:
            path.append(m)
            for n in sorted(graph[m]):
                visit(n)
            path.pop()
            done.add(m)

    for m in sorted(graph):
        visit(m)


def test_listing_papers_or_loading_policies_imports_no_paper_reproduction():
    """In a fresh interpreter: the paper names come without importing any paper's
    reproduction, and the policy registry loads the schemes without the plotting code."""
    code = ("import sys\n"
            "from flashrr.reproduce import PAPERS\n"
            "assert list(PAPERS) == ['phasedrr', 'shuffler', 'cocktail', 'superblock-pv', 'hotr'], list(PAPERS)\n"
            "from flashrr.policies import Shuffler, HotR, make_policy\n"
            "assert type(make_policy('page-8')).__module__ == 'flashrr.papers.shuffler.page'\n"
            "loaded = [m for m in sys.modules if m.endswith(('.paper', '.plan', '.figures', '.claims'))\n"
            "          or m == 'flashrr.reproduce.plots' or m == 'matplotlib']\n"
            "assert not loaded, loaded\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
