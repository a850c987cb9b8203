"""What a GPIO study cell is, as its runs describe it: the implementation (language),
the scheduling policy, and where it ran (a board, an emulator, a virtual machine)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rtlab.catalog.gpio_kinds import GPIO_KINDS
from rtlab.results import Store
from rtlab.results import query as results

_LANGUAGES = {"c": "C", "rust": "Rust", "kotlin": "Kotlin/Native", "kotlin-native": "Kotlin/Native"}
_KIND_LANGUAGE = {
    "rtlab-toggle": "C",
    "rtlab-toggle-rs": "Rust",
    "rtlab-toggle-kt": "Kotlin/Native",
}


def _first_meta(cr: results.CellRuns, key: str) -> str | None:
    for r in cr.runs:
        v = (r.get("meta") or {}).get(key)
        if v:
            return str(v)
    return None


def implementation(cr: results.CellRuns) -> str:
    lang = _first_meta(cr, "language")
    if lang:
        return _LANGUAGES.get(lang.lower(), lang)
    if cr.workload in _KIND_LANGUAGE:
        return _KIND_LANGUAGE[cr.workload]
    params = (cr.runs[0].get("params") or {}) if cr.runs else {}
    return str(params.get("workload") or cr.workload)


def policy(cr: results.CellRuns) -> str:
    pol = _first_meta(cr, "policy")
    if pol:
        return pol
    params = ((cr.runs[0].get("params") or {}).get("params") or {}) if cr.runs else {}
    return str(params.get("policy", "other"))


def emulated_clock(runs: Sequence[dict[str, Any]]) -> str:
    """What timed emulated runs: "icount" (the guest's clock counts instructions), "host"
    (plain TCG: the host's clock, its scheduling and the emulator's stalls in every
    figure), or "" (not emulated, as far as the runs say)."""
    metas = [r.get("meta") or {} for r in runs]
    if not any(m.get("emulated") or m.get("qemu_machine") for m in metas):
        return ""
    icount = any(
        m.get("qemu_icount_shift") not in (None, "") or m.get("timebase") == "icount"
        for m in metas
    )
    return "icount" if icount else "host"


def environment(runs: Sequence[dict[str, Any]]) -> str:
    """How the runs' own records describe where they ran: emulated (a workload's
    `meta emulated=…`, QEMU's timebase labels, a qemu target), a virtual machine (the
    target's fingerprint), or "" when nothing says it was not real hardware."""
    for r in runs:
        meta = r.get("meta") or {}
        if meta.get("emulated"):
            shift = meta.get("qemu_icount_shift")
            icount = f", icount shift {shift}" if shift not in (None, "") else ""
            return f"emulated ({meta['emulated']}{icount})"
        if meta.get("qemu_machine") or meta.get("timebase") == "icount":
            return f"emulated (QEMU {meta.get('qemu_machine', '')}".rstrip() + ")"
        if (r.get("target") or {}).get("kind") == "qemu":
            return "emulated (QEMU)"
    for r in runs:
        virt = (r.get("fingerprint") or {}).get("virtualization") or {}
        if virt.get("virtual"):
            what = virt.get("vm") if virt.get("vm") not in (None, "none") else None
            return f"virtual machine ({what or virt.get('hypervisor_type') or 'hypervisor'})"
    return ""


def is_gpio_cell(store: Store, cr: results.CellRuns) -> bool:
    ticks = results.series_ticks(store, cr.ok_ids, "instrument.period")
    return cr.workload in GPIO_KINDS or any(t is not None for t in ticks.values())
