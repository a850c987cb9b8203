"""Write, read back, same figures: one property per reader.

Hypothesis draws a capture — odd tick lengths (1/1515151 s, 1/24 MHz, 1 ps, 3 s …),
times far from zero (±2^61), glitches (several edges at one time step), gaps with the
levels on resuming, initial levels 0 and 1; for the round trips the docs promise (VCD,
Parquet, edges CSV) also an edge at t_start and channel names with spaces, dots and
non-ASCII characters — and each format writes what it can express:
VCD and Parquet with rtlab's own writers, the formats rtlab only reads with the small
writers below (the files their instruments write). Reading the file back must give the
capture the rule of docs/formats.md makes of it (one value per time step, the last)
and the same figures from `analyze` (every metric, latency between two channels).

What each format cannot express is left out of its case, and why is said there. FST
files come from Icarus Verilog (rtlab writes none), so its case runs few examples.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rtlab.formats as F
from rtlab.analysis.summary import analyze
from rtlab.model import Capture, Channel
from rtlab.ticks import one_value_per_time
from tests.formats.conftest import write_sr

TICKS = [
    Fraction(1, 10**9),
    Fraction(16, 10**9),
    Fraction(1, 24_000_000),
    Fraction(1, 1515151),
    Fraction(1, 10**12),
    Fraction(3),
]
DECIMAL_TICKS = [t for t in TICKS if (t * 10**12).denominator == 1]
SETTINGS = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


NAME_CHARS = "aZ .é_ü-µ☃\u2028\x85"  # spaces, dots (VCD scopes), non-ASCII, line separators


@st.composite
def captures(
    draw: Any, gaps: bool = True, far: bool = True, glitches: bool = True,
    at_start: bool = False, names: bool = False,
) -> Capture:  # fmt: skip
    """A capture of 1-3 channels; edge deltas of 0 are glitches (two edges at a time).
    `at_start`: a channel's first edge may lie at t_start; `names`: channel names with
    spaces, dots and non-ASCII characters (else D0, D1, D2)."""
    tick = draw(st.sampled_from(TICKS))
    t0 = draw(st.sampled_from([0, 1000, -(10**6), 2**61] if far else [0, 1000]))
    lo_delta = 0 if glitches else 1
    cap = Capture(tick_s=tick, t_start=t0)
    end = t0
    for k in range(draw(st.integers(1, 3))):
        deltas = draw(st.lists(st.integers(lo_delta, 5000), min_size=1, max_size=40))
        first = t0 + (draw(st.sampled_from([0, 1])) if at_start else 1)
        if at_start and first == t0:
            deltas[0] = 0  # the first edge at t_start
        e = first + np.cumsum(deltas)
        name = f"D{k}"
        if names:
            name = (draw(st.text(NAME_CHARS, max_size=6)).strip() + f" D{k}").strip()
        cap.add(Channel(name, e, draw(st.integers(0, 1))))
        end = max(end, int(e[-1]))
    cap.t_end = end + draw(st.integers(0, 100))
    if gaps and draw(st.booleans()):
        g0 = draw(st.integers(t0 + 1, cap.t_end - 1)) if cap.t_end - t0 > 2 else None
        if g0 is not None:
            g1 = draw(st.integers(g0 + 1, cap.t_end))
            _cut_gap(cap, g0, g1, draw(st.lists(st.integers(0, 1), min_size=3, max_size=3)))
    return cap


def _cut_gap(cap: Capture, g0: int, g1: int, levels: list[int]) -> None:
    """Make [g0, g1) a gap: no edge inside it or at its end, a level on resuming."""
    cap.gaps = np.array([[g0, g1]], dtype=np.int64)
    for k, ch in enumerate(list(cap)):
        e = ch.edges[(ch.edges < g0) | (ch.edges > g1)]
        cap.channels[ch.name] = Channel(ch.name, e, ch.initial_level, np.array([levels[k]]))
        cap.channels[ch.name].capture = cap


def expected(cap: Capture) -> Capture:
    """What every reader makes of `cap`: one value per time step."""
    out = Capture(tick_s=cap.tick_s, gaps=cap.gaps, t_start=cap.t_start, t_end=cap.t_end)
    for ch in cap:
        out.add(Channel(ch.name, one_value_per_time(ch.edges)[0], ch.initial_level, ch.gap_levels))
    return out


def figures(cap: Capture) -> dict[str, Any]:
    names = sorted(cap.channels)
    pairs = [(names[0], names[1])] if len(names) > 1 else []
    doc = analyze(cap, None, pairs).to_dict()
    doc.pop("source"), doc.pop("format")
    return doc


def assert_same(want: Capture, got: Capture, window: bool = True) -> None:
    assert got.tick_s == want.tick_s
    assert sorted(got.channels) == sorted(want.channels)
    for ch in want:
        assert got[ch.name].edges.tolist() == ch.edges.tolist(), ch.name
        assert got[ch.name].initial_level == ch.initial_level, ch.name
    assert got.gaps.tolist() == want.gaps.tolist()
    if window:
        assert got.window() == want.window()
        assert figures(got) == figures(want)


# -- rtlab's own writers ---------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".vcd", ".parquet"])
@SETTINGS
@given(cap=captures(at_start=True, names=True))
def test_rtlab_writers_round_trip(tmp_path: Path, suffix: str, cap: Capture) -> None:
    path = tmp_path / f"c{suffix}"
    F.save(cap, path)
    assert_same(expected(cap), F.load(path))


# -- the formats rtlab reads: written as their instruments write them ------------------


def edges_csv(cap: Capture) -> tuple[bytes, dict[str, Any]]:
    """One row per edge (a glitch is two rows at one time); the tick as an option."""
    rows = []
    for ch in cap:
        level = ch.initial_level
        for t in ch.edges.tolist():
            level ^= 1
            rows.append((t, ch.name, level))
    rows.sort(key=lambda r: r[0])  # stable: a channel's rows keep their order
    text = "timestamp,channel,level\n" + "".join(f"{t},{n},{v}\n" for t, n, v in rows)
    return text.encode(), {"tick": cap.tick_s}


def pio_durations(cap: Capture) -> tuple[bytes, dict[str, Any]]:
    """One channel whose first edge is at t = 0: the durations between its edges."""
    d = np.diff(cap["D0"].edges)
    return "".join(f"{x}\n" for x in d.tolist()).encode(), {
        "tick": cap.tick_s,
        "first_level": 1 - cap["D0"].initial_level,
        "channel": "D0",
    }


def sigrok(cap: Capture) -> tuple[bytes, dict[str, Any]]:
    """A sample per tick from 0 to t_end; bit k is channel D<k>."""
    n = int(cap.t_end or 0)
    samples = np.zeros(n, dtype=np.uint8)
    for k, ch in enumerate(cap):
        lv = np.full(n, ch.initial_level, dtype=np.uint8)
        for i, t in enumerate(ch.edges.tolist()):
            lv[t:] = ch.initial_level ^ ((i + 1) & 1)
        samples |= lv << k
    probes = "".join(f"probe{k + 1}={ch.name}\n" for k, ch in enumerate(cap))
    rate = 1 / cap.tick_s
    buf = io.BytesIO()
    write_sr(
        buf,
        f"[device 1]\ncapturefile=logic-1\ntotal probes={len(cap)}\n"
        f"samplerate={rate.numerator // rate.denominator}\n{probes}unitsize=1\n",
        samples.tobytes(),
    )
    return buf.getvalue(), {}


def saleae_csv(cap: Capture) -> tuple[bytes, dict[str, Any]]:
    """A row per change time with every channel's level (X through a gap)."""
    ns = cap.tick_s * 10**12  # ps per tick: DECIMAL_TICKS only
    times = sorted({cap.t_start or 0, cap.t_end or 0, *(t for ch in cap for t in ch.edges)})
    if len(cap.gaps):
        times = sorted({*times, *cap.gaps[0].tolist()})
    rows = []
    for t in times:
        vals = []
        for ch in cap:
            vals.append(_level_at(cap, ch, t))
        ps = int(t * ns)
        sign = "-" if ps < 0 else ""
        rows.append(f"{sign}{abs(ps) // 10**12}.{abs(ps) % 10**12:012d}," + ",".join(vals))
    head = "Time [s]," + ",".join(ch.name for ch in cap)
    return (head + "\n" + "\n".join(rows) + "\n").encode(), {"tick": cap.tick_s}


