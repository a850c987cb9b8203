"""The serial target on an emulated serial board: QEMU mps2 under icount started by the
`qemu` flasher, read through the target's own serial code (pyserial socket://). The
figures it stores are those of the direct `qemu` target (icount: identical), and each way
a board run can fail is one clear error with nothing stored."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rtlab.lab.runner import run_spec
from rtlab.lab.serialboard.errors import BoardSilent, SerialBoardError, WrongImage
from rtlab.lab.spec import load_spec, parse_spec
from rtlab.lab.targets import qemu as tq
from rtlab.lab.targets.base import make_target
from rtlab.protocol import parse
from rtlab.results import Store
from tests.conftest import rtlab
from tests.lab.targets.labgrid.test_mps2_places import _stored
from tests.lab.targets.qemu_mps2.conftest import QUICK
from tests.lab.targets.serial.conftest import PortServer, free_port
from tests.needs import brought, missing_tool
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

EXAMPLE = REPO_ROOT / "examples" / "serial" / "mps2-freertos.toml"
TARGET = re.compile(r"^\[target\]\n(?:(?!\[).*\n)*", re.M)
DIRECT = '[target]\nkind = "qemu"\nmachine = "mps2-an385"\nicount_shift = 0\nrtos = "freertos"\n\n'


def _freertos() -> None:
    brought(
        "FREERTOS_KERNEL_PATH",
        "a FreeRTOS-Kernel checkout",
        "V11.3.0 from github.com/FreeRTOS/FreeRTOS-Kernel; README: bring your own kernels",
    )


def test_example_spec_stores_what_the_qemu_target_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/serial-target.md's spec: rtbench on FreeRTOS through the serial target, and
    the same spec through the direct qemu target: every sample, counter and meta equal."""
    _freertos()
    monkeypatch.chdir(REPO_ROOT)
    spec = load_spec(EXAMPLE)
    with Store(tmp_path / "serial" / "rtlab.duckdb") as st:
        out = run_spec(spec, st)
        assert [r.status for r in out.runs] == ["ok", "ok"], [r.message for r in out.runs]
        rows = st.runs(spec_name=spec.name)
        assert {r["target"]["kind"] for r in rows} == {"serial"}
        assert {r["target"]["flasher"] for r in rows} == {"qemu"}
        via_serial = _stored(st, spec.name)
    assert len(via_serial) == 2
    meta, series, _ = next(iter(via_serial.values()))
    assert meta["primitives@1/timebase"] == "icount"
    assert meta["irq@1/board"] == "mps2-an385" and meta["irq@1/rtos"] == "freertos"
    assert {"primitives@1/sem_give", "irq@1/isr_handler"} <= set(series)
    assert len(series["primitives@1/sem_give"]) > 0

    direct = parse_spec(TARGET.sub(DIRECT, EXAMPLE.read_text()), EXAMPLE)
    with Store(tmp_path / "direct" / "rtlab.duckdb") as st:
        assert {r.status for r in run_spec(direct, st).runs} == {"ok"}
        by_qemu = _stored(st, direct.name)
    assert by_qemu == via_serial


def test_rtbench_output_is_byte_identical_to_the_qemu_target() -> None:
    """The whole suite's output, read over the serial socket, is what QEMU's stdio gave
    (the image built by the FreeRTOS port, as the example spec builds it)."""
    _freertos()
    t = make_target({"kind": "serial", "board": "mps2-an385", "flasher": "qemu"})
    elf = t.program("rtbench-posix")
    done = t.run([elf, *QUICK.split()], timeout=120)
    direct = tq.run_qemu(elf, append=QUICK, timeout_s=120, meta={"rtos_config": "default"})
    assert done.returncode == direct.exit_status == 0 and not done.timed_out
    assert done.stdout == direct.output
    assert len(parse(done.stdout)) == 5  # every scenario's run


def test_smoke_image_exit_status_and_labels(smoke_dir: Path) -> None:
    """No kernel needed: the smoke firmware's semihosting exit status comes back, and its
    output says it is an instruction-count model, as the qemu target's does."""
    elf = str(smoke_dir / "mps2-smoke-an386.elf")
    t = make_target({"kind": "serial", "board": "mps2-an386", "flasher": "qemu", "image": elf})
    assert t.describe()["timebase"] == "icount"
    assert t.program("rtbench-posix") == elf
    done = t.run([elf, "--exit", "3"], timeout=30)
    direct = tq.run_qemu(elf, machine="mps2-an386", append="--exit 3", timeout_s=30)
    assert done.returncode == direct.exit_status == 3
    assert done.stdout == direct.output and done.labels == direct.labels
    assert done.runs is not None and [r.meta for r in done.runs] == [r.meta for r in direct.runs]
    assert done.runs[0].meta["qemu_machine"] == "mps2-an386"


