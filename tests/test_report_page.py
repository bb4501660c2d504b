"""The ``reproduce all`` page at a glance: a headline chart per paper (paper
against flashrr), claims tables that name overloaded runs, and an inline script
that sorts and filters the claims tables with no network.  Built from fake
paper directories (no reproduction runs); the sorting and filtering are checked
in headless Chromium when Playwright and its browser are installed."""
from __future__ import annotations

import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from flashrr.reproduce import PAPERS
from flashrr.reproduce.claims import CLAIM_COLUMNS
from flashrr.reproduce.headline_chart import HEADLINES, headline_claims, headline_figure
from flashrr.reproduce.report import HEADLINE_SVG, PaperRun, write_report
from test_reproduce_report import HAND_ROWS, _fake_paper


def _table(rows) -> pd.DataFrame:
    return pd.DataFrame([{**dict.fromkeys(CLAIM_COLUMNS, ""), "figure": f, "claim": c, "paper_value": p,
                          "flashrr_value": v, "unit": u, "expected": e, "holds": True, "magnitude": "-"}
                         for f, c, p, v, u, e in rows], columns=CLAIM_COLUMNS)


def test_headline_claims_have_a_size_and_a_value_and_spread_over_figures():
    rows = [("fig05", f"a{i}", -10.0 - i, -5.0, "% change", "lower") for i in range(5)]
    rows += [("fig06", "no size", np.nan, -3.0, "% change", "lower"), ("fig06", "parity", 0.0, 0.1, "% change",
                                                                          "parity"),
             ("fig06", "no value", -7.0, np.nan, "% change", "lower"), ("fig06", "b", 12.0, 30.0, "% change", "higher"),
             ("fig07", "a count", 4.0, 3.0, "count", "higher"), ("fig08", "c", -20.0, -25.0, "% change", "lower")]
    got = headline_claims(_table(rows))
    assert len(got) == HEADLINES
    assert list(got["claim"]) == ["a0", "a1", "a2", "a3", "b", "c"]  # fig06's and fig08's only sized claims get in
    assert headline_claims(None).empty and headline_claims(_table(rows[5:8])).empty


def test_headline_chart_draws_the_paper_and_flashrr_values():
    claims = headline_claims(_table([("fig05", "x", -20.0, -12.0, "% change", "lower"),
                                     ("fig06", "y", 10.0, 500.0, "% change", "higher")]))
    fig = headline_figure(claims, "P")
    ax = fig.axes[0]
    paper, ours = ax.containers
    assert [p.get_width() for p in paper.patches] == [-20.0, 10.0]
    assert ours.patches[0].get_width() == -12.0
    assert ours.patches[1].get_width() < 500.0 and "+500%" in [t.get_text().strip() for t in ax.texts]
    plt.close(fig)


@pytest.fixture
def report_dir(tmp_path):
    papers = list(PAPERS)[:2]
    for p in papers:
        _fake_paper(tmp_path, p, list(PAPERS[p].figures)[:1])
    first = tmp_path / papers[0] / "claims.csv"
    t = pd.read_csv(first)
    t["overloaded"] = ["Cocktail on nexus5"] + [""] * (len(t) - 1)
    t.to_csv(first, index=False)
    md, page, _ = write_report(tmp_path, [PaperRun(p) for p in papers], quick=True)
    return tmp_path, papers, md, page


def test_page_opens_with_one_headline_chart_per_paper_and_fetches_nothing(report_dir):
    out, papers, md, page = report_dir
    text = page.read_text()
    top = text[:text.index("<section")]
    assert top.count("<svg") == len(papers)
    for p in papers:
        assert (out / p / HEADLINE_SVG).read_text().startswith("<svg")
        assert f"]({p}/{HEADLINE_SVG})" in md.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)
    assert "<script>" in text and "<script src" not in text


def test_claims_tables_name_overloaded_runs(report_dir):
    _, papers, md, page = report_dir
    text = page.read_text()
    assert text.count("<th>overloaded runs</th>") == 1  # only the paper whose claims.csv has the column
    assert "<td>Cocktail on nexus5</td>" in text
    assert "| Cocktail on nexus5 |" in md.read_text()


def _chromium():
    sync_api = pytest.importorskip("playwright.sync_api")
    pw = sync_api.sync_playwright().start()
    try:
        browser = pw.chromium.launch()
    except Exception as exc:  # noqa: BLE001  (Playwright without its browser: skip, do not fail)
        pw.stop()
        pytest.skip(f"no headless Chromium for Playwright: {type(exc).__name__}")
    return pw, browser


def test_claims_table_sorts_and_filters_in_a_browser(report_dir):
    _, papers, _, page_path = report_dir
    pw, browser = _chromium()
    try:
        page = browser.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("**/*", lambda route: route.abort() if "://" in route.request.url
                   and not route.request.url.startswith("file://") else route.continue_())
        page.goto(page_path.as_uri())
        table = page.locator(f"section#{papers[0]} table.claims")
        col = 3  # the "flashrr" column
        cells = f"rows => rows.map(r => r.cells[{col}].textContent)"
        table.locator("th").nth(col).click()
        values = table.locator("tbody tr").evaluate_all(cells)
        nums = [float(v) for v in values if v != "n/a"]
        assert nums == sorted(nums) and len(nums) == sum(np.isfinite(v) for _, _, v, _ in HAND_ROWS)
        assert values[-1] == "n/a"  # text after numbers
        table.locator("th").nth(col).click()
        again = table.locator("tbody tr").evaluate_all(cells)
        assert [float(v) for v in again if v != "n/a"] == sorted(nums, reverse=True)
        page.locator(f"section#{papers[0]} input.filter").fill("claim 2 ")
        visible = table.locator("tbody tr:visible")
        assert visible.count() == 1 and "claim 2 " in visible.first.text_content()
        assert errors == []
    finally:
        browser.close()
        pw.stop()
