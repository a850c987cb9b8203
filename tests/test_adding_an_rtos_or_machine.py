"""What adding an RTOS or a machine touches, counted on a copy of the tree: a throw-away
RTOS and a throw-away machine are added the way docs/porting.md says, every file that
changed is listed, and the list is held to the page's (between its `<!-- touched by … -->`
markers, entry for entry). The catalog and the RTOS registry, pointed at the copy, then
know the new RTOS (its title, the machines it runs on) and the new machine, and every
other RTOS runs where it ran before."""

from __future__ import annotations

import hashlib
import re
import shutil
from collections.abc import Callable
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from rtlab.catalog import rtoses
from rtlab.catalog.machines import machines_in
from rtlab.errors import ConfigError
from rtlab.lab.rtos import discovered
from tests.paths import REPO_ROOT
from tests.test_rtos_names import violations

PORTING = REPO_ROOT / "docs" / "porting.md"
RTBENCH = "workloads/rtbench"
RTOS_MODULES = "src/rtlab/lab/rtos"
NEW_RTOS = "toyos"  # the throw-away RTOS
NEW_BOARD, NEW_MACHINE = "toyboard", "toy1"  # the throw-away board layer and its machine
ON = "mps2-an385"  # the machine the throw-away RTOS runs on
NAMES = {"rtos": NEW_RTOS, "board": NEW_BOARD, "layer": "qemu-mps2"}


def documented(what: str, machine: str, rtos: str = NEW_RTOS) -> list[str]:
    """The page's list after `<!-- touched by <what> -->`, placeholders filled in."""
    text = PORTING.read_text()
    start = text.index(f"<!-- touched by {what} -->")
    block = text[start : text.index("<!--", start + 4)]
    names = {**NAMES, "machine": machine, "rtos": rtos}
    entries = re.findall(r"^- `([^`]+)`", block, re.M)
    return [re.sub(r"<(\w+)>", lambda m: names[m.group(1)], e) for e in entries]


