"""``flashrr reproduce all``: the report's structure (every paper, every claims
table, every linked file exists, nothing fetched from a network), summary
counts against hand counts, a failing paper next to one that runs, and the CLI."""
from __future__ import annotations

import csv
import json
import math
import sys
import types
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import matplotlib.image
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from flashrr.cli.reproduce_cmds import reproduce_cmd
from flashrr.papers.superblock_pv.plan import Plan as PVPlan
from flashrr.reproduce import PAPERS, PaperRegistry, report
from flashrr.reproduce.claims import CLAIM_COLUMNS
from flashrr.reproduce.report import PaperRun, claim_counts, figure_registry, reproduce_all, write_report

PV_TINY = PVPlan(dies=2, blocks=40, pe_points=(0, 3000), seed=1)

# (expected, paper_value, flashrr_value, holds) rows whose counts are known by hand:
# holds True in rows 0, 1, 3, 4 -> 4 of 6; a size (lower/higher, finite non-zero paper value)
# in rows 0, 1, 2, 5 -> 4; within half: row 0 only (|-6 - -10| = 4 <= 5; row 1: 6 > 5; row 2 opposite; row 5 no value)
HAND_ROWS = [("lower", -10.0, -6.0, True), ("lower", -10.0, -4.0, True), ("higher", 10.0, -1.0, False),
             ("parity", 0.0, 0.5, True), ("lower", float("nan"), -3.0, True), ("lower", -10.0, float("nan"), "n/a")]
HAND_COUNTS = {"claims": 6, "holds": 4, "sized": 4, "within_half": 1}


class Page(HTMLParser):
    """Collects, per ``<section id=...>``, its tables (by class) and the files its links point to."""

    def __init__(self):
        super().__init__()
        self.section = None
        self.sections: dict = {}
        self.tables: dict = {}  # section (None: top) -> [class, ...]
        self.rows: dict = {}  # (section, class) -> number of body rows
        self.cells: list = []  # cells of the summary table's body rows
        self.links: list = []  # (section, tag, target)
        self._table = None
        self._in_body = False
        self._in_td = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.section = a["id"]
            self.sections[self.section] = True
        elif tag == "table":
            self._table = a.get("class", "")
            self.tables.setdefault(self.section, []).append(self._table)
        elif tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body:
            key = (self.section, self._table)
            self.rows[key] = self.rows.get(key, 0) + 1
            if self._table == "summary":
                self.cells.append([])
        elif tag == "td" and self._table == "summary":
            self._in_td = True
            self.cells[-1].append("")
        elif tag in ("img", "a", "link", "script"):
            target = a.get("src") or a.get("href")
            if target:
                self.links.append((self.section, tag, target))

    def handle_endtag(self, tag):
        if tag == "section":
            self.section = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "td":
            self._in_td = False

    def handle_data(self, data):
        if self._in_td:
            self.cells[-1][-1] += data


def parse(path: Path) -> Page:
    p = Page()
    p.feed(path.read_text())
    return p


def _png(path: Path) -> None:
    matplotlib.image.imsave(path, np.zeros((4, 4)))


def _fake_paper(out: Path, paper: str, with_png) -> None:
    """A paper's output directory: claims.csv from HAND_ROWS, reproduce.json, PNGs of ``with_png`` figure ids."""
    d = out / paper
    d.mkdir(parents=True)
    rows = [{**dict.fromkeys(CLAIM_COLUMNS, ""), "figure": f"fig{i:02d}", "claim": f"claim {i} | piped",
             "metric": "rr_count", "aggregate": "mean", "paper_value": p, "flashrr_value": v, "unit": "% change",
             "expected": e, "holds": h, "magnitude": "-", "n_traces": 2}
            for i, (e, p, v, h) in enumerate(HAND_ROWS)]
    pd.DataFrame(rows, columns=CLAIM_COLUMNS).to_csv(d / "claims.csv", index=False)
    (d / "claims.md").write_text(f"# The {paper} paper: paper claims vs flashrr\n")
    (d / "reproduce.json").write_text(json.dumps({"paper": paper, "plan": {"traces": ["t1", "t2"], "repeat": 3,
                                                                           "device_overrides": [["x", 1]]},
                                                  "timings_s": {"total_s": 12.5}}))
    reg = figure_registry(paper)
    for fid in with_png:
        _png(d / f"{reg[fid].stem}.png")


