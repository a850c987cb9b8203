"""The lab report as ONE self-contained HTML file (figures inlined as SVG data URIs, no
script, no external asset), rendered from the one report object of
rtlab.report.document, which also gives the Markdown, CSV and JSON texts.

    write_report(store, results.select_many(store, [], "host"), "out/report.html")

The page: a title from the specs, the findings (one sentence per study answer, made
from the data), environment (fingerprint, one pitfall row per code: environment), summary
per matrix cell, runs that did not finish cleanly, then one section per study, each made
by its plug-in of rtlab.report.sections (the SECTIONS registry).
"""

from __future__ import annotations

import re
import time
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
import markupsafe

import rtlab
from rtlab.fsutil import atomic_path
from rtlab.report import document, environment
from rtlab.report.document import SUMMARY_COLS, Report
from rtlab.report.sections import Section
from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import gpio as gpio_study
from rtlab.words import plural

__all__ = ["SUMMARY_COLS", "plural", "render_html", "text_report", "write_html", "write_report"]


def headline(cells: dict[str, results.CellRuns], fallback: str) -> tuple[str, list[str]]:
    """The title from the specs of the selected runs (their names), and each spec's
    description; `fallback` when no run came from a spec."""
    specs: dict[str, str] = {}
    for cr in cells.values():
        if cr.spec and cr.spec not in specs:
            specs[cr.spec] = _description(cr.runs[0].get("spec") or {})
    if not specs:
        return fallback, []
    return " + ".join(specs), [f"{n}: {d}" if d else n for n, d in specs.items()]


def _description(spec: Mapping[str, Any]) -> str:
    try:
        return str(tomllib.loads(spec.get("text") or "").get("description", ""))
    except tomllib.TOMLDecodeError:
        return ""


# ------------------------------------------------------------------ assembling


def _template() -> jinja2.Template:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("rtlab.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["us"] = document.us
    env.filters["pct"] = lambda x: "–" if x is None else f"{x:+.1f} %"
    env.filters["num"] = gpio_study.fmt
    env.filters["overrun_lines"] = results.overrun_lines
    env.filters["plural"] = plural
    env.filters["breakable"] = breakable
    return env.get_template("report.html.j2")


_LONG_WORD = re.compile(r"\S{24,}")
# a break opportunity before an opening ("c[policy=other]" "@idle") and after a separator
_BREAK = re.compile(r"(?<=.)(?=[\[@(])|(?<=[/\]=,_.:;|)])(?=.)")


def breakable(text: object) -> markupsafe.Markup:
    """`text` escaped, with a line-break opportunity (<wbr>) at the punctuation of every
    word of 24 characters or more (before an opening, after a separator): a table cell
    then wraps at spaces and hyphens only (its stylesheet breaks no word), and a long
    code still fits the page, broken where it reads ("kotlin[policy=other]" "@idle", not
    "kotlin[policy=ot" "her]@idle")."""
    escaped = str(markupsafe.escape(text))
    return markupsafe.Markup(_LONG_WORD.sub(lambda m: _BREAK.sub("<wbr>", m.group(0)), escaped))


def _headlines(rep: Report) -> list[dict[str, Any]]:
    """One row per study at the top: its section's first finding (the rest open with the
    section) and, where a published study speaks to it, that study's headline claim
    and tally (a section's `published` lines, each under the nearest section that
    `shows` that study; a published study with no such section gets a row of its own)."""
    if not any(r["status"] == "ok" for r in rep.runs):
        text = rep.findings()[0]
        return [{"study": "–", "anchor": "summary", "text": text, "published": []}]
    return headline_rows(rep.sections)


def headline_rows(secs: list[Section]) -> list[dict[str, Any]]:
    """_headlines' rows of built sections, as each section's fields say."""
    rows: dict[str, dict[str, Any]] = {
        sec.id: {
            "study": sec.title,
            "anchor": f"study-{sec.id}",
            "text": sec.findings[0]
            + (f" (+{len(sec.findings) - 1} more in the section)" if len(sec.findings) > 1 else ""),
            "published": [],
        }
        for sec in secs
        if sec.findings and sec.own_findings
    }
    for sec in secs:
        for pub in sec.published:
            link = {"anchor": pub["anchor"], "short": pub["short"]}
            homes = [s for s in secs if pub["study"] in s.shows and s.id in rows]
            if homes:
                home = rows[min(homes, key=lambda s: s.nearness).id]
            else:
                home = {**link, "study": pub["short"], "text": "", "published": []}
                rows[pub["study"]] = home
            home["published"].append({**link, "text": pub["text"]})
    return list(rows.values())


def render_html(rep: Report) -> str:
    """The HTML page of a built report; `rep.skipped` names parts the caller could not
    run ("part: reason — how to fix"), shown first so a reader does not take their
    absence for a result. Findings first (each study section's sentences), then the
    environment, the summary, the runs that failed, and one section per study."""
    runs = rep.runs
    labels = {r["run_id"]: cr.label for cr in rep.cells.values() for r in cr.runs}
    head, descriptions = headline(rep.cells, rep.title)
    sections: list[Section] = rep.sections
    return _template().render(
        title=head,
        descriptions=descriptions,
        headlines=_headlines(rep),
        skipped=rep.skipped,
        generated=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        version=rtlab.__version__,
        store=str(rep.store.path),
        n_runs=len(runs),
        n_cells=len(rep.cells),
        env=environment.environment(rep.store, rep.cells),
        summary=rep.summary,
        cols=SUMMARY_COLS,
        bad=[{**r, "label": labels[r["run_id"]]} for r in runs if r["status"] != "ok"],
        sections=sections,
    )


def write_html(rep: Report, path: str | Path) -> Path:
    """The report's HTML page written to `path` (atomically: no half-written page)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    text = render_html(rep)
    with atomic_path(p) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")
    return p


def write_report(
    store: Store, cells: dict[str, results.CellRuns], path: str | Path, **how: Any
) -> Path:
    """document.build(store, cells, **how) (title, skipped), then write_html."""
    return write_html(document.build(store, cells, **how), path)


def text_report(
    store: Store, cells: dict[str, results.CellRuns], fmt: str, skipped: Sequence[str] = ()
) -> str:
    """The report as Markdown (findings, summary, every section's tables), CSV (the
    summary rows) or JSON; times in ns. `skipped` parts go into JSON (`skipped`) and
    Markdown (a list first); CSV has rows only."""
    if fmt not in ("md", "csv", "json"):
        raise ValueError(f"report format {fmt!r}: one of md, csv, json")
    rep = document.build(store, cells, skipped=skipped, with_sections=fmt != "csv")
    return {"md": rep.markdown, "csv": rep.csv, "json": rep.json}[fmt]()
