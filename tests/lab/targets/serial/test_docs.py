"""The specs the docs show are the example files the tests run (comments aside)."""

from __future__ import annotations

import re

import pytest

from tests.paths import REPO_ROOT

SERIAL = "examples/serial"
CASES = [
    ("docs/serial-target.md", "serial-mps2-freertos", "examples/serial/mps2-freertos.toml"),
    ("docs/labgrid.md", "labgrid-serial-mps2", "examples/labgrid/serial-mps2.toml"),
    ("docs/labgrid.md", "labgrid-nucleo-f411re", "examples/labgrid/nucleo-f411re.toml"),
    ("docs/boards.md", "serial-nucleo-f411re-freertos", f"{SERIAL}/nucleo-f411re-freertos.toml"),
    ("docs/boards.md", "serial-netduinoplus2-freertos", f"{SERIAL}/netduinoplus2-freertos.toml"),
    ("docs/boards.md", "pico-freertos-smp", f"{SERIAL}/pico-freertos-smp.toml"),
    ("docs/boards.md", "pico2-freertos", f"{SERIAL}/pico2-freertos.toml"),
    ("docs/boards.md", "serial-nucleo-f411re-zephyr", f"{SERIAL}/nucleo-f411re-zephyr.toml"),
]


def _lines(text: str) -> list[str]:
    """The TOML without comments, blank lines and the description line."""
    out = [ln.split("#")[0].rstrip() for ln in text.splitlines()]
    return [ln for ln in out if ln.strip() and not ln.startswith("description")]


@pytest.mark.parametrize(("doc", "name", "example"), CASES)
def test_doc_spec_is_the_example(doc: str, name: str, example: str) -> None:
    blocks = re.findall(r"```toml\n(.*?)```", (REPO_ROOT / doc).read_text(), re.S)
    shown = [b for b in blocks if f'name = "{name}"' in b]
    assert len(shown) == 1, f"{doc} shows {len(shown)} specs named {name}"
    assert _lines(shown[0]) == _lines((REPO_ROOT / example).read_text())