def snapshot(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def touched(root: Path, add: Callable[[], object]) -> list[str]:
    """The files of the copy that `add` created, changed or removed."""
    before = snapshot(root)
    add()
    for cached in (machines_in, rtoses.rtoses, rtoses.overlays):
        cached.cache_clear()  # the catalog reads a tree once: the copy changed
    after = snapshot(root)
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def held_to(files: list[str], patterns: list[str]) -> None:
    """Each changed file is one of the page's entries, and each entry was needed."""
    unlisted = [f for f in files if not any(fnmatchcase(f, p) for p in patterns)]
    unused = [p for p in patterns if not any(fnmatchcase(f, p) for f in files)]
    assert not unlisted, f"changed but not in docs/porting.md's list: {unlisted}"
    assert not unused, f"in docs/porting.md's list but not needed: {unused}"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of what an addition may touch: workloads/rtbench and the RTOS modules."""
    shutil.copytree(REPO_ROOT / RTBENCH, tmp_path / RTBENCH,
                    ignore=shutil.ignore_patterns("build", "__pycache__"))  # fmt: skip
    shutil.copytree(REPO_ROOT / RTOS_MODULES, tmp_path / RTOS_MODULES,
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    return tmp_path


def add_rtos(root: Path) -> None:
    """A new RTOS as docs/porting.md walks it: ports/template/ copied, its C and CMake
    renamed and filled, its title, one overlay, its package (one module: a small port
    needs no parts)."""
    port = root / RTBENCH / "ports" / NEW_RTOS
    shutil.copytree(root / RTBENCH / "ports" / "template", port)
    (port / "rtb_port_template.c").rename(port / f"rtb_port_{NEW_RTOS}.c")
    (port / "template.cmake").rename(port / f"{NEW_RTOS}-kernel.cmake")
    (port / "main_template.c").unlink()  # the start-up is src/board/rtb_main.c's
    (port / "README.md").unlink()
    (port / "rtb_isr.h").write_text("/* its interrupt entry and exit */\n")
    (port / "cortexm_images.cmake").write_text(f"function(rtb_{NEW_RTOS}_cortexm_images m out)\n"
                                                "endfunction()\n")  # fmt: skip
    (port / "boards").mkdir()
    (port / "boards" / "qemu-mps2.c").write_text("/* what the kernel asks of the layer */\n")
    (port / "port.toml").write_text('title = "ToyOS"\n')
    (port / "machines").mkdir()
    (port / "machines" / f"{ON}.toml").write_text("# runs on it, with no name of its own\n")
    (root / RTOS_MODULES / NEW_RTOS).mkdir()
    (root / RTOS_MODULES / NEW_RTOS / "__init__.py").write_text(
        "from rtlab.lab.rtos.base import PortBase\n\n\n"
        f"class ToyOs(PortBase):\n    name = {NEW_RTOS!r}\n\n\nRTOS = ToyOs()\n"
    )


def add_machine(root: Path) -> None:
    """A new board layer with one machine: its C, its CMake project, its machine file
    (the hardware only)."""
    board = root / RTBENCH / "boards" / NEW_BOARD
    (board / "machines").mkdir(parents=True)
    (board / "CMakeLists.txt").write_text("project(toyboard C)\n")
    (board / "board_hooks.c").write_text("/* the rtb_board_* functions */\n")
    (board / "machines" / f"{NEW_MACHINE}.toml").write_text(
        f'machine = "{NEW_MACHINE}"\ntarget = "qemu"\ntitle = "Cortex-M3"\n'
        "uart_base = 0x40004000\ncounter_hz = 25000000\n"
    )


def runs_on(root: Path) -> dict[str, tuple[str, ...]]:
    """RTOS -> the machines it runs on, as the catalog reads the copy."""
    found = rtoses.rtoses(root / RTBENCH)
    return {n: rtoses.machines_for(n, rtbench=root / RTBENCH) for n in found}


def test_a_new_rtos_is_its_port_folder_and_one_package(tree: Path) -> None:
    ran = runs_on(tree)
    files = touched(tree, lambda: add_rtos(tree))
    held_to(files, documented("a new RTOS", ON))
    # counted: the port folder, and one file outside it (its package's __init__.py, whose
    # `RTOS = …` is its registry line)
    outside = [f for f in files if not f.startswith(f"{RTBENCH}/ports/{NEW_RTOS}/")]
    assert outside == [f"{RTOS_MODULES}/{NEW_RTOS}/__init__.py"]
    assert len(files) == 8
    # the catalog and the registry know it; every other RTOS runs where it ran
    found = rtoses.rtoses(tree / RTBENCH)
    assert found[NEW_RTOS].title == "ToyOS" and not found[NEW_RTOS].default
    assert rtoses.machines_for(NEW_RTOS, rtbench=tree / RTBENCH) == (ON,)
    assert {n: m for n, m in runs_on(tree).items() if n != NEW_RTOS} == ran
    assert discovered(tree / RTOS_MODULES)[NEW_RTOS] == f"rtlab.lab.rtos.{NEW_RTOS}"
    # and nothing outside its own places names it
    files_now = sorted(p for p in tree.rglob("*") if p.is_file())
    assert not violations(files_now, {NEW_RTOS: {NEW_RTOS}}, root=tree)


def test_a_new_machine_is_its_board_folder_and_an_rtos_says_it_runs_there(tree: Path) -> None:
    ran = runs_on(tree)
    files = touched(tree, lambda: add_machine(tree))
    held_to(files, documented("a new machine", NEW_MACHINE))
    assert all(f.startswith(f"{RTBENCH}/boards/{NEW_BOARD}/") for f in files)
    assert len(files) == 3
    assert machines_in(tree / RTBENCH / "boards")[NEW_MACHINE].layer == NEW_BOARD
    assert runs_on(tree) == ran  # no RTOS runs on it until one says so
    # an RTOS runs on it: one overlay in that RTOS's port folder, nothing else
    rtos = rtoses.default_rtos()
    overlay = tree / RTBENCH / "ports" / rtos / "machines" / f"{NEW_MACHINE}.toml"
    files = touched(tree, lambda: overlay.write_text("# runs there\n"))
    held_to(files, documented("an RTOS running on a machine", NEW_MACHINE, rtos))
    assert len(files) == 1
    assert runs_on(tree)[rtos] == (*ran[rtos], NEW_MACHINE)


def test_no_machine_file_names_an_rtos_and_every_overlay_names_a_machine() -> None:
    """The repository itself: machine files hold no `rtos` key nor any RTOS's own key
    (tests/test_rtos_names.py checks their text), and an overlay of an unknown machine
    is refused."""
    keys = {k for n in rtoses.rtoses() for o in rtoses.overlays(n).values() for k in o}
    for m in machines_in(REPO_ROOT / RTBENCH / "boards").names():
        facts = machines_in(REPO_ROOT / RTBENCH / "boards")[m].facts
        assert "rtos" not in facts and not keys & set(facts), m


def test_an_overlay_of_an_unknown_machine_is_one_error(tree: Path) -> None:
    (tree / RTBENCH / "ports" / "ucos3" / "machines" / "no-such.toml").write_text("")
    with pytest.raises(ConfigError, match=r"overlay .*no-such\.toml: no machine no-such"):
        rtoses.overlays("ucos3", tree / RTBENCH)