def _hand_count(claims_csv: Path) -> dict:
    """The summary's counts straight from a claims CSV, by the documented rules."""
    n = holds = sized = within = 0
    with open(claims_csv, newline="") as f:
        for r in csv.DictReader(f):
            n += 1
            holds += r["holds"] == "True"
            p = float(r["paper_value"]) if r["paper_value"] else math.nan
            v = float(r["flashrr_value"]) if r["flashrr_value"] else math.nan
            if r["expected"] in ("lower", "higher") and math.isfinite(p) and p != 0:
                sized += 1
                within += math.isfinite(v) and abs(v - p) <= abs(p) / 2
    return {"claims": n, "holds": holds, "sized": sized, "within_half": within}


def _check_links(out: Path, page: Page) -> None:
    for _, tag, target in page.links:
        assert "://" not in target and not target.startswith("/"), f"{tag} {target} is not a relative file"
        assert (out / target).is_file(), f"{tag} links {target}, which does not exist"


def test_counts_follow_the_documented_rules():
    t = pd.DataFrame([{"expected": e, "paper_value": p, "flashrr_value": v, "holds": h} for e, p, v, h in HAND_ROWS])
    assert claim_counts(t) == HAND_COUNTS
    assert claim_counts(pd.DataFrame()) == {"claims": 0, "holds": 0, "sized": 0, "within_half": 0}


def test_report_from_paper_directories(tmp_path):
    papers = list(PAPERS)
    shown = {p: list(figure_registry(p))[:2] for p in papers}
    for p in papers[:-1]:
        _fake_paper(tmp_path, p, shown[p])
    failed = papers[-1]
    runs = [PaperRun(p) for p in papers[:-1]] + [PaperRun(failed, "failed", "RuntimeError: disk on fire", 3.0)]
    (tmp_path / failed).mkdir()
    (tmp_path / failed / "error.txt").write_text("Traceback ...")
    md, html_path, _ = write_report(tmp_path, runs, quick=True)
    page = parse(html_path)

    assert list(page.sections) == papers
    assert page.tables[None] == ["summary"]
    for p in papers[:-1]:
        assert page.tables[p] == ["claims", "settings"]
        assert page.rows[(p, "claims")] == len(HAND_ROWS)
        imgs = [t for s, tag, t in page.links if s == p and tag == "img"]
        assert imgs == [f"{p}/{figure_registry(p)[f].stem}.png" for f in shown[p]]
    assert failed not in page.tables  # a failed paper shows its error, not stale tables
    assert "disk on fire" in html_path.read_text()
    # every image exists; the PDF/CSV links of the fake figures do not, so check images and error.txt only
    for s, tag, t in page.links:
        if tag == "img" or t.endswith("error.txt"):
            assert (tmp_path / t).is_file() and "://" not in t
    summary = {c[0]: c for c in page.cells}
    assert list(summary) == papers
    for p in papers[:-1]:
        assert summary[p][1:4] == ["ok", "4 of 6", "1 of 4"]
        assert summary[p][4] == "12 s"  # the plan's total_s (12.5 s) when this call did not run the paper
    assert summary[failed][1] == "failed"
    # the missing figures are named as missing, in both documents
    n_missing = sum(len(figure_registry(p)) - 2 for p in papers[:-1])
    assert html_path.read_text().count("missing, no ") == n_missing
    text = md.read_text()
    assert text.count("missing, no ") == n_missing
    for p in papers:
        assert f"\n## {p}: " in text
    assert "| claim 0 \\| piped |" in text  # a | inside a cell does not break the Markdown table
    for target in [line.split("](")[1].rstrip(")") for line in text.splitlines() if line.startswith("![")]:
        assert (tmp_path / target).is_file()


