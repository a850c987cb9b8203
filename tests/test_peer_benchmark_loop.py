"""The RP2040-model cross-check with Zephyr's latency_measure takes its counting loop's
control off its mean (bench/rp2040_model_zephyr.py): read from the disassembly of a loop
compiled as latency_measure's is (arm-none-eabi-gcc, Cortex-M0+, -Os), and refused
where there is no such loop rather than guessed."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from tests.needs import tool
from tests.paths import REPO_ROOT

LOOP = """
__attribute__((noinline)) void z_impl_k_sem_take(void *s, long long t)
{ __asm volatile("" : : "r"(s), "r"(t) : "memory"); }
void *sem;
void start(void) { for (int i = 0; i < 1000; i++) z_impl_k_sem_take(sem, -1); }
"""
NO_LOOP = LOOP.replace("for (int i = 0; i < 1000; i++) ", "")


def _bench() -> ModuleType:
    path = REPO_ROOT / "bench" / "rp2040_model_zephyr.py"
    spec = importlib.util.spec_from_file_location("rp2040_model_zephyr", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _elf(tmp_path: Path, source: str) -> Path:
    tool("arm-none-eabi-gcc", "deps/apt.txt: gcc-arm-none-eabi")
    c, elf = tmp_path / "loop.c", tmp_path / "loop.elf"
    c.write_text(source)
    subprocess.run(
        ["arm-none-eabi-gcc", "-mcpu=cortex-m0plus", "-mthumb", "-Os", "-nostdlib",
         "-Wl,-e,start", "-o", str(elf), str(c)],
        check=True,
    )  # fmt: skip
    return elf


def test_the_loop_control_is_its_decrement_compare_and_branch(tmp_path: Path) -> None:
    assert _bench().loop_control_cycles(_elf(tmp_path, LOOP), "z_impl_k_sem_take") == 4


def test_a_call_outside_any_loop_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="0 counting loops call z_impl_k_sem_take"):
        _bench().loop_control_cycles(_elf(tmp_path, NO_LOOP), "z_impl_k_sem_take")
