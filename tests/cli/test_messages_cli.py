"""What the CLI says about paths that are not plain input files: `analyze -` (standard
input), `convert` onto an existing file or into missing folders (replaced and made,
like every rtlab writer, and said so; nothing left behind when it fails)."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

from tests.paths import REPO_ROOT

CAPTURE = REPO_ROOT / "examples" / "captures" / "gpio-toggle-pio.csv"


def rtlab(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rtlab.cli", *args],
        capture_output=True, text=True, timeout=120, input=stdin,
        env={**os.environ, "COLUMNS": "1000"},  # one line per message, unwrapped
    )  # fmt: skip


def test_analyze_dash_says_standard_input_is_not_read() -> None:
    got = rtlab("analyze", "-", stdin="10,D0,1\n")
    assert got.returncode == 2
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1 and "-: standard input is not read" in lines[0]
    assert "Traceback" not in got.stderr and got.stdout == ""


def test_convert_says_it_replaced_an_existing_file(tmp_path: Path) -> None:
    out = tmp_path / "g.parquet"
    out.write_bytes(b"old")
    got = rtlab("convert", str(CAPTURE), str(out))
    assert got.returncode == 0, got.stderr
    assert "replaced the file that was there" in got.stderr
    assert out.read_bytes()[:4] == b"PAR1"
    again = rtlab("convert", str(CAPTURE), str(tmp_path / "new.vcd"))
    assert "(replaced" not in again.stderr


def test_convert_says_it_made_missing_folders(tmp_path: Path) -> None:
    out = tmp_path / "a" / "b" / "g.vcd"
    got = rtlab("convert", str(CAPTURE), str(out))
    assert got.returncode == 0, got.stderr
    assert f"made folder {tmp_path / 'a'}" in got.stderr
    assert out.is_file()


def test_failed_convert_leaves_no_file_and_no_folder(tmp_path: Path) -> None:
    """A bad transition time found while the Parquet file is being written (a Saleae
    binary is checked block by block): no file, and the folders made are removed."""
    bad = tmp_path / "digital_0.bin"
    times = [1e-6, float("nan"), 3e-6]
    bad.write_bytes(
        b"<SALEAE>" + struct.pack("<iiIddQ", 0, 0, 0, 0.0, 4e-6, 3)
        + struct.pack("<3d", *times)
    )  # fmt: skip
    out = tmp_path / "x" / "y" / "g.parquet"
    got = rtlab("convert", str(bad), str(out))
    assert got.returncode == 2
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1 and "not a finite number" in lines[0], got.stderr
    assert not (tmp_path / "x").exists()


def test_convert_of_a_missing_file_names_it(tmp_path: Path) -> None:
    got = rtlab("convert", str(tmp_path / "nope.csv"), str(tmp_path / "o.vcd"))
    assert got.returncode == 2 and "nope.csv: no such file" in got.stderr
    assert not (tmp_path / "o.vcd").exists()
