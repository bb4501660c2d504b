"""The documented notebooks run: their code cells are executed in order."""
import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_code_runs(path, monkeypatch):
    nb = json.loads(path.read_text())
    scope = {"__name__": "__notebook__"}
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, f"{path.name} has no code"
    for src in code:
        # keep the test fast: a slice of the trace, and a threshold low enough that RRs still happen
        src = src.replace("N_REQUESTS = 1_890_017", "N_REQUESTS = 100_000")
        src = src.replace('SimConfig.preset("shuffler")', 'SimConfig.preset("shuffler").replace(rr_threshold_reads=100)')
        exec(compile(src, str(path), "exec"), scope)
    if "results" in scope:  # new_policy.ipynb: both policies ran and the new one kept counters
        res = scope["results"]
        new, base = res["spread-hot"].summary, res["baseline"].summary
        assert new["policy_metadata_bytes"] > 0 == base["policy_metadata_bytes"]
        assert new["rr_count"] > 0 and base["rr_count"] > 0  # the placement hook really ran
