"""The PIO duration CSV streams block by block: the figures load() gives, and errors
naming the line wherever the block boundaries fall."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rtlab
from rtlab.analysis.stream import analyze_stream
from rtlab.errors import FormatError
from rtlab.formats import pio_durations


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pio_durations, "_BLOCK", 13)  # a few lines per block


def test_blocks_give_the_figures_of_load(tmp_path: Path, small_blocks: None) -> None:
    d = np.random.default_rng(3).integers(1, 90, 500)
    path = tmp_path / "d.pio.csv"
    path.write_text("".join(f"{x}\n" if k % 7 else f" {x} \n\n" for k, x in enumerate(d)))
    cap = rtlab.load(path)
    assert cap["D0"].edges.tolist() == [0, *np.cumsum(d).tolist()]
    stream = rtlab.formats.open_stream(path)
    assert stream.total_edges == d.size + 1
    got = analyze_stream(stream, edge="both").to_dict()
    assert json.dumps(got, default=str) == json.dumps(
        rtlab.analyze(cap, edge="both").to_dict(), default=str
    )


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("10\n20\n30\n40\n50\nx\n", 6, "unexpected byte"),
        ("10\n20\n30\n40\n50\n60\n0\n", 7, "duration 0"),
        ("10\n20\n30\n40\n50\n60\n70 80\n", 7, "two values"),
        ("10\n20\n30\n40\n50\n60\n70", 7, "truncated"),
    ],
)
def test_errors_name_the_line_across_blocks(
    tmp_path: Path, small_blocks: None, text: str, line: int, words: str
) -> None:
    path = tmp_path / "d.pio.csv"
    path.write_text(text)
    with pytest.raises(FormatError, match=words) as exc:
        rtlab.load(path)
    assert exc.value.line == line
