"""`rtlab convert … out.sr`: a session sigrok-cli reads back sample for sample."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

import rtlab
from tests.conftest import rtlab as run_rtlab
from tests.formats.conftest import need


def _binary(sr: Path) -> bytes:
    res = subprocess.run([need("sigrok-cli"), "-i", str(sr), "-O", "binary"],
                         capture_output=True, timeout=120)  # fmt: skip
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_a_session_written_by_rtlab_reads_back_identically_through_sigrok_cli(demo_sr, tmp_path):
    out = tmp_path / "out.sr"
    res = run_rtlab("convert", str(demo_sr), str(out))
    assert res.returncode == 0, res.stderr
    assert _binary(out) == _binary(demo_sr)
    # and through rtlab's Parquet and back
    pq, again = tmp_path / "x.parquet", tmp_path / "again.sr"
    assert run_rtlab("convert", str(demo_sr), str(pq)).returncode == 0
    assert run_rtlab("convert", str(pq), str(again)).returncode == 0
    assert _binary(again) == _binary(demo_sr)


def test_an_edge_list_becomes_the_samples_its_levels_say(tmp_path):
    csv = tmp_path / "e.csv"
    csv.write_text("timestamp,channel,level\n0,a,0\n0,b,1\n3,a,1\n5,b,0\n7,a,0\n9,b,1\n")
    out = tmp_path / "e.sr"
    res = run_rtlab("convert", str(csv), str(out), "-O", "unit=ticks", "--tick", "1us")
    assert res.returncode == 0, res.stderr
    got = np.frombuffer(_binary(out), dtype=np.uint8)
    a = [0, 0, 0, 1, 1, 1, 1, 0, 0, 0]  # an edge's tick is the first sample at its level
    b = [1, 1, 1, 1, 1, 0, 0, 0, 0, 1]
    assert got.tolist() == [x | (y << 1) for x, y in zip(a, b, strict=True)]
    back = rtlab.load(out)
    assert list(back.channels) == ["a", "b"] and back.tick_s == rtlab.load(csv, tick="1us",
                                                                          unit="ticks").tick_s


def test_a_tick_that_is_no_whole_hz_rate_is_refused_in_one_line(tmp_path):
    csv = tmp_path / "e.csv"
    csv.write_text("timestamp,channel,level\n0,a,0\n3,a,1\n")
    res = run_rtlab("convert", str(csv), str(tmp_path / "e.sr"), "-O", "unit=ticks",
                    "--tick", "3ns")  # fmt: skip
    assert res.returncode == 2 and "whole-Hz" in res.stderr
    assert not (tmp_path / "e.sr").exists()
