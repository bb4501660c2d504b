"""``flashrr reproduce all``: every paper's reproduction, then one report.

:func:`reproduce_all` runs each paper of :data:`flashrr.reproduce.PAPERS` into
``OUT/<paper>/`` (each paper's own store resumes an interrupted run) and writes
``OUT/report.md`` and ``OUT/index.html`` after every paper, so a report exists
as soon as the first paper is done and a later failure loses nothing.  A paper
whose reproduction raises is recorded as failed, with its error (and the
traceback in ``OUT/<paper>/error.txt``); the others still run.

The report has, at the top, one summary row per paper (:func:`claim_counts`):

* **direction holds**: claims whose ``holds`` column is True, out of all the
  paper's claims (``n/a`` rows, which lack a value, count as not holding);
* **within half**: claims with a size (``expected`` is ``lower`` or
  ``higher`` and ``paper_value`` is a finite, non-zero change) where
  ``|flashrr_value - paper_value| <= |paper_value| / 2``, out of the claims
  with a size.  Such a claim always points the paper's way.

then a chart per paper of its headline claims, the paper's change beside flashrr's
(:mod:`~flashrr.reproduce.headline_chart`; inline SVG in the page, and
``OUT/<paper>/headline_claims.svg`` for the Markdown), and then, per paper: its
claims table (paper, flashrr, holds, magnitude, and the overloaded runs when
``claims.csv`` names them; in the page it sorts by a clicked header and filters
by typed text, through the inline script ``report_tables.js``), every
figure of its figure registry (relative image paths, so ``index.html`` opens
from disk without a server or network; a figure whose PNG is missing is named
as missing), the plan it ran (device and trace settings, from
``reproduce.json``) and its wall time (s).
"""
from __future__ import annotations

import html
import json
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import PAPERS
from .claims import format_claim_values
from .headline_chart import headline_svg
from .overload import COLUMN as OVERLOADED
from .paper import check_scale
from .runner import reproduce

WITHIN_FRACTION = 0.5  # "within half the paper's magnitude"
HEADLINE_SVG = "headline_claims.svg"
TABLE_SCRIPT = (Path(__file__).with_name("report_tables.js")).read_text()
"""Sorts a claims table by a clicked header and filters its rows by a typed text (inline, no network)."""


@dataclass
class PaperRun:
    """How one paper's reproduction went in this call: ``status`` is ``ok`` or
    ``failed`` (``error`` says why); ``wall_s`` is its wall time (s), None
    when the report is built from an existing directory without running."""

    paper: str
    status: str = "ok"
    error: str = ""
    wall_s: float | None = None


def claim_counts(table: pd.DataFrame) -> dict:
    """``{"claims", "holds", "sized", "within_half"}`` of a claims table (the
    columns of :data:`~flashrr.reproduce.claims.CLAIM_COLUMNS`, as written to or
    read back from ``claims.csv``); see the module docstring for the rules."""
    if table is None or table.empty:
        return {"claims": 0, "holds": 0, "sized": 0, "within_half": 0}
    ok = table["holds"].astype(str) == "True"
    paper = pd.to_numeric(table["paper_value"], errors="coerce")
    ours = pd.to_numeric(table["flashrr_value"], errors="coerce")
    sized = table["expected"].isin(["lower", "higher"]) & np.isfinite(paper) & (paper != 0)
    within = sized & np.isfinite(ours) & ((ours - paper).abs() <= WITHIN_FRACTION * paper.abs())
    return {"claims": len(table), "holds": int(ok.sum()), "sized": int(sized.sum()),
            "within_half": int(within.sum())}


def figure_registry(paper: str) -> dict:
    """The figures (id -> :class:`~flashrr.reproduce.figures.Figure`) of ``paper``."""
    return PAPERS[paper].figures


@dataclass
class Section:
    """What the report shows of one paper, read from its output directory."""

    paper: str
    title: str
    run: PaperRun
    claims: pd.DataFrame | None
    counts: dict
    figures: list  # (id, title, png path relative to the report dir, exists)
    plan: dict
    wall_s: float | None
    not_drawn: dict = field(default_factory=dict)  # figure id -> why it could not be drawn
    failed_runs: int = 0  # runs that failed (listed in <paper>/failed_runs.csv)
    headline: str = ""  # SVG chart of the headline claims, paper vs flashrr ("" when none)
    regime: pd.DataFrame | None = None  # regime.csv: Baseline's regime per trace (flashrr.reproduce.regime)
    occupancy: pd.DataFrame | None = None  # occupancy.csv: the headline claims at each occupancy


