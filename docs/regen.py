"""Regenerate every output in README.md and docs/ that comes from a command, and store the
notebooks executed.

    python docs/regen.py                    # README.md: the main job's two tables (about 1 min)
    python docs/regen.py --compare-figures  # docs/compare.md: cross-paper and pairs tables (about 5 min)
    python docs/regen.py --notebooks        # notebooks/*.ipynb stored with their outputs (a few min)
    python docs/regen.py --all              # all of the above
    python docs/regen.py --check            # exit 1 if README.md differs from what its commands print

Each generated block sits between cog markers in the Markdown (cogapp, ``[[[cog ... ]]]`` in an
HTML comment, output up to ``[[[end]]]``); the code in the marker calls the functions below.
``tests/test_docs_current.py`` runs ``--check`` on README.md, so the README's tables are those of
the commit they are in.  The slower blocks of docs/compare.md keep their previous output
(``cog.previous``) unless ``--compare-figures`` asks for them.  Notebooks run with nbclient on the
``python3`` Jupyter kernel (``pip install -e ".[docs]"``), each in a temporary directory, so the
runs they make do not land in the checkout.
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
COMPARE_DOC = ROOT / "docs" / "compare.md"
NOTEBOOKS = ROOT / "notebooks"
#: cog's -D flag that makes the slow blocks of docs/compare.md run instead of keeping their output.
SLOW_FLAG = "regen_slow"


@lru_cache(maxsize=None)
def cli_output(cmdline: str) -> str:
    """What ``cmdline`` (a ``flashrr ...`` command) prints on stdout, run in this process by click's
    test runner; ValueError with the output when the command fails."""
    from click.testing import CliRunner

    from flashrr.cli import main

    argv = shlex.split(cmdline)
    if argv[0] != "flashrr":
        raise ValueError(f"{cmdline!r}: expected a flashrr command")
    r = CliRunner().invoke(main, argv[1:])
    if r.exit_code != 0:
        raise ValueError(f"{cmdline!r} failed (exit {r.exit_code}):\n{r.output}")
    return r.stdout


def command_block(cmdline: str) -> str:
    """A fenced Markdown block: ``$ cmdline`` and what it prints."""
    return f"```text\n$ {cmdline}\n{cli_output(cmdline).rstrip()}\n```"


def _md_table(head, rows) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows])


def _us(ns) -> str:
    return f"{ns / 1_000:,.1f}"


def cross_paper_table(df) -> str:
    """docs/compare.md's cross-paper table: one row per single scheme of ``df`` (:func:`pairs_frame`)."""
    from flashrr.compare import CROSS_PAPER_POLICIES

    rows = [(label, f"{r.rr_count:,}", f"{r.rr_page_moves_all:,}", _us(r.read_latency_mean_ns),
             _us(r.read_latency_p9999_ns), f"{r.waf:.3f}", f"{r.policy_metadata_bytes:,}")
            for label, r in df.loc[list(CROSS_PAPER_POLICIES)].iterrows()]
    return _md_table(["policy", "RRs", "page moves", "mean read (µs)", "p99.99 read (µs)", "WAF",
                      "metadata (B)"], rows)


@lru_cache(maxsize=None)
def pairs_frame():
    """The single schemes and every pair that composes, on the cross-paper device and trace: one run
    serves both slow blocks (72 runs)."""
    from flashrr.compare import CROSS_PAPER_POLICIES, compare, composable_pairs, cross_paper_device

    pairs, _ = composable_pairs()
    return compare(list(CROSS_PAPER_POLICIES) + pairs, preset=cross_paper_device(), progress=True)


def pairs_table(df) -> str:
    """docs/compare.md's pairs table: each pair whose RR count or mean read latency differs from
    both of its parts alone."""
    rows = []
    for label, r in df.iterrows():
        if "+" not in label:
            continue
        a, b = label.split("+")
        parts = df.loc[[a, b]]
        same = ((parts["rr_count"] == r.rr_count) & (parts["read_latency_mean_ns"] == r.read_latency_mean_ns)).any()
        if not same:
            rows.append((label, f"{r.rr_count:,}", _us(r.read_latency_mean_ns), _us(r.read_latency_p9999_ns),
                         f"{r.waf:.3f}", f"{parts.rr_count.iloc[0]:,}, {parts.rr_count.iloc[1]:,}"))
    return _md_table(["pair", "RRs", "mean read (µs)", "p99.99 read (µs)", "WAF", "parts alone: RRs"], rows)


#: The slow blocks of docs/compare.md: name -> the Markdown it writes.
SLOW_BLOCKS = {"cross_paper": lambda: cross_paper_table(pairs_frame()),
               "pairs": lambda: pairs_table(pairs_frame())}


def slow_block(cog, name: str, env: dict) -> None:
    """Write block ``name`` of :data:`SLOW_BLOCKS` when cog was run with ``-D regen_slow=1`` (``env``:
    the cog code's globals, where cog puts its defines), else keep the block's previous output."""
    cog.out(SLOW_BLOCKS[name]() + "\n" if env.get(SLOW_FLAG) else cog.previous)


def run_cog(paths, check: bool = False, slow: bool = False) -> int:
    """cog over ``paths`` (replace in place, or ``check`` only); its exit status."""
    from cogapp import Cog

    argv = ["cog", "-I", str(Path(__file__).parent)]
    argv += ["--check", "--diff", "--check-fail-msg", "run python docs/regen.py"] if check else ["-r"]
    if slow:
        argv += ["-D", f"{SLOW_FLAG}=1"]
    return Cog().main(argv + [str(p) for p in paths])


def execute_notebooks(paths=None, timeout_s: int = 1200) -> list:
    """Run each notebook (default: all of notebooks/) top to bottom on the python3 kernel, in a
    temporary working directory, and store it with its outputs; returns the paths written."""
    import nbformat
    from nbclient import NotebookClient

    done = []
    for path in sorted(paths or NOTEBOOKS.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        with tempfile.TemporaryDirectory(prefix=f"regen-{path.stem}-") as tmp:
            NotebookClient(nb, timeout=timeout_s, kernel_name="python3", resources={"metadata": {"path": tmp}}).execute()
        for cell in nb.cells:  # wall times and kernel ids would change on every run
            cell.get("metadata", {}).pop("execution", None)
        nbformat.write(nb, path)
        done.append(path)
        print(f"executed {path.relative_to(ROOT)}", file=sys.stderr)
    return done


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check README.md; exit 1 when it is stale")
    ap.add_argument("--compare-figures", action="store_true", help="rerun docs/compare.md's tables")
    ap.add_argument("--notebooks", action="store_true", help="store the notebooks executed")
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args(argv)
    os.chdir(ROOT)
    if a.check:
        return 1 if run_cog([README], check=True) else 0
    status = run_cog([README, COMPARE_DOC], slow=a.compare_figures or a.all)
    if a.notebooks or a.all:
        execute_notebooks()
    return status


if __name__ == "__main__":
    sys.exit(main())
