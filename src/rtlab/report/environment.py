"""The report's environment: the fingerprint, and one pitfall row per code with the
runs it affects (a code of the environment, `vm`, is also stored with every run; a
per-run figure, `busy_host`'s load average, becomes the range over those runs)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rtlab.results import Store
from rtlab.results import query as results
from rtlab.words import plural

_NUM = re.compile(r"\d+(?:\.\d+)?")


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


def merge_messages(msgs: list[str]) -> str:
    """One message for many: the same text with each differing number as its range
    ("load average 2.67–3.03 before the run"); the first when the texts differ otherwise."""
    uniq = list(dict.fromkeys(msgs))
    if len(uniq) == 1:
        return uniq[0]
    skel = {_NUM.sub("#", m) for m in uniq}
    if len(skel) != 1:
        return f"{uniq[0]} (and {plural(len(uniq) - 1, 'other message')})"
    nums = [[float(x) for x in _NUM.findall(m)] for m in uniq]
    parts = _NUM.split(uniq[0])
    out = parts[0]
    for i, rest in enumerate(parts[1:]):
        col = [n[i] for n in nums]
        lo, hi = min(col), max(col)
        out += (f"{lo:g}" if lo == hi else f"{lo:g}–{hi:g}") + rest
    return out


def environment(store: Store, cells: dict[str, results.CellRuns]) -> dict[str, Any]:
    """Fingerprint of the first run, the set of hosts, and the pitfall rows."""
    runs = [r for cr in cells.values() for r in cr.runs]
    fps = [r["fingerprint"] for r in runs if r.get("fingerprint")]
    fp = fps[0] if fps else {}
    return {
        "rows": [(k, v) for k, v in _flatten(fp) if k != "warnings"],
        "hosts": sorted({str(f.get("hostname")) for f in fps}),
        "pitfalls": pitfalls(store, [r["run_id"] for r in runs], fp.get("warnings", [])),
        "n_runs": len(runs),
    }


def pitfalls(
    store: Store, run_ids: list[str], env_warnings: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """One row per code: `runs` = how many of the selected runs it affects (None: the
    environment's, stored with no run)."""
    by_code: dict[str, tuple[list[str], set[str]]] = {}
    if run_ids:
        rows = store.sql(
            "SELECT code, msg, run_id FROM warnings WHERE run_id IN "
            f"({', '.join('?' * len(run_ids))}) ORDER BY code, msg",
            run_ids,
        )
        for code, msg, rid in rows:
            msgs, ids = by_code.setdefault(code, ([], set()))
            msgs.append(msg)
            ids.add(rid)
    out = [
        {"code": c, "msg": merge_messages(m), "runs": len(ids)} for c, (m, ids) in by_code.items()
    ]
    out += [
        {"code": w["code"], "msg": w["msg"], "runs": None}
        for w in env_warnings
        if w["code"] not in by_code
    ]
    return out