def _level_at(cap: Capture, ch: Channel, t: int) -> str:
    """The channel's level at t ('X' inside the gap), from its edges and gap level."""
    if len(cap.gaps) and t >= cap.gaps[0, 0]:
        _, g1 = (int(x) for x in cap.gaps[0])
        if t < g1:
            return "X"
        assert ch.gap_levels is not None
        after = int(np.searchsorted(ch.edges, t, "right") - np.searchsorted(ch.edges, g1, "right"))
        return str(int(ch.gap_levels[0]) ^ (after & 1))
    return str(ch.initial_level ^ (int(np.searchsorted(ch.edges, t, "right")) & 1))


READ_ONLY: dict[str, tuple[str, Callable[[Capture], tuple[bytes, dict[str, Any]]]]] = {
    "edges-csv": (".csv", edges_csv),
    "pio-durations": (".pio.csv", pio_durations),
    "sigrok": (".sr", sigrok),
    "saleae-csv": (".csv", saleae_csv),
}


@SETTINGS
@given(cap=captures(gaps=False, at_start=True, names=True))
def test_edges_csv_round_trip(tmp_path: Path, cap: Capture) -> None:
    """No window (the rows bound it) and no gaps in the format; glitches are rows."""
    assume(all(abs(int(x)) < 10**18 for ch in cap for x in ch.edges[[0, -1]]))
    want = expected(cap)
    data, opts = edges_csv(cap)
    (tmp_path / "e.csv").write_bytes(data)
    got = F.load(tmp_path / "e.csv", "edges-csv", **opts)
    want.t_start = want.t_end = None  # the rows bound the window
    assert_same(want, got)


