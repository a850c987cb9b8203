"""The progress bar of a sigrok session, whose reader knows no edge count until its end
and reads the file through a map: on a terminal it counts the file's bytes against its
size and shows an ETA; piped, it shows nothing. The terminal through a real pty."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np

# A child that reads half of a session through rtlab's own reader with the bar the CLI
# uses (its delay cut to nothing), then reports what the bar counted.
CHILD = """
import sys, time
from pathlib import Path
from rtlab.cli.progress import DelayedProgress
from rtlab.formats import open_stream
path = Path(sys.argv[1])
stream = open_stream(path)
with DelayedProgress("analyzing", delay_s=0.0, path=path) as bar:
    deadline = time.monotonic() + 60  # the timer imports rich.progress
    while bar.enabled and bar._bar is None and time.monotonic() < deadline:
        time.sleep(0.02)
    members = 0
    for _name, _edges in stream.chunks:
        bar._last = 0.0  # every call counts (the bar otherwise updates 10 times a second)
        bar(0, 0)
        time.sleep(0.05)
        members += 1
        if bar._done * 2 >= path.stat().st_size:
            break
    if bar._bar is not None:
        bar._bar.refresh()
        eta = bar._bar.tasks[0].time_remaining
        print("\\nCOUNT", bar._count(), "OF", path.stat().st_size, "ETA", eta, file=sys.stderr)
"""


def _session(path: Path, members: int = 24, member_bytes: int = 1 << 20) -> Path:
    """A 4-channel session of `members` 1 MiB chunks (as sigrok-cli writes them), its
    level changing every 4096 samples; the random bits keep the chunks from compressing
    away, so that the file's bytes stand for the work."""
    rng = np.random.default_rng(7)
    meta = "[global]\nsigrok version=0.5.2\n\n[device 1]\ncapturefile=logic-1\n"
    meta += "total probes=4\nsamplerate=1 MHz\ntotal analog=0\n"
    meta += "".join(f"probe{k}=D{k - 1}\n" for k in range(1, 5)) + "unitsize=1\n"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("version", "2")
        zf.writestr("metadata", meta)
        for k in range(members):
            levels = rng.integers(0, 16, member_bytes // 4096, dtype=np.uint8)
            noise = rng.integers(0, 256, member_bytes // 8, dtype=np.uint8) & 0xF0
            data = np.repeat(levels, 4096)
            data[: len(noise)] |= noise  # the upper 4 bits: no channel, only bytes
            zf.writestr(f"logic-1-{k + 1}", data.tobytes())
    return path


def _on_a_pty(argv: list[str]) -> str:
    leader, follower = pty.openpty()
    p = subprocess.Popen(argv, stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    out = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            p.kill()
            break
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        out += data
    p.wait(timeout=60)
    os.close(leader)
    return out.decode("utf-8", "replace")


def test_a_sigrok_session_on_a_terminal_shows_bytes_of_its_size_and_an_eta(tmp_path):
    sr = _session(tmp_path / "big.sr")
    size = sr.stat().st_size
    out = _on_a_pty([sys.executable, "-c", CHILD, str(sr)])
    m = re.search(r"COUNT ([\d,]+)/([\d,]+) bytes OF (\d+) ETA ([\d.]+)", out)
    assert m, out[-2000:]
    done, total = int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))
    assert total == size == int(m.group(3))
    assert 0 < done < size  # half read: a position inside the file, from the map's reads
    assert float(m.group(4)) > 0  # a rate and a total: time left, not time spent
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out)
    assert re.search(r"analyzing .*bytes \d+:\d\d:\d\d", screen), screen[-2000:]
    assert "-:--:--" not in screen  # a total, so the time column is an ETA
    assert "edges" not in screen  # bytes from the first frame: no "0 edges", no "N/0"


def test_a_sigrok_session_piped_shows_no_bar(tmp_path):
    sr = _session(tmp_path / "big.sr", members=6)
    res = subprocess.run(
        [sys.executable, "-c", CHILD, str(sr)], capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 0, res.stderr
    assert res.stderr == "" and res.stdout == ""
