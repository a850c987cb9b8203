"""The instrument in the loop (rtlab.studies.instrument_check): per cell whose runs had
an instrument on rtbench's marker pins, each marked path from both clocks side by side —
the board's counter and the instrument's timestamps — their difference and whether it
lies within one instrument tick plus the pin's measured cost; a finding per
disagreement."""

from __future__ import annotations

from typing import Any

from rtlab.report.sections import Section, SectionKind
from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import instrument_check


def _block(store: Store, cr: results.CellRuns) -> dict[str, Any] | None:
    run_id = cr.ok_ids[-1] if cr.ok_ids else None
    if run_id is None:
        return None
    got = instrument_check.stored(store, run_id)
    if got is None:
        return None
    runs, cap = got
    rows = instrument_check.compare(runs, cap)
    if not rows:
        return None
    meta = store.run_info(run_id).get("meta") or {}
    return {
        "title": cr.label,
        "run_id": run_id,
        "tick_ns": float(cap.tick_s * 10**9),
        "instrument": meta.get("instrument.kind", "instrument"),
        "timing": next((str(v) for k, v in meta.items() if k.endswith("timing")), ""),
        "rows": rows,
        "findings": instrument_check.findings(rows),
    }


def build(store: Store, cells: dict[str, results.CellRuns]) -> Section | None:
    blocks = [b for cr in cells.values() if (b := _block(store, cr)) is not None]
    if not blocks:
        return None
    found = [f"{b['title']}: {f}" for b in blocks for f in b["findings"]]
    return Section(
        "instrument",
        "Instrument vs cycle counter",
        "sections/instrument.html.j2",
        {"blocks": blocks},
        found,
    )


SECTION = SectionKind("instrument", build, md_rank=3)