@SETTINGS
@given(cap=captures(gaps=False, far=False, glitches=False))
def test_pio_durations_round_trip(tmp_path: Path, cap: Capture) -> None:
    """One channel, from t = 0, no gaps; a zero duration is refused, so no glitch."""
    one = Capture(tick_s=cap.tick_s, t_start=0)
    e = cap["D0"].edges - (cap.t_start or 0)
    one.add(Channel("D0", np.concatenate(([0], e)), cap["D0"].initial_level))
    one.t_end = int(one["D0"].edges[-1])
    assume(Fraction(1, 10**15) <= one.tick_s <= 1000)
    data, opts = pio_durations(one)
    (tmp_path / "d.pio.csv").write_bytes(data)
    assert_same(one, F.load(tmp_path / "d.pio.csv", **opts))


@SETTINGS
@given(cap=captures(gaps=False, far=False, glitches=False))
def test_sigrok_round_trip(tmp_path: Path, cap: Capture) -> None:
    """Samples from 0: edges are sample indices, no gaps, no glitches, whole Hz rates."""
    assume((1 / cap.tick_s).denominator == 1)
    cap.t_start = 0
    assume(all(len(ch) and ch.edges[-1] < (cap.t_end or 0) for ch in cap))
    data, _ = sigrok(cap)
    (tmp_path / "s.sr").write_bytes(data)
    assert_same(expected(cap), F.load(tmp_path / "s.sr"))