def test_a_fixed_port_is_where_qemu_listens(smoke_dir: Path) -> None:
    """`port` with the qemu flasher: QEMU listens there (a labgrid NetworkSerialPort)."""
    elf = str(smoke_dir / "mps2-smoke-an385.elf")
    port = free_port()
    t = make_target(
        {
            "kind": "serial",
            "board": "mps2-an385",
            "flasher": "qemu",
            "image": elf,
            "port": f"socket://127.0.0.1:{port}",
        }
    )
    done = t.run([elf], timeout=30)
    assert done.returncode == 0 and "@rtl1 end" in done.stdout


def _spec(tmp_path: Path, target: str, elf: Path) -> Path:
    spec = tmp_path / "s.toml"
    spec.write_text(
        f'name = "s"\n[target]\nkind = "serial"\n{target}\n'
        f'[[workload]]\nkind = "command"\nname = "smoke"\nseconds = 1\nargv = [["{elf}"]]\n'
    )
    return spec


def _fails_alone(tmp_path: Path, target: str, elf: Path, says: str) -> str:
    """`rtlab run`: exit 2, one line (no traceback) saying `says`, and no run stored at
    all; returns the line."""
    store = tmp_path / "st.duckdb"
    proc = rtlab("run", str(_spec(tmp_path, target, elf)), "--store", str(store))
    err = proc.stderr.strip()
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert says in err and "Traceback" not in err, err
    assert len([ln for ln in err.splitlines() if ln.startswith("rtlab: error")]) == 1, err
    if store.exists():
        with Store(store) as st:
            assert st.runs() == []
            assert st.sql("SELECT count(*) FROM series")[0][0] == 0
    return err


def test_wrong_board_in_meta_is_one_error(smoke_dir: Path, tmp_path: Path) -> None:
    """An mps2-an385 image on a board described as mps2-an386: the image says
    board=mps2-an385 in its meta, so the run stops at once."""
    elf = smoke_dir / "mps2-smoke-an385.elf"
    line = _fails_alone(
        tmp_path, 'board = "mps2-an386"\nflasher = "qemu"', elf, "wrong image on board mps2-an386"
    )
    assert "board=mps2-an385" in line and "expects board=mps2-an386" in line


def test_wrong_firmware_in_meta_is_one_error(smoke_dir: Path) -> None:
    """The right board but not the RTOS the spec builds: the smoke image names none."""
    elf = str(smoke_dir / "mps2-smoke-an385.elf")
    t = make_target(
        {
            "kind": "serial",
            "board": "mps2-an385",
            "flasher": "qemu",
            "image": elf,
            "rtos": "freertos",
        }
    )
    with pytest.raises(WrongImage, match="names no rtos"):
        t.run([elf], timeout=30)


def test_a_board_that_does_not_answer(
    smoke_dir: Path, tmp_path: Path, silent_port: PortServer
) -> None:
    target = f'board = "mps2-an385"\nport = "{silent_port.url}"\nanswer_s = 1'
    line = _fails_alone(tmp_path, target, smoke_dir / "mps2-smoke-an385.elf", "does not answer")
    assert "nothing received within 1 s of reset" in line


def test_a_board_that_says_something_else(smoke_dir: Path, noisy_port: PortServer) -> None:
    elf = str(smoke_dir / "mps2-smoke-an385.elf")
    t = make_target(
        {
            "kind": "serial",
            "board": "mps2-an385",
            "port": noisy_port.url,
            "answer_s": 1,
            "image": elf,
        }
    )
    with pytest.raises(BoardSilent, match=r"does not speak the protocol: \d+ bytes.*baud"):
        t.run([elf], timeout=30)


def test_nothing_listening_stops_before_any_run(smoke_dir: Path, tmp_path: Path) -> None:
    target = f'board = "mps2-an385"\nport = "socket://127.0.0.1:{free_port()}"'
    line = _fails_alone(
        tmp_path, target, smoke_dir / "mps2-smoke-an385.elf", "cannot open serial port"
    )
    assert "refused" in line.lower()


def test_a_probe_cannot_pass_options(smoke_dir: Path, silent_port: PortServer) -> None:
    """A real flasher cannot give the image a command line: said, unless builtin_args."""
    elf = str(smoke_dir / "mps2-smoke-an385.elf")
    t = make_target({"kind": "serial", "board": "mps2-an385", "port": silent_port.url})
    with pytest.raises(SerialBoardError, match=r"cannot give .* a command line"):
        t.run([elf, "--exit", "3"], timeout=30)


