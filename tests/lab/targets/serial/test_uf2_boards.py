"""The serial target's `uf2` flasher on each board with a boot-ROM drive (the Pico's
RPI-RP2, the Pico 2's RP2350), one test per board and case: a spec run without the
board is one error naming the drive; an image the board's boot ROM would not boot never
reaches the drive. The copy with the workload's options: copied_image, used by
test_pico and test_pico2 with their own checks of the image."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rtlab.catalog.machines import MACHINES
from rtlab.lab import uf2_format as uf2
from rtlab.lab.serialboard.errors import SerialBoardError
from rtlab.lab.targets.base import make_target
from rtlab.results import Store
from tests.conftest import rtlab
from tests.lab.targets.serial.conftest import PortServer
from tests.paths import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples" / "serial"
# what each boot ROM writes in its drive's INFO_UF2.TXT
INFO = {
    "RPI-RP2": "UF2 Bootloader v3.0\nBoard-ID: RPI-RP2\n",
    "RP2350": "UF2 Bootloader v1.0\nModel: Raspberry Pi RP2350\n",
}


def boot_drive(tmp_path: Path, board: str) -> Path:
    """A folder as the board's boot ROM mounts it (named by its machine file's uf2_drive)."""
    name = MACHINES.get(board).get("uf2_drive")
    drive = tmp_path / name
    drive.mkdir()
    (drive / "INFO_UF2.TXT").write_text(INFO[name])
    return drive


def uf2_target(board: str, drive: Path, port: PortServer, **keys: Any) -> Any:
    """The serial target flashing `board` through `drive`, reading `port`."""
    return make_target(
        {"kind": "serial", "board": board, "flasher": "uf2", "uf2_drive": str(drive),
         "port": port.url, **keys}
    )  # fmt: skip


def copied_image(board: str, tmp_path: Path, port: PortServer, words: list[str]) -> Path:
    """A FreeRTOS run of rtbench with `words` on `board` (no board behind `port`, so it
    does not answer): the image on the drive is the one built with those options, not
    the default image; returns the built one (its .elf beside it)."""
    drive = boot_drive(tmp_path, board)
    t = uf2_target(board, drive, port, rtos="freertos", answer_s=0.5)
    default = t.program("rtbench-posix")
    with pytest.raises(SerialBoardError, match=rf"board {board} on .* does not answer"):
        t.run([default, *words], timeout=10)
    [copied] = [p for p in drive.iterdir() if p.suffix == ".uf2"]
    built = Path(default).parent / copied.name
    assert copied.name != Path(default).name and copied.read_bytes() == built.read_bytes()
    return built


@pytest.mark.parametrize(
    ("spec", "board"),
    [("pico-freertos-smp", "pico"), ("pico-nuttx-smp", "pico"), ("pico2-freertos", "pico2")],
)
def test_run_without_the_board_is_one_error(spec: str, board: str, tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    proc = rtlab("run", str(EXAMPLES / f"{spec}.toml"), "--store", str(store))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    drive = MACHINES.get(board).get("uf2_drive")
    assert f"no {drive} boot drive mounted for board {board}: hold BOOTSEL" in err
    assert not store.exists() or Store(store).runs() == []


@pytest.mark.parametrize(
    ("board", "data", "says"),
    [
        ("pico", uf2.write({0x10000100: bytes(256)}), "stage 2"),  # none at 0x10000000
        ("pico2", uf2.write({0x10000000: bytes(256)}), "family 0xe48bff56, not RP2350_ARM_S"),
        ("pico2", uf2.write({0x10000000: bytes(256)}, 0xE48BFF59), "no IMAGE_DEF block"),
    ],
    ids=["pico-no-stage-2", "pico2-rp2040-image", "pico2-no-image-def"],
)
def test_a_wrong_image_never_reaches_the_drive(
    tmp_path: Path, silent_port: PortServer, board: str, data: bytes, says: str
) -> None:
    drive = boot_drive(tmp_path, board)
    image = tmp_path / "x.uf2"
    image.write_bytes(data)
    t = uf2_target(board, drive, silent_port, image=str(image), builtin_args=True)
    wrong = rf"x\.uf2 is not an image for board {board}: .*{says}"
    with pytest.raises(SerialBoardError, match=wrong):
        t.run([str(image)], timeout=10)
    assert sorted(p.name for p in drive.iterdir()) == ["INFO_UF2.TXT"]
