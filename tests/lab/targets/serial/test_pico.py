"""The Raspberry Pi Pico's SMP images and their run path, without a Pico (QEMU 7.2 has no
RP2040): the images build from the kernels and pico-sdk the user brings, with two cores
and the options built in, as UF2s the boot ROM takes; the example specs load; `rtlab run`
without a board is one error with nothing stored; a run copies the image with the
workload's options onto the boot drive (a directory standing for it)."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import pytest

from rtlab.lab import uf2_format as uf2
from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import merged_paths
from rtlab.lab.spec import load_spec
from tests.lab.targets.serial.conftest import PortServer
from tests.lab.targets.serial.test_uf2_boards import copied_image
from tests.needs import brought
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

SPECS = [REPO_ROOT / "examples" / "serial" / f"pico-{r}-smp.toml" for r in ("freertos", "nuttx")]
WORDS = ["--scenarios", "threadmetric,scalability,contention", "--window-ms", "50"]
TESTED = "; README: bring your own kernels"


def _sdk() -> None:
    brought(
        "PICO_SDK_PATH", "a pico-sdk checkout", "tested: 2.1.1, github.com/raspberrypi/pico-sdk"
    )


def _freertos() -> None:
    brought("FREERTOS_KERNEL_PATH", "a FreeRTOS-Kernel checkout", "V11.3.0" + TESTED)
    _sdk()


def _nuttx() -> None:
    brought(
        "NUTTX_PATH",
        "an apache/nuttx checkout (and NUTTX_APPS_PATH)",
        "tested 4ebc8a7291df" + TESTED,
    )
    _sdk()


def _symbol_size(elf: Path, name: str) -> int:
    out = subprocess.run(["arm-none-eabi-nm", "-S", str(elf)], capture_output=True, text=True)
    sizes = [int(f[1], 16) for f in map(str.split, out.stdout.splitlines()) if f[-1:] == [name]]
    assert len(sizes) == 1, f"{elf.name}: no {name}"
    return sizes[0]


def _bootable_with(image: Path, words: list[str], elf: Path | None = None) -> bytes:
    """The flash contents of a UF2 the RP2040 boot ROM takes (family, pages, stage 2)."""
    blocks = uf2.read(image.read_bytes())
    uf2.check_rp2040(blocks)
    assert all(uf2.RP2040_FLASH[0] <= b.address < uf2.RP2040_FLASH[1] for b in blocks)
    flash = b"".join(b.payload for b in blocks)
    assert " ".join(words).encode() + b"\0" in flash, "the options are not built in"
    assert image.read_bytes() == uf2.from_elf(elf or image.with_suffix(".elf"))
    return flash


@pytest.mark.parametrize(
    ("rtos", "cores_symbol"), [("freertos", "pxCurrentTCBs"), ("nuttx", "g_running_tasks")]
)
def test_smp_image_builds_with_two_cores(rtos: str, cores_symbol: str) -> None:
    """FreeRTOS: the kernel's RP2040 port, configNUMBER_OF_CORES 2 (one current task per
    core); NuttX: raspberrypi-pico with CONFIG_SMP_NCPUS=2. Both say board=pico."""
    _freertos() if rtos == "freertos" else _nuttx()
    port = RTOSES.get(rtos)
    image = port.build_baked("pico", "default", merged_paths(), WORDS)  # type: ignore[attr-defined]
    flash = _bootable_with(image, WORDS)
    assert _symbol_size(image.with_suffix(".elf"), cores_symbol) == 2 * 4
    assert b"pico\0" in flash


def _address(elf: Path, name: str) -> int:
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True)
    [addr] = [int(f[0], 16) for f in map(str.split, out.stdout.splitlines()) if f[-1:] == [name]]
    return addr


@pytest.mark.parametrize("config", ["default", pytest.param("lean", marks=pytest.mark.boards)])
def test_ucos3_image_builds_on_one_core(config: str) -> None:
    """µC/OS-III (no SMP) on the Pico: the ARMv6-M port under the SDK's start-up, its
    vector table's PendSV the kernel's handler and SysTick the board's tick; build only
    (docs/boards.md: never run on a Pico)."""
    brought("UCOS3_PATH", "a folder holding uC-OS3, uC-CPU and uC-LIB", "weston-embedded" + TESTED)
    _sdk()
    image = RTOSES.get("ucos3").build_baked("pico", config, merged_paths(), WORDS)  # type: ignore[attr-defined]
    flash = _bootable_with(image, WORDS)
    assert b"pico\0" in flash and b"ucos3\0" in flash
    elf = image.with_suffix(".elf")
    pendsv, systick = struct.unpack_from("<2I", flash, 0x100 + 14 * 4)  # after stage 2
    assert pendsv == _address(elf, "isr_pendsv") | 1
    assert _address(elf, "OSStartHighRdy") < pendsv < _address(elf, "OSStartHighRdy") + 0x100
    assert systick == _address(elf, "isr_systick") | 1
    readelf = ["arm-none-eabi-readelf", "-A", str(elf)]
    attrs = subprocess.run(readelf, capture_output=True, text=True)
    assert "Tag_CPU_arch: v6S-M" in attrs.stdout


def test_nuttx_leaves_the_sdk_alone() -> None:
    """NuttX's stage-2 build touches and deletes pico/version.h in the SDK it is given:
    rtlab gives it a copy."""
    _nuttx()
    sdk = Path(merged_paths()["PICO_SDK_PATH"])
    RTOSES.get("nuttx").build("pico", "default", merged_paths())
    pico = sdk / "src" / "common" / "pico_base_headers" / "include" / "pico"
    assert not (pico / "version.h").exists() and not (pico / "config_autogen.h").exists()


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_example_spec_loads(spec: Path) -> None:
    s = load_spec(spec)
    assert s.target["kind"] == "serial" and s.target["flasher"] == "uf2"
    assert s.target["board"] == "pico"
    [w] = s.workloads
    assert w["scenarios"] == ["threadmetric", "scalability", "contention"]


def test_a_run_copies_the_image_with_the_workloads_options(
    tmp_path: Path, silent_port: PortServer
) -> None:
    """The workload's options become the image's (a Pico has no command line): the copy
    on the drive is the UF2 built with them; no Pico is behind the port, so it then
    does not answer."""
    _freertos()
    built = copied_image("pico", tmp_path, silent_port, WORDS)
    _bootable_with(built, WORDS, built.with_suffix(".elf"))


def test_a_pico_run_records_its_own_smp_configuration() -> None:
    """What a run records is the Pico build's configuration, not mps2's: two cores."""
    fr = RTOSES.get("freertos").describe("default", {}, "pico")["kconfig"]
    assert fr["configNUMBER_OF_CORES"] == "2" and fr["configCPU_CLOCK_HZ"] == "125000000UL"
    nx = RTOSES.get("nuttx").describe("default", {}, "pico")["kconfig"]
    assert (nx["SMP"], nx["SMP_NCPUS"], nx["USEC_PER_TICK"]) == ("y", "2", "1000")
    assert "MPS_SYSTICK_CLOCK" not in nx