def read_section(out, run: PaperRun) -> Section:
    """Read ``out/<paper>/`` (claims.csv, claims.md, reproduce.json, figure PNGs)."""
    out = Path(out)
    d = out / run.paper
    claims = None
    title = run.paper
    if run.status == "ok" and (d / "claims.csv").exists():
        claims = pd.read_csv(d / "claims.csv", dtype={"holds": str})
    if (d / "claims.md").exists():
        first = (d / "claims.md").read_text().splitlines()[:1]
        if first and first[0].startswith("# "):
            title = first[0][2:].split(":")[0].strip() or run.paper
    meta = {}
    if (d / "reproduce.json").exists():
        try:
            meta = json.loads((d / "reproduce.json").read_text())
        except ValueError:
            meta = {}
    figures = []
    for fid, fig in (figure_registry(run.paper).items() if run.status == "ok" else ()):
        png = d / f"{fig.stem}.png"
        figures.append((fid, fig.title, f"{run.paper}/{fig.stem}.png", png.exists()))
    wall = run.wall_s if run.wall_s is not None else meta.get("timings_s", {}).get("total_s")
    tables = {name: pd.read_csv(d / f"{name}.csv", keep_default_na=False, na_values=[""])
              if run.status == "ok" and (d / f"{name}.csv").exists() else None for name in ("regime", "occupancy")}
    return Section(run.paper, title, run, claims, claim_counts(claims), figures, meta.get("plan", {}), wall,
                   meta.get("figures_not_drawn") or {}, int(meta.get("failed_runs") or 0),
                   headline_svg(claims, title), tables["regime"], tables["occupancy"])


def _safe_section(out, run: PaperRun) -> Section:
    """:func:`read_section`, or a failed section naming the error if the paper's
    output cannot be read (the report of the other papers is still written)."""
    try:
        return read_section(out, run)
    except Exception as exc:  # noqa: BLE001  (one unreadable paper must not lose the others' report)
        bad = PaperRun(run.paper, "failed", f"report: cannot read {Path(out) / run.paper}: "
                                            f"{type(exc).__name__}: {exc}", run.wall_s)
        return Section(run.paper, run.paper, bad, None, claim_counts(None), [], {}, run.wall_s)


def _plan_value(v) -> str:
    if isinstance(v, (list, tuple)):
        return ", ".join(_plan_value(x) for x in v) if not any(isinstance(x, (list, tuple)) for x in v) \
            else "; ".join("=".join(map(str, x)) if isinstance(x, (list, tuple)) else str(x) for x in v)
    if isinstance(v, dict):
        return json.dumps(v, default=str)
    return str(v)


def _claim_head(table: pd.DataFrame) -> tuple:
    return CLAIM_HEAD + (("overloaded runs",) if OVERLOADED in table.columns else ())


def _claim_rows(table: pd.DataFrame) -> list:
    """(figure, claim, paper, flashrr, unit, holds, magnitude[, overloaded runs]) strings per claim."""
    rows = []
    for r in table.itertuples(index=False):
        paper, ours = format_claim_values(float(r.paper_value), float(r.flashrr_value), r.unit)
        row = (r.figure, r.claim, paper, ours, r.unit, str(r.holds), str(r.magnitude))
        if OVERLOADED in table.columns:
            over = getattr(r, OVERLOADED)
            row += (over if isinstance(over, str) else "",)
        rows.append(row)
    return rows


def _cell(v) -> str:
    """A regime or occupancy table cell: numbers rounded for reading, blanks as ``-``."""
    if isinstance(v, str):
        return v or "-"
    if v is None or (isinstance(v, float) and v != v):
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:,.3g}" if abs(v) < 10 else f"{v:,.1f}"
    return f"{int(v):,}"


