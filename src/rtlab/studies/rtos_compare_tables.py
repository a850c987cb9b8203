"""The RTOS comparison as tables (rtlab.studies.rtos_compare computes it): formatted
figures per table, Markdown, and the JSON form. Instructions (icount) and cycles (the
RP2040 cycle model) come with their µs at the model's or board's clock."""

from __future__ import annotations

from rtlab.catalog.rtoses import title
from rtlab.studies import rtbench
from rtlab.studies.rtos_compare import CORES, Comparison, figure_text


def counted_unit(cmp: Comparison) -> str:
    """ "instructions" or "cycles" when the figures are counts, else ""."""
    for word in ("instructions", "cycles"):
        if cmp.unit.startswith(word):
            return word
    return ""


def _cold_how(cmp: Comparison, icount: bool) -> str:
    """On silicon, what each column emptied before its cold sample (the same for all or not)."""
    if icount or cmp.cold_how <= {"first_call"}:
        return ""
    means = rtbench.COLD_MEANINGS
    how = sorted(means.get(h, h).removeprefix("the first call ") for h in cmp.cold_how)
    return f" ({'; '.join(how)})" if len(how) == 1 else f" (not alike: {'; '.join(how)})"


def formatted_tables(cmp: Comparison) -> list[tuple[str, str, dict[str, list[str]]]]:
    """(title, what a row is, {row label: one formatted figure per column}), non-empty."""
    counted = counted_unit(cmp)
    icount = counted == "instructions"

    def count(v: float | None) -> str:
        return "–" if v is None else f"{v:,.0f}"

    def pct(v: float | None) -> str:
        return "–" if v is None else f"{v:.0f} %"

    us = cmp.us_per_instruction
    clock = f"; µs on the model's clock, {1 / us:,.0f} {counted} per µs" if us else ""
    of = {"instructions": " of the icount model)", "cycles": " of the cycle model)"}
    tm_title = "Thread-Metric, one core (iterations per second" + of.get(counted, ")")
    tick = ""
    if cmp.ticks:
        each = sorted({f"{t:g}" for t in cmp.ticks.values()}, key=float)
        on = ", ".join(f"{t:g} on {m}" for m, t in cmp.ticks.items()) if len(each) > 1 else each[0]
        tick = f", ± one counter tick ({on} {counted})"
    tables = [
        (
            f"Primitives, warm: {cmp.unit}{clock}",
            "primitive",
            {
                k: [figure_text(v, bool(counted), us) for v in vs]
                for k, vs in cmp.primitives.items()
            },
        ),
        (
            f"Primitives, cold: the first call of each path, one sample{tick}"
            + (" (QEMU models no cache: cold − warm is first-call work only)" if icount else "")
            + _cold_how(cmp, icount),
            "primitive",
            {k: [figure_text(v, bool(counted), us) for v in vs] for k, vs in cmp.cold.items()},
        ),
        (tm_title, "test", {k: [count(v) for v in vs] for k, vs in cmp.threadmetric.items()}),
        (
            f"Thread-Metric relative to {title(cmp.reference)} on the same machine (%)",
            "test",
            {k: [pct(v) for v in vs] for k, vs in cmp.tm_relative.items()},
        ),
        (
            "Heap peak (bytes)",
            "where",
            {k: [count(v) for v in vs] for k, vs in cmp.heap.items()},
        ),
    ]
    return [t for t in tables if t[2]]


def markdown(cmp: Comparison) -> str:
    """The tables one machine at a time (its columns: RTOS × configuration), then the
    ports' notes, the configurations and the cells."""
    head = [c.label(cmp.with_config) for c in cmp.columns]
    lines: list[str] = []
    for machine in dict.fromkeys(c.machine for c in cmp.columns):
        idx = [i for i, c in enumerate(cmp.columns) if c.machine == machine]
        where = f"{machine} ({CORES.get(machine, machine)})"
        for heading, what, rows in formatted_tables(cmp):
            mine = {k: [vs[i] for i in idx] for k, vs in rows.items()}
            mine = {k: vs for k, vs in mine.items() if any(v != "–" for v in vs)}
            if not mine:
                continue
            cols = " | ".join(head[i] for i in idx)
            lines += [f"### {heading} — {where}", "", f"| {what} | {cols} |"]
            lines.append("| --- |" + " ---: |" * len(idx))
            lines += [f"| {k} | " + " | ".join(vs) + " |" for k, vs in mine.items()]
            lines.append("")
    notes = [(head[i], n) for i, c in enumerate(cmp.columns) for n in c.notes]
    if notes:
        lines += ["What a port says of its figures:", ""]
        lines += [f"- **{label}**: {n}" for label, n in notes]
        lines.append("")
    configured = [(head[i], c.settings) for i, c in enumerate(cmp.columns) if c.settings]
    if configured:
        lines += ["Configuration of each column (what its target recorded):", ""]
        lines += [f"- **{h}**: " + ", ".join(f"`{k}={v}`" for k, v in kv) for h, kv in configured]
        lines.append("")
    cells = ", ".join(f"{head[i]} = `{c.cell}`" for i, c in enumerate(cmp.columns))
    lines += [f"Columns: {cells}.", ""]
    return "\n".join(lines)


def to_dict(cmp: Comparison) -> dict[str, object]:
    head = [c.label(cmp.with_config) for c in cmp.columns]
    return {
        "unit": cmp.unit,
        "columns": [
            {
                "label": h,
                "cell": c.cell,
                "rtos": c.rtos,
                "rtos_version": c.version,
                "machine": c.machine,
                "rtos_config": c.config,
                "notes": list(c.notes),
            }
            for h, c in zip(head, cmp.columns, strict=True)
        ],
        "primitives": cmp.primitives,
        "primitives_cold": cmp.cold,
        "us_per_instruction": cmp.us_per_instruction,
        "threadmetric": cmp.threadmetric,
        "threadmetric_reference": cmp.reference,
        "threadmetric_relative_percent": cmp.tm_relative,
        "heap_peak": cmp.heap,
        "findings": cmp.findings,
    }
