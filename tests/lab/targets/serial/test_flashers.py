"""The real flashers' failures, for real: Debian's openocd with no probe plugged in, and
a Pico whose boot drive is not mounted. Each stops `rtlab run` before any run, one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlab.lab import uf2_format as uf2
from rtlab.lab.serialboard.errors import ProbeMissing
from rtlab.lab.targets.base import make_target
from tests.conftest import rtlab
from tests.lab.targets.serial.conftest import PortServer
from tests.needs import tool

NUCLEO = 'board = "nucleo-f4-test"\nopenocd_config = "board/st_nucleo_f4.cfg"\nbaud = 115200\n'
PICO = 'board = "pico-test"\nuf2_drive = "RPI-RP2-RTLAB-TEST"\n'


def test_openocd_starts_and_reports_no_probe(tmp_path: Path, silent_port: PortServer) -> None:
    tool("openocd", "deps/apt.txt")
    desc = tmp_path / "nucleo.toml"
    desc.write_text(NUCLEO)
    spec = tmp_path / "s.toml"
    spec.write_text(
        f'name = "s"\n[target]\nkind = "serial"\nboard = "{desc}"\nflasher = "openocd"\n'
        f'port = "{silent_port.url}"\nimage = "{tmp_path / "x.elf"}"\nbuiltin_args = true\n'
        '[[workload]]\nkind = "command"\nname = "x"\nseconds = 1\nargv = [["x.elf"]]\n'
    )
    proc = rtlab("run", str(spec), "--store", str(tmp_path / "st.duckdb"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    err = proc.stderr.strip()
    assert "openocd finds no debug probe for board nucleo-f4-test (board/st_nucleo_f4.cfg)" in err
    assert "open failed" in err and "Traceback" not in err and len(err.splitlines()) == 1


def test_uf2_without_a_boot_drive(tmp_path: Path, silent_port: PortServer) -> None:
    desc = tmp_path / "pico.toml"
    desc.write_text(PICO)
    with pytest.raises(ProbeMissing, match=r"no RPI-RP2-RTLAB-TEST boot drive mounted.*BOOTSEL"):
        make_target(
            {
                "kind": "serial",
                "board": str(desc),
                "flasher": "uf2",
                "port": silent_port.url,
                "image": str(tmp_path / "x.uf2"),
            }
        )


def test_uf2_copies_onto_the_drive(tmp_path: Path, silent_port: PortServer) -> None:
    """A mounted boot drive is a directory with INFO_UF2.TXT: the image is copied onto it
    (a .uf2 only); no Pico is behind this one, so the board then does not answer."""
    desc = tmp_path / "pico.toml"
    desc.write_text(PICO)
    drive = tmp_path / "RPI-RP2"
    drive.mkdir()
    (drive / "INFO_UF2.TXT").write_text("UF2 Bootloader v3.0\nBoard-ID: RPI-RP2\n")
    image = tmp_path / "rtbench.uf2"
    image.write_bytes(uf2.write({0x20000000: b"\x5a" * 256}))  # an SRAM image: no stage 2
    t = make_target(
        {
            "kind": "serial",
            "board": str(desc),
            "flasher": "uf2",
            "uf2_drive": str(drive),
            "port": silent_port.url,
            "image": str(image),
            "answer_s": 0.5,
        }
    )
    with pytest.raises(Exception, match="does not answer"):
        t.run([str(image)], timeout=10)
    assert (drive / "rtbench.uf2").read_bytes() == image.read_bytes()