def _regime_parts(s: Section) -> list:
    """``(heading, head, rows, note)`` of the section's regime and occupancy tables (none missing)."""
    parts = []
    if s.regime is not None and len(s.regime):
        flagged = s.regime[s.regime["flag"].astype(str).str.len() > 0] if "flag" in s.regime.columns else []
        note = (f"{len(flagged)} trace(s) kept out of the claims: "
                + "; ".join(f"{t} ({f})" for t, f in zip(flagged["trace"], flagged["flag"]))
                if len(flagged) else "Every trace ran inside the paper's regime.")
        parts.append(("Regime: Baseline on each trace", tuple(s.regime.columns),
                      [tuple(_cell(v) for v in r) for r in s.regime.itertuples(index=False)], note))
    if s.occupancy is not None and len(s.occupancy):
        cols = ("occupancy", "claim", "paper_value", "flashrr_value", "n_traces", "per_trace")
        parts.append(("Headline claims at each occupancy", cols,
                      [tuple(_cell(getattr(r, c)) for c in cols) for r in s.occupancy.itertuples(index=False)],
                      "Occupancy: share of the logical space filled before the replay."))
    return parts


def _fmt_wall(s) -> str:
    return "n/a" if s is None else f"{float(s):.0f} s"


def _summary_cells(s: Section) -> tuple:
    c = s.counts
    if s.run.status != "ok":
        return (s.paper, "failed", "-", "-", _fmt_wall(s.wall_s))
    if s.claims is None:
        return (s.paper, "ok (no claims.csv)", "-", "-", _fmt_wall(s.wall_s))
    status = f"ok, {s.failed_runs} runs failed" if s.failed_runs else "ok"
    return (s.paper, status, f"{c['holds']} of {c['claims']}", f"{c['within_half']} of {c['sized']}",
            _fmt_wall(s.wall_s))


def _failed_runs_note(s: Section) -> str:
    return (f"{s.failed_runs} runs failed (listed in {s.paper}/failed_runs.csv); the figures and claims below use "
            f"the runs that finished.")


def _missing_figure(s: Section, fid: str, title: str, rel: str) -> str:
    why = s.not_drawn.get(fid)
    return f"{fid} ({title}): not drawn: {why}" if why else f"{fid} ({title}): missing, no {rel}"


SUMMARY_HEAD = ("paper", "status", "direction holds", "within half the paper's change", "wall time")
CLAIM_HEAD = ("figure", "claim", "paper", "flashrr", "unit", "holds", "magnitude")
DEFINITIONS = ("*Direction holds*: claims whose `holds` is True, out of all claims. *Within half*: claims with a "
               "size (expected lower/higher, non-zero paper value) where |flashrr - paper| <= |paper| / 2, out of "
               "the claims with a size. Values are % changes unless the unit says otherwise.")


def _md_table(head, rows) -> list:
    esc = [[str(x).replace("|", "\\|") for x in r] for r in rows]
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in esc]


def _mode(quick: bool, paper_scale: bool) -> str:
    """The plans' name in the report's head: ``--quick``, ``--paper-scale`` or ``full`` (the defaults)."""
    return "--quick" if quick else "--paper-scale" if paper_scale else "full"


def report_markdown(sections: list, quick: bool | None = None, paper_scale: bool = False) -> str:
    """The report as Markdown (figures as relative image links); ``quick`` None: no mode line."""
    total = sum(float(s.wall_s) for s in sections if s.wall_s is not None)
    lines = ["# flashrr: the five papers' reproductions", ""]
    if quick is not None:
        lines += [f"Mode: {_mode(quick, paper_scale)}; total wall time {total:.0f} s.", ""]
    lines += _md_table(SUMMARY_HEAD, [_summary_cells(s) for s in sections]) + ["", DEFINITIONS, ""]
    lines += [f"![{s.paper}: headline claims, paper vs flashrr]({s.paper}/{HEADLINE_SVG})" for s in sections
              if s.headline] + [""]
    for s in sections:
        lines += [f"## {s.paper}: {s.title}", "", f"Wall time: {_fmt_wall(s.wall_s)}.", ""]
        if s.run.status != "ok":
            lines += ["**Reproduction failed:**", "", "```", s.run.error, "```", "",
                      f"(traceback: `{s.paper}/error.txt`)", ""]
            continue
        if s.failed_runs:
            lines += [f"**{_failed_runs_note(s)}**", ""]
        if s.claims is not None:
            lines += ["### Claims", ""] + _md_table(_claim_head(s.claims), _claim_rows(s.claims)) + [""]
        for heading, head, rows, note in _regime_parts(s):
            lines += [f"### {heading}", "", note, ""] + _md_table(head, rows) + [""]
        lines += ["### Figures", ""]
        for fid, title, rel, exists in s.figures:
            lines += [f"![{title}]({rel})", ""] if exists else [f"*{_missing_figure(s, fid, title, rel)}*", ""]
        if s.plan:
            lines += ["### Settings (device and traces)", ""]
            lines += _md_table(("setting", "value"), [(k, _plan_value(v)) for k, v in s.plan.items()]) + [""]
    return "\n".join(lines)


