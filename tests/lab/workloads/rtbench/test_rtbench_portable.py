"""The core (scenarios, emitter, measurement) is freestanding C11: it must build for a
Cortex-M with no POSIX header, so that an RTOS port needs no scenario change."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.lab.workloads.rtbench.conftest import SRC
from tests.needs import tool

CORE = sorted((SRC / "src").glob("*.c"))
FREESTANDING = {"stddef.h", "stdint.h"}  # the only system headers the core may use


def test_core_includes_only_freestanding_headers() -> None:
    files = [*CORE, *(SRC / "src").glob("*.h"), *(SRC / "include").glob("*.h")]
    for f in files:
        for header in re.findall(r"#include\s*<([^>]+)>", f.read_text()):
            assert header in FREESTANDING, f"{f.name} includes <{header}>"


@pytest.mark.parametrize("cpu", ["cortex-m0plus", "cortex-m3"])
def test_core_cross_compiles_for_cortex_m(tmp_path: Path, cpu: str) -> None:
    gcc = tool("arm-none-eabi-gcc", "gcc-arm-none-eabi in deps/apt.txt")
    for src in CORE:
        cmd = [
            gcc,
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-mcpu={cpu}",
            "-mthumb",
            "-Os",
            "-DRTB_SAMPLE_POOL=8192",
            f"-I{SRC / 'include'}",
            f"-I{SRC / 'src'}",
            "-c",
            str(src),
            "-o",
            str(tmp_path / (src.stem + ".o")),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, f"{src.name}:\n{proc.stderr}"
