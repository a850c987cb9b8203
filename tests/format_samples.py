"""Small valid captures of every format, written by the project's own code (or by the
real sigrok-cli): seeds for the fuzzer and the starting point of the bad-input tests."""

from __future__ import annotations

import shutil
import struct
import subprocess
from fractions import Fraction
from pathlib import Path

FORMATS = ("pio-durations", "edges-csv", "parquet", "sigrok", "saleae-bin", "saleae-csv", "vcd")


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