def _html_table(head, rows, cls="") -> str:
    h = "".join(f"<th>{html.escape(str(x))}</th>" for x in head)
    b = "".join("<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in r) + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{h}</tr></thead><tbody>{b}</tbody></table>'


CSS = ("body{font-family:sans-serif;max-width:70em;margin:1em auto;padding:0 1em}"
       ".headlines{display:flex;flex-wrap:wrap;gap:0.5em}.headline{margin:0;flex:1 1 22em}"
       ".headline svg{width:100%;height:auto}th{cursor:pointer}input.filter{margin-top:0.5em}"
       "th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' \\25BC'}"
       "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #bbb;padding:2px 6px;font-size:90%}"
       "img{max-width:100%;border:1px solid #eee}.failed{color:#a00}pre{background:#f6f6f6;padding:0.5em;"
       "overflow-x:auto}figure{margin:1em 0}")


def report_html(sections: list, quick: bool | None = None, paper_scale: bool = False) -> str:
    """The report as one HTML page; images are relative files, no external resources."""
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>flashrr: the five papers' reproductions</title>", f"<style>{CSS}</style></head><body>",
             "<h1>flashrr: the five papers' reproductions</h1>"]
    if quick is not None:
        parts.append(f"<p>Mode: {_mode(quick, paper_scale)}.</p>")
    parts.append(_html_table(SUMMARY_HEAD, [_summary_cells(s) for s in sections], "summary"))
    parts.append(f"<p>{e(DEFINITIONS.replace('*', '').replace('`', ''))}</p>")
    charts = [f'<figure class="headline">{s.headline}<figcaption>{e(s.paper)}: headline claims, paper (white) '
              f'vs flashrr</figcaption></figure>' for s in sections if s.headline]
    if charts:
        parts.append('<div class="headlines">' + "".join(charts) + "</div>")
    for s in sections:
        parts.append(f'<section class="paper" id="{e(s.paper)}"><h2>{e(s.paper)}: {e(s.title)}</h2>')
        parts.append(f"<p>Wall time: {e(_fmt_wall(s.wall_s))}.</p>")
        if s.run.status != "ok":
            parts.append(f'<p class="failed">Reproduction failed:</p><pre>{e(s.run.error)}</pre>'
                         f'<p>Traceback: <a href="{e(s.paper)}/error.txt">{e(s.paper)}/error.txt</a></p></section>')
            continue
        if s.failed_runs:
            parts.append(f'<p class="failed">{e(_failed_runs_note(s))}</p>')
        if s.claims is not None:
            parts.append("<h3>Claims</h3>" + _html_table(_claim_head(s.claims), _claim_rows(s.claims), "claims"))
        for heading, head, rows, note in _regime_parts(s):
            parts.append(f"<h3>{e(heading)}</h3><p>{e(note)}</p>" + _html_table(head, rows, "regime"))
        parts.append("<h3>Figures</h3>")
        for fid, title, rel, exists in s.figures:
            if exists:
                pdf = rel[:-4] + ".pdf"
                csv = rel[:-4] + ".csv"
                parts.append(f'<figure><img src="{e(rel)}" alt="{e(title)}"><figcaption>{e(title)} '
                             f'(<a href="{e(pdf)}">PDF</a>, <a href="{e(csv)}">data</a>)</figcaption></figure>')
            else:
                parts.append(f'<p class="failed">{e(_missing_figure(s, fid, title, rel))}</p>')
        if s.plan:
            parts.append("<h3>Settings (device and traces)</h3>"
                         + _html_table(("setting", "value"), [(k, _plan_value(v)) for k, v in s.plan.items()],
                                       "settings"))
        parts.append("</section>")
    parts.append(f"<script>{TABLE_SCRIPT}</script></body></html>")
    return "\n".join(parts)