def test_a_host_load_condition_is_refused(tmp_path: Path) -> None:
    """rtlab's loads run on this host, not on the MCU: refused at spec load."""
    spec = tmp_path / "s.toml"
    spec.write_text(
        'name = "s"\nconditions = ["idle", "load"]\n[target]\nkind = "serial"\n'
        'board = "mps2-an385"\nflasher = "qemu"\nimage = "x.elf"\n'
        '[[workload]]\nkind = "command"\nname = "x"\nseconds = 1\nargv = [["x.elf"]]\n'
    )
    proc = rtlab("run", str(spec), "--store", str(tmp_path / "s.duckdb"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "s.toml:2: conditions" in proc.stderr and "load this host, not the board" in proc.stderr


@pytest.mark.parametrize(
    ("target", "key", "says"),
    [
        ('board = "nope"', "board", "no board description; known: mps2-an385"),
        ('board = "mps2-an385"\nflasher = "jtag"', "kind", "unknown flasher 'jtag'"),
        ('board = "mps2-an385"', "port", "serial port"),
        (
            'board = "mps2-an385"\nflasher = "openocd"\nport = "/dev/null"',
            "flasher",
            "openocd_config",
        ),
        ('board = "mps2-an385"\nflasher = "qemu"\nport = "/dev/ttyS0"', "port", "socket://"),
        (
            'board = "mps2-an385"\nflasher = "none"\nport = "x"\nicount_shift = 0',
            "icount_shift",
            "only for",
        ),
        ('board = "mps2-an385"\nflasher = "qemu"\nrtos = "vxworks"', "rtos", "expected one of"),
    ],
)
def test_spec_mistakes(target: str, key: str, says: str, tmp_path: Path) -> None:
    proc = rtlab(
        "run",
        str(_spec(tmp_path, target, tmp_path / "x.elf")),
        "--store",
        str(tmp_path / "s.duckdb"),
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert says in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "s.duckdb").exists() or os.path.getsize(tmp_path / "s.duckdb") >= 0


NETDUINO = """\
board = "netduinoplus2"          # what its image prints in meta board=
qemu_machine = "netduinoplus2"
qemu_serial = 1                  # USART2: QEMU's second -serial
"""


def test_netduinoplus2_usart2_is_one_more_description(tmp_path: Path) -> None:
    """An STM32F405 image on QEMU netduinoplus2 printing on USART2 (the UART a Nucleo's
    ST-LINK carries), through the same serial code: only a description file differs."""
    missing_tool("deps/apt.txt", "arm-none-eabi-gcc", tq.QEMU)
    src = Path(__file__).with_name("netduino_usart2.c")
    (tmp_path / "u2.ld").write_text(
        "MEMORY { FLASH (rx) : ORIGIN = 0x08000000, LENGTH = 1M "
        "RAM (rwx) : ORIGIN = 0x20000000, LENGTH = 128K }\n"
        "SECTIONS { .text : { KEEP(*(.vectors)) *(.text*) *(.rodata*) } > FLASH }\n"
    )
    elf = tmp_path / "u2.elf"
    subprocess.run(
        ["arm-none-eabi-gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-mcpu=cortex-m4",
         "-mthumb", "-O1", "-nostdlib", "-ffreestanding", "-T", str(tmp_path / "u2.ld"),
         str(src), "-o", str(elf)],
        check=True,
    )  # fmt: skip
    desc = tmp_path / "netduinoplus2.toml"
    desc.write_text(NETDUINO)
    t = make_target({"kind": "serial", "board": str(desc), "flasher": "qemu", "image": str(elf)})
    done = t.run([str(elf)], timeout=30)
    assert done.returncode == 0 and not done.timed_out
    (run,) = done.read_runs("netduino")
    assert run.status == "ok" and run.meta["board"] == "netduinoplus2"
    assert run.meta["qemu_machine"] == "netduinoplus2" and run.counters["bytes"][0] == 2


def test_sigterm_mid_run_stops_the_emulated_board(tmp_path: Path) -> None:
    """SIGTERM of `rtlab run` while the board prints: the run is marked interrupted and
    the QEMU the flasher started is gone."""
    _freertos()
    spec = tmp_path / "long.toml"
    spec.write_text(
        'name = "long"\n[target]\nkind = "serial"\nboard = "mps2-an385"\nflasher = "qemu"\n'
        'rtos = "freertos"\n[[workload]]\nkind = "rtbench"\nscenarios = ["threadmetric"]\n'
        "window_ms = 3000\n"
    )
    store = tmp_path / "st.duckdb"
    proc = subprocess.Popen(
        [sys.executable, "-m", "rtlab.cli", "run", str(spec), "--store", str(store)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )

    def qemus() -> list[str]:
        """The QEMUs rtlab started (its children; they run in sessions of their own)."""
        found = subprocess.run(
            ["pgrep", "-P", str(proc.pid), "qemu-system-arm"], capture_output=True, text=True
        )
        return found.stdout.split()

    deadline = time.monotonic() + 120
    while not qemus():  # the board is printing (the FreeRTOS image may build first)
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[0]
        time.sleep(0.2)
    started = set(qemus())
    time.sleep(1)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, out
    assert not any(Path(f"/proc/{pid}").exists() for pid in started)
    with Store(store) as st:
        assert [r["status"] for r in st.runs()] == ["interrupted"]
