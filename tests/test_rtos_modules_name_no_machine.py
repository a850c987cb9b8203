"""An RTOS module names no machine: what differs from one machine to another is data,
the machine files for the hardware (workloads/rtbench/boards/<layer>/machines/) and the
port's overlays for the RTOS on it (ports/<rtos>/machines/<machine>.toml, port.toml for
the port's value where an overlay names none). So a new machine, or a new RTOS on an
old one, is files, never a line of rtlab/lab/rtos.

Checked: the identifiers and string literals (not comments or docstrings: prose may
give an example) of every module of rtlab/lab/rtos and of its RTOS packages, against
every machine's name, its file's stem, its board layer, its chip and the parts of those
names (`mps2`, `an385`), as written (lower case) and as a whole word
(`rtbench-pico-freertos` names the Pico; `pico_sdk`, `RTB_PICO_ARGS`, `check_rp2040` do
not). `pico-sdk` is the SDK's name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rtlab.catalog.machines import MACHINES
from tests.paths import REPO_ROOT
from tests.test_rtos_names import python_code

RTOS_MODULES = REPO_ROOT / "src" / "rtlab" / "lab" / "rtos"
# Parts of machine names that name no machine: the target kind, the emulator's machine type.
GENERIC = {"qemu", "virt"}
NOT_A_MACHINE = ("pico-sdk",)


def machine_words() -> set[str]:
    words: set[str] = set()
    for m in MACHINES.values():
        names = {m.name, m.stem, m.layer, m.chip} - {""}
        words |= names | {p for n in names for p in n.split("-") if len(p) >= 3}
    return words - GENERIC


def machines_named(text: str, words: set[str]) -> list[str]:
    for sdk in NOT_A_MACHINE:
        text = text.replace(sdk, " ")
    word = r"(?<![A-Za-z0-9_]){}(?![A-Za-z0-9_])"
    return sorted(w for w in words if re.search(word.format(re.escape(w)), text))


def violations(files: list[Path], words: set[str]) -> list[str]:
    found = []
    for path in files:
        for line, text in python_code(path.read_text(encoding="utf-8"), str(path)):
            if named := machines_named(text, words):
                where = f"{path.parent.name}/{path.name}"  # which port.py
                found.append(f"{where}:{line}: {text!r} names {', '.join(named)}")
    return found


def test_no_rtos_module_names_a_machine() -> None:
    words = machine_words()
    assert {"pico", "mps2-an385", "an385", "mps2", "rp2040", "qemu-mps2", "virt-a53"} <= words
    modules = sorted(RTOS_MODULES.rglob("*.py"))
    found = {p.relative_to(RTOS_MODULES).as_posix() for p in modules}
    assert {"base.py", "nuttx/build.py", "zephyr/port.py"} <= found  # the packages' too
    assert violations(modules, words) == []


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ('OWN = {"pico": 1}\n', True),
        ("d = f\"rtbench-{x.removeprefix('mps2-')}\"\n", True),
        ('if layer == "rp2040":\n    pass\n', True),
        ('"""The Pico, the mps2-an385."""\n# pico\nX = 1\n', False),
        ('PICO_SDK = "pico-sdk"\nrtb_pico_args = check_rp2040\n', False),
        ('stem = m.stem\nout = f"rtbench-{stem}-freertos"\n', False),
    ],
)
def test_the_check_finds_a_machine_in_code_only(tmp_path: Path, text: str, flagged: bool) -> None:
    path = tmp_path / "x.py"
    path.write_text(text)
    assert bool(violations([path], machine_words())) == flagged
