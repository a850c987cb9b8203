"""The STM32 board layer (workloads/rtbench/boards/stm32, docs/boards.md): every board's
image builds (the smoke image always, rtbench on each kernel that is brought), and the
F4 code runs on QEMU's netduinoplus2 through the serial target, FreeRTOS and µC/OS-III,
its figures stored. The Nucleos themselves are not here: their example spec fails with
one line, nothing stored (the openocd and port errors are test_flashers' and
test_emulated's)."""

from __future__ import annotations

import os
import statistics
import struct
import subprocess
from pathlib import Path

import pytest

from rtlab.catalog.machines import BOARDS_DIR, MACHINES
from rtlab.lab.boards.layers import build_layer
from rtlab.lab.runner import run_spec
from rtlab.lab.serialboard.description import board_description
from rtlab.lab.spec import load_spec, parse_spec
from rtlab.lab.targets import qemu as tq
from rtlab.lab.targets.base import make_target
from rtlab.results import Store
from tests.conftest import rtlab
from tests.lab.targets.labgrid.test_mps2_places import _stored
from tests.lab.targets.serial.conftest import assert_fails_without_its_probe
from tests.needs import brought, missing_tool
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

# Every machine file of the stm32 layer (its name is the file's stem: what images print)
BOARDS = tuple(m.name for m in MACHINES.values() if m.layer == "stm32")
STM32_DIR = BOARDS_DIR / "stm32"


def build_stm32(defines: dict, what: str) -> Path:
    """The stm32 layer (every board's images) built with these kernels."""
    return build_layer(MACHINES.get("nucleo-f411re"), defines, what)


EXAMPLE = REPO_ROOT / "examples" / "serial" / "netduinoplus2-freertos.toml"
NUCLEO = REPO_ROOT / "examples" / "serial" / "nucleo-f411re-freertos.toml"
NUCLEOS = ("nucleo-f103rb", "nucleo-f411re", "nucleo-h743zi", "nucleo-l073rz")


def _tools() -> None:
    missing_tool("deps/apt.txt", "cmake", "arm-none-eabi-gcc", tq.QEMU)


def _freertos() -> str:
    return brought(
        "FREERTOS_KERNEL_PATH",
        "a FreeRTOS-Kernel checkout",
        "V11.3.0 from github.com/FreeRTOS/FreeRTOS-Kernel; README: bring your own kernels",
    )


def _ucos3() -> str:
    return brought(
        "UCOS3_PATH",
        "a folder holding uC-OS3, uC-CPU and uC-LIB",
        "github.com/weston-embedded; README: bring your own kernels",
    )


def _reset_vector(elf: Path) -> tuple[int, int]:
    """The initial stack pointer and reset handler: the first two words of the image's
    first loadable segment (the vector table, at the flash base)."""
    data = elf.read_bytes()
    phoff, phentsize = struct.unpack_from("<I", data, 28)[0], struct.unpack_from("<H", data, 42)[0]
    for i in range(struct.unpack_from("<H", data, 44)[0]):
        p_type, offset, _, paddr, filesz = struct.unpack_from("<5I", data, phoff + i * phentsize)
        if p_type == 1 and filesz >= 8:
            assert paddr == 0x08000000, f"{elf.name}: first segment at {paddr:#x}, not flash"
            sp, reset = struct.unpack_from("<2I", data, offset)
            return sp, reset
    raise AssertionError(f"{elf.name}: no loadable segment")


def _check_image(out: Path, name: str) -> None:
    elf = out / f"{name}.elf"
    assert elf.is_file(), f"{name}.elf was not built"
    sp, reset = _reset_vector(elf)
    assert sp in (0x20005000, 0x20020000), f"{name}: initial SP {sp:#x} is not the RAM's top"
    assert reset & 1 and 0x08000000 < reset < 0x08200000, f"{name}: reset {reset:#x}"
    bin_ = out / f"{name}.bin"
    assert bin_.read_bytes()[:8] == struct.pack("<2I", sp, reset), f"{name}.bin"


def test_every_board_has_a_description() -> None:
    """The serial target finds every board by name; the Nucleos name their probe."""
    assert set(BOARDS) == {"netduinoplus2", *NUCLEOS}
    for board in NUCLEOS:
        desc = board_description(board)
        assert desc.name == board and not desc.qemu_machine  # no emulator runs it
        assert desc.openocd_config and desc.pyocd_target == board.replace("nucleo-", "stm32")
    qemu = board_description("netduinoplus2")
    assert (qemu.qemu_machine, qemu.qemu_serial) == ("netduinoplus2", 1)


