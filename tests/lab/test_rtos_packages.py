"""One package per RTOS (rtlab.lab.rtos.<rtos>): the registry is every package whose
__init__.py binds `RTOS`, each package exports its port and what other code uses of it,
and code outside a package imports that, never one of its parts."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from rtlab.lab.rtos import RTOSES, discovered
from rtlab.lab.rtos.base import PortBase
from tests.paths import REPO_ROOT

RTOS_DIR = REPO_ROOT / "src" / "rtlab" / "lab" / "rtos"
PACKAGES = sorted(discovered())


def test_the_registry_is_every_rtos_package() -> None:
    assert PACKAGES == ["freertos", "nuttx", "ucos3", "zephyr"]
    assert discovered() == {n: f"rtlab.lab.rtos.{n}" for n in PACKAGES}
    assert sorted(p.parent.name for p in RTOS_DIR.glob("*/__init__.py")) == PACKAGES


@pytest.mark.parametrize("name", PACKAGES)
def test_a_package_exports_its_port(name: str) -> None:
    package = importlib.import_module(f"rtlab.lab.rtos.{name}")
    port = RTOSES.get(name)
    assert package.RTOS is port and isinstance(port, PortBase)
    assert type(port).__name__ in package.__all__ and "RTOS" in package.__all__
    assert all(hasattr(package, n) for n in package.__all__)


@pytest.mark.parametrize(
    ("files", "found"),
    [
        ({"a/__init__.py": "RTOS = A()\n"}, ["a"]),
        ({"a/__init__.py": "from rtlab.lab.rtos.a.port import RTOS, A\n"}, ["a"]),
        ({"a/__init__.py": "from x import PORT as RTOS\n"}, ["a"]),
        ({"a/__init__.py": "RTOS: PortBase = A()\n"}, ["a"]),
        ({"a/__init__.py": "from x import RTOS as PORT\n"}, []),
        ({"a/__init__.py": "def f():\n    RTOS = 1\n", "a/port.py": "RTOS = A()\n"}, []),
        ({"a.py": "RTOS = A()\n"}, []),  # a module is not an RTOS package
        ({"_a/__init__.py": "RTOS = A()\n"}, []),
    ],
)
def test_a_package_is_found_by_what_its_init_binds(
    tmp_path: Path, files: dict[str, str], found: list[str]
) -> None:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert sorted(discovered(tmp_path)) == found


def test_code_outside_a_package_imports_the_package_not_its_parts() -> None:
    """`from rtlab.lab.rtos.nuttx import trees`, never `… .nuttx.build import …`: the
    parts are cut along seams and may move; the package's __init__ is what it offers."""
    found = []
    for top in ("src", "tests", "bench", "scripts"):
        for path in sorted((REPO_ROOT / top).rglob("*.py")):
            rel = path.relative_to(REPO_ROOT)
            found += [f"{rel}:{line}: {m}" for line, m in parts_imported(path)]
    assert found == []


def parts_imported(path: Path) -> list[tuple[int, str]]:
    """(line, module) of each import of a part of an RTOS package other than the
    module's own package (whose modules import each other's parts)."""
    inside = path.relative_to(RTOS_DIR).parts if RTOS_DIR in path.parents else ()
    own = f"rtlab.lab.rtos.{inside[0]}." if len(inside) > 1 else None
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for m in names:
            rtos = m.split(".")[3] if m.startswith("rtlab.lab.rtos.") else ""
            if rtos in PACKAGES and m.count(".") > 3 and not (own and m.startswith(own)):
                out.append((node.lineno, m))
    return out


def test_an_import_of_another_packages_part_is_found(tmp_path: Path) -> None:
    bad = tmp_path / "x.py"
    bad.write_text(
        "from rtlab.lab.rtos.nuttx.build import Core\nimport rtlab.lab.rtos.zephyr.a53\n"
    )
    good = tmp_path / "y.py"
    good.write_text("from rtlab.lab.rtos.nuttx import Core\nfrom rtlab.lab.rtos import base\n")
    assert [m for _, m in parts_imported(bad)] == [
        "rtlab.lab.rtos.nuttx.build",
        "rtlab.lab.rtos.zephyr.a53",
    ]
    assert parts_imported(good) == []