@pytest.fixture
def broken_first(monkeypatch):
    """The report's PAPERS holding a paper that always fails, then superblock-pv with a tiny plan as its
    default and quick plan."""

    def on_fire(paper, plan, out, figures, jobs=None, scheduler=None):
        raise RuntimeError("disk on fire")

    pv = PAPERS["superblock-pv"]
    modules = {}
    for name, paper in (("broken", replace(pv, name="broken", reproduce=on_fire)),
                        ("superblock-pv", replace(pv, plan=PV_TINY, quick={}))):
        mod = types.ModuleType(f"flashrr_test_paper_{name.replace('-', '_')}")
        mod.PAPER = paper
        monkeypatch.setitem(sys.modules, mod.__name__, mod)
        modules[name] = mod.__name__
    monkeypatch.setattr(report, "PAPERS", PaperRegistry(modules))


def test_a_failing_paper_is_reported_and_the_next_still_runs(tmp_path, broken_first):
    seen = []

    def on_paper(p, i, n):  # the report after paper i-1 is on disk before paper i starts
        seen.append((p, (tmp_path / "report.md").read_text() if i else None))

    res = reproduce_all(tmp_path, plans={"superblock-pv": PV_TINY}, jobs=0, progress=False, on_paper=on_paper)
    assert [r.status for r in res["runs"]] == ["failed", "ok"]
    assert res["runs"][0].error == "RuntimeError: disk on fire"
    assert "disk on fire" in (tmp_path / "broken" / "error.txt").read_text()
    assert seen[1][0] == "superblock-pv" and "| broken | failed |" in seen[1][1]

    page = parse(tmp_path / "index.html")
    assert list(page.sections) == ["broken", "superblock-pv"]
    _check_links(tmp_path, page)
    pv = tmp_path / "superblock-pv"
    imgs = {t for s, tag, t in page.links if tag == "img"}
    assert imgs == {f"superblock-pv/{f.stem}.png" for f in figure_registry("superblock-pv").values()}
    hand = _hand_count(pv / "claims.csv")
    assert hand["claims"] == len(pd.read_csv(pv / "claims.csv")) and hand["sized"] > 0
    row = {c[0]: c for c in page.cells}["superblock-pv"]
    assert row[2] == f"{hand['holds']} of {hand['claims']}" and row[3] == f"{hand['within_half']} of {hand['sized']}"
    assert page.rows[("superblock-pv", "claims")] == hand["claims"]
    # the settings come from reproduce.json's plan
    assert "| dies | 2 |" in (tmp_path / "report.md").read_text()


