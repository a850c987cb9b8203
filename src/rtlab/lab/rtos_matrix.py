"""The RTOS comparison as one matrix: a study spec expanded to one spec per RTOS the user
has brought × QEMU machine it builds for × documented configuration (`rtlab study rtos`).

    specs, skipped = expand(Path("examples/rtos-compare.toml"))
    # specs: one Spec per column, all named like the study spec (one `--spec` selects all)
    # skipped: "µC/OS-III: set UCOS3_PATH to …" for every RTOS or column not run

The study spec is an ordinary spec whose `[target]` table the expansion replaces with
`kind = "qemu"`, the column's `rtos`, `machine` and `rtos_config` (its other keys, such
as `icount_shift`, are kept). Its `machines = [...]` names the machines the study runs
(`--machine` still chooses among every machine); without it, every one-core machine but
those whose file says `by_name = 1`. A machine model is a machine file too (the RP2040
cycle model: the Pico's one-core images through the serial target's `rp2040_model`
flasher, rtlab.catalog.machines.models); a study spec whose [target] names a model's
flasher runs on that model by default. `{rtos}`, `{core}`
and `{config}` in the text (workload names) become the column's, so every column's
cells carry their own label. Each column's spec text is stored with its runs exactly as
it was run.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtlab.catalog.machines import MACHINES, Machine, models, qemu_machines
from rtlab.errors import ConfigError
from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import RtosPort, configs_on, merged_paths, one_core_configs, runs_on
from rtlab.lab.spec import Spec, parse_spec
from rtlab.lab.specfile import SpecError

# The comparison is of one core's costs: the one-core `qemu` machines with a core name;
# multi-core machines (mps2-an521) join it only when asked for by name (their scenarios
# are the multi-core study's, docs/multicore.md), and so do the machines whose file says
# `by_name = 1` (mps2-an505, the cycles study's M33 stand-in: `machines` in its spec).
_SINGLE_CORE = frozenset(
    n for n, m in qemu_machines().items() if m.cores == 1 and m.core and not m.by_name
)
_TARGET_TABLE = re.compile(r"^\[target\][ \t]*(#.*)?\n(?:(?!\[).*\n?)*", re.M)
# rtbench's GPIO edge pass (`irq_ext = true`) runs where the machine has the edge: the
# model (the Pico's wired pins) and the QEMU machines whose file says `ext_wire = 1`;
# elsewhere the column turns it off (the pass could only lose every interrupt).
_IRQ_EXT = re.compile(r"^([ \t]*irq_ext[ \t]*=[ \t]*)true\b", re.M)


@dataclass(frozen=True)
class Column:
    rtos: str
    machine: str
    config: str

    @property
    def core(self) -> str:
        """The short core name in cell labels: its machine file's `core`, else its name."""
        m = MACHINES.get(self.machine) if self.machine in MACHINES else None
        return m.core if m and m.core else self.machine


def columns(
    rtoses: Sequence[str] = (),
    machines: Sequence[str] = (),
    configs: Sequence[str] = (),
    paths: Mapping[str, str] | None = None,
    defaults: frozenset[str] = _SINGLE_CORE,
) -> tuple[list[Column], list[str]]:
    """Every (RTOS, machine, configuration) asked for (empty: `defaults`) that can run
    here, and one line for each RTOS that cannot (not brought) or has nothing asked for."""
    paths = merged_paths() if paths is None else dict(paths)
    for name in rtoses:
        RTOSES.get(name)  # an unknown name is a ConfigError listing the known ones
    out: list[Column] = []
    skipped: list[str] = []
    for name, port in RTOSES.items():
        if rtoses and name not in rtoses:
            continue
        why = port.missing(paths)
        if why:
            skipped.append(f"{port.title}: {why}")
            continue
        on = (*port.machines, *(n for n, m in models().items() if m.board in runs_on(port)))
        ms = [m for m in on if m in machines or (not machines and m in defaults)]
        cols = [
            Column(name, m, c)
            for m in ms
            for c in _configs(port, MACHINES.get(m))
            if (c in configs if configs else c not in _asked_only(port, m))
        ]
        if not cols:
            skipped.append(
                f"{port.title}: builds for {', '.join(port.machines)} in configurations "
                f"{', '.join(port.configs)}; none of them was asked for"
            )
            continue
        out += cols
    return out, skipped


def _configs(port: RtosPort, m: Machine) -> tuple[str, ...]:
    """The port's configurations of the images the machine runs (its board's: a model
    runs the Pico's), without those needing more cores where it runs one."""
    return one_core_configs(port, m.board) if m.cores == 1 else configs_on(port, m.board)


def _asked_only(port: RtosPort, machine: str) -> tuple[str, ...]:
    return port.asked_configs.get(MACHINES.get(machine).board, ())


