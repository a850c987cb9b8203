"""rtbench on Zephyr's own MCU boards (ports/zephyr/upstream, docs/boards.md): every
image builds (one module-scoped build of the five: each is a whole Zephyr build, about a
minute), its vector table is where the board boots from, its meta names the board, the
counter and the core clock Zephyr's devicetree sets, and the options go into the image.
No board is here: the example spec fails with one line, nothing stored. Skipped (one
line) without ZEPHYR_BASE or without hal_stm32 / hal_rpi_pico in ZEPHYR_MODULES."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from rtlab.lab import uf2_format as uf2
from rtlab.lab.rtos.base import RtosBuildError, merged_paths
from rtlab.lab.rtos.zephyr import RTOS as ZEPHYR
from rtlab.lab.rtos.zephyr import hal_missing
from rtlab.lab.serialboard.errors import SerialBoardError
from rtlab.lab.spec import load_spec
from rtlab.lab.targets.base import make_target
from tests.lab.targets.serial.conftest import PortServer, assert_fails_without_its_probe
from tests.needs import brought, missing_tool
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

BOARDS = ZEPHYR.boards
EXAMPLE = REPO_ROOT / "examples" / "serial" / "nucleo-f411re-zephyr.toml"
# board: (core clock per Zephyr's devicetree, counter, where the vector table is, RAM top)
EXPECT = {
    "nucleo-l073rz": (32_000_000, "zephyr_k_cycle_get_32", 0x08000000, 0x20005000),
    "nucleo-f103rb": (72_000_000, "dwt_cyccnt", 0x08000000, 0x20005000),
    "nucleo-f411re": (96_000_000, "dwt_cyccnt", 0x08000000, 0x20020000),
    "nucleo-h743zi": (96_000_000, "dwt_cyccnt", 0x08000000, 0x24080000),
    "pico": (125_000_000, "zephyr_k_cycle_get_32", 0x10000100, 0x20042000),
}
# meta cold (docs/boards.md "Cold and warm"): what rtb_cache_cold empties on a board
COLD = {"nucleo-f411re": b"art_reset", "nucleo-h743zi": b"icache_dcache_invalidated",
        "pico": b"xip_cache_flushed"}  # fmt: skip


# A family's first boards run in `make test-kernels`; the other boards of the family
# (each a Zephyr build of its own) in `make test-boards`.
FIRST = ("nucleo-f411re", "pico")
EACH_BOARD = [pytest.param(b, marks=() if b in FIRST else pytest.mark.boards) for b in BOARDS]


@pytest.fixture(scope="module")
def zephyr_paths() -> dict[str, str]:
    brought("ZEPHYR_BASE", "a Zephyr tree", "3.4.99; README: bring your own kernels")
    paths = merged_paths()
    why = ZEPHYR.missing(paths) or next(
        (w for b in BOARDS if (w := hal_missing(b, paths.get("ZEPHYR_MODULES", "")))), None
    )
    if why:
        pytest.skip(why)
    missing_tool("deps/apt.txt", "cmake", "arm-none-eabi-gcc")
    return paths


def _image(board: str, paths: dict[str, str]) -> Path:
    return ZEPHYR.build(board, "default", paths)  # built once, then found in build/


def _words_at(elf: Path, addr: int) -> tuple[int, int]:
    for base, data in uf2.elf_segments(elf):
        if base <= addr < base + len(data) - 4:
            return struct.unpack_from("<2I", data, addr - base)
    raise AssertionError(f"{elf.name}: nothing loaded at {addr:#x}")


def test_every_board_has_its_expectations() -> None:
    assert set(BOARDS) == set(EXPECT)


@pytest.mark.parametrize("board", EACH_BOARD)
def test_board_image_builds_with_a_sane_vector_table(
    board: str, zephyr_paths: dict[str, str]
) -> None:
    """Initial SP = a RAM top the board has, reset handler a Thumb address in its flash;
    the Pico's UF2 passed the RP2040 boot ROM's checks (stage-2 CRC) when built."""
    image = _image(board, zephyr_paths)
    _, _, table, ram_top = EXPECT[board]
    elf = image.with_suffix(".elf")
    sp, reset = _words_at(elf, table)
    assert sp <= ram_top and sp >= ram_top - 0x80000, f"{board}: initial SP {sp:#x}"
    flash = table & 0xFF000000
    assert reset & 1 and flash < reset < flash + 0x200000, f"{board}: reset {reset:#x}"
    assert image.suffix == (".uf2" if board == "pico" else ".elf")
    if board == "pico":
        uf2.check_rp2040(uf2.read(image.read_bytes()))


@pytest.mark.parametrize("board", EACH_BOARD)
def test_meta_names_the_board_counter_and_devicetree_clock(
    board: str, zephyr_paths: dict[str, str]
) -> None:
    """What the image prints in its meta (board, clock, cold) is in it; cpu_hz is the core
    clock of Zephyr's devicetree (CONFIG_SYS_CLOCK_HW_CYCLES_PER_SEC follows the rcc node)."""
    image = _image(board, zephyr_paths)
    hz, counter, _, _ = EXPECT[board]
    data = image.with_suffix(".elf").read_bytes()
    assert f"{board}\0".encode() in data and counter.encode() in data, board
    assert b"rtbench: done errors=" in data
    assert COLD.get(board, b"first_call") in data, board
    out = image.parent / "zephyr"
    conf = (out / ".config").read_text()
    assert f"CONFIG_SYS_CLOCK_HW_CYCLES_PER_SEC={hz}\n" in conf, board
    if board != "pico":
        dts = (out / "zephyr.dts").read_text()
        rcc = re.search(r"rcc: rcc@[0-9a-f]+ \{[^}]*?clock-frequency = < (0x[0-9a-f]+) >", dts)
        assert rcc and int(rcc.group(1), 16) == hz, board


