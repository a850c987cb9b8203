"""End to end: `rtlab capture rp2040` opens the emulated module through a pseudo-terminal
as a serial port, writes a Parquet capture, and `rtlab analyze` finds the periods."""

from __future__ import annotations

import json
import os
import tty
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import rtlab
from rtlab import formats
from rtlab.cli import app
from tests.instruments.rp2040 import harness as h

needs_emulator = pytest.mark.usefixtures("emulator_tools")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "/nonexistent/tty"], "cannot open /nonexistent/tty"),
        (["--channels", "0-3"], "at most 8 GPIOs within 2..28"),
        (["--channels", "2,4"], "consecutive"),
        (["--channels", "2-3", "--names", "a"], "1 names for 2 channels"),
        (["--duration", "10"], "duration needs a unit"),
        (["--channels", "2-6", "--resolution", "8ns"], "4 channels at most"),
        (["--resolution", "4ns"], "16ns or 8ns"),
    ],
)
def test_cli_user_mistakes_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    res = CliRunner().invoke(app, ["capture", "rp2040", "-o", str(tmp_path / "x.parquet"), *args])
    assert res.exit_code == 2
    assert message in res.output and "Traceback" not in res.output
    assert not (tmp_path / "x.parquet").exists()


@needs_emulator
def test_capture_through_pty_then_analyze(tmp_path: Path) -> None:
    h.build_firmware()
    half = 500  # cycles: a 1000-cycle (8 us) period on GP2, 3000 cycles (24 us) on GP3
    toggles = {2: [100 + half * i for i in range(700)], 3: [333 + 1500 * i for i in range(200)]}
    master, slave = os.openpty()
    tty.setraw(slave)
    proc = h.start(tmp_path, toggles=toggles, stdin=master, stdout=master)
    out = tmp_path / "run.parquet"
    try:
        res = CliRunner().invoke(
            app,
            [
                "capture",
                "rp2040",
                "--port",
                os.ttyname(slave),
                "--channels",
                "2-3",
                "--duration",
                "3ms",
                "--names",
                "clk,slow",
                "-o",
                str(out),
                "--timeout",
                "30",
                "--resolution",
                "8ns",
            ],
        )
        assert res.exit_code == 0, res.output
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
        os.close(slave)
    cap = formats.load(out)
    assert cap.tick_s * 10**9 == 8
    assert cap.metadata["instrument"] == "rtlab-rp2040"
    assert cap.resolution_s is not None and cap.resolution_s * 10**9 == 8
    assert cap.metadata["records_lost"] == {"clk": 0, "slow": 0}
    assert cap.metadata["pins"] == [2, 3]
    assert set(cap["clk"].periods().values.tolist()) == {2 * half}  # 1000 ticks = 8 us
    assert set(cap["slow"].periods().values.tolist()) == {3000}
    res = CliRunner().invoke(app, ["analyze", str(out), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    text = json.dumps(doc)
    assert "clk" in text and "slow" in text
    st = rtlab.stats(cap["clk"].periods())
    assert st.unit == "ns" and np.isclose(st.mean, 8000.0) and st.rms == 0
    assert st.resolution is not None and np.isclose(st.resolution, 8.0)
