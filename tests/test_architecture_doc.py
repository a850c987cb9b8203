"""docs/architecture.md against the registries: kinds and files agree (a target kind is
the module of its name), and the page's drawing of the layers names every plug-in
each registry knows (target kinds, flashers, workload modules, report sections, RTOS
port folders, board layers), so a new one the page leaves out fails here."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from rtlab.lab.serialboard.flashers import FLASHERS
from rtlab.lab.targets.base import TARGETS
from rtlab.lab.workloads.base import KINDS
from rtlab.report.sections import SECTIONS
from tests.paths import REPO_ROOT

DOC = (REPO_ROOT / "docs" / "architecture.md").read_text()
RTBENCH = REPO_ROOT / "workloads" / "rtbench"
# each entry of the drawing: where it starts, where it ends
ENTRIES = {
    "targets": (r"├─ targets/", r"├─"),
    "flashers": (r"flashers/ \(", r"\)"),
    "workloads": (r"├─ workloads/", r"├─|└─"),
    "studies": (r"studies/ ", r"\blab/"),
    "ports": (r"ports/<rtos>/ \(", r"\)"),
    "boards": (r"boards/<board>/\s*\(", r"\)"),
}


def entry(name: str) -> str:
    start, end = ENTRIES[name]
    m = re.search(rf"{start}(.*?)(?:{end})", DOC, re.S)
    assert m, f"docs/architecture.md has no {name} entry"
    return m.group(1)


def named(names: list[str], text: str) -> list[str]:
    """Those of `names` that `text` leaves out (each as a whole word)."""
    return [n for n in names if not re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text)]


def test_a_target_kind_is_the_module_of_its_name() -> None:
    assert {k: m.rsplit(".", 1)[1] for k, m in TARGETS.modules.items()} == {
        k: k for k in TARGETS.modules
    }


@pytest.mark.parametrize(
    ("name", "known"),
    [
        ("targets", lambda: TARGETS.names()),
        ("flashers", lambda: FLASHERS.names()),
        ("workloads", lambda: sorted({m.rsplit(".", 1)[1] for m in KINDS.modules.values()})),
        ("studies", lambda: SECTIONS.names()),
        ("ports", lambda: sorted(p.name for p in (RTBENCH / "ports").iterdir() if p.is_dir())),
        (
            "boards",
            lambda: sorted(p.parent.parent.name for p in RTBENCH.glob("boards/*/machines/*.toml")),
        ),
    ],
)
def test_the_layer_drawing_names_every_plug_in(name: str, known: Callable[[], list[str]]) -> None:
    names = known()
    assert names and named(sorted(set(names)), entry(name)) == []


def test_a_name_the_drawing_leaves_out_is_found() -> None:
    assert named(["qemu", "nope"], "local, ssh, qemu, qemu_gpio") == ["nope"]
    assert named(["qemu"], "qemu_gpio, qemu-mps2") == ["qemu"]
