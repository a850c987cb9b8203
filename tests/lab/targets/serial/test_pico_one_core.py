"""The Pico's one-core images (what the RP2040 model runs: it models core 0 alone):
FreeRTOS on its RP2040 port with one core (`one-core`) and on the generic ARM_CM0 port
(`arm-cm0`), NuttX's raspberrypi-pico without SMP (`one-core`), each a UF2 the boot ROM
takes with the options inside; the configurations exist on the Pico only; and the STM32
study's own kernel versions, where they build (docs/boards.md)."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import pytest

from rtlab.errors import ConfigError
from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import RtosBuildError, configs_on, merged_paths, one_core_configs
from rtlab.lab.rtos.firmware import check_firmware
from rtlab.lab.rtos.freertos import sdk_config
from tests.lab.targets.serial.test_pico import WORDS, _address, _bootable_with, _nuttx, _sdk
from tests.needs import brought

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

TESTED = "; README: bring your own kernels"


def _symbols(elf: Path) -> dict[str, int]:
    """name -> size of the ELF's sized symbols."""
    out = subprocess.run(["arm-none-eabi-nm", "-S", str(elf)], capture_output=True, text=True)
    return {f[3]: int(f[1], 16) for f in map(str.split, out.stdout.splitlines()) if len(f) == 4}


def _freertos() -> None:
    brought("FREERTOS_KERNEL_PATH", "a FreeRTOS-Kernel checkout", "V11.3.0" + TESTED)
    _sdk()


def _is_context_switch(elf: Path, address: int) -> bool:
    """The code at `address` saves the task's registers on its process stack (PendSV)."""
    dis = subprocess.run(
        ["arm-none-eabi-objdump", "-d", f"--start-address={address & ~1}",
         f"--stop-address={(address & ~1) + 0x40}", str(elf)],
        capture_output=True, text=True,
    )  # fmt: skip
    return "mrs\tr0, psp" in dis.stdout.lower()


@pytest.mark.parametrize("config", ["one-core", "arm-cm0"])
def test_freertos_one_core_images(config: str) -> None:
    """One current task (no pxCurrentTCBs array), the vector table's PendSV the kernel's
    context switch (the ARM_CM0 port's handlers under the SDK's names), board=pico."""
    _freertos()
    image = RTOSES.get("freertos").build_baked("pico", config, merged_paths(), WORDS)  # type: ignore[attr-defined]
    flash = _bootable_with(image, WORDS)
    assert b"pico\0" in flash and b"freertos\0" in flash
    elf = image.with_suffix(".elf")
    sizes = _symbols(elf)
    assert sizes.get("pxCurrentTCB") == 4 and "pxCurrentTCBs" not in sizes
    svcall, _, _, pendsv, systick = struct.unpack_from("<5I", flash, 0x100 + 11 * 4)
    assert (svcall, pendsv, systick) == tuple(
        _address(elf, f"isr_{n}") | 1 for n in ("svcall", "pendsv", "systick")
    )
    if config == "arm-cm0":  # the generic port's handlers are the vector table's
        assert _is_context_switch(elf, pendsv)
    else:  # the RP2040 port installs its own in the RAM vector table at start-up
        assert _is_context_switch(elf, _address(elf, "xPortPendSVHandler"))
    kconfig = RTOSES.get("freertos").describe(config, {}, "pico")["kconfig"]
    assert kconfig["configNUMBER_OF_CORES"] == "1"
    assert kconfig["port"] == ("GCC/ARM_CM0" if config == "arm-cm0" else "ThirdParty/GCC/RP2040")


def test_nuttx_one_core_image() -> None:
    """raspberrypi-pico without SMP: one running task, the build's .config says so."""
    _nuttx()
    image = RTOSES.get("nuttx").build_baked("pico", "one-core", merged_paths(), WORDS)  # type: ignore[attr-defined]
    flash = _bootable_with(image, WORDS)
    assert b"pico\0" in flash
    assert _symbols(image.with_suffix(".elf")).get("g_running_tasks") == 4
    config = (image.parent / "nuttx" / ".config").read_text()
    assert 'CONFIG_ARCH_BOARD="raspberrypi-pico"' in config
    assert "CONFIG_SMP=y" not in config and "CONFIG_RR_INTERVAL=1\n" in config