@SETTINGS
@given(cap=captures(far=False))
def test_saleae_csv_round_trip(tmp_path: Path, cap: Capture) -> None:
    """Decimal times (decimal ticks only); a gap is X; a glitch is lost in a row per
    time (the format holds one state per time), so the rule's result is written."""
    assume(cap.tick_s in DECIMAL_TICKS)
    want = expected(cap)
    data, opts = saleae_csv(want)
    (tmp_path / "s.csv").write_bytes(data)
    assert_same(want, F.load(tmp_path / "s.csv", "saleae-csv", **opts))


@SETTINGS
@given(cap=captures(far=False, glitches=False))
def test_saleae_bin_round_trip(tmp_path: Path, cap: Capture) -> None:
    """Seconds as doubles (exact for these ticks and times), a chunk per segment."""
    assume(cap.tick_s >= Fraction(1, 10**9) and cap.tick_s < 1)
    ch = cap["D0"]
    one = Capture(tick_s=cap.tick_s, gaps=cap.gaps, t_start=cap.t_start, t_end=cap.t_end)
    one.add(Channel("digital_0", ch.edges, ch.initial_level, ch.gap_levels))
    spans = (
        [(one.t_start, one.t_end)]
        if not len(one.gaps)
        else [(one.t_start, int(one.gaps[0, 0])), (int(one.gaps[0, 1]), one.t_end)]
    )
    sec = float(one.tick_s)
    data = struct.pack("<8siiQ", b"<SALEAE>", 1, 0, len(spans))
    level = ch.initial_level
    for k, (b, e) in enumerate(spans):
        t = ch.edges[(ch.edges >= b) & (ch.edges <= e)]
        if k:
            level = int(ch.gap_levels[0])
        data += struct.pack("<IdddQ", level, 1 / sec, b * sec, e * sec, t.size)
        data += struct.pack(f"<{t.size}d", *(t * sec).tolist())
    (tmp_path / "digital_0.bin").write_bytes(data)
    got = F.load(tmp_path / "digital_0.bin", tick=one.tick_s)
    assert_same(one, got)


@settings(max_examples=8, deadline=None)
@given(cap=captures(far=False))
def test_fst_round_trip(cap: Capture) -> None:
    """FST as Icarus Verilog writes it (1 ns, from #0): a glitch is two assignments in
    one time step, a gap is $dumpoff … $dumpon. Few examples: each is a simulation."""
    import tempfile

    from tests.format_samples import write_fst

    ch = cap["D0"]
    one = Capture(tick_s=Fraction(1, 10**9), gaps=cap.gaps, t_start=0)
    one.add(Channel("tb.a", ch.edges - (cap.t_start or 0), ch.initial_level, ch.gap_levels))
    one.gaps = one.gaps - (cap.t_start or 0)
    steps, now, level = [], 0, ch.initial_level
    marks = {int(g[0]): "$dumpoff;" for g in one.gaps} | {int(g[1]): "$dumpon;" for g in one.gaps}
    events = sorted(
        [(int(t), "edge") for t in one["tb.a"].edges] + [(t, m) for t, m in marks.items()]
    )
    for t, what in events:
        steps.append(f"#{t - now}")
        now = t
        if what == "edge":
            level ^= 1
            steps.append(f"a = {level};")
        else:
            if what == "$dumpon;":
                level = int(one["tb.a"].gap_levels[0])
                steps.append(f"a = {level};")
            steps.append(what)
    bench = (
        f"`timescale 1ns/1ns\nmodule tb; reg a = {ch.initial_level}; initial begin\n"
        '$dumpfile("tb.fst"); $dumpvars(0, tb);\n' + "\n".join(steps) + "\nend endmodule\n"
    )
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "p.fst"
        if not write_fst(bench, out):
            pytest.skip("iverilog missing (deps/apt.txt)")
        got = F.load(out, "fst")
    want = expected(one)
    want.t_end = max([int(e[-1]) for e in (c.edges for c in want) if e.size] + [0])
    got.t_end = want.t_end  # FST's window ends at its last change, which may be a gap's
    assert_same(want, got)
