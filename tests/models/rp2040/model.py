"""Build rtlab's RP2040 model pieces (its ROM, the bare-metal images) and run an image on it."""

from __future__ import annotations

import json
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.locks import make_one_at_a_time, one_at_a_time
from tests.needs import tool
from tests.paths import REPO_ROOT

MODEL = REPO_ROOT / "models" / "rp2040"
BARE = REPO_ROOT / "workloads" / "rtbench" / "boards" / "rp2040" / "bare"


def _make(directory: Path) -> None:
    tool("arm-none-eabi-gcc", "deps/apt.txt: gcc-arm-none-eabi")
    make_one_at_a_time(directory)


def build() -> None:
    """The model's npm install and ROM (deps/setup.d/rp2040-model.sh), the bare images."""
    tool("node", "deps/setup.d/rp2040-model.sh: Debian's nodejs")
    with one_at_a_time("rp2040-model-npm"):
        if not (MODEL / "node_modules" / "rp2040js").is_dir():
            subprocess.run(["bash", str(REPO_ROOT / "deps/setup.d/rp2040-model.sh")], check=True)
    _make(MODEL / "rom")
    _make(BARE)


def script_result(script: str, *args: str) -> dict[str, Any]:
    """The JSON a models/rp2040/test/ script prints after it drove the built model."""
    build()
    res = subprocess.run(
        ["node", str(MODEL / "test" / script), *args], capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr
    return dict(json.loads(res.stdout))


def bare_image(name: str) -> Path:
    """build/rp2040-<name>.uf2 of the bare-metal layer (smoke, calib)."""
    return BARE / "build" / f"rp2040-{name}.uf2"


@dataclass
class ModelRun:
    returncode: int
    stdout: bytes
    stderr: str
    summary: dict


def run(image: Path, tmp: Path, *args: str, max_cycles: int = 2_000_000_000) -> ModelRun:
    """Runs image on the model (models/rp2040/run.js) to its done line or the budget."""
    summary = tmp / "summary.json"
    summary.unlink(missing_ok=True)
    res = subprocess.run(
        [
            "node",
            str(MODEL / "run.js"),
            "--image",
            str(image),
            "--max-cycles",
            str(max_cycles),
            "--summary",
            str(summary),
            *args,
        ],
        capture_output=True,
        timeout=600,
    )
    data = json.loads(summary.read_text()) if summary.exists() else {}
    return ModelRun(res.returncode, res.stdout, res.stderr.decode(), data)


# Looks up ROM function 'ZZ' (no such function) and calls it, as an image calls rom_func_lookup.
CALL_MISSING = """
    .syntax unified
    .thumb
    .global _start
    .thumb_func
_start:
    movs r0, #0x14
    ldrh r0, [r0]          @ the function table
    movs r3, #0x18
    ldrh r3, [r3]          @ rom_table_lookup
    ldr r1, =0x5a5a        @ 'Z' | 'Z' << 8
    blx r3
    blx r0
    b .
    .ltorg
"""


BAD_EXC_RETURN = """
    .syntax unified
    .thumb
    .global _start
    .thumb_func
_start:
    svc #0
    b .
    .org 0x20
    .thumb_func
svc_handler:               @ at _start + 0x20: the SVC vector points here
    ldr r0, =0xf882f000    @ two Thumb halfwords, as a context read from ROM gives
    bx r0
    .ltorg
"""


def missing_rom_call_image(tmp: Path) -> Path:
    """The smoke image with its reset vector sent to code that calls ROM function 'ZZ'."""
    return _patched_smoke(tmp, "call", CALL_MISSING, {})


def bad_exc_return_image(tmp: Path) -> Path:
    """The smoke image whose reset code takes an SVC whose handler returns through
    0xf882f000: no EXC_RETURN value."""
    return _patched_smoke(tmp, "badret", BAD_EXC_RETURN, {11: CODE + 0x21})


CODE = 0x10010000  # where the patched-in code goes, past the smoke image
VECTORS = 0x100  # the smoke image's vector table, in the image (after boot2)


def _patched_smoke(tmp: Path, name: str, asm: str, vectors: dict[int, int]) -> Path:
    """The smoke image with `asm` (its _start the reset vector) linked at CODE and the
    exception `vectors` (number: address) set."""
    build()
    img = bytearray((BARE / "build" / "rp2040-smoke.bin").read_bytes())
    src = tmp / f"{name}.S"
    src.write_text(asm)
    elf = tmp / f"{name}.elf"
    subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-m0plus", "-nostdlib",
                    f"-Wl,-Ttext={CODE:#x}", "-o", str(elf), str(src)], check=True)  # fmt: skip
    code = tmp / f"{name}.raw"
    subprocess.run(["arm-none-eabi-objcopy", "-O", "binary", str(elf), str(code)], check=True)
    img.extend(b"\xff" * (CODE - 0x10000000 - len(img)))
    img.extend(code.read_bytes())
    for number, address in {1: CODE + 1, **vectors}.items():
        at = VECTORS + 4 * number
        img[at : at + 4] = struct.pack("<I", address)
    image = tmp / f"{name}.bin"
    image.write_bytes(img)
    return image
