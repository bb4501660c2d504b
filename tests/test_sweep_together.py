"""Several sweep specs on one set of workers (``flashrr.sweep.run_sweeps``, how a reproduction
runs its groups): each spec gets what a sweep of its own gives, and a run two specs share runs once."""
from __future__ import annotations

import numpy as np

from flashrr.sweep import load_run_artifacts, run_sweep, run_sweeps
from flashrr.sweep.store import TIMING_COLUMNS
from flashrr.trace import Trace
from flashrr.trace.io import write_trace

TINY = {"preset": "shuffler", "name": "tiny", "channels": 1, "chips_per_channel": 1, "blocks_per_plane": 16,
        "pages_per_block": 64, "overprovisioning_ratio": 0.25, "capacity_bytes": 1 << 20,
        "rr_threshold_reads": 50}


def _trace(tmp_path) -> str:
    n = 1200
    rng = np.random.default_rng(11)
    tr = Trace(np.arange(n) * 20_000, rng.integers(0, 1500, n) * 8192, np.full(n, 8192), rng.random(n) < 0.25)
    write_trace(tr, tmp_path / "t.csv", "msr")
    return "t.csv"


def _rows(df):
    return df.drop(columns=list(TIMING_COLUMNS), errors="ignore").reset_index(drop=True)


def test_specs_run_together_give_each_its_own_rows_and_share_runs(tmp_path):
    trace = _trace(tmp_path)
    a = {"seeds": [0, 1], "traces": [trace], "devices": [TINY], "policies": {"baseline": {}}}
    b = {"seeds": [1, 2], "traces": [trace], "devices": [TINY], "policies": {"baseline": {}}, "keep": ["rr_events"]}
    together = run_sweeps([a, b], tmp_path / "together", jobs=0, progress=False, base_dir=tmp_path)
    report = together[0].report
    assert (report.total, report.done_before, report.ran, report.failed) == (3, 0, 3, 0)  # seed 1 once
    assert [list(o.results["seed"]) for o in together] == [[0, 1], [1, 2]]
    # the shared run keeps the artifact the second spec asks for
    shared = together[1].results.set_index("seed").loc[1, "key"]
    assert "rr_events" in load_run_artifacts(tmp_path / "together", shared)
    apart = [run_sweep(s, tmp_path / "apart", jobs=0, progress=False, base_dir=tmp_path) for s in (a, b)]
    assert apart[1].report.done_before == 0  # a's seed-1 run lacks b's artifact, so b runs it again
    for t, s in zip(together, apart):
        assert _rows(t.results).equals(_rows(s.results))


def test_specs_run_together_on_a_pool_resume_what_is_done(tmp_path):
    trace = _trace(tmp_path)
    a = {"seeds": [0], "traces": [trace], "devices": [TINY], "policies": {"baseline": {}}}
    b = {"seeds": [0, 3], "traces": [trace], "devices": [TINY], "policies": {"baseline": {}}}
    out = tmp_path / "out"
    run_sweep(a, out, jobs=0, progress=False, base_dir=tmp_path)
    again = run_sweeps([a, b], out, jobs=2, progress=False, base_dir=tmp_path)
    assert (again[0].report.total, again[0].report.done_before, again[0].report.ran) == (2, 1, 1)
    assert [list(o.results["seed"]) for o in again] == [[0], [0, 3]]
