"""--min-width: pulses narrower than the width go with both edges, from the earliest
on, wherever the chunks split, never across a gap; the command says how many."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from rtlab.analysis.glitch import min_width_stream
from rtlab.model import Capture, Channel, EdgeStream
from tests.conftest import rtlab


def reference(edges: list[int], width: int, gap_starts: list[int]) -> tuple[list[int], int]:
    """The rule of the module doc, edge by edge."""
    out, removed, i = [], 0, 0
    seg = [sum(g <= t for g in gap_starts) for t in edges]
    while i < len(edges):
        if i + 1 < len(edges) and edges[i + 1] - edges[i] < width and seg[i] == seg[i + 1]:
            removed += 1
            i += 2
        else:
            out.append(edges[i])
            i += 1
    return out, removed


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1000])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_filter_keeps_what_the_rule_keeps_wherever_chunks_split(chunk, seed):
    rng = np.random.default_rng(seed)
    edges = np.cumsum(rng.integers(1, 12, 300)).astype(np.int64)
    gaps = np.array([[int(edges[150]) + 1, int(edges[151]) - 0]]) if edges[151] - edges[150] > 1 \
        else np.zeros((0, 2), np.int64)  # fmt: skip
    cap = Capture(Fraction(1, 10**9), {"A": Channel("A", edges, 0)}, gaps)
    stream, removed = min_width_stream(EdgeStream.from_capture(cap, chunk), 5)
    got = stream.gather()["A"].edges.tolist()
    want, n = reference(edges.tolist(), 5, [int(g) for g in gaps[:, 0]])
    assert got == want and removed["A"] == n and n > 10


def test_analyze_says_how_many_pulses_it_removed(tmp_path):
    csv = tmp_path / "g.csv"
    rows = ["timestamp,channel,level"]
    t = 0
    for i in range(100):  # 1 µs high, 1 µs low, and a 10 ns glitch every 10th period
        rows += [f"{t},A,1", f"{t + 1000},A,0"]
        if i % 10 == 0:
            rows += [f"{t + 1500},A,1", f"{t + 1510},A,0"]
        t += 2000
    csv.write_text("\n".join(rows) + "\n")
    res = rtlab("analyze", str(csv), "--min-width", "20ns", "--csv")
    assert res.returncode == 0, res.stderr
    assert "--min-width 20ns removed 10 pulses (A 10)" in res.stderr
    period = next(ln for ln in res.stdout.splitlines() if ln.startswith("A,period"))
    assert period.split(",")[2:4] == ["99", "2000.0"]  # n, mean: every period 2 µs again
    bad = rtlab("analyze", str(csv), "--min-width", "wide")
    assert bad.returncode == 2 and "--min-width 'wide'" in bad.stderr
