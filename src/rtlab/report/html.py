"""The lab report: ONE self-contained HTML file (figures inlined as SVG data URIs, no
script, no external asset), plus the same summary as Markdown, CSV or JSON.

    write_report(store, results.select_many(store, [], "host"), "out/report.html")

Sections: environment (fingerprint and pitfall warnings), summary per matrix cell,
runs that did not finish cleanly, condition comparisons (idle vs load of the same
cell), histograms (log-y, OSADL style) and tail CDFs per cell, and for rtbench runs the
studies' tables and charts (rtbench_figures), and for GPIO toggle runs the GPIO study's
tables and density plot (gpio_study, gpio_fig2).
"""

from __future__ import annotations

import base64
import csv
import html as _html
import io
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

import rtlab
from rtlab.fsutil import atomic_path
from rtlab.report import plots
from rtlab.results import Store, multirun
from rtlab.results import query as results
from rtlab.studies import gpio as gpio_study
from rtlab.studies import gpio_fig2, rtbench

SUMMARY_COLS = ("n", "min", "mean", "rms", "p50", "p90", "p99", "p999", "max")


def svg_uri(fig: Figure) -> str:
    """The figure as an SVG data URI (text kept as text: small and searchable)."""
    buf = io.BytesIO()
    # Fixed margins: constrained layout costs about half of the rendering time, and
    # a report holds dozens of figures.
    fig.set_layout_engine("none")
    if len(fig.axes) == 1:
        fig.axes[0].set_position((0.11, 0.2, 0.86, 0.7))
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "rtlab"}):
        fig.savefig(buf, format="svg")
    plt.close(fig)
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode()


def _us(x: Any) -> str:
    return "–" if x is None else f"{x / 1000:,.2f}"