def test_smoke_images_build_and_run_on_netduinoplus2() -> None:
    """No kernel needed: every board's bare-metal image builds; on netduinoplus2 the
    layer's USART2 and TIM2 give exact figures under icount (1 tick per instruction)."""
    _tools()
    out = build_stm32({}, "nokernel")
    for board in BOARDS:
        _check_image(out, f"stm32-smoke-{board}")
    elf = str(out / "stm32-smoke-netduinoplus2.elf")
    t = make_target({"kind": "serial", "board": "netduinoplus2", "flasher": "qemu", "image": elf})
    done = t.run([elf, "--exit", "3"], timeout=30)
    assert done.returncode == 3 and not done.timed_out, done.stdout
    (run,) = done.read_runs("netduinoplus2")  # the flasher's labels travel beside the text
    assert run.meta["board"] == "netduinoplus2" and run.meta["clock"] == "tim2"
    assert run.meta["timebase"] == "icount" and run.counters["icount_hz"][0] == 1_000_000_000
    assert set(run.series["loop_2000_insn"].values.tolist()) == {2002}  # + two counter reads
    assert run.counters["swi_runs"][0] == 16


def test_every_board_image_builds_with_freertos() -> None:
    kernel = _freertos()
    _tools()
    out = build_stm32({"FREERTOS_KERNEL_PATH": kernel}, "freertos")
    for board in BOARDS:
        _check_image(out, f"rtbench-freertos-{board}")


