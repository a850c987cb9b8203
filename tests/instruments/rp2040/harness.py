"""Run the capture firmware in the lockstep rp2040js harness, talk to it like a port."""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.locks import make_one_at_a_time, one_at_a_time
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
FW = ROOT / "firmware" / "rp2040-capture"
SIM = FW / "sim"
BIN = FW / "build" / "rtlab-capture.bin"


def build_firmware() -> Path:
    make_one_at_a_time(FW)
    with one_at_a_time("rp2040-sim-npm"):
        if not (SIM / "node_modules" / "rp2040js").is_dir():
            subprocess.run(["bash", str(ROOT / "deps/setup.d/rp2040-sim.sh")], check=True)
    return BIN


class PipePort:
    """pyserial-like read/write over the harness's stdin/stdout."""

    def __init__(self, proc: subprocess.Popen[bytes], timeout_s: float = 0.05) -> None:
        self.proc = proc
        self.timeout_s = timeout_s
        assert proc.stdout is not None
        os.set_blocking(proc.stdout.fileno(), False)

    def read(self, size: int = 1) -> bytes:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        r, _, _ = select.select([fd], [], [], self.timeout_s)
        if not r:
            return b""
        try:
            return os.read(fd, size)
        except BlockingIOError:
            return b""

    def write(self, data: bytes) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        return len(data)


def start(
    tmp: Path,
    *,
    toggles: dict[int, list[int]] | None = None,
    initial: dict[int, int] | None = None,
    loop: tuple[int, int] | list[tuple[int, int]] | None = None,
    max_cycles: int = 60_000_000,
    stdin: int | None = None,
    stdout: int | None = None,
    usb: bool = False,
    dma_pause: tuple[int, int, int] | None = None,
) -> subprocess.Popen[bytes]:
    """Start the harness; toggles are cycles relative to the capture origin. With usb,
    stdin/stdout are the firmware's USB CDC data pipe instead of its UART."""
    spec = {
        "initial": {str(k): v for k, v in (initial or {}).items()},
        "toggles": {str(k): v for k, v in (toggles or {}).items()},
    }
    edges = tmp / "edges.json"
    edges.write_text(json.dumps(spec))
    cmd = [
        "node",
        str(SIM / "harness.js"),
        "--bin",
        str(BIN),
        "--edges",
        str(edges),
        "--max-cycles",
        str(max_cycles),
        "--exit-after-stopped",
        "--summary",
        str(tmp / "summary.json"),
    ]
    for out_pin, in_pin in [loop] if isinstance(loop, tuple) else loop or []:
        cmd += ["--loop", f"{out_pin}:{in_pin}"]
    if usb:
        cmd.append("--usb")  # the host side is rp2040js's USBCDC helper
    if dma_pause:
        cmd += ["--dma-pause", ":".join(map(str, dma_pause))]
    return subprocess.Popen(
        cmd,
        stdin=stdin if stdin is not None else subprocess.PIPE,
        stdout=stdout if stdout is not None else subprocess.PIPE,
    )


@contextlib.contextmanager
def running(tmp: Path, **kw: Any) -> Iterator[subprocess.Popen[bytes]]:
    """The harness started (start's arguments) for the `with` block, killed after it."""
    proc = start(tmp, **kw)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def summary(tmp: Path) -> dict:
    return json.loads((tmp / "summary.json").read_text())
