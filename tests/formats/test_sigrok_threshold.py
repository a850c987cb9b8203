"""-O threshold= (and hysteresis=): a session's analog channels as logic ones, edges
where a Schmitt trigger computed sample by sample puts them."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

import rtlab
from tests.conftest import rtlab as run_rtlab


def _session(path: Path, analog: np.ndarray, split: int = 700) -> Path:
    n = analog.size
    meta = ("[global]\nsigrok version=0.5.2\n[device 1]\ncapturefile=logic-1\n"
            "total probes=1\nsamplerate=1 MHz\ntotal analog=1\nprobe1=D0\nanalog2=A0\n"
            "unitsize=1\n")  # fmt: skip
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("version", "2")
        zf.writestr("metadata", meta)
        zf.writestr("logic-1-1", bytes((i // 50) % 2 for i in range(n)))
        a = analog.astype("<f4").tobytes()
        zf.writestr("analog-1-2-1", a[: split * 4])  # two members, split inside the data
        zf.writestr("analog-1-2-2", a[split * 4 :])
    return path


def schmitt(v: np.ndarray, thr: float, hyst: float) -> tuple[int, list[int]]:
    level = int(v[0] >= thr)
    first, edges = level, []
    for i, x in enumerate(v):
        new = 1 if x >= thr + hyst / 2 else 0 if x <= thr - hyst / 2 else level
        if new != level:
            edges.append(i)
        level = new
    return first, edges


WAVE = 1.65 + 1.5 * np.cos(np.arange(2000) * 2 * np.pi / 400)
NOISY = WAVE + np.random.default_rng(3).normal(0, 0.08, WAVE.size)


@pytest.mark.parametrize("hyst", [0.0, 0.3])
def test_thresholded_edges_are_the_schmitt_triggers(tmp_path, hyst):
    sr = _session(tmp_path / "a.sr", NOISY)
    cap = rtlab.load(sr, threshold="1.65", hysteresis=str(hyst))
    level, edges = schmitt(NOISY.astype(np.float32), 1.65, hyst)
    assert cap["A0"].edges.tolist() == edges and cap["A0"].initial_level == level
    assert cap["D0"].edges.tolist() == list(range(50, 2000, 50))  # logic unchanged
    if hyst:
        assert len(edges) == 10  # one edge per half period of the wave: no chatter
    else:
        assert len(edges) > 10  # the noise makes the bare threshold chatter


def test_cli_and_channel_selection(tmp_path):
    sr = _session(tmp_path / "a.sr", WAVE)
    res = run_rtlab("analyze", str(sr), "-O", "threshold=1.65", "-c", "A0", "--csv")
    assert res.returncode == 0, res.stderr
    period = next(ln for ln in res.stdout.splitlines() if ln.startswith("A0,period"))
    assert period.split(",")[3] == "400000.0"  # a 400-sample sine at 1 MHz
    assert "A0" not in rtlab.load(sr).channels  # analog channels only when thresholded
