"""The lab report: ONE self-contained HTML file (figures inlined as SVG data URIs, no
script, no external asset), plus the same summary as Markdown, CSV or JSON.

    write_report(store, results.select_many(store, [], "host"), "out/report.html")

The page: a title from the specs, the findings (one sentence per study answer, made
from the data), environment (fingerprint, one pitfall row per code: pitfalls), summary
per matrix cell, runs that did not finish cleanly, then one section per study, each made
by its module in rtlab.report.sections (latency, GPIO study, rtbench).
"""

from __future__ import annotations

import csv
import html as _html
import io
import json
import time
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2

import rtlab
from rtlab.fsutil import atomic_path
from rtlab.report import pitfalls, sections
from rtlab.report.sections import multicore as multicore_section
from rtlab.report.sections import reproduction as repro_section
from rtlab.report.sections import rtos_compare as rtos_section
from rtlab.report.sections import user_vs_kernel as uvk_section
from rtlab.results import Store, multirun
from rtlab.results import query as results
from rtlab.studies import gpio as gpio_study
from rtlab.studies import (
    latency_measure,
    multicore,
    rtbench,
    rtos_compare_tables,
    user_vs_kernel,
)

SUMMARY_COLS = ("n", "min", "mean", "rms", "p50", "p90", "p99", "p999", "max")


def _us(x: Any) -> str:
    return "–" if x is None else f"{x / 1000:,.2f}"


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
    env.filters["us"] = _us
    env.filters["pct"] = lambda x: "–" if x is None else f"{x:+.1f} %"
    env.filters["num"] = gpio_study.fmt
    env.filters["overrun_lines"] = results.overrun_lines
    return env.get_template("report.html.j2")


def _findings(secs: list[sections.Section], cells: dict[str, results.CellRuns]) -> list[str]:
    """One sentence per study answer (each section's), or why there is none."""
    runs = [r for cr in cells.values() for r in cr.runs]
    if not any(r["status"] == "ok" for r in runs):
        return [f"No run finished successfully ({len(runs)} selected): no figures to report."]
    return [f for sec in secs for f in sec.findings]


# the report sections that show each published study's runs, nearest first
RELATED = {
    "stm32": ("rtos-compare", "rtbench"),
    "rp2040": ("rtos-compare", "multicore", "rtbench"),
    "k4perf": ("rtos-compare", "rtbench"),
    "gpio": ("gpio-study",),
    "user_vs_kernel": ("user-vs-kernel",),
}


def _headlines(
    secs: list[sections.Section], cells: dict[str, results.CellRuns]
) -> list[dict[str, Any]]:
    """One row per study at the top: its section's first finding (the rest open with the
    section) and, where a published study speaks to it, that study's headline claim
    and tally (a published study with no section of its own gets a row of its own)."""
    runs = [r for cr in cells.values() for r in cr.runs]
    if not any(r["status"] == "ok" for r in runs):
        text = _findings(secs, cells)[0]
        return [{"study": "–", "anchor": "summary", "text": text, "published": []}]
    rows = {
        sec.id: {
            "study": sec.title,
            "anchor": f"study-{sec.id}",
            "text": sec.findings[0]
            + (f" (+{len(sec.findings) - 1} more in the section)" if len(sec.findings) > 1 else ""),
            "published": [],
        }
        for sec in secs
        if sec.findings and sec.id != "reproduction"
    }
    for sec in secs:
        for st in sec.data["studies"] if sec.id == "reproduction" else []:
            link = {"anchor": f"reproduction-{st['study']}", "short": st["short"]}
            line = {**link, "text": st["headline"].removeprefix(f"{st['short']}: ")}
            home = next((rows[k] for k in RELATED.get(st["study"], ()) if k in rows), None)
            if home is None:
                home = {**link, "study": st["short"], "text": "", "published": []}
                rows[st["study"]] = home
            home["published"].append(line)
    return list(rows.values())


def _cross_checks(secs: list[sections.Section]) -> list[str]:
    """Zephyr's latency_measure beside rtbench, as Markdown (from that section's data)."""
    out = []
    for sec in secs:
        if sec.id != "latency-measure":
            continue
        for c in sec.data["checks"]:
            out += ["", latency_measure.markdown(c["rows"], f"Cross-check: {c['title']}")]
            for what, kv in (("rtbench", c["kconfig"]), ("latency_measure", c["kconfig_lm"])):
                if kv:
                    out.append(
                        f"Configuration ({what}): "
                        + ", ".join(f"`{k}={v}`" for k, v in sorted(kv.items()))
                        + "\n"
                    )
    return out


