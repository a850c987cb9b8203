"""--from/--to: a window of the capture, exact at the cut, on every command that reads
one; its durations are those of the whole capture that lie inside it."""

from __future__ import annotations

import csv
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import rtlab
from rtlab.analysis.window import Window, window_capture
from rtlab.model import Capture, Channel
from tests.conftest import rtlab as run_rtlab
from tests.formats.conftest import LOGIC4, sigrok_demo


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sigrok_demo(tmp_path_factory, "demo.sr", LOGIC4, "-c samplerate=1m --samples 20000")


def _events(path: Path, *args: str) -> list[tuple[str, str, int, int]]:
    res = run_rtlab("events", str(path), "-m", "period,high,low,interval", *args)
    assert res.returncode == 0, res.stderr
    out = Path(args[args.index("-o") + 1])
    return [(r["channel"], r["metric"], int(r["start_tick"]), int(r["value_ticks"]))
            for r in csv.DictReader(out.open())]  # fmt: skip


@pytest.mark.parametrize(("lo", "hi", "lo_t", "hi_t"), [
    ("1ms", "2.5ms", 1000, 2500),
    ("1000.5us", "+1500us", 1001, 2501),  # between samples: the next whole sample
    ("0", "7ms", 0, 7000),
])  # fmt: skip
def test_a_window_holds_exactly_the_durations_that_lie_inside_it(
    demo, tmp_path, lo, hi, lo_t, hi_t
):
    whole = _events(demo, "-o", str(tmp_path / "all.csv"))
    cut = _events(demo, "--from", lo, "--to", hi, "-o", str(tmp_path / "cut.csv"))
    inside = [e for e in whole if e[2] >= lo_t and e[2] + e[3] < hi_t]
    assert sorted(cut) == sorted(inside) and len(cut) > 100


def test_from_a_trigger_edge_starts_at_its_first_such_edge(demo, tmp_path):
    cap = rtlab.load(demo)
    t0 = int(cap["D2"].edge_times("falling")[0])
    res = run_rtlab("analyze", str(demo), "-c", "D1", "--from", "D2:falling+10us",
                    "--to", "+1ms", "--json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["window_ns"] == [(t0 + 10) * 1000.0, (t0 + 1010) * 1000.0]
    rising = cap["D1"].edge_times("rising")
    inside = rising[(rising >= t0 + 10) & (rising < t0 + 1010)]
    assert doc["channels"]["D1"]["period"]["n"] == inside.size - 1


def test_the_streamed_and_the_loaded_window_agree(demo):
    # --latency loads the capture; without it analyze streams
    base = ["analyze", str(demo), "-c", "D0,D1", "--from", "3ms", "--to", "4ms", "--json"]
    streamed = json.loads(run_rtlab(*base).stdout)
    loaded = json.loads(run_rtlab(*base, "--latency", "D0:D1").stdout)
    for ch in ("D0", "D1"):
        for m in ("period", "high", "low", "interval", "c2c"):
            assert streamed["channels"][ch][m] == loaded["channels"][ch][m], (ch, m)


def test_a_channel_enters_the_window_at_its_level_before_the_cut():
    cap = Capture(Fraction(1, 10**9), {"A": Channel("A", np.array([10, 20, 30, 40, 50]), 0)},
                  np.array([[32, 38]]))  # fmt: skip
    cap["A"].gap_levels = np.array([1])
    cut = window_capture(cap, Window.parse("25ns", "45ns"))  # type: ignore[arg-type]
    a = cut["A"]
    assert a.edges.tolist() == [30, 40] and a.initial_level == 0  # 10 up, 20 down
    assert (cut.t_start, cut.t_end) == (25, 45)
    assert cut.gaps.tolist() == [[32, 38]]
    # inside the gap the level resumes from the gap level
    cut = window_capture(cap, Window.parse("35ns", None))  # type: ignore[arg-type]
    assert cut["A"].initial_level == 1 and cut["A"].edges.tolist() == [40, 50]


def test_convert_and_plot_take_the_window(demo, tmp_path):
    out = tmp_path / "cut.parquet"
    res = run_rtlab("convert", str(demo), str(out), "--from", "1ms", "--to", "2ms")
    assert res.returncode == 0, res.stderr
    cut, whole = rtlab.load(out), rtlab.load(demo)
    for ch in whole:
        e = ch.edges
        assert cut[ch.name].edges.tolist() == e[(e >= 1000) & (e < 2000)].tolist()
    svg = tmp_path / "p.svg"
    res = run_rtlab("plot", str(demo), "-o", str(svg), "-c", "D1", "--from", "D2:rising")
    assert res.returncode == 0, res.stderr and svg.exists()


@pytest.mark.parametrize(("args", "says"), [
    (["--from", "2ms", "--to", "1ms"], "is not after"),
    (["--from", "soon"], "--from 'soon'"),
    (["--from", "D9:rising"], "D9"),
    (["--from", "+1ms"], "only --to"),
])  # fmt: skip
def test_a_bad_window_is_one_line_and_status_2(demo, args, says):
    res = run_rtlab("analyze", str(demo), *args)
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert says in res.stderr
