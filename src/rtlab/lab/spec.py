"""Experiment specs (TOML) and their matrix of cells.

    spec = load_spec("examples/host.toml")
    for cell in spec.cells(): ...     # workload x parameter values x condition

A cell's `key` is stable: the readable label plus a hash of everything that defines it
(workload kind and every parameter, the condition, the target, the instrument if any,
and what the target's build depends on: an RTOS checkout, rtbench's sources, the compiler),
so re-running a spec finds the cells the store already holds, and editing a parameter
makes new cells instead of mixing old and new results. The format is described in docs/runner.md.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlab.errors import ConfigError
from rtlab.instruments.kinds import INSTRUMENTS, InstrumentSpec, instrument_from_table
from rtlab.lab.conditions import CONDITIONS, Condition, condition_from_table
from rtlab.lab.specfile import KeyLines, SpecError, dotted
from rtlab.lab.targets.base import check_target, target_identity, target_kind, target_variants
from rtlab.lab.workloads.base import KINDS

TOP_KEYS = (
    "name",
    "description",
    "repetitions",
    "store",
    "target",
    "workload",
    "conditions",
    "condition",
    "instrument",
)
WORKLOAD_KEYS = ("kind", "name", "timeout_s")


@dataclass(frozen=True)
class Cell:
    key: str  # label#hash: what the store's cell_key holds
    label: str  # workload[varying params]@condition
    workload: str  # the workload's name in the spec
    kind: str
    params: dict[str, Any]
    varying: dict[str, Any]
    condition: Condition
    timeout_s: float | None = None
    target: dict[str, Any] | None = None  # its own target table (a target axis), else the spec's


@dataclass
class Spec:
    name: str
    path: Path
    text: str
    data: dict[str, Any]
    target: dict[str, Any]
    workloads: list[dict[str, Any]]
    conditions: list[Condition]
    repetitions: int = 1
    store: str | None = None
    description: str = ""
    instrument: InstrumentSpec | None = None  # [instrument]: times the pin of every run
    _cells: list[Cell] = field(default_factory=list)

    def cells(self) -> list[Cell]:
        return list(self._cells)


def _hash(obj: Any) -> str:
    return hashlib.sha1(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:8]


def _fmt(v: Any) -> str:
    return ",".join(map(str, v)) if isinstance(v, list) else str(v)


# What `rtlab study rtos` (rtlab.lab.rtos_matrix) replaces in a study spec's text.
STUDY_PLACEHOLDERS = ("{rtos}", "{core}", "{config}")


class _Loader:
    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text
        self._lines: KeyLines | None = None

    def err(self, key: tuple[str | int, ...], msg: str) -> SpecError:
        if self._lines is None:
            self._lines = KeyLines(self.text)
        line = self._lines.line(key)
        return SpecError(self.path, f"{dotted(key)}: {msg}" if key else msg, line=line)

    def load(self) -> Spec:
        try:
            data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as e:
            # Python 3.11 has no e.lineno: the message ends "(at line L, column C)"
            m = re.search(r"\(at line (\d+), column \d+\)$", str(e))
            msg = re.sub(r" \(at line \d+, column \d+\)$", "", str(e))
            line = int(m.group(1)) if m else None
            raise SpecError(self.path, f"TOML syntax: {msg}", line=line) from None
        for key in data:
            if key not in TOP_KEYS:
                raise self.err((key,), f"unknown key; known: {', '.join(TOP_KEYS)}")
        self._no_placeholders(data, ())
        name = data.get("name")
        if not isinstance(name, str) or not name.strip() or "/" in name:
            raise self.err(("name",), "the spec needs name = \"...\" (no '/'): it names its runs")
        reps = data.get("repetitions", 1)
        if isinstance(reps, bool) or not isinstance(reps, int) or not 1 <= reps <= 10_000:
            raise self.err(("repetitions",), f"expected an integer 1..10000, got {reps!r}")
        store = data.get("store")
        if store is not None and not isinstance(store, str):
            raise self.err(("store",), "expected a path string")
        target = data.get("target", {"kind": "local"})
        if not isinstance(target, dict):
            raise self.err(("target",), 'expected a table: [target] kind = "local"')
        try:
            variants = target_variants(target)
            for variant, _ in variants:
                check_target(variant)
        except ConfigError as e:
            raise self.err(("target", e.key), str(e)) from None
        conditions = self._conditions(data)
        for variant, _ in variants:
            self._check_conditions_on_target(data, variant, conditions)
        instrument = self._instrument(data)
        if instrument is not None:
            for variant, _ in variants:
                self._check_instrument_on_target(instrument, variant)
        workloads = data.get("workload")
        if not isinstance(workloads, list) or not workloads:
            raise self.err(("workload",), "at least one [[workload]] table is needed")
        spec = Spec(
            name=name,
            path=self.path,
            text=self.text,
            data=data,
            target=target,
            workloads=workloads,
            conditions=conditions,
            repetitions=reps,
            store=store,
            description=str(data.get("description", "")),
            instrument=instrument,
        )
        seen: set[str] = set()
        for variant, axis in variants:
            identity = target_identity(variant)  # once: it may walk a kernel checkout
            for i, w in enumerate(workloads):
                for cell in self._expand(i, w, conditions, variant, instrument, identity, axis):
                    if cell.key in seen:
                        raise self.err(("workload", i), f"cell {cell.label} appears twice")
                    seen.add(cell.key)
                    spec._cells.append(cell)
        return spec

    def _no_placeholders(self, value: Any, key: tuple[str | int, ...]) -> None:
        """A study spec ({rtos}, {core}, {config} in it: rtlab.lab.rtos_matrix fills them
        per column) is no spec to run as it is: it ran one cell literally named
        `{rtos}-{core}-{config}`. Refused at the first, with the command that runs it."""
        if isinstance(value, str):
            found = [p for p in STUDY_PLACEHOLDERS if p in value]
            if found:
                raise self.err(
                    key,
                    f"{value!r} holds {', '.join(found)}: this is a study spec, whose "
                    f"{', '.join(STUDY_PLACEHOLDERS)} the RTOS study fills per column; run it "
                    f"with `rtlab study rtos {self.path}`",
                )
        elif isinstance(value, dict):
            for k, v in value.items():
                self._no_placeholders(v, (*key, k))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                self._no_placeholders(v, (*key, i))

    def _conditions(self, data: Mapping[str, Any]) -> list[Condition]:
        tables = data.get("condition", {})
        if not isinstance(tables, dict):
            raise self.err(("condition",), "expected tables [condition.NAME]")
        defined: dict[str, Condition] = dict(CONDITIONS.items())
        for cname, table in tables.items():
            if not isinstance(table, dict):
                raise self.err(("condition", cname), "expected a table")
            try:
                defined[cname] = condition_from_table(cname, table)
            except ConfigError as e:
                raise self.err(("condition", cname, e.key), str(e)) from None
        names = data.get("conditions", ["idle"])
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, list) or not names:
            raise self.err(("conditions",), "expected a list of condition names")
        out = []
        for n in names:
            if n not in defined:
                raise self.err(
                    ("conditions",),
                    f"unknown condition {n!r}; defined: {', '.join(sorted(defined))}",
                )
            out.append(defined[n])
        if len({c.name for c in out}) != len(out):
            raise self.err(("conditions",), "a condition is listed twice")
        return out

    def _check_instrument_on_target(
        self, instrument: InstrumentSpec, target: Mapping[str, Any]
    ) -> None:
        check = INSTRUMENTS.get(instrument.kind).check_target
        if check is None:
            return
        try:
            check(target)
        except ConfigError as e:
            raise self.err(("instrument", e.key), str(e)) from None

    def _check_conditions_on_target(
        self, data: Mapping[str, Any], target: Mapping[str, Any], conditions: list[Condition]
    ) -> None:
        check = target_kind(str(target.get("kind", "local"))).check_condition
        if check is None:
            return
        for cond in conditions:
            try:
                check(cond.definition())
            except ConfigError as e:
                # a [condition.NAME] table has the line; a built-in one only its name
                where = (
                    ("condition", cond.name, e.key)
                    if cond.name in data.get("condition", {})
                    else ("conditions",)
                )
                raise self.err(where, f"condition {cond.name!r}: {e}") from None

    def _instrument(self, data: Mapping[str, Any]) -> InstrumentSpec | None:
        table = data.get("instrument")
        if table is None:
            return None
        if not isinstance(table, dict):
            raise self.err(("instrument",), 'expected a table: [instrument] kind = "sigrok"')
        try:
            return instrument_from_table(table)
        except ConfigError as e:
            raise self.err(("instrument", e.key), str(e)) from None

    def _expand(
        self,
        i: int,
        w: Any,
        conditions: list[Condition],
        target: Mapping[str, Any],
        instrument: InstrumentSpec | None = None,
        identity: Mapping[str, str] | None = None,
        axis: Mapping[str, Any] | None = None,
    ) -> list[Cell]:
        where: tuple[str | int, ...] = ("workload", i)
        if not isinstance(w, dict):
            raise self.err(where, "expected a table")
        kind_name = w.get("kind")
        try:
            kind = KINDS.get(kind_name)
        except ConfigError as e:
            raise self.err((*where, e.key), str(e)) from None
        wname = w.get("name", kind_name)
        if not isinstance(wname, str) or not wname or any(c in wname for c in "[]@#/"):
            raise self.err((*where, "name"), "expected a name without [ ] @ # /")
        timeout = w.get("timeout_s")
        if timeout is not None and (not isinstance(timeout, int | float) or timeout <= 0):
            raise self.err((*where, "timeout_s"), "expected a positive number of seconds")
        raw = {k: v for k, v in w.items() if k not in WORKLOAD_KEYS}
        axes: dict[str, list[Any]] = {}
        for k, v in raw.items():
            many = isinstance(v, list) and (
                k not in kind.list_params or (bool(v) and isinstance(v[0], list))
            )
            if many and not v:
                raise self.err((*where, k), "an empty list expands to no cell")
            axes[k] = v if many else [v]
        cells = []
        keys = list(axes)
        for combo in itertools.product(*(axes[k] for k in keys)):
            params = dict(zip(keys, combo, strict=True))
            try:
                kind.check(params)
            except ConfigError as e:
                raise self.err((*where, e.key), str(e)) from None
            # the target's axis values first: `fifo[kernel=rt,interval_us=100]@idle`
            varying = {**(axis or {}), **{k: params[k] for k in keys if len(axes[k]) > 1}}
            inner = ",".join(f"{k}={_fmt(v)}" for k, v in varying.items())
            for cond in conditions:
                label = f"{wname}[{inner}]@{cond.name}" if inner else f"{wname}@{cond.name}"
                defined = {
                    "kind": kind_name,
                    "params": params,
                    "cond": cond.definition(),
                    "target": dict(target),
                }
                if instrument is not None:  # absent: the keys of specs without one stay
                    defined["instrument"] = instrument.definition()
                if identity:  # the same: only targets that build from user sources have one
                    defined["identity"] = dict(identity)
                digest = _hash(defined)
                cells.append(
                    Cell(
                        f"{label}#{digest}",
                        label,
                        wname,
                        str(kind_name),  # a known kind: KINDS.get refused any other
                        params,
                        varying,
                        cond,
                        float(timeout) if timeout else None,
                        dict(target) if axis else None,
                    )
                )
        return cells


def load_spec(path: str | Path) -> Spec:
    """Read and check a spec; every mistake is a SpecError naming file, line and key."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise SpecError(p, f"cannot read the spec ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise SpecError(p, "not UTF-8 text", offset=e.start) from None
    return _Loader(p, text).load()


def parse_spec(text: str, path: str | Path = "<spec>") -> Spec:
    return _Loader(Path(path), text).load()
