"""VCD: a 1-bit variable changed by a vector value (`b1 !`) is read as `1!` on every
path; the writer's round trip keeps an edge at the window's start and every channel
name (spaces, non-ASCII, characters VCD gives a meaning to)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import rtlab
from rtlab.formats.vcd import plain, scanner
from rtlab.model import Capture, Channel
from tests.paths import REPO_ROOT as REPO

HEAD = (
    "$timescale 1ns $end\n$scope module top $end\n$var wire 1 {id} clk $end\n"
    "$var wire 4 % bus $end\n$upscope $end\n$enddefinitions $end\n"
)


def _vector_clock(ident: str = "!") -> str:
    body = "".join(f"#{10 * k}\nb{k % 2} {ident}\nb{k % 4:b} %\n" for k in range(5))
    return HEAD.format(id=ident) + body + "#50\n"


def _clock_figures(path: Path, **options: str) -> tuple[list[int], int]:
    cap = rtlab.load(path, **options)
    ch = cap["top.clk"]
    return ch.edges.tolist(), ch.initial_level


@pytest.mark.parametrize("engine", ["auto", "scan", "wellen"])
def test_vcd_vector_values_on_one_bit_vars(tmp_path: Path, engine: str) -> None:
    path = tmp_path / "v.vcd"
    path.write_text(_vector_clock())
    assert _clock_figures(path, engine=engine) == ([10, 20, 30, 40], 0)


def test_vcd_vector_values_on_one_bit_vars_numpy_scanner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The numpy scanner (no compiled scanner) reads them too."""
    monkeypatch.setattr(scanner, "_vcd_changes", None)
    monkeypatch.setattr(plain, "VcdEdges", None)
    path = tmp_path / "v.vcd"
    path.write_text(_vector_clock())
    assert _clock_figures(path, engine="scan") == ([10, 20, 30, 40], 0)


def test_vcd_vector_values_on_one_bit_vars_with_long_ids(tmp_path: Path) -> None:
    """A two-byte id (no compiled scanner: the numpy scanner's general path)."""
    path = tmp_path / "v.vcd"
    path.write_text(_vector_clock("#a"))
    assert _clock_figures(path, engine="scan") == ([10, 20, 30, 40], 0)
    assert _clock_figures(path, engine="wellen") == ([10, 20, 30, 40], 0)


