"""What a fresh interpreter imports: ``import flashrr``, ``flashrr --help``, loading the
compiled engine and a first ``simulate`` call pull in none of the heavy libraries
(SciPy, pandas, pyarrow, matplotlib, Dask) they do not use; the package faces that
load their names on first use show every name they list, and the command line's
lazily imported commands are listed as click lists them."""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

import flashrr
from flashrr.cli import COMMANDS, LazyGroup, main

HEAVY = ("scipy", "pandas", "pyarrow", "matplotlib", "dask", "distributed")

SIMULATE = """
import numpy as np
import flashrr
n = 2000
trace = flashrr.Trace(np.arange(n) * 20_000, (np.arange(n) * 7919 % 4096) * 4096, np.full(n, 4096),
                      np.arange(n) % 3 == 0, name="t")
res = flashrr.simulate("shuffler", trace, policy="baseline")
assert res.summary["requests"] == n
"""


def imported_after(code: str, *args: str) -> set:
    """The top-level packages a fresh interpreter has imported after running ``code``
    (``sys.argv[1:]`` = ``args``), with this test's ``PYTHONPATH``."""
    probe = ("import json, sys\nsys.argv = ['flashrr', *json.loads(sys.argv[1])]\n"
             f"try:\n    exec({code!r})\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
             "sys.stdout = sys.__stdout__\n"
             "print('\\nMODULES', json.dumps(sorted({m.split('.')[0] for m in sys.modules})))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", probe, json.dumps(list(args))], env=env, capture_output=True,
                         text=True, check=True).stdout
    return set(json.loads(out.rsplit("MODULES ", 1)[1]))


def test_the_probe_sees_a_heavy_import():
    """The probe itself: a statement that imports pandas is seen to."""
    assert "pandas" in imported_after("import pandas")


@pytest.mark.parametrize("what, code, args", [
    ("import flashrr", "import flashrr", ()),
    ("flashrr --help", "from flashrr.cli import main; main()", ("--help",)),
    ("flashrr run --help", "from flashrr.cli import main; main()", ("run", "--help")),
    ("loading the compiled engine", "from flashrr._core import load_compiled_engine; load_compiled_engine()", ()),
    ("the reliability and PV packages", "import flashrr.reliability, flashrr.pv", ()),
    ("a simulate call", SIMULATE, ()),
])
def test_no_heavy_library_is_imported_where_none_is_used(what, code, args):
    assert imported_after(code, *args).isdisjoint(HEAVY), what


def test_the_error_model_runs_without_scipy():
    """SciPy is the error model's fit's alone: a run with the model on (a preset, not a fit) does not import it."""
    code = SIMULATE.replace('"shuffler"', 'flashrr.SimConfig.preset("shuffler").replace(error_model={"enabled": True})')
    assert "scipy" not in imported_after(code)


LAZY_FACES = ["flashrr", "flashrr.trace"]


@pytest.mark.parametrize("package", LAZY_FACES)
def test_a_lazy_face_shows_every_name_it_lists(package):
    """Each name in ``__all__`` is there, is listed by ``dir``, and is the same object
    every time it is read."""
    pkg = importlib.import_module(package)
    for name in pkg.__all__:
        assert name in dir(pkg), name
        value = getattr(pkg, name)
        assert getattr(pkg, name) is value, name
    with pytest.raises(AttributeError, match=package.replace(".", r"\.")):
        getattr(pkg, "no_such_name")


def test_a_lazy_name_may_not_be_a_submodules_name(tmp_path, monkeypatch):
    """Importing a submodule sets the package's attribute of its name, which would hide a
    lazy name the same (as ``flashrr.pv.evaluate`` is a function and a module)."""
    pkg = tmp_path / "lazy_clash"
    pkg.mkdir()
    (pkg / "evaluate.py").write_text("def evaluate():\n    return 1\n")
    (pkg / "__init__.py").write_text("from flashrr._lazy import lazy_attributes\n"
                                     "__getattr__, __dir__ = lazy_attributes(__name__, {'evaluate': '.evaluate'})\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match=r"\['evaluate'\] both an attribute and a submodule of lazy_clash"):
        importlib.import_module("lazy_clash")
    monkeypatch.delitem(sys.modules, "lazy_clash", raising=False)


def test_lazy_names_are_their_submodules_objects():
    from flashrr import trace
    from flashrr.trace import io, synth

    assert trace.read_trace is io.read_trace and trace.synth_trace is synth.synth_trace
    assert flashrr.read_trace is io.read_trace


def test_compare_and_sweep_are_the_callable_modules():
    import flashrr.compare as compare_module
    import flashrr.sweep as sweep_module

    assert flashrr.compare is compare_module and callable(flashrr.compare)
    assert flashrr.sweep is sweep_module and callable(flashrr.sweep)


def test_the_command_list_is_the_one_click_makes_from_the_commands():
    """`flashrr --help` lists the commands from COMMANDS without importing them (a new
    group, none of them loaded yet); the listing equals click's own for a group holding
    the imported commands."""
    lazy = LazyGroup("main", help=main.help, params=list(main.params))
    eager = click.Group("main", help=main.help, params=list(main.params))
    for name, (module, attr, _) in COMMANDS.items():
        command = getattr(importlib.import_module(module), attr)
        assert command.name == name
        eager.add_command(command)
    listing = CliRunner().invoke(lazy, ["--help"]).output
    assert not lazy.commands and "Commands:" in listing
    assert listing == CliRunner().invoke(eager, ["--help"]).output


def test_a_lazily_imported_command_runs():
    out = CliRunner().invoke(main, ["presets"])
    assert out.exit_code == 0 and "shuffler" in out.output
    unknown = CliRunner().invoke(main, ["no-such-command"])
    assert unknown.exit_code == 2 and "No such command" in unknown.output