def test_options_are_built_into_the_image(zephyr_paths: dict[str, str]) -> None:
    """A probe passes no command line: another option set is another image (one source
    recompiled), carrying the options; quotes cannot go into it."""
    paths = zephyr_paths
    image = ZEPHYR.build_baked("nucleo-f411re", "default", paths, ["--scenarios", "irq"])
    assert image != _image("nucleo-f411re", paths) and b"--scenarios irq\0" in image.read_bytes()
    with pytest.raises(RtosBuildError, match="no quotes"):
        ZEPHYR.build_baked("nucleo-f411re", "default", paths, ['--x="y"'])


def test_a_pico_run_copies_the_zephyr_image_with_the_workloads_options(
    zephyr_paths: dict[str, str], tmp_path: Path, silent_port: PortServer
) -> None:
    """Through the serial target: the run's options are built into Zephyr's Pico image,
    that UF2 lands on the boot drive (a directory standing for it); no Pico behind the
    port, so it then does not answer."""
    drive = tmp_path / "RPI-RP2"
    drive.mkdir()
    (drive / "INFO_UF2.TXT").write_text("UF2 Bootloader v3.0\nBoard-ID: RPI-RP2\n")
    t = make_target(
        {"kind": "serial", "board": "pico", "flasher": "uf2", "uf2_drive": str(drive),
         "port": silent_port.url, "rtos": "zephyr", "answer_s": 0.5}
    )  # fmt: skip
    default = t.program("rtbench-posix")
    assert default == str(_image("pico", zephyr_paths))
    described = t.describe()  # Zephyr's Pico build uses hal_rpi_pico, not the pico-sdk
    assert described["rtos"] == "zephyr" and "pico_sdk_version" not in described
    words = ["--scenarios", "primitives", "--iterations", "50"]
    with pytest.raises(SerialBoardError, match=r"board pico on .* does not answer"):
        t.run([default, *words], timeout=10)
    [copied] = [p for p in drive.iterdir() if p.suffix == ".uf2"]
    assert copied.name != Path(default).name and copied.name.startswith("rtbench-zephyr-pico-")
    blocks = uf2.read(copied.read_bytes())
    uf2.check_rp2040(blocks)
    assert b"--scenarios primitives --iterations 50\0" in b"".join(b.payload for b in blocks)


def test_every_module_in_zephyr_modules_is_in_the_build_identity(tmp_path: Path) -> None:
    """ZEPHYR_MODULES is a ;-separated list: a changed HAL module makes new cells."""
    from rtlab.lab.rtos import identity

    class Port:
        variables = ("ZEPHYR_MODULES",)

        def missing(self, paths: dict[str, str]) -> None:
            return None

    mods = [tmp_path / "cmsis", tmp_path / "hal_stm32"]
    for m in mods:
        m.mkdir()
        (m / "a.h").write_text("/* one */\n")
    paths = {"ZEPHYR_MODULES": ";".join(str(m) for m in mods)}
    first = identity.source_identity(Port(), paths)
    (mods[1] / "a.h").write_text("/* two, longer */\n")
    identity._trees_digest.cache_clear()
    assert identity.source_identity(Port(), paths)["rtos_source"] != first["rtos_source"]


def test_a_missing_hal_module_is_one_line() -> None:
    why = hal_missing("pico", "/work/nonexistent")
    assert why and "hal_rpi_pico" in why and "ZEPHYR_MODULES" in why and "\n" not in why
    assert "hal_stm32" in (hal_missing("nucleo-h743zi", "") or "")


def test_example_loads_and_fails_without_its_probe(tmp_path: Path) -> None:
    """No ST-LINK here: one line naming the board and its OpenOCD configuration, exit 2,
    nothing stored (before anything is built)."""
    spec = load_spec(EXAMPLE)
    assert spec.target["board"] == "nucleo-f411re" and spec.target["rtos"] == "zephyr"
    assert_fails_without_its_probe(
        EXAMPLE, tmp_path, "board nucleo-f411re (board/st_nucleo_f4.cfg)"
    )