def test_vcd_vector_values_on_one_bit_vars_streamed_in_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two-pass block reader of large plain bodies, blocks cut anywhere."""
    monkeypatch.setattr(plain, "WHOLE_MAX", 0)
    monkeypatch.setattr(plain, "BLOCK", 7)
    path = tmp_path / "v.vcd"
    path.write_text(_vector_clock())
    stream = rtlab.formats.open_stream(path)
    edges = np.concatenate([e for n, e in stream.chunks if n == "top.clk"]).tolist()
    assert edges == [10, 20, 30, 40]


@pytest.mark.parametrize("value", ["x", "z", "X"])
def test_vcd_unknown_vector_value_on_a_one_bit_var_holds_the_level(
    tmp_path: Path, value: str
) -> None:
    text = HEAD.format(id="!") + f"#0\nb0 !\n#10\nb1 !\n#20\nb{value} !\n#30\nb0 !\n#40\n"
    path = tmp_path / "x.vcd"
    path.write_text(text)
    for engine in ("scan", "wellen"):
        cap = rtlab.load(path, engine=engine)
        assert cap["top.clk"].edges.tolist() == [10, 30], engine
        assert cap.metadata["xz_changes"] == {"top.clk": 1}, engine


def test_vcd_several_bits_on_a_one_bit_var_are_left_to_pywellen(tmp_path: Path) -> None:
    """`b10 !` on a 1-bit variable: the scanners step aside, whatever pywellen reads."""
    text = HEAD.format(id="!") + "#0\nb0 !\n#10\nb10 !\n#20\nb01 !\n#30\n"
    assert scanner.scan(text.encode()) is None
    path = tmp_path / "w.vcd"
    path.write_text(text)
    auto, wellen = rtlab.load(path), rtlab.load(path, engine="wellen")
    assert auto["top.clk"].edges.tolist() == wellen["top.clk"].edges.tolist()


def test_vcd_vector_values_on_a_wide_var_stay_skipped(tmp_path: Path) -> None:
    path = tmp_path / "v.vcd"
    path.write_text(_vector_clock())
    cap = rtlab.load(path)
    assert list(cap.channels) == ["top.clk"]
    assert cap.metadata["skipped_vars"] == 1


# -- the writer's round trip -----------------------------------------------------------


@pytest.mark.parametrize("level", [0, 1])
@pytest.mark.parametrize("tick", [Fraction(16, 10**9), Fraction(1, 24 * 10**6)])
def test_vcd_round_trip_keeps_an_edge_at_the_window_start(
    tmp_path: Path, level: int, tick: Fraction
) -> None:
    cap = Capture(tick_s=tick, t_start=-7, t_end=100)
    cap.add(Channel("a", np.array([-7, 3, 50]), initial_level=level))
    cap.add(Channel("b", np.array([10]), initial_level=1 - level))
    rtlab.save(cap, tmp_path / "e.vcd")
    back = rtlab.load(tmp_path / "e.vcd")
    assert back["a"].edges.tolist() == [-7, 3, 50]
    assert back["a"].initial_level == level
    assert back["b"].edges.tolist() == [10] and back["b"].initial_level == 1 - level
    assert back.window() == (-7, 100)


def test_vcd_without_an_edge_at_the_start_keeps_zero_at_the_window_start(tmp_path: Path) -> None:
    """Other tools see `#0` at t_start as before when no edge lies there."""
    cap = Capture(tick_s=Fraction(1, 10**9), t_start=0, t_end=20)
    cap.add(Channel("a", np.array([5]), initial_level=0))
    rtlab.save(cap, tmp_path / "z.vcd")
    assert "t_zero" not in (tmp_path / "z.vcd").read_text()


NAMES = ["David Prowse", "größe", "tab\there", "$dollar", "\\escaped", "bus[3]", "odd[", "x]y"]


def test_vcd_round_trip_restores_names_with_spaces_and_symbols(tmp_path: Path) -> None:
    cap = Capture(tick_s=Fraction(1, 10**9), t_start=0, t_end=1000)
    for k, name in enumerate([*NAMES, "a b", "a_b", "top.sub name.leaf"]):
        cap.add(Channel(name, np.array([10 + k, 500 + k]), initial_level=k % 2))
    rtlab.save(cap, tmp_path / "n.vcd")
    for engine in ("auto", "wellen"):
        back = rtlab.load(tmp_path / "n.vcd", engine=engine)
        assert list(back.channels) == list(cap.channels), engine
        for ch in cap:
            assert back[ch.name].edges.tolist() == ch.edges.tolist(), (engine, ch.name)
    sel = rtlab.load(tmp_path / "n.vcd", channels=["David Prowse"])
    assert list(sel.channels) == ["David Prowse"]


def test_readme_capture_survives_vcd_round_trip(tmp_path: Path) -> None:
    """`rtlab convert` to VCD and back: the same edges (120,001) and figures."""
    src = REPO / "examples" / "captures" / "gpio-toggle-pio.csv"
    run = [sys.executable, "-m", "rtlab.cli"]
    subprocess.run([*run, "convert", str(src), str(tmp_path / "g.vcd")], check=True)
    docs = []
    for path in (src, tmp_path / "g.vcd"):
        out = subprocess.run([*run, "analyze", str(path), "--json"], check=True,
                             capture_output=True, text=True).stdout  # fmt: skip
        doc = json.loads(out)
        doc.pop("source"), doc.pop("format")
        docs.append(doc)
    assert docs[0]["channels"]["D0"]["edges"] == 120_001
    assert docs[1] == docs[0]


def test_vcd_round_trip_streamed_in_blocks_keeps_start_edges_and_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two-pass block reader of large plain bodies applies t_zero and the names."""
    monkeypatch.setattr(plain, "WHOLE_MAX", 0)
    monkeypatch.setattr(plain, "BLOCK", 64)
    cap = Capture(tick_s=Fraction(1, 24 * 10**6), t_start=100, t_end=10_000)
    cap.add(Channel("David Prowse", np.arange(100, 9000, 37), initial_level=1))
    cap.add(Channel("Demi Moore", np.arange(150, 9000, 91), initial_level=0))
    rtlab.save(cap, tmp_path / "s.vcd")
    back = rtlab.formats.open_stream(tmp_path / "s.vcd").gather()
    assert list(back.channels) == ["David Prowse", "Demi Moore"]
    for ch in cap:
        assert back[ch.name].edges.tolist() == ch.edges.tolist()
        assert back[ch.name].initial_level == ch.initial_level
