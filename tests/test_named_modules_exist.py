"""Docs and the workloads' comments name rtlab's modules by path (src/rtlab/lab/uf2.py)
or dotted name (rtlab.lab.rtos.nuttx.build): every one named exists, so a module moved
or renamed takes the text that points at it along."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from tests.paths import REPO_ROOT

TEXTS = ("README.md", "docs", "workloads", "examples", "bench", "deps")
SUFFIXES = {".md", ".toml", ".c", ".h", ".cmake", ".defconfig", ".txt", ".sh", ".py", ".in"}
PATH = re.compile(r"\bsrc/rtlab/[\w/.-]+")
FILE_ENDINGS = {"duckdb", "toml", "html", "json", "md", "csv"}
# names that are keys, not modules: Parquet metadata, the guest's kernel command line
KEYS = {"rtlab.capture", "rtlab.cmd"}
DOTTED = re.compile(r"(?<![\w./-])rtlab(?:\.[a-z_][a-z0-9_]*)+")


def _texts() -> list[Path]:
    out: list[Path] = []
    for name in TEXTS:
        p = REPO_ROOT / name
        files = [p] if p.is_file() else sorted(p.rglob("*"))
        out += [f for f in files if f.is_file() and (f.suffix in SUFFIXES or "defconfig" in f.name)]
    return out


def _resolves(dotted: str) -> bool:
    """A module, or a module's attribute (rtlab.lab.uf2.read)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_named_module_exists() -> None:
    missing = []
    for f in _texts():
        text = f.read_text(errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            where = f"{f.relative_to(REPO_ROOT)}:{n}"
            for m in PATH.finditer(line):
                path = m.group(0).rstrip("/.")
                if not (REPO_ROOT / path).exists() and "<" not in line[m.end() : m.end() + 1]:
                    missing.append(f"{where}: {path}")
            for m in DOTTED.finditer(line):
                name = m.group(0).rstrip(".")
                if name in KEYS or name.rsplit(".", 1)[-1] in FILE_ENDINGS:
                    continue  # a file's name (rtlab.duckdb), not a module
                if not _resolves(name):
                    missing.append(f"{where}: {name}")
    assert not missing, "named but not there:\n" + "\n".join(missing)
