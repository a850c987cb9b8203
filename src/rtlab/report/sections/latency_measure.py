"""The Zephyr cross-check (rtlab.studies.latency_measure): each latency_measure cell set
beside the rtbench cell run on the same RTOS, version, configuration, machine and time
base, one row per pair with the definition difference, and a finding per check."""

from __future__ import annotations

from typing import Any

from rtlab.protocol import Run
from rtlab.report.sections import Section, SectionKind
from rtlab.results import Store, multirun
from rtlab.results import query as results
from rtlab.studies import latency_measure as study


def _target(cr: results.CellRuns, run_id: str) -> dict[str, Any]:
    return next((r.get("target") or {} for r in cr.runs if r["run_id"] == run_id), {})


def _lm_run(store: Store, run_id: str) -> Run:
    run = Run(workload="latency_measure", version="1", status="ok", complete=True)
    for name, value, unit in store.sql(
        "SELECT name, value, unit FROM counters WHERE run_id=?", [run_id]
    ):
        run.counters[name] = (int(value), unit)
    return run


def _finding(title: str, rows: list[study.CrossRow]) -> str | None:
    both = [r for r in rows if r.ratio is not None]
    if not both:
        return None
    parts = [f"{r.label} {r.rtbench_mean_ns:,.0f} vs {r.lm_ns:,} ns" for r in both]
    return f"Cross-check {title}: rtbench mean vs latency_measure — " + "; ".join(parts) + "."


def build(store: Store, cells: dict[str, results.CellRuns]) -> Section | None:
    checks, found = [], []
    for cr in cells.values():
        if cr.workload != "latency_measure" or not cr.ok_ids:
            continue
        run_id = cr.ok_ids[-1]
        target = _target(cr, run_id)
        partner = next(
            (
                c
                for c in cells.values()
                if c.workload == "rtbench"
                and c.ok_ids
                and study.same_setup(_target(c, c.ok_ids[-1]), target)
            ),
            None,
        )
        rtb = multirun.split(store, partner.ok_ids[-1]) if partner else []
        kconfig = target.get("kconfig") or {}
        kconfig_lm = target.get("kconfig_latency_measure") or {}
        rows = study.cross_check(_lm_run(store, run_id), rtb, study.PAIRS, kconfig, kconfig_lm)
        title = (
            f"{target.get('rtos', '?')} {target.get('rtos_version', '')} "
            f"({target.get('rtos_config', '?')}) on {target.get('machine', '?')}"
        )
        checks.append(
            {
                "title": title,
                "lm_run": run_id,
                "rtbench_run": partner.ok_ids[-1] if partner else None,
                "rtbench_cell": partner.label if partner else None,
                "kconfig": kconfig,
                "kconfig_lm": kconfig_lm,
                "rows": rows,
            }
        )
        if f := _finding(title, rows):
            found.append(f)
    if not checks:
        return None
    return Section(
        "latency-measure",
        "Cross-check: Zephyr's latency_measure",
        "sections/latency_measure.html.j2",
        {"checks": checks},
        found,
        markdown(checks),
    )


def markdown(checks: list[dict[str, Any]]) -> list[str]:
    """Each cross-check as a Markdown table and the configurations it ran in."""
    out = []
    for c in checks:
        out += ["", study.markdown(c["rows"], f"Cross-check: {c['title']}").rstrip("\n")]
        for what, kv in (("rtbench", c["kconfig"]), ("latency_measure", c["kconfig_lm"])):
            if kv:
                pairs = ", ".join(f"`{k}={v}`" for k, v in sorted(kv.items()))
                out.append(f"Configuration ({what}): {pairs}")
    return out


SECTION = SectionKind("latency_measure", build, md_rank=4)