def _flatten(d: Mapping[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out += _flatten(v, key + ".")
        elif isinstance(v, list) and v and isinstance(v[0], Mapping):
            out.append((key, "; ".join(", ".join(f"{a}={b}" for a, b in x.items()) for x in v)))
        else:
            out.append((key, "" if v is None else str(v)))
    return out


def environment(cells: dict[str, results.CellRuns]) -> dict[str, Any]:
    """Fingerprint of the first run, the set of hosts, and every warning with its count."""
    runs = [r for cr in cells.values() for r in cr.runs]
    fps = [r["fingerprint"] for r in runs if r.get("fingerprint")]
    fp = fps[0] if fps else {}
    warns: dict[tuple[str, str], int] = {}
    for f in fps[:1]:
        for w in f.get("warnings", []):
            warns[(w["code"], w["msg"])] = 0
    return {
        "rows": [(k, v) for k, v in _flatten(fp) if k != "warnings"],
        "hosts": sorted({str(f.get("hostname")) for f in fps}),
        "env_warnings": [{"code": c, "msg": m} for c, m in warns],
    }


def run_warnings(store: Store, cells: dict[str, results.CellRuns]) -> list[dict[str, Any]]:
    ids = [r["run_id"] for cr in cells.values() for r in cr.runs]
    if not ids:
        return []
    rows = store.sql(
        "SELECT code, msg, count(*) FROM warnings WHERE run_id IN "
        f"({', '.join('?' * len(ids))}) GROUP BY code, msg ORDER BY code",
        ids,
    )
    return [{"code": c, "msg": m, "runs": n} for c, m, n in rows]


def _cell_figures(store: Store, cr: results.CellRuns) -> list[dict[str, str]]:
    figs = []
    for name, _unit, tick in results.main_series(store, cr.ok_ids):
        s = results.pooled(store, cr.ok_ids, name, tick)
        if not len(s):
            continue
        figs.append(
            {
                "title": f"{cr.label}: {name}",
                "hist": svg_uri(plots.histogram([(name, s)], f"{name} histogram", log_y=True)),
                # one tail CDF per cell alone adds little: comparisons overlay them
            }
        )
    return figs


def condition_comparisons(store: Store, cells: dict[str, results.CellRuns]) -> list[dict[str, Any]]:
    """Cells that differ only by condition: p50/p99/max side by side and one tail plot."""
    groups: dict[str, list[results.CellRuns]] = {}
    for cr in cells.values():
        groups.setdefault(results.sans_condition(cr), []).append(cr)
    out = []
    for crs in groups.values():
        base = crs[0].stored_label.rsplit("@", 1)[0]
        base += f" ({crs[0].differs})" if crs[0].differs else ""
        if len(crs) < 2:
            continue
        for name, _unit, tick in results.main_series(store, crs[0].ok_ids):
            series, rows = [], []
            for cr in crs:
                s = results.pooled(store, cr.ok_ids, name, tick)
                if not len(s):
                    continue
                series.append((cr.condition or cr.label, s))
                st = results.summarize(s.values, tick)
                rows.append({"condition": cr.condition or cr.label, **st})
            if len(series) < 2:
                continue
            ref = rows[0]
            for r in rows:
                for k in ("p50", "p99", "max"):
                    r[f"{k}_pct"] = (
                        (r[k] / ref[k] - 1) * 100 if ref.get(k) and r.get(k) is not None else None
                    )
            out.append(
                {
                    "title": f"{base}: {name}",
                    "cells": [cr.label for cr in crs],
                    "rows": rows,
                    "cdf": svg_uri(plots.cdf(series, f"{base}: {name}, 1 − CDF", tail=True)),
                    "hist": svg_uri(plots.histogram(series, f"{base}: {name}", log_y=True)),
                }
            )
    return out


# ------------------------------------------------------------------ rtbench


def _bar(
    labels: list[str],
    groups: dict[str, list[float]],
    title: str,
    ylabel: str,
    log: bool = False,
    ref: float | None = None,
) -> str:
    fig, ax = plt.subplots(figsize=(8, 3.8), layout="constrained")
    width = 0.8 / max(1, len(groups))
    for i, (name, vals) in enumerate(groups.items()):
        xs = [j + i * width - 0.4 + width / 2 for j in range(len(labels))]
        ax.bar(xs, vals, width, label=name)
    ax.set_xticks(range(len(labels)), labels, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if log:
        ax.set_yscale("log")
    if ref is not None:
        ax.axhline(ref, color="grey", lw=0.8, ls="--")
    ax.grid(True, axis="y", alpha=0.3)
    if len(groups) > 1:
        ax.legend(fontsize=8)
    return svg_uri(fig)


def rtbench_figures(runs: list[rtbench.Run]) -> dict[str, Any]:
    """Tables and charts of one rtbench invocation, as the studies presented them."""
    out: dict[str, Any] = {"tables": [], "charts": []}
    for scen in ("primitives", "irq"):
        found = rtbench.scenario_runs(runs, scen)
        if found:
            rows = rtbench.primitive_table(found[-1])
            hz = found[-1].meta.get("cpu_hz")
            note = rtbench.timebase_note(found[-1])
            title = f"{scen}: {note}" if note else scen
            out["tables"].append({"title": title, "cpu_hz": hz, "rows": rows})
            out["charts"].append(
                _bar(
                    [r.label for r in rows],
                    {"median": [r.median_us for r in rows]},
                    f"{scen}: median cost",
                    "µs-equivalent (icount model)" if note else "µs",
                    log=True,
                )
            )
    if rtbench.scenario_runs(runs, "threadmetric"):
        tm = rtbench.threadmetric_counts(runs)
        tests = [t for t in rtbench.TM_TESTS if any(t in v for v in tm.values())]
        groups = {
            f"{c} core(s)": [tm[c][t].per_second if t in tm[c] else 0 for t in tests]
            for c in sorted(tm)
        }
        out["charts"].append(
            _bar(
                [rtbench.TM_LABELS[t] for t in tests],
                groups,
                "Thread-Metric throughput",
                "iterations / s (log)",
                log=True,
            )
        )
    if rtbench.scenario_runs(runs, "scalability"):
        sc = rtbench.scalability(runs)
        cores = sorted({c for v in sc.values() for c in v})
        groups = {f"{c} core(s)": [sc[p].get(c, 0) for p in sc] for c in cores}
        out["charts"].append(
            _bar(
                [rtbench.PATTERNS[p] for p in sc],
                groups,
                "Scalability per core (single core = 100 %)",
                "%",
                ref=100,
            )
        )
    found = rtbench.scenario_runs(runs, "contention")
    if found:
        ct = rtbench.contention(found[-1])
        fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
        ax.plot(list(ct), list(ct.values()), "o-")
        ax.axhline(100, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("stress task touches the semaphore [%]")
        ax.set_ylabel("target throughput [% of 0 %]")
        ax.set_title("Contention")
        ax.grid(True, alpha=0.3)
        out["charts"].append(svg_uri(fig))
    peaks = rtbench.heap_peaks(runs)
    if peaks:
        out["charts"].append(
            _bar(list(peaks), {"peak": [float(v) for v in peaks.values()]}, "Heap peak", "bytes")
        )
    return out


def _rtbench_sections(store: Store, cells: dict[str, results.CellRuns]) -> list[dict[str, Any]]:
    out = []
    for cr in cells.values():
        if cr.workload != "rtbench" or not cr.ok_ids:
            continue
        runs = multirun.split(store, cr.ok_ids[-1])
        out.append({"title": cr.label, "run_id": cr.ok_ids[-1], **rtbench_figures(runs)})
    return out


# ------------------------------------------------------------------ GPIO study


def _gpio_section(store: Store, cells: dict[str, results.CellRuns]) -> dict[str, Any] | None:
    st = gpio_study.study(store, cells)
    if st is None:
        return None
    return {
        **gpio_study.to_dict(st),
        "figures": [
            {"title": f"Fig. 2 ({f.source})", "uri": svg_uri(gpio_fig2.density(f))}
            for f in st.figures
        ],
    }


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


def render(
    store: Store,
    cells: dict[str, results.CellRuns],
    title: str = "rtlab",
    skipped: Sequence[str] = (),
) -> str:
    """The HTML report; `skipped` names parts the caller could not run ("part: reason —
    how to fix"), shown first so a reader does not take their absence for a result."""
    runs = [r for cr in cells.values() for r in cr.runs]
    bad = [r for r in runs if r["status"] != "ok"]
    comparisons = condition_comparisons(store, cells)
    compared = {label for c in comparisons for label in c["cells"]}  # histograms shown there
    labels = {r["run_id"]: cr.label for cr in cells.values() for r in cr.runs}
    return _template().render(
        title=title,
        skipped=list(skipped),
        generated=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        version=rtlab.__version__,
        store=str(store.path),
        n_runs=len(runs),
        n_cells=len(cells),
        env=environment(cells),
        warnings=run_warnings(store, cells),
        summary=results.summary_rows(store, cells),
        cols=SUMMARY_COLS,
        bad=[{**r, "label": labels[r["run_id"]]} for r in bad],
        comparisons=comparisons,
        cells=[
            {"label": cr.label, "figures": _cell_figures(store, cr)}
            for cr in cells.values()
            if cr.workload != "rtbench" and cr.label not in compared
        ],
        rtbench=_rtbench_sections(store, cells),
        gpio=_gpio_section(store, cells),
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
        Path(tmp).chmod(0o644)  # a report is for sharing (mkstemp makes it 0600)
    return p


def text_report(
    store: Store, cells: dict[str, results.CellRuns], fmt: str, skipped: Sequence[str] = ()
) -> str:
    """The summary as Markdown (with rtbench tables), CSV or JSON; times in ns.
    `skipped` parts go into JSON (`skipped`) and Markdown (a list first); CSV has rows only."""
    rows = results.summary_rows(store, cells)
    gpio = gpio_study.study(store, cells) if fmt in ("json", "md") else None
    if fmt == "json":
        doc: dict[str, Any] = {"cells": rows, "rtlab_version": rtlab.__version__}
        if skipped:
            doc["skipped"] = list(skipped)
        if gpio is not None:
            doc["gpio_study"] = gpio_study.to_dict(gpio)
        return json.dumps(doc, indent=1) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["cell", "series", "runs", *SUMMARY_COLS])
        for r in rows:
            runs = " ".join(f"{k}:{v}" for k, v in r["runs"].items())
            w.writerow([r["cell"], r["series"], runs, *(r.get(c) for c in SUMMARY_COLS)])
        return buf.getvalue()
    lines = [f"- **skipped:** {s}" for s in skipped] + ([""] if skipped else [])
    lines += [
        "| cell | series | runs | n | min µs | p50 µs | p99 µs | p99.9 µs | max µs |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        runs = " ".join(f"{k}:{v}" for k, v in r["runs"].items())
        nums = " | ".join(_us(r.get(k)) for k in ("min", "p50", "p99", "p999", "max"))
        cell = _html.escape(r["cell"]).replace("|", "\\|")
        lines.append(f"| {cell} | {r['series']} | {runs} | {r['n']} | {nums} |")
    overruns = results.overrun_lines(rows)
    if overruns:  # periods the loop missed: the samples alone do not show them
        lines += ["", "Missed periods (docs/metrics.md):", "", *(f"- {o}" for o in overruns)]
    for cr in cells.values():
        if cr.workload == "rtbench" and cr.ok_ids:
            lines += [
                "",
                f"## {cr.label}",
                "",
                rtbench.markdown(multirun.split(store, cr.ok_ids[-1])),
            ]
    if gpio is not None:
        lines += ["", gpio_study.markdown(gpio).rstrip("\n")]
    return "\n".join(lines) + "\n"
