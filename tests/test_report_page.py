"""The ``reproduce all`` page at a glance: a headline chart per paper (paper
against flashrr), claims tables that name overloaded runs, and an inline script
that sorts and filters the claims tables with no network.  Built from fake
paper directories (no reproduction runs); the sorting and filtering are checked
in headless Chromium (Debian's, through selenium and chromedriver) when they are installed."""
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


#: what the browser test needs, and how to get it (Debian's packages; .ci/run installs them when missing)
BROWSER_HINT = ("apt-get install chromium chromium-driver (as .ci/run does) and pip install selenium "
                "(the test extras)")
WINDOW = (1280, 1000)


@pytest.fixture
def browser():
    """Headless Debian Chromium driven by selenium through Debian's chromedriver (never a driver or
    browser downloaded at run time); skips, saying how to install them, when one is missing (fails
    instead under ``FLASHRR_REQUIRE_BROWSER``, which .ci/run sets)."""
    import importlib.util
    import os
    import shutil

    binary = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
    driver_path = shutil.which("chromedriver")
    missing = [name for name, found in (("selenium", importlib.util.find_spec("selenium")), ("Chromium", binary),
                                        ("chromedriver", driver_path)) if found is None]
    if missing:
        why = f"no {' and no '.join(missing)}: {BROWSER_HINT}"
        if os.environ.get("FLASHRR_REQUIRE_BROWSER"):  # .ci/run installs them: there a skip would hide a failure
            pytest.fail(why)
        pytest.skip(why)
    from selenium import webdriver

    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", f"--window-size={WINDOW[0]},{WINDOW[1]}", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=driver_path))
    try:
        yield driver
    finally:
        driver.quit()


def _hex_rgb(colour: str) -> np.ndarray:
    from matplotlib.colors import to_rgb

    return np.round(np.array(to_rgb(colour)) * 255)


def test_report_page_in_a_real_browser(report_dir, browser, tmp_path):
    """The page in headless Chromium: every summary chart drawn, a claims table sorted by a column
    (ascending, then descending, text after numbers) and filtered, no script error, nothing fetched
    from the network, and a screenshot whose pixels show the charts' colours."""
    from selenium.webdriver.common.by import By

    from flashrr.reproduce.headline_chart import FLASHRR_COLOUR

    _, papers, _, page_path = report_dir
    browser.get(page_path.as_uri())
    # the summary: one inline chart per paper, laid out with a size and with its bars drawn
    charts = browser.execute_script(
        "const top = document.body.innerHTML.indexOf('<section');"
        "return Array.from(document.querySelectorAll('svg')).filter(s => document.body.innerHTML.indexOf("
        "s.outerHTML) < top).map(s => { const r = s.getBoundingClientRect();"
        "return [r.left, r.top, r.width, r.height, s.querySelectorAll('path').length]; });")
    assert len(charts) == len(papers)
    for left, top, width, height, paths in charts:
        assert width > 200 and height > 100 and top + height < 800 and paths >= 4, charts
    # sort the first paper's claims table by the "flashrr" column, then reverse it
    table = browser.find_element(By.CSS_SELECTOR, f"section#{papers[0]} table.claims")
    col = 3
    read = f"return Array.from(arguments[0].tBodies[0].rows).map(r => r.cells[{col}].textContent)"
    header = table.find_elements(By.TAG_NAME, "th")[col]
    assert header.text == "flashrr"
    header.click()
    values = browser.execute_script(read, table)
    nums = [float(v) for v in values if v != "n/a"]
    assert nums == sorted(nums) and len(nums) == sum(np.isfinite(v) for _, _, v, _ in HAND_ROWS)
    assert values[-1] == "n/a" and values != sorted(values)  # text after numbers, numbers by value
    header.click()
    again = browser.execute_script(read, table)
    assert [float(v) for v in again if v != "n/a"] == sorted(nums, reverse=True)
    # filter its rows: one claim left visible
    box = browser.find_element(By.CSS_SELECTOR, f"section#{papers[0]} input.filter")
    box.send_keys("claim 2 ")
    visible = [r for r in table.find_elements(By.CSS_SELECTOR, "tbody tr") if r.is_displayed()]
    assert len(visible) == 1 and "claim 2 " in visible[0].text
    box.clear()
    box.send_keys("no such claim")
    assert not [r for r in table.find_elements(By.CSS_SELECTOR, "tbody tr") if r.is_displayed()]
    # no script error, no request that left the machine
    severe = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    assert severe == []
    fetched = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert all(u.startswith("file:") for u in fetched), fetched
    # a screenshot of the opening screen: the window's size, a white page with the charts' colours on it
    browser.execute_script("window.scrollTo(0, 0)")
    shot = tmp_path / "report.png"
    assert browser.save_screenshot(str(shot))
    img = plt.imread(shot)[..., :3]
    view = browser.execute_script("return [window.innerHeight, window.innerWidth]")
    assert list(img.shape[:2]) == view and view[1] == WINDOW[0] and view[0] > 600, (img.shape, view)
    rgb = np.round(img * 255)
    white = np.all(rgb >= 250, axis=-1).mean()
    ours = np.all(np.abs(rgb - _hex_rgb(FLASHRR_COLOUR)) <= 12, axis=-1)
    assert 0.3 < white < 0.995, white  # mostly page, not blank and not a solid fill
    for left, top, width, height, _ in charts:  # each chart's flashrr bars, inside its own box
        box = ours[int(top):int(top + height), int(left):int(left + width)]
        assert box.sum() >= 300, (box.sum(), left, top)
    assert ours.sum() == sum(ours[int(t):int(t + h), int(x):int(x + w)].sum() for x, t, w, h, _ in charts)
    assert len(np.unique(rgb.reshape(-1, 3), axis=0)) > 50  # text and charts, not a flat image
