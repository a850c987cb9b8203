"""Capture files made at test time by the real tools (sigrok-cli, iverilog/vvp)."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path
from typing import IO

import pytest

from tests.needs import tool


def need(name: str) -> str:
    return tool(name, "deps/apt.txt")


def run(cmd: list[str], cwd: Path | None = None) -> str:
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, f"{cmd}: {res.stderr}"
    return res.stdout


def write_sr(dest: Path | IO[bytes], metadata: str, logic: bytes) -> None:
    """A sigrok session file (the zip sigrok-cli writes, version 2) to `dest`: its
    `metadata` text and one chunk `logic-1-1` of samples."""
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("version", "2")
        zf.writestr("metadata", metadata)
        zf.writestr("logic-1-1", logic)


LOGIC4 = "logic_channels=4:analog_channels=0"


def sigrok_demo(tmp: pytest.TempPathFactory, name: str, device: str, options: str) -> Path:
    """sigrok-cli's demo driver (`demo:<device>`, then `options`) written to a new
    temporary folder's `name`."""
    out = tmp.mktemp("sr") / name
    run([need("sigrok-cli"), "-d", f"demo:{device}", *options.split(), "-o", str(out)])
    return out


@pytest.fixture(scope="session")
def demo_sr(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20000 samples of the demo driver's default 'sigrok' pattern at 1 MHz."""
    return sigrok_demo(tmp_path_factory, "demo.sr", LOGIC4, "-c samplerate=1m --samples 20000")


@pytest.fixture(scope="session")
def incremental_sr(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's 'incremental' pattern (a 4-bit counter) at its default 200 kHz."""
    options = "-g Logic -c pattern=incremental --samples 4096"
    return sigrok_demo(tmp_path_factory, "inc.sr", LOGIC4, options)


@pytest.fixture(scope="session")
def analog_sr(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """100 samples of the demo's two analog channels at 1 MHz (no logic channel)."""
    device = "logic_channels=0:analog_channels=2"
    return sigrok_demo(tmp_path_factory, "analog.sr", device, "-c samplerate=1m --samples 100")


TESTBENCH = """\
`timescale 1ns/1ps
module tb;
  reg clk = 0;
  reg [3:0] cnt = 0;
  reg t;
  reg [8*64-1:0] fn;
  sub u();
  always #5 clk = ~clk;
  always @(posedge clk) begin cnt <= cnt + 1; t <= cnt[1]; end
  initial begin
    if (!$value$plusargs("dump=%s", fn)) fn = "tb.vcd";
    $dumpfile(fn);
    $dumpvars(0, tb);
    #200 $finish;
  end
endmodule
module sub;
  reg clk = 1;
  always #7 clk = ~clk;
endmodule
"""


@pytest.fixture(scope="session")
def sim_dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same Icarus Verilog simulation dumped as VCD and as FST."""
    iverilog, vvp = need("iverilog"), need("vvp")
    d = tmp_path_factory.mktemp("sim")
    (d / "tb.v").write_text(TESTBENCH)
    run([iverilog, "-o", "tb.vvp", "tb.v"], cwd=d)
    run([vvp, "-n", "tb.vvp", "+dump=tb.vcd"], cwd=d)
    run([vvp, "-n", "tb.vvp", "-fst", "+dump=tb.fst"], cwd=d)
    return {"vcd": d / "tb.vcd", "fst": d / "tb.fst"}
