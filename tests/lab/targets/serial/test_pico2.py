"""The Raspberry Pi Pico 2 (RP2350) images and their run path, without a Pico 2 (QEMU has
no RP2350 model: these images compile only): the board layer boards/rp2350 builds bare
metal always and on the kernels the user brings, with the options built in, as UF2s
the RP2350 boot ROM takes (IMAGE_DEF, vector table); the example spec loads; `rtlab
run` without a board is one error with nothing stored; a run copies the image with the
workload's options onto the boot drive (a directory standing for it)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from rtlab.catalog.machines import MACHINES
from rtlab.lab import uf2_format as uf2
from rtlab.lab import uf2_rp2350
from rtlab.lab.boards.layers import build_image
from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import merged_paths
from rtlab.lab.spec import load_spec
from tests.lab.targets.serial.conftest import PortServer
from tests.lab.targets.serial.test_uf2_boards import copied_image
from tests.needs import brought
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

SPEC = REPO_ROOT / "examples" / "serial" / "pico2-freertos.toml"
WORDS = ["--scenarios", "irq,primitives", "--iterations", "20"]
TESTED = "; README: bring your own kernels"
IMAGE_DEF = (0xFFFFDED3, 0x10210142, 0x000001FF, 0, 0xAB123579)


def _flash(image: Path) -> dict[int, bytes]:
    """The pages of a UF2 the RP2350 boot ROM takes, by address (E10 block first)."""
    blocks = uf2.read(image.read_bytes())
    uf2_rp2350.check_rp2350(blocks)
    assert blocks[0].family == uf2_rp2350.ABSOLUTE_FAMILY
    assert all(0x10000000 <= b.address < 0x10400000 for b in blocks[1:])  # 4 MiB flash
    assert image.read_bytes() == uf2_rp2350.from_elf(image.with_suffix(".elf"))
    return {b.address: b.payload for b in blocks[1:]}


def _boots(image: Path, image_def_at: int | None = 4 * (16 + 50)) -> bytes:
    """Vector table and IMAGE_DEF as the boot ROM reads them; the flash bytes. The board
    layer's block follows its 16 exceptions and IRQs up to the last software interrupt
    (46..49); NuttX's linker script puts its own elsewhere in the first 4 KiB."""
    mem = _flash(image)
    flash = b"".join(mem[a] for a in sorted(mem))
    sp, reset = struct.unpack_from("<2I", flash)
    assert 0x20000000 < sp <= 0x20082000, hex(sp)
    assert reset & 1 and 0x10000000 <= reset < 0x10400000, hex(reset)
    found = flash.find(struct.pack("<5I", *IMAGE_DEF))
    assert 0 <= found < 4096 - 20 and found % 4 == 0
    assert image_def_at is None or found == image_def_at
    return flash


def test_bare_metal_image_builds_and_boots() -> None:
    """No kernel needed: the smoke image, its vector table and IMAGE_DEF."""
    image = build_image(MACHINES.get("pico2"), {}, "nokernel", "rp2350-smoke", ["--exit", "3"])
    flash = _boots(image)
    assert b"--exit 3\0" in flash and b"pico2\0" in flash


@pytest.mark.parametrize(
    ("rtos", "config"),
    [
        ("freertos", "default"),
        ("ucos3", "lean"),
        # a NuttX tree of its own (minutes cold): the Pico's NuttX build stands for it
        pytest.param("nuttx", "default", marks=pytest.mark.boards),
    ],
)
def test_rtos_image_builds_with_the_options_inside(rtos: str, config: str) -> None:
    """The board layer's FreeRTOS and µC/OS-III (DWT cycles), NuttX's own
    raspberrypi-pico-2 board on one core (its POSIX port on TIMER0)."""
    if rtos == "freertos":
        brought("FREERTOS_KERNEL_PATH", "a FreeRTOS-Kernel checkout", "V11.3.0" + TESTED)
    elif rtos == "ucos3":
        brought("UCOS3_PATH", "a folder holding uC-OS3, uC-CPU, uC-LIB", "v3.08.02" + TESTED)
    else:
        brought(
            "NUTTX_PATH", "an apache/nuttx checkout (and NUTTX_APPS_PATH)", "4ebc8a7291df" + TESTED
        )
    port = RTOSES.get(rtos)
    image = port.build_baked("pico2", config, merged_paths(), WORDS)  # type: ignore[attr-defined]
    flash = _boots(image, None if rtos == "nuttx" else 4 * (16 + 50))
    assert " ".join(WORDS).encode() + b"\0" in flash, "the options are not built in"
    clock = b"rp2350_timer0\0" if rtos == "nuttx" else b"dwt_cyccnt\0"
    for token in (b"pico2\0", clock, b"xip_cache_invalidated\0"):  # board, clock, cold
        assert token in flash


def test_example_spec_loads() -> None:
    s = load_spec(SPEC)
    assert (s.target["kind"], s.target["board"], s.target["flasher"]) == ("serial", "pico2", "uf2")
    [w] = s.workloads
    assert w["scenarios"] == ["irq", "primitives"]


def test_a_run_copies_the_image_with_the_workloads_options(
    tmp_path: Path, silent_port: PortServer
) -> None:
    brought("FREERTOS_KERNEL_PATH", "a FreeRTOS-Kernel checkout", "V11.3.0" + TESTED)
    built = copied_image("pico2", tmp_path, silent_port, WORDS)
    assert " ".join(WORDS).encode() + b"\0" in b"".join(_flash(built).values())