def test_ucos3_images_build_on_every_board() -> None:
    """µC/OS-III on every board: ARMv7-M on the M3/M4/M7, ARMv6-M on the L073's M0+, and
    the 20 KiB parts (L073, F103) with the small pools and stacks (docs/boards.md);
    each image's vector table at the flash base, its stack at the RAM's top."""
    top = _ucos3()
    _tools()
    from rtlab.lab.rtos.ucos3 import checkouts

    found = checkouts({"UCOS3_PATH": top, **os.environ})
    assert not isinstance(found, str), found
    out = build_stm32(found, "ucos3")
    for board in BOARDS:
        for name in (f"rtbench-ucos3-{board}", f"rtbench-ucos3-lean-{board}"):
            _check_image(out, name)
    # The L0's image is ARMv6-M code throughout, the kernel's port included.
    attrs = subprocess.run(
        ["arm-none-eabi-readelf", "-A", str(out / "rtbench-ucos3-nucleo-l073rz.elf")],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "Tag_CPU_arch: v6S-M" in attrs, attrs


def _sane(st: Store, spec_name: str, rtos: str) -> dict[str, float]:
    """One ok run per scenario, labelled emulated, every sample of a series equal (icount),
    and the kernel's costs in a plausible range of instructions; the medians."""
    ((meta, series, counters),) = _stored(st, spec_name).values()
    for scenario in ("primitives", "irq"):
        assert meta[f"{scenario}@1/board"] == "netduinoplus2"
        assert meta[f"{scenario}@1/rtos"] == rtos
        assert meta[f"{scenario}@1/clock"] == "tim2_icount"
        assert meta[f"{scenario}@1/timebase"] == "icount"
    med = {k.split("/")[1]: statistics.median(v) for k, v in series.items() if v}
    assert all(len(set(v)) == 1 for v in series.values()), "icount: every sample equal"
    assert dict(counters)["irq@1/isr_lost"] == 0
    assert 5 <= med["gpio_set"] <= 40  # a BSRR store between two counter reads
    # the kernel's give and take alone (inline in the scenario, no timeout conversion)
    assert 60 <= med["sem_give"] + med["sem_take"] <= 400
    for switch in ("preempt_sem", "return_sem", "preempt_queue", "return_queue"):
        assert med["sem_give"] < med[switch] < 1500, switch  # a give, plus a task switch
    assert 10 <= med["isr_handler"] < med["isr_task"] < 1500
    return med


def test_netduinoplus2_runs_freertos_through_the_serial_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The example spec: the F4 layer's FreeRTOS image on netduinoplus2, read over
    USART2's socket, stored."""
    _freertos()
    monkeypatch.chdir(REPO_ROOT)
    spec = load_spec(EXAMPLE)
    with Store(tmp_path / "rtlab.duckdb") as st:
        out = run_spec(spec, st)
        assert [r.status for r in out.runs] == ["ok"], [r.message for r in out.runs]
        (row,) = st.runs(spec_name=spec.name)
        assert row["target"]["flasher"] == "qemu" and row["target"]["board"] == "netduinoplus2"
        _sane(st, spec.name, "freertos")


def test_netduinoplus2_runs_ucos3_through_the_serial_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _ucos3()
    monkeypatch.chdir(REPO_ROOT)
    text = EXAMPLE.read_text().replace('rtos = "freertos"', 'rtos = "ucos3"')
    spec = parse_spec(text.replace("serial-netduinoplus2-freertos", "nd2-ucos3"), EXAMPLE)
    with Store(tmp_path / "rtlab.duckdb") as st:
        out = run_spec(spec, st)
        assert [r.status for r in out.runs] == ["ok"], [r.message for r in out.runs]
        _sane(st, "nd2-ucos3", "ucos3")


def test_nucleo_example_loads_and_fails_without_its_probe(tmp_path: Path) -> None:
    """The NUCLEO-F411RE example is a valid spec; here no ST-LINK is plugged in: one line
    naming the board and its OpenOCD configuration, exit 2, nothing stored."""
    spec = load_spec(NUCLEO)
    assert spec.target["board"] == "nucleo-f411re" and spec.target["flasher"] == "openocd"
    assert_fails_without_its_probe(NUCLEO, tmp_path, "board nucleo-f411re (board/st_nucleo_f4.cfg)")


@pytest.mark.parametrize(
    ("target", "says"),
    [
        ('board = "nucleo-f103rb"\nflasher = "qemu"', "names no qemu_machine"),
        (
            'board = "mps2-an500"\nport = "x"\nrtos = "ucos3"',
            "µC/OS-III runs on mps2-an385, mps2-an386, mps2-an505, microbit, pico, pico2, "
            "netduinoplus2",
        ),
    ],
)
def test_board_mistakes(tmp_path: Path, target: str, says: str) -> None:
    """A Nucleo cannot be emulated; µC/OS-III is not offered on the an500: one line each."""
    spec = tmp_path / "s.toml"
    spec.write_text(
        f'name = "s"\n[target]\nkind = "serial"\n{target}\n'
        '[[workload]]\nkind = "rtbench"\nscenarios = ["primitives"]\n'
    )
    proc = rtlab("run", str(spec), "--store", str(tmp_path / "s.duckdb"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert says in proc.stderr, proc.stderr


def test_the_studys_8_mhz_builds(tmp_path: Path) -> None:
    """docs/boards.md's 8 MHz build (the clock the study measured at): every Nucleo's
    tree compiles, and the image carries that SYSCLK."""
    _tools()
    out = tmp_path / "b"
    toolchain = REPO_ROOT / "workloads" / "rtbench" / "boards" / "cmake" / "arm-none-eabi.cmake"
    for cmd in (
        ["cmake", "-S", str(STM32_DIR), "-B", str(out), f"-DCMAKE_TOOLCHAIN_FILE={toolchain}",
         "-DCMAKE_BUILD_TYPE=Release", "-DRTB_STM32_SYSCLK_HZ=8000000"],
        ["cmake", "--build", str(out), "-j2"],
    ):  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, env=_no_kernels())
        assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    for board in NUCLEOS:
        _check_image(out, f"stm32-smoke-{board}")
        flags = (out / "CMakeFiles" / f"stm32_{board}.dir" / "flags.make").read_text()
        assert "-DSTM32_SYSCLK_HZ=8000000u" in flags and "-DBOARD_COUNTER_HZ=8000000u" in flags


def _no_kernels() -> dict[str, str]:
    """The environment without kernel paths: the smoke images alone."""
    drop = ("FREERTOS_KERNEL_PATH", "UCOS3_PATH", "UCCPU_PATH", "UCLIB_PATH")
    return {k: v for k, v in os.environ.items() if k not in drop}


@pytest.mark.parametrize(
    ("board", "counter"),
    [
        # the M0+: no DWT, TIM2 extended in software
        pytest.param("nucleo-l073rz", b"tim2", marks=pytest.mark.boards),
        pytest.param("nucleo-f103rb", b"dwt_cyccnt", marks=pytest.mark.boards),
        # NuttX's own board builds (minutes each, cold): all in make test-boards; the
        # family's first board runs FreeRTOS and µC/OS-III in make test-kernels
        pytest.param("nucleo-f411re", b"dwt_cyccnt", marks=pytest.mark.boards),
        pytest.param("nucleo-h743zi", b"dwt_cyccnt", marks=pytest.mark.boards),
    ],
)
def test_nuttx_builds_for_an_upstream_nucleo(board: str, counter: bytes) -> None:
    """NuttX's own Nucleo boards (their nsh defconfig, rtbench appended), build only: the
    board's counter, the cold hook's tokens (the cache state is read at run time), the
    ARM ELF NuttX links."""
    brought(
        "NUTTX_PATH",
        "an apache/nuttx checkout (NUTTX_APPS_PATH: nuttx-apps)",
        "README: bring your own kernels",
    )
    from rtlab.lab.rtos.base import merged_paths
    from rtlab.lab.rtos.nuttx import RTOS

    elf = RTOS.build(board, "default", merged_paths())
    data = elf.read_bytes()
    assert data[:4] == b"\x7fELF" and data[18] == 40  # e_machine EM_ARM
    assert board.encode() in data and counter in data and b"rtbench: done errors=" in data
    assert b"first_call" in data
    if board in ("nucleo-f411re", "nucleo-h743zi"):  # caches NuttX's board code may turn on
        assert (b"art_reset" if board == "nucleo-f411re" else b"icache_invalidated") in data
