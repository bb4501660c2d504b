"""Start-up cost: ``import flashrr``, ``flashrr --help``, and a first ``simulate`` call
against a second one in the same process.

    python benchmarks/bench_startup.py [--rounds 5] [--n 1000000] [--tree DIR ...]

Each figure comes from a fresh interpreter (``sys.executable``), so nothing is
imported or cached beforehand:

Python's bytecode cache is on (written to a temporary directory, so the trees stay
clean, by one untimed warm-up round), as in an installed package.

* ``python``: ``python -c pass``, the interpreter's own start-up, for scale;
* ``import``: ``python -c "import flashrr"``, wall time of the whole process;
* ``help``: ``python -m flashrr.cli --help`` (the ``flashrr`` console script runs
  the same ``main``; an installed script may add its own launcher's start-up);
* ``first`` / ``second``: one process builds ``bench_vs_mqsim.py``'s trace (``--n``
  one-page requests, 70% reads, uniform over 3 GiB, Poisson arrivals 100 us apart)
  and calls ``flashrr.simulate`` twice on it and the same device; the wall time of
  each call and their difference (the first call's one-off cost: imports, the
  compiled engine's loading).

With several ``--tree`` directories (source trees with their extensions built,
e.g. the checkouts before and after a change) each runs with ``PYTHONPATH`` set to
it, tree after tree within each round, so a busy machine disturbs them alike.
The table gives the median and the best of the rounds, and the heavy libraries
(SciPy, pandas, pyarrow, matplotlib, Dask) each process imported.  Report the load
average printed beside it.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEAVY = ("scipy", "pandas", "pyarrow", "matplotlib", "dask", "distributed")

CALLS_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[2])
import validate_vs_mqsim as v
n = int(sys.argv[1])
footprint = (3 << 30) // v.PAGE_BYTES
tr = v.measured_trace(n, 100_000.0, footprint, 0.7, 0.0, 1)
cfg = v.device(128).replace(fill_ratio=0.0)
import flashrr
walls = []
for _ in range(2):
    t0 = time.perf_counter()
    res = flashrr.simulate(cfg, tr)
    walls.append(time.perf_counter() - t0)
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[3].split(",")))
print(json.dumps({"first": walls[0], "second": walls[1], "requests": res.summary["requests"], "heavy": heavy}))
"""

HEAVY_CHILD = ("import sys, json; {stmt}; "
               "print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({heavy!r}))))")


def child(cmd: list, env: dict, **kwargs) -> subprocess.CompletedProcess:
    """``cmd`` run to its end in the bytecode cache's directory: the current directory comes
    first on a child's ``sys.path``, and there no other flashrr can be found."""
    return subprocess.run(cmd, env=env, check=True, cwd=env["PYTHONPYCACHEPREFIX"], **kwargs)


def timed(cmd: list, env: dict) -> float:
    """Wall time (s) of ``cmd`` run to its end (output discarded)."""
    t0 = time.perf_counter()
    child(cmd, env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def heavy_imports(stmt: str, env: dict) -> list:
    """The heavy libraries a fresh interpreter has imported after ``stmt``."""
    out = child([sys.executable, "-c", HEAVY_CHILD.format(stmt=stmt, heavy=HEAVY)], env, capture_output=True,
                text=True)
    return json.loads(out.stdout)


def one_round(env: dict, n: int) -> tuple[dict, list]:
    """Every figure of one round for one tree (s), and the heavy libraries of the simulate calls' process."""
    row = {"python": timed([sys.executable, "-c", "pass"], env),
           "import": timed([sys.executable, "-c", "import flashrr"], env),
           "help": timed([sys.executable, "-m", "flashrr.cli", "--help"], env)}
    out = child([sys.executable, "-c", CALLS_CHILD, str(n), str(HERE), ",".join(HEAVY)], env, capture_output=True,
                text=True)
    calls = json.loads(out.stdout.strip().splitlines()[-1])
    row.update(first=calls["first"], second=calls["second"], extra=calls["first"] - calls["second"])
    return row, calls["heavy"]


def tree_env(tree: str | None, pycache: Path) -> dict:
    """The children's environment: ``PYTHONPATH`` = ``tree``, and Python's bytecode cache
    written and read under ``pycache`` (outside the tree), as an installed package has it,
    even where ``PYTHONDONTWRITEBYTECODE`` is set."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    pycache.mkdir(parents=True, exist_ok=True)
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    if tree is not None:
        env["PYTHONPATH"] = str(Path(tree).resolve())
    return env


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--n", type=int, default=1_000_000, help="requests of the simulate calls' trace")
    ap.add_argument("--tree", action="append", default=None,
                    help="a source tree to measure (repeatable; default: the flashrr this Python imports)")
    a = ap.parse_args(argv)
    trees = a.tree or [None]
    cache_root = Path(tempfile.mkdtemp(prefix="flashrr-startup-pyc-"))
    try:
        run(a, trees, cache_root)
    finally:
        shutil.rmtree(cache_root, ignore_errors=True)


def run(a, trees: list, cache_root: Path) -> None:
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    envs = {tree: tree_env(tree, cache_root / f"tree{i}") for i, tree in enumerate(trees)}
    for tree, env in envs.items():  # also the warm-up that writes each tree's bytecode cache
        one_round(env, 1000)
        print(f"{tree or 'default'}: heavy libraries imported by `import flashrr`: "
              f"{heavy_imports('import flashrr', env) or 'none'}; by the engine's loading: "
              f"{heavy_imports('from flashrr._core import load_compiled_engine; load_compiled_engine()', env) or 'none'}")
    rows = {tree: [] for tree in trees}
    for r in range(a.rounds):
        for tree in trees:
            row, heavy = one_round(envs[tree], a.n)
            rows[tree].append(row)
            print(f"round {r + 1} {tree or 'default'}: " + "  ".join(f"{k} {v:.3f}" for k, v in row.items())
                  + f"  (simulate's process imported {heavy or 'none'})", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    keys = list(rows[trees[0]][0])
    print(f"\n{'tree':40s} " + " ".join(f"{k:>15s}" for k in keys) + "   (s: median / best of the rounds)")
    for tree in trees:
        cells = [f"{statistics.median(r[k] for r in rows[tree]):7.3f}/{min(r[k] for r in rows[tree]):.3f}"
                 for k in keys]
        print(f"{str(tree or 'default')[-40:]:40s} " + " ".join(f"{c:>15s}" for c in cells))


if __name__ == "__main__":
    main()