def _model_table(m: Machine) -> dict[str, Any]:
    """A model column's [target] keys from its machine file: the serial target's board
    and flasher that run it, the image's own options, a slow first answer."""
    table: dict[str, Any] = {"kind": m.target, "board": m.board, "flasher": m.flasher}
    if m.baked:
        table["builtin_args"] = True
    if m.answer_s:
        table["answer_s"] = m.answer_s
    return table


def column_text(text: str, col: Column, path: Path) -> str:
    """The study spec's text for one column: its [target] table replaced, labels filled."""
    data = _toml(text, path)
    target: dict[str, Any] = dict(data.get("target", {}))
    if "target" in data and not _TARGET_TABLE.search(text):
        raise SpecError(path, "write the target as a [target] table: the study replaces it")
    if target.get("kind", "qemu") != "qemu" and not _is_model(target):
        flashers = "; ".join(
            f'{m.title}: kind = "{m.target}", flasher = "{m.flasher}"' for m in models().values()
        )
        raise SpecError(
            path,
            f'[target] kind = {target["kind"]!r}: the RTOS study runs "qemu", or a machine '
            f"model ({flashers})",
        )
    for key in ("rtos", "machine", "machines", "rtos_config", "elf"):
        target.pop(key, None)  # the column's, not the file's
    machine = MACHINES.get(col.machine)
    if machine.is_model:
        own = {k: v for k, v in target.items() if k in machine.study_keys}
        fixed = "".join(f"{k} = {_value(v)}\n" for k, v in _model_table(machine).items())
        head = f"[target]  # expanded by rtlab study rtos: machine {col.machine}\n{fixed}"
    else:
        own = {} if _is_model(target) else {k: v for k, v in target.items() if k != "kind"}
        head = '[target]  # expanded by rtlab study rtos\nkind = "qemu"\n'
        head += f'machine = "{col.machine}"\n'
    body = "".join(f"{k} = {_value(v)}\n" for k, v in own.items())
    table = f'{head}rtos = "{col.rtos}"\nrtos_config = "{col.config}"\n{body}'

    text = _TARGET_TABLE.sub("", text).rstrip("\n") + "\n\n" + table
    if not machine.get("ext_wire"):
        text = _IRQ_EXT.sub(rf"\1false  # expanded: no GPIO edge on {col.machine}", text)
    for k, v in (("{rtos}", col.rtos), ("{core}", col.core), ("{config}", col.config)):
        text = text.replace(k, v)
    return text


def expand(
    path: Path,
    rtoses: Sequence[str] = (),
    machines: Sequence[str] = (),
    configs: Sequence[str] = (),
    paths: Mapping[str, str] | None = None,
) -> tuple[list[Spec], list[str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise SpecError(path, f"cannot read the spec ({e.strerror})") from None
    target = _toml(text, path).get("target", {})
    defaults = _models_run_by(target) if _is_model(target) else _SINGLE_CORE
    if "machines" in target:
        defaults = _named_machines(target["machines"], path)
    cols, skipped = columns(rtoses, machines, configs, paths, defaults)
    specs = [parse_spec(column_text(text, c, path), path) for c in cols]
    labels = [cell.label for s in specs for cell in s.cells()]
    if len(set(labels)) < len(labels):
        raise SpecError(
            path, "two columns give the same cell label: name workloads with {rtos}-{core}-{config}"
        )
    return specs, skipped


def _named_machines(value: Any, path: Path) -> frozenset[str]:
    """A study spec's `[target] machines`: the machines it runs (known ones, by name)."""
    known = [*qemu_machines(), *models()]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise SpecError(path, "[target] machines: expected a list of machine names")
    unknown = [v for v in value if v not in known]
    if unknown:
        raise SpecError(
            path, f"[target] machines: {', '.join(unknown)}: expected of {', '.join(known)}"
        )
    return frozenset(value)


def _models_run_by(target: Mapping[str, Any]) -> frozenset[str]:
    """The machine models a study spec's [target] names the flasher of (kind = "serial",
    flasher = "rp2040_model": the RP2040 cycle model)."""
    return frozenset(
        m.name for m in models().values()
        if target.get("kind") == m.target and target.get("flasher") == m.flasher
    )  # fmt: skip


def _is_model(target: Mapping[str, Any]) -> bool:
    """A study spec's [target] naming a machine model's flasher."""
    return bool(_models_run_by(target))


def _toml(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(path, f"TOML syntax: {e}") from None


def _value(v: Any) -> str:
    """A TOML value for the few types a [target] holds."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f'"{k}" = {_value(x)}' for k, x in v.items()) + "}"
    raise ConfigError("target", f"cannot carry {v!r} into the expanded [target]")
