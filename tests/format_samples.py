"""Small valid captures of every format, written by the project's own code (or by the
real sigrok-cli): seeds for the fuzzer and the starting point of the bad-input tests."""

from __future__ import annotations

import shutil
import struct
import subprocess
from fractions import Fraction
from pathlib import Path

FORMATS = (
    "pio-durations",
    "edges-csv",
    "parquet",
    "sigrok",
    "saleae-bin",
    "saleae-csv",
    "vcd",
    "fst",
)

# A clock, a counter bit and a $dumpoff/$dumpon pause, simulated by Icarus Verilog: the
# project writes no FST, so FST samples come from a real simulator.
TESTBENCH = """`timescale 1ns/1ps
module tb;
  reg clk = 0; reg [2:0] cnt = 0; reg t = 0;
  always #5 clk = ~clk;
  always @(posedge clk) begin cnt <= cnt + 1; t <= cnt[1]; end
  initial begin
    $dumpfile("tb.fst");
    $dumpvars(0, tb);
    #60 $dumpoff;
    #40 $dumpon;
    #100 $finish;
  end
endmodule
"""


def seed_files(name: str, out: Path) -> None:
    """A few small valid inputs of the format, to start the fuzzer somewhere useful."""
    import numpy as np

    import rtlab
    from rtlab.model import Capture, Channel

    out.mkdir(parents=True, exist_ok=True)
    cap = Capture(tick_s=Fraction(1, 10**9), gaps=[[55, 60]])
    cap.add(Channel("D0", np.array([10, 20, 35, 50, 61, 70]), 0, gap_levels=np.array([1])))
    cap.add(Channel("D1", np.array([12, 40]), 1, gap_levels=np.array([0])))
    if name == "pio-durations":
        (out / "a.csv").write_text("64\n73\n65\n72\n64\n1900\n")
    elif name == "edges-csv":
        (out / "a.csv").write_text("timestamp,channel,level\n10,a,1\n12,b,1\n20,a,0\n30,b,0\n")
        (out / "b.csv").write_text("0.000001,a,1\n0.0000015,a,0\n")
    elif name == "parquet":
        rtlab.save(cap, out / "a.parquet")
    elif name == "sigrok":
        if shutil.which("sigrok-cli"):
            subprocess.run(
                [
                    "sigrok-cli",
                    "-d",
                    "demo:logic_channels=4:analog_channels=0",
                    "--samples",
                    "300",
                    "-o",
                    str(out / "a.sr"),
                ],
                check=True,
            )
    elif name == "saleae-bin":
        times = [1e-6, 2e-6, 3.5e-6]
        v0 = struct.pack("<8siiIddQ", b"<SALEAE>", 0, 0, 0, 0.0, 5e-6, len(times))
        (out / "digital_0.bin").write_bytes(v0 + struct.pack(f"<{len(times)}d", *times))
        chunks = struct.pack("<Q", 2)
        for begin, ts in ((0.0, [1e-6, 2e-6]), (4e-6, [5e-6])):
            chunks += struct.pack("<IdddQ", 0, 1e9, begin, begin + 3e-6, len(ts))
            chunks += struct.pack(f"<{len(ts)}d", *ts)
        (out / "digital_1.bin").write_bytes(struct.pack("<8sii", b"<SALEAE>", 1, 0) + chunks)
    elif name == "saleae-csv":
        (out / "a.csv").write_text(
            "Time [s],Channel 0,Channel 1\n0.000000000,0,1\n0.000001000,1,1\n0.000002500,0,0\n"
        )
    elif name == "vcd":
        rtlab.save(cap, out / "a.vcd")
    elif name == "fst":
        write_fst(TESTBENCH, out / "a.fst")


def write_fst(verilog: str, out: Path) -> bool:
    """Simulate `verilog` (which dumps to tb.fst) with Icarus; False when it is missing."""
    iverilog, vvp = shutil.which("iverilog"), shutil.which("vvp")
    if not (iverilog and vvp):
        return False
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "tb.v").write_text(verilog)
        subprocess.run([iverilog, "-o", "tb.vvp", "tb.v"], cwd=d, check=True)
        subprocess.run([vvp, "-n", "tb.vvp", "-fst"], cwd=d, check=True, capture_output=True)
        shutil.copyfile(Path(d) / "tb.fst", out)
    return True