def test_one_core_configurations_are_the_picos() -> None:
    """Each port says which Pico configurations are one-core (what the model runs); an
    mps2 machine has none of them, as a spec and as a build."""
    assert one_core_configs(RTOSES.get("freertos"), "pico") == (
        "one-core", "arm-cm0", "arm-cm0-as-mps2")  # fmt: skip
    # each of the overlay's configurations says what the Pico build makes of it
    for config in configs_on(RTOSES.get("freertos"), "pico"):
        assert sdk_config("pico", config).cores in (1, 2)
    assert one_core_configs(RTOSES.get("nuttx"), "pico") == ("one-core",)
    assert one_core_configs(RTOSES.get("ucos3"), "pico") == ("default", "lean")
    assert one_core_configs(RTOSES.get("zephyr"), "pico") == RTOSES.get("zephyr").configs
    assert configs_on(RTOSES.get("freertos"), "mps2-an385") == ("default",)
    with pytest.raises(ConfigError, match=r"arm-cm0.*default on mps2-an385"):
        check_firmware({"rtos": "freertos", "rtos_config": "arm-cm0"}, "mps2-an385")
    check_firmware({"rtos": "freertos", "rtos_config": "arm-cm0"}, "pico")
    with pytest.raises(RtosBuildError, match="configuration 'one-core' on mps2-an385"):
        RTOSES.get("nuttx").build("mps2-an385", "one-core", {"NUTTX_PATH": "/nonexistent"})


def _study_kernel(variable: str, what: str, as_variable: str) -> dict[str, str]:
    """The kernel paths with the STM32 study's older kernel (brought under `variable`, else
    the test skips) in place of the tested one (`as_variable`); the pico-sdk brought too."""
    folder = brought(variable, what, "the STM32 study's kernel" + TESTED)
    _sdk()
    return {**merged_paths(), as_variable: folder}


# The STM32 study's own kernels (FACTS: FreeRTOS V10.2.1, µC/OS-III v3.08.01), brought
# beside the tested ones under variables of their own (README's kernel table).
def test_freertos_v10_2_1_builds_on_the_generic_port() -> None:
    """V10.2.1 has no RP2040 port: `arm-cm0` builds it (its task.h says V10.2.0); the
    RP2040 port's configurations say what to use instead, in one line."""
    paths = _study_kernel(
        "FREERTOS_STUDY_KERNEL_PATH",
        "FreeRTOS-Kernel's tag V10.2.1, its FreeRTOS/Source folder",
        "FREERTOS_KERNEL_PATH",
    )
    port = RTOSES.get("freertos")
    image = port.build_baked("pico", "arm-cm0", paths, WORDS)  # type: ignore[attr-defined]
    _bootable_with(image, WORDS)
    assert port.describe("arm-cm0", paths, "pico")["rtos_version"] == "V10.2.0"
    with pytest.raises(
        RtosBuildError, match=r'no portable/ThirdParty/GCC/RP2040/port.c.*rtos_config = "arm-cm0"'
    ):
        port.build_baked("pico", "one-core", paths, WORDS)  # type: ignore[attr-defined]


def test_ucos3_v3_08_01_builds_on_the_pico() -> None:
    """µC/OS-III v3.08.01 (with uC-CPU v1.32.01, uC-LIB v1.39.01): its os.h says
    V3.08.00."""
    paths = _study_kernel(
        "UCOS3_STUDY_PATH",
        "a folder holding uC-OS3 v3.08.01, uC-CPU v1.32.01 and uC-LIB v1.39.01",
        "UCOS3_PATH",
    )
    for v in ("UCCPU_PATH", "UCLIB_PATH"):
        paths.pop(v, None)
    port = RTOSES.get("ucos3")
    image = port.build_baked("pico", "default", paths, WORDS)  # type: ignore[attr-defined]
    _bootable_with(image, WORDS)
    assert port.describe("default", paths, "pico")["rtos_version"] == "V3.08.00"