def write_report(out, runs: list, quick: bool | None = None, paper_scale: bool = False) -> tuple:
    """Write ``out/report.md`` and ``out/index.html`` for the papers of ``runs``
    (:class:`PaperRun`), the mode line naming the quick or paper-scale plans; returns their
    paths and the sections."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    sections = [_safe_section(out, r) for r in runs]
    for s in sections:
        chart = out / s.paper / HEADLINE_SVG
        if s.headline:
            chart.write_text(s.headline)
        else:
            chart.unlink(missing_ok=True)
    md, page = out / "report.md", out / "index.html"
    md.write_text(report_markdown(sections, quick, paper_scale))
    page.write_text(report_html(sections, quick, paper_scale))
    return md, page, sections


def reproduce_all(out, quick: bool = False, repeat: int | None = None, jobs: int | None = None,
                  progress: bool = True, papers=None, plans: dict | None = None, on_paper=None,
                  workload: str = "model", paper_scale: bool = False, scheduler: str | None = None,
                  snapshots: bool = True) -> dict:
    """Run every paper of ``papers`` (default: all of :data:`PAPERS`) into
    ``out/<paper>/`` and write the report after each.  ``quick`` or ``paper_scale``
    picks the plans (not both); ``jobs`` local processes or the Dask ``scheduler``
    run the sweeps (``snapshots``: from aged-device snapshots in each paper's store, as
    :func:`flashrr.reproduce.runner.reproduce`).  ``plans``: a plan per paper (passed as ``plan=``; overrides
    ``quick``/``paper_scale``/``repeat``).  ``repeat`` is
    not passed to papers without traces (``Paper.has_traces`` False), nor is
    ``workload`` (``"model"`` or ``"synth"``: where the paper traces come from).
    ``on_paper(paper, index, count)`` is called before each paper.
    Returns ``{"runs": [PaperRun], "report": (md, html), "sections": [...]}``."""
    check_scale(quick, paper_scale)
    out = Path(out)
    papers = list(PAPERS) if papers is None else list(papers)
    unknown = [p for p in papers if p not in PAPERS]
    if unknown:
        raise ValueError(f"reproduce all: unknown paper(s) {unknown}; expected some of {list(PAPERS)}")
    plans = plans or {}
    done: list = []
    md = page = sections = None
    for i, paper in enumerate(papers):
        if on_paper is not None:
            on_paper(paper, i, len(papers))
        d = out / paper
        d.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        try:
            declared = PAPERS[paper]
            kw = {"quick": quick, "paper_scale": paper_scale, "jobs": jobs, "scheduler": scheduler,
                  "progress": progress, "snapshots": snapshots}
            if repeat is not None and declared.has_traces:
                kw["repeat"] = repeat
            if declared.has_traces and paper not in plans:
                kw["workload"] = workload
            if paper in plans:
                kw["plan"] = plans[paper]
            reproduce(declared, d, **kw)
            run = PaperRun(paper, "ok", "", round(time.perf_counter() - t0, 2))
            (d / "error.txt").unlink(missing_ok=True)
        except Exception as exc:  # noqa: BLE001  (any failure of one paper is reported; the others still run)
            (d / "error.txt").write_text(traceback.format_exc())
            run = PaperRun(paper, "failed", f"{type(exc).__name__}: {exc}", round(time.perf_counter() - t0, 2))
        done.append(run)
        md, page, sections = write_report(out, done, quick, paper_scale)
    return {"runs": done, "report": (md, page), "sections": sections}


__all__ = ["PaperRun", "Section", "claim_counts", "figure_registry", "read_section", "report_html",
           "report_markdown", "reproduce_all", "write_report", "WITHIN_FRACTION"]
