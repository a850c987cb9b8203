"""`rtlab analyze` and `rtlab convert` stream; the progress bar stays off the pipe; a lab
command without the lab extra says in one line what to install."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

import rtlab
from rtlab.cli import _finite
from rtlab.cli.progress import DelayedProgress
from rtlab.model import Capture, Channel

RTLAB = [sys.executable, "-m", "rtlab.cli"]


def _capture() -> Capture:
    rng = np.random.default_rng(11)
    cap = Capture(tick_s=Fraction(16, 10**9), gaps=[[5000, 5100]])
    e = np.cumsum(rng.integers(1, 70, 20_000)).astype(np.int64)
    out = (e < 5000) | (e >= 5100)  # no edge inside the gap
    cap.add(Channel("D0", e[out], 0, np.array([0], dtype=np.int8)))
    cap.add(Channel("D1", e[out][::3], 1, None))
    return cap


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RTLAB, *args], capture_output=True, text=True, env=os.environ)


def test_streamed_analyze_prints_the_in_memory_figures(tmp_path: Path) -> None:
    cap = _capture()
    path = tmp_path / "c.parquet"
    rtlab.save(cap, path)
    res = _run("analyze", str(path), "--json", "--edge", "both", "--channel", "D1")
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""  # no progress bar on a pipe
    ref = _finite(rtlab.analyze(rtlab.load(path, channels=["D1"]), edge="both").to_dict())
    assert json.loads(res.stdout) == json.loads(json.dumps(ref))


def test_convert_streams_to_parquet_and_gathers_for_vcd(tmp_path: Path) -> None:
    cap = _capture()
    rtlab.save(cap, tmp_path / "a.parquet")
    res = _run("convert", str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet"))
    assert res.returncode == 0, res.stderr
    said = " ".join(res.stderr.split())  # rich wraps at 80 columns off a terminal
    assert "2 channels" in said and f"{cap.n_edges} edges" in said
    back = rtlab.load(tmp_path / "b.parquet")
    for ch in cap:
        assert np.array_equal(back[ch.name].edges, ch.edges)
        assert back[ch.name].initial_level == ch.initial_level
    assert back.gaps.tolist() == cap.gaps.tolist()
    res = _run("convert", str(tmp_path / "b.parquet"), str(tmp_path / "c.vcd"))
    assert res.returncode == 0, res.stderr
    rtlab.save(rtlab.load(tmp_path / "b.parquet"), tmp_path / "ref.vcd")  # in memory
    assert (tmp_path / "c.vcd").read_bytes() == (tmp_path / "ref.vcd").read_bytes()


def test_progress_appears_only_after_its_delay_and_only_when_enabled() -> None:
    with DelayedProgress("x", delay_s=0.05, enabled=False) as off:
        time.sleep(0.2)
        off(5, 10)
    assert off._bar is None
    with DelayedProgress("x", delay_s=5, enabled=True) as quick:
        quick(5, 10)
    assert quick._bar is None  # the work ended before the delay: nothing shown
    with DelayedProgress("x", delay_s=0.05, enabled=True) as slow:
        deadline = time.monotonic() + 20  # the timer imports rich.progress: slow under load
        while slow._bar is None and time.monotonic() < deadline:
            time.sleep(0.05)
        slow(5, 10)
        assert slow._bar is not None
        assert slow._bar.tasks[0].completed == 5


def test_a_lab_command_without_the_lab_extra_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['serial'] = None\n"
        "sys.argv = ['rtlab', 'capture', 'rp2040', '--port', '/dev/null', '--duration', '1ms']\n"
        "from rtlab.cli import main; main()\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'rtlab[lab]'" in lines[0], res.stderr
    assert "Traceback" not in res.stderr


def test_convert_of_a_sigrok_session_says_the_edges_it_wrote(tmp_path: Path) -> None:
    """sigrok's stream knows no edge count up front: the line counts what was written
    (it said "0 edges" for every .sr file)."""
    sr = tmp_path / "d.sr"
    subprocess.run(
        ["sigrok-cli", "-d", "demo:logic_channels=2:analog_channels=0", "-c",
         "samplerate=1m", "--samples", "20000", "-o", str(sr)],
        check=True, capture_output=True,
    )  # fmt: skip
    out = tmp_path / "d.parquet"
    r = _run("convert", str(sr), str(out))
    assert r.returncode == 0, r.stderr
    n = sum(len(ch) for ch in rtlab.load(out))
    said = " ".join(r.stderr.split())  # rich wraps the line at the terminal's width
    assert n > 0 and f"2 channels, {n} edges" in said, (n, r.stderr)