def render(
    store: Store,
    cells: dict[str, results.CellRuns],
    title: str = "rtlab",
    skipped: Sequence[str] = (),
) -> str:
    """The HTML report; `skipped` names parts the caller could not run ("part: reason —
    how to fix"), shown first so a reader does not take their absence for a result.
    Findings first (each study section's sentences), then the environment, the summary,
    the runs that failed, and one section per study (rtlab.report.sections)."""
    runs = [r for cr in cells.values() for r in cr.runs]
    bad = [r for r in runs if r["status"] != "ok"]
    labels = {r["run_id"]: cr.label for cr in cells.values() for r in cr.runs}
    secs = sections.build(store, cells)
    head, descriptions = headline(cells, title)
    return _template().render(
        title=head,
        descriptions=descriptions,
        headlines=_headlines(secs, cells),
        skipped=list(skipped),
        generated=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        version=rtlab.__version__,
        store=str(store.path),
        n_runs=len(runs),
        n_cells=len(cells),
        env=pitfalls.environment(store, cells),
        summary=results.summary_rows(store, cells),
        cols=SUMMARY_COLS,
        bad=[{**r, "label": labels[r["run_id"]]} for r in bad],
        sections=secs,
    )


def write_report(
    store: Store,
    cells: dict[str, results.CellRuns],
    path: str | Path,
    title: str = "rtlab",
    skipped: Sequence[str] = (),
) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    text = render(store, cells, title, skipped)
    with atomic_path(p) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")
    return p


def text_report(
    store: Store, cells: dict[str, results.CellRuns], fmt: str, skipped: Sequence[str] = ()
) -> str:
    """The summary as Markdown (with rtbench tables), CSV or JSON; times in ns.
    `skipped` parts go into JSON (`skipped`) and Markdown (a list first); CSV has rows only."""
    rows = results.summary_rows(store, cells)
    gpio = gpio_study.study(store, cells) if fmt in ("json", "md") else None
    secs = sections.build(store, cells) if fmt in ("json", "md") else []
    found = _findings(secs, cells) if fmt in ("json", "md") else []
    rtoses = rtos_section.comparison(store, cells) if fmt in ("json", "md") else None
    uvk = uvk_section.study(store, cells) if fmt in ("json", "md") else None
    if fmt == "json":
        doc: dict[str, Any] = {
            "findings": found,
            "cells": rows,
            "rtlab_version": rtlab.__version__,
        }
        if skipped:
            doc["skipped"] = list(skipped)
        if gpio is not None:
            doc["gpio_study"] = gpio_study.to_dict(gpio)
        if rtoses is not None:
            doc["rtos_compare"] = rtos_compare_tables.to_dict(rtoses)
        if uvk is not None:
            doc["user_vs_kernel"] = user_vs_kernel.to_dict(uvk)
        repro = [sec for sec in secs if sec.id == "reproduction"]
        doc["reproduction"] = repro[0].data["studies"] if repro else []
        return json.dumps(doc, indent=1) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["cell", "series", "runs", *SUMMARY_COLS, "note"])
        for r in rows:
            runs = " ".join(f"{k}:{v}" for k, v in r["runs"].items())
            nums = (r.get(c) for c in SUMMARY_COLS)
            w.writerow([r["cell"], r["series"], runs, *nums, r.get("note", "")])
        return buf.getvalue()
    lines = [f"- **skipped:** {s}" for s in skipped] + ([""] if skipped else [])
    if found:
        lines += ["**Findings**", "", *(f"- {f}" for f in found), ""]
    repro = [sec.data["studies"] for sec in secs if sec.id == "reproduction"]
    if repro:
        lines += [repro_section.markdown(repro[0])]
    lines += [
        "| cell | series | runs | n | min µs | p50 µs | p99 µs | p99.9 µs | max µs |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        runs = " ".join(f"{k}:{v}" for k, v in r["runs"].items())
        nums = " | ".join(_us(r.get(k)) for k in ("min", "p50", "p99", "p999", "max"))
        cell = _html.escape(r["cell"]).replace("|", "\\|")
        if r["n"] is None:  # no timing series: why, instead of an n = 0 row
            nums = f"{r['note']} |" + " |" * 3  # the note, then 4 empty cells
        series = _html.escape(r["series"]).replace("|", "\\|")
        lines.append(
            f"| {cell} | {series} | {runs} | {'–' if r['n'] is None else r['n']} | {nums} |"
        )
    overruns = results.overrun_lines(rows)
    if overruns:  # periods the loop missed: the samples alone do not show them
        lines += ["", "Missed periods (docs/metrics.md):", "", *(f"- {o}" for o in overruns)]
    if rtoses is not None:
        lines += ["", "## RTOSes compared", "", rtos_compare_tables.markdown(rtoses).rstrip("\n")]
    for cr in cells.values():
        if cr.workload == "rtbench" and cr.ok_ids:
            lines += [
                "",
                f"## {cr.label}",
                "",
                rtbench.markdown(multirun.split(store, cr.ok_ids[-1])),
            ]
    multi = multicore_section.cell_figures(store, cells)
    if multi:
        lines += ["", "## Multi-core", ""]
        lines += [multicore.markdown(label, f).rstrip("\n") + "\n" for label, f in multi]
        both = multicore.side_by_side(multi)
        lines += [both.rstrip("\n") + "\n"] if both else []
    lines += [line.rstrip("\n") for line in _cross_checks(secs)]
    if gpio is not None:
        lines += ["", gpio_study.markdown(gpio).rstrip("\n")]
    if uvk is not None:
        lines += ["", user_vs_kernel.markdown(uvk).rstrip("\n")]
    return "\n".join(lines) + "\n"