def test_cli_reproduce_all(tmp_path, broken_first, monkeypatch):
    r = CliRunner().invoke(reproduce_cmd, ["all", "--quick", "--no-progress", "--repeat", "3",
                                           "--out", str(tmp_path)])
    assert r.exit_code == 1  # a failed paper fails the command, after the report is written
    assert "reproduction failed for broken" in r.output and "superblock-pv: direction holds for" in r.output
    assert (tmp_path / "index.html").is_file() and (tmp_path / "superblock-pv" / "claims.csv").is_file()
    r = CliRunner().invoke(reproduce_cmd, ["all", "--figure", "fig05", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "do not apply to 'reproduce all'" in r.output


@pytest.mark.slow
def test_all_five_papers_at_tiny_plans(tmp_path):
    """The five real reproductions at the tiny plans of their own tests: every figure
    of every paper exists and is linked, every paper has its claims table."""
    plans = {
        "shuffler": PAPERS["shuffler"].make_plan(
            traces=("ali0", "gen1"), n_requests=4000, repeat=2, delta_f_values=(0.2, 0.3), delta_p_values=(0.05, 0.1),
            device_overrides=(("rr_threshold_reads", 15), ("capacity_bytes", 1 << 20))),
        "phasedrr": PAPERS["phasedrr"].make_plan(
            traces=("ws_1", "web_0", "ali"), n_requests=20_000, repeat=2, rr_threshold=200, delta_reads=4,
            delta_values=(2, 4, 8), start_reads=40, device_overrides=(("capacity_bytes", 1 << 20),)),
        "cocktail": PAPERS["cocktail"].make_plan(
            traces=("nexus5", "msr_web"), n_requests=400, repeat=1, ratios=(1.0, 0.5), shares=(2, 64),
            device_overrides=(("rr_threshold_reads", 400),)),
        "hotr": PAPERS["hotr"].make_plan(traces=("fin2", "hpc_28"), n_requests=3000, calibration_requests=1500,
                                         device_overrides=(("blocks_per_plane", 64),)),
        "superblock-pv": PV_TINY,
    }
    res = reproduce_all(tmp_path, plans=plans, jobs=0, progress=False)
    assert [r.status for r in res["runs"]] == ["ok"] * 5, [r.error for r in res["runs"]]
    page = parse(tmp_path / "index.html")
    assert sorted(page.sections) == sorted(plans)
    _check_links(tmp_path, page)
    imgs = {t for s, tag, t in page.links if tag == "img"}
    for p in plans:
        assert {f"{p}/{f.stem}.png" for f in figure_registry(p).values()} <= imgs
        hand = _hand_count(tmp_path / p / "claims.csv")
        assert page.rows[(p, "claims")] == hand["claims"] > 0
        row = {c[0]: c for c in page.cells}[p]
        assert row[2:4] == [f"{hand['holds']} of {hand['claims']}", f"{hand['within_half']} of {hand['sized']}"]


def test_an_unreadable_paper_directory_is_reported_not_raised(tmp_path):
    _fake_paper(tmp_path, "shuffler", [])
    (tmp_path / "hotr").mkdir()
    (tmp_path / "hotr" / "claims.csv").write_text("figure,claim\nfig05,no other columns\n")
    md, _, sections = write_report(tmp_path, [PaperRun("hotr"), PaperRun("shuffler")])
    assert [s.run.status for s in sections] == ["failed", "ok"]
    assert "report: cannot read" in sections[0].run.error and "| shuffler | ok | 4 of 6 | 1 of 4 |" in md.read_text()


def test_a_paper_with_failed_runs_and_figures_not_drawn_says_so(tmp_path):
    """A paper whose manifest records 3 failed runs and one figure that could not be drawn (with its
    reason): the summary's status says how many runs failed, the section points to failed_runs.csv, and the
    figure is named with its reason instead of "missing"."""
    paper = list(PAPERS)[0]
    _fake_paper(tmp_path, paper, [])
    first = list(figure_registry(paper))[0]
    meta = json.loads((tmp_path / paper / "reproduce.json").read_text())
    meta.update(failed_runs=3, figures_not_drawn={first: f"{first}: cannot be drawn: Baseline triggered no RR"})
    (tmp_path / paper / "reproduce.json").write_text(json.dumps(meta))
    md, html_path, _ = write_report(tmp_path, [PaperRun(paper)], quick=False)
    page = parse(html_path)
    assert page.cells[0][1] == "ok, 3 runs failed"
    for text in (md.read_text(), html_path.read_text()):
        assert f"3 runs failed (listed in {paper}/failed_runs.csv)" in text
        assert f"not drawn: {first}: cannot be drawn: Baseline triggered no RR" in text
        assert text.count("missing, no ") == len(figure_registry(paper)) - 1


def test_run_sweeps_keeps_the_finished_runs_and_lists_the_failed_ones(tmp_path, fault_policies):
    """One group's sweep where every fault-raise run fails: the group keeps its Baseline runs, failed_runs.csv
    lists the two failed ones with their error, and once the cause is gone a rerun runs them and removes
    the list."""
    from flashrr.reproduce.sweep_runs import FAILED_RUNS, run_sweeps
    from flashrr.trace import Trace
    from flashrr.trace.io import write_trace

    rng = np.random.default_rng(1)
    n = 1500
    write_trace(Trace(np.arange(n) * 20_000, rng.integers(0, 1000, n) * 8192, np.full(n, 8192),
                      rng.random(n) < 0.3), tmp_path / "t.csv", "msr")
    marker = tmp_path / "fail.marker"
    marker.write_text("")
    device = {"preset": "shuffler", "name": "tiny", "channels": 1, "chips_per_channel": 1,
              "blocks_per_plane": 16, "pages_per_block": 64, "overprovisioning_ratio": 0.25,
              "capacity_bytes": 1 << 20, "rr_threshold_reads": 50}
    spec = {"imports": ["flashrr.sweep._faults"], "seeds": [0, 1], "traces": [str(tmp_path / "t.csv")],
            "devices": [device], "policies": {"baseline": {}, "fault-raise": {"marker": str(marker)}}}
    out = tmp_path / "out"
    frames = run_sweeps({"main": spec}, ["main"], out, lambda g, df: df, jobs=0, progress=False)
    assert sorted(frames["main"]["policy_name"]) == ["baseline", "baseline"]
    failed = pd.read_csv(out / FAILED_RUNS)
    assert list(failed["group"]) == ["main", "main"] and set(failed["policy_name"]) == {"fault-raise"}
    assert failed["error"].str.contains("injected failure").all()
    marker.unlink()
    frames = run_sweeps({"main": spec}, ["main"], out, lambda g, df: df, jobs=0, progress=False)
    assert len(frames["main"]) == 4 and not (out / FAILED_RUNS).exists()


def test_run_sweeps_times_each_group_by_the_worker_time_of_its_runs(tmp_path):
    """Two groups on one set of workers: ``sweeps_s`` is the call's wall time, ``runs_<group>_s`` the sum of the
    group's runs' ``call_wall_s``, a run the groups share counted in both (measured once)."""
    from flashrr.reproduce.sweep_runs import run_sweeps
    from flashrr.trace import Trace
    from flashrr.trace.io import write_trace

    rng = np.random.default_rng(2)
    n = 1200
    write_trace(Trace(np.arange(n) * 20_000, rng.integers(0, 1000, n) * 8192, np.full(n, 8192),
                      rng.random(n) < 0.3), tmp_path / "t.csv", "msr")
    device = {"preset": "shuffler", "name": "tiny", "channels": 1, "chips_per_channel": 1,
              "blocks_per_plane": 16, "pages_per_block": 64, "overprovisioning_ratio": 0.25,
              "capacity_bytes": 1 << 20, "rr_threshold_reads": 50}
    base = {"traces": [str(tmp_path / "t.csv")], "devices": [device], "policies": {"baseline": {}}}
    timings = {}
    frames = run_sweeps({"a": dict(base, seeds=[0, 1]), "b": dict(base, seeds=[1])}, ["a", "b"], tmp_path / "out",
                        lambda g, df: df, jobs=0, progress=False, timings=timings)
    assert set(timings) == {"sweeps_s", "runs_a_s", "runs_b_s"}
    a = frames["a"].set_index("seed")["call_wall_s"]
    assert float(frames["b"]["call_wall_s"].iloc[0]) == float(a[1])  # the shared run: one run, one measure
    assert timings["runs_b_s"] == round(float(a[1]), 2)
    assert timings["runs_a_s"] == round(float(a[0] + a[1]), 2)  # both of its runs (rounded to 0.01 s)


def test_make_figures_records_a_figure_without_data_and_removes_its_old_files(tmp_path):
    from flashrr.reproduce.figures import Figure, make_figures, need

    def no_data(runs):
        need(False, "figX", "no runs with RR")

    (tmp_path / "figX_empty.png").write_bytes(b"stale")
    (tmp_path / "figX_empty.csv").write_text("stale")
    figures = {"figX": Figure("figX_empty", "an empty figure", ("main",), no_data)}
    not_drawn: dict = {}
    assert make_figures(figures, ["figX"], None, tmp_path, {}, not_drawn) == {}
    assert not_drawn == {"figX": "figX: cannot be drawn: no runs with RR"}
    assert not list(tmp_path.glob("figX_empty.*"))
    from flashrr.reproduce.figures import FigureDataError

    with pytest.raises(FigureDataError):  # without a place to record it, the error still rises
        make_figures(figures, ["figX"], None, tmp_path, {})
