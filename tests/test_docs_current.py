"""The README's main-job tables are what the commands print on this commit (cog's check of the
blocks docs/regen.py writes), and the main job compares like with like: one device, on which
Baseline performs RRs and every default scheme changes something."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs"))
import regen  # noqa: E402  (docs/regen.py)


def table_rows(text: str) -> dict:
    """``{policy: {heading: cell}}`` of the first row of each policy in a ``flashrr compare`` table,
    cut at the columns its dashed rule marks."""
    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("---"))
    spans, pos = [], 0
    for dashes in lines[rule].split("  "):
        start = lines[rule].index(dashes, pos)
        spans.append((start, start + len(dashes)))
        pos = start + len(dashes)

    def cells(line):
        return [line[a:b].strip() for a, b in spans]

    head = cells(lines[rule - 1])
    rows = {}
    for line in lines[rule + 1:]:
        if not line.strip():
            break
        c = cells(line)
        if c[0]:
            rows[c[0]] = dict(zip(head, c))
    return rows


def number(cell: str) -> float:
    return float(cell.replace(",", ""))


def test_readme_tables_are_what_the_commands_print():
    assert regen.run_cog([regen.README], check=True) == 0, "README.md is stale: run python docs/regen.py"


def test_main_job_runs_every_scheme_on_one_device_where_each_acts():
    from flashrr.compare import COMMON_PRESET, DEFAULT_POLICIES

    rows = table_rows(regen.cli_output("flashrr compare"))
    assert list(rows) == list(DEFAULT_POLICIES)
    assert {r["device"] for r in rows.values()} == {COMMON_PRESET}
    base = rows.pop("baseline")
    assert number(base["RRs"]) > 0
    for name, r in rows.items():
        if name == "hotr":  # HotR redirects reads blocked by programs; it leaves reclaim alone
            assert number(r["redirected reads"]) > 0 and number(base["redirected reads"]) == 0
        else:
            assert number(r["RRs"]) < number(base["RRs"]), name


@pytest.mark.parametrize("paper", ["shuffler", "phasedrr", "cocktail", "hotr"])
def test_per_paper_blocks_show_each_scheme_acting_on_its_papers_own_trace(paper):
    """Each block names its paper's trace, its Baseline reclaims (HotR's, with RR off, has reads
    blocked by programs) and its scheme changes that: fewer RRs with pages still moved by RR
    logic (PhasedRR's early moves can leave no block to reach H; HotR: redirected reads) and a
    lower mean read latency."""
    from flashrr.compare import PAPER_TITLE
    from flashrr.paper_blocks import TRACES

    text = regen.cli_output("flashrr compare --per-paper")
    block = text.split(f"\n{PAPER_TITLE[paper]}: its schemes on its device (", 1)[1].split("\n\n")[0]
    assert f" trace {TRACES[paper]} (" in block.splitlines()[1]
    rows = table_rows(block)
    assert list(rows) == ["baseline", paper]
    base, scheme = rows["baseline"], rows[paper]
    if paper == "hotr":
        assert number(base["blocked reads"]) > 0 and number(scheme["redirected reads"]) > 0
    else:
        assert number(scheme["RRs"]) < number(base["RRs"]) and number(scheme["page moves"]) > 0
    assert number(scheme["read mean (us)"]) < number(base["read mean (us)"])


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_notebooks_are_stored_executed_with_their_figures(path):
    """docs/regen.py --notebooks ran every code cell in order, without error, and kept the
    figures a paper notebook shows."""
    import json

    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in cells] == list(range(1, len(cells) + 1))
    outputs = [o for c in cells for o in c["outputs"]]
    assert not [o for o in outputs if o["output_type"] == "error"]
    if path.stem != "new_policy":
        assert sum("image/png" in o.get("data", {}) for o in outputs) >= 2
