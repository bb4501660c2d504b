"""The documented notebooks run: their code cells are executed in order.

The paper notebooks (``notebooks/<paper>.ipynb``) run their tiny plans in a
temporary directory; ``IPython.display``'s ``Image`` and ``display`` are replaced
by a recorder, so the test sees which figures each notebook showed and checks
that those files exist."""
import json
from pathlib import Path

import pandas as pd
import pytest

from flashrr.reproduce import PAPERS

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))
# paper notebooks whose tiny plan takes longer than ~30 s on 2 shared cores
SLOW = {"cocktail", "shuffler"}


def _param(path):
    marks = [pytest.mark.slow] if path.stem in SLOW else []
    return pytest.param(path, marks=marks, id=path.name)


class Image:
    """Stands in for ``IPython.display.Image`` (IPython is not a dependency)."""

    def __init__(self, filename):
        self.filename = filename


@pytest.mark.parametrize("path", [_param(p) for p in NOTEBOOKS])
def test_notebook_code_runs(path, monkeypatch, tmp_path):
    nb = json.loads(path.read_text())
    monkeypatch.chdir(tmp_path)  # the paper notebooks write into out/notebook-<paper>
    shown = []  # file names of the images the notebook displayed
    scope = {"__name__": "__notebook__", "Image": Image, "display": lambda obj: shown.append(obj.filename)}
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, f"{path.name} has no code"
    for src in code:
        # keep the test fast: a slice of the trace, and a threshold low enough that RRs still happen
        src = src.replace("N_REQUESTS = 1_890_017", "N_REQUESTS = 100_000")
        src = src.replace('SimConfig.preset("shuffler")', 'SimConfig.preset("shuffler").replace(rr_threshold_reads=100)')
        src = src.replace("from IPython.display import Image, display\n", "")  # the recorder above
        exec(compile(src, str(path), "exec"), scope)
    if "results" in scope:  # new_policy.ipynb: both policies ran and the new one kept counters
        res = scope["results"]
        new, base = res["spread-hot"].summary, res["baseline"].summary
        assert new["policy_metadata_bytes"] > 0 == base["policy_metadata_bytes"]
        assert new["rr_count"] > 0 and base["rr_count"] > 0  # the placement hook really ran
    if path.stem in PAPERS:  # a paper notebook: its claims table and the figures it showed
        out = tmp_path / "out" / f"notebook-{path.stem}"
        on_disk = pd.read_csv(out / "claims.csv")
        assert len(scope["claims"]) == len(on_disk) > 0
        assert list(scope["claims"]["claim"]) == list(on_disk["claim"])
        assert len(shown) >= 2 and all(Path(tmp_path, f).is_file() for f in shown)
        stems = {f.stem for f in scope["FIGURES"].values()}
        assert {Path(f).stem for f in shown} <= stems
