"""One property test of the time line, run over every reader that can express each case.

Each format has a writer here that puts a list of event times (ticks of 1 ns) into a
file of that format. The properties, for any times hypothesis picks:
  - a time that goes backwards is rejected with its line or byte offset;
  - a time above 2^63-1 is rejected with its position;
  - a negative time is rejected with its position (VCD: times are unsigned), or kept
    as the negative tick it is (trigger-relative exports: Saleae, edges CSV);
  - a pause in the data is a gap that no interval spans;
  - the unit is never decided by one value: a file mixing conventions is an error.
What a format cannot express is left out, and why is said at its table entry:
sigrok .sr times are sample indices (never backwards, negative or huge, no gaps); the
Parquet writer refuses unsorted edges and stores int64 (no overflow); pio-durations
are non-negative durations (a negative one is the only bad time); FST is written by
Icarus Verilog, whose time never goes backwards, so FST takes part in the gap case only.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rtlab.formats as F
from rtlab.errors import FormatError
from tests.format_samples import write_fst

VCD_HEAD = """$timescale 1ns $end
$scope module tb $end
$var wire 1 ! a $end
$upscope $end
$enddefinitions $end
"""


def vcd(times: list[int], pause: tuple[int, int] | None = None) -> bytes:
    out = [VCD_HEAD]
    for k, t in enumerate(times):
        if pause and t == pause[1]:
            out.append(f"#{t}\n$dumpon\n{k % 2}!\n$end\n")
            continue
        out.append(f"#{t}\n{k % 2}!\n")
        if pause and t == pause[0]:
            out.append("$dumpoff\nx!\n$end\n")
    return "".join(out).encode()


def edges_csv(times: list[int], pause: tuple[int, int] | None = None) -> bytes:
    rows = "".join(f"{t},a,{k % 2}\n" for k, t in enumerate(times))
    return ("timestamp,channel,level\n" + rows).encode()


def saleae_csv(times: list[int], pause: tuple[int, int] | None = None) -> bytes:
    rows = []
    for k, t in enumerate(times):
        sign = "-" if t < 0 else ""
        level = "X" if pause and t == pause[0] else str(k % 2)
        rows.append(f"{sign}{abs(t) // 10**9}.{abs(t) % 10**9:09d},{level}\n")
    return ("Time [s],Channel 0\n" + "".join(rows)).encode()


def saleae_bin(times: list[int], pause: tuple[int, int] | None = None) -> bytes:
    """v1 with chunks: a pause is the space between two chunks."""
    secs = [t * 1e-9 for t in times]
    if pause is None:
        parts = [(0, secs)]
    else:
        parts = [
            (0, [s for s, t in zip(secs, times, strict=True) if t <= pause[0]]),
            (1, [s for s, t in zip(secs, times, strict=True) if t > pause[1]]),
        ]
    out = struct.pack("<8siiQ", b"<SALEAE>", 1, 0, len(parts))
    bounds = [(min(secs) - 1e-6, pause[0] * 1e-9 if pause else max(secs) + 1e-6)]
    if pause:
        bounds.append((pause[1] * 1e-9, max(secs) + 1e-6))
    for (_, ts), (b, e) in zip(parts, bounds, strict=True):
        out += struct.pack("<IdddQ", 0, 1e9, b, e, len(ts)) + struct.pack(f"<{len(ts)}d", *ts)
    return out


WRITERS: dict[str, tuple[str, Callable[..., bytes]]] = {
    "vcd": (".vcd", vcd),
    "edges-csv": (".csv", edges_csv),
    "saleae-csv": (".csv", saleae_csv),
    "saleae-bin": (".bin", saleae_bin),
}
# the formats' documented rule for a negative time
NEGATIVE_KEPT = {"edges-csv", "saleae-csv", "saleae-bin"}

increasing = st.lists(st.integers(2, 10**6), min_size=4, max_size=30).map(
    lambda d: list(np.cumsum(d).tolist())
)
SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def read(fmt: str, data: bytes, tmp_path: Path, name: str = "f"):
    path = tmp_path / f"{name}{WRITERS[fmt][0]}"
    path.write_bytes(data)
    return F.load(path, fmt)


def rejected_with_position(fmt: str, data: bytes, tmp_path: Path) -> FormatError:
    with pytest.raises(FormatError) as info:
        read(fmt, data, tmp_path)
    assert info.value.line is not None or info.value.offset is not None, str(info.value)
    return info.value


@pytest.mark.parametrize("fmt", list(WRITERS))
@SETTINGS
@given(times=increasing, at=st.integers(1, 29), back=st.integers(1, 10**6))
def test_time_never_goes_backwards(
    fmt: str, tmp_path: Path, times: list[int], at: int, back: int
) -> None:
    at = min(at, len(times) - 1)
    times[at] = max(times[at - 1] - back, 0)
    if times[at] == times[at - 1]:
        times[at] -= 1
    if times[at] < 0:
        return
    rejected_with_position(fmt, WRITERS[fmt][1](times), tmp_path)


@pytest.mark.parametrize("fmt", [f for f in WRITERS if f != "saleae-bin"])  # float64: no
@SETTINGS
@given(times=increasing, over=st.integers(0, 2**63))
def test_time_above_int64_is_rejected_with_position(
    fmt: str, tmp_path: Path, times: list[int], over: int
) -> None:
    times[-1] = 2**63 + over
    err = rejected_with_position(fmt, WRITERS[fmt][1](times), tmp_path)
    assert "OverflowError" not in str(err)


@pytest.mark.parametrize("fmt", [*WRITERS, "pio-durations"])
@SETTINGS
@given(times=increasing, neg=st.integers(1, 10**6))
def test_negative_time_rejected_or_kept(
    fmt: str, tmp_path: Path, times: list[int], neg: int
) -> None:
    if fmt == "pio-durations":  # durations: a negative one is the bad time
        path = tmp_path / "d.csv"
        path.write_text("".join(f"{d}\n" for d in [5, 7, -neg, 9]))
        with pytest.raises(FormatError) as info:
            F.load(path, fmt)
        assert info.value.line is not None or info.value.offset is not None
        return
    times = [-neg, *times]
    data = WRITERS[fmt][1](times)
    if fmt not in NEGATIVE_KEPT:
        rejected_with_position(fmt, data, tmp_path)
        return
    cap = read(fmt, data, tmp_path)
    ch = next(iter(cap))
    assert int(np.concatenate(([cap.window()[0]], ch.edges)).min()) <= -neg + 1000


@pytest.mark.parametrize("fmt", ["vcd", "saleae-csv", "saleae-bin", "fst"])
@SETTINGS
@given(times=increasing, at=st.integers(1, 25))
def test_a_pause_is_a_gap_no_interval_spans(
    fmt: str, tmp_path: Path, times: list[int], at: int
) -> None:
    at = min(at, len(times) - 3)
    pause = (times[at], times[at + 1])
    if fmt == "fst":
        if not write_fst(_fst_bench(times, pause), tmp_path / "p.fst"):
            pytest.skip("iverilog missing")
        cap = F.load(tmp_path / "p.fst", "fst")
    else:
        cap = read(fmt, WRITERS[fmt][1](times, pause), tmp_path)
    assert len(cap.gaps) == 1, cap.gaps
    lo, hi = (int(x) for x in cap.gaps[0])
    assert pause[0] <= lo <= pause[0] + 1 and hi == pause[1]
    for ch in cap:
        assert not np.any((ch.edges >= lo) & (ch.edges < hi))
        for s in (ch.intervals(), ch.periods("both")):
            at_end = np.asarray(s.at) if s.at is not None else np.zeros(0)
            starts = at_end - np.asarray(s.values)
            assert not np.any((starts < hi) & (at_end > lo)), (s.values, s.at)


def _fst_bench(times: list[int], pause: tuple[int, int]) -> str:
    steps, prev = [], 0
    for k, t in enumerate(times):
        if t == pause[1]:
            steps.append(f"#{t - prev} $dumpon;")
        else:
            steps.append(f"#{t - prev} a = {k % 2};")
            if t == pause[0]:
                steps.append("$dumpoff;")
        prev = t
    return (
        "`timescale 1ns/1ns\nmodule tb; reg a = 0; initial begin\n"
        '$dumpfile("tb.fst"); $dumpvars(0, tb);\n' + "\n".join(steps) + "\nend endmodule\n"
    )


@SETTINGS
@given(times=increasing, at=st.integers(1, 29), frac=st.integers(1, 9))
def test_unit_is_never_decided_by_one_value(
    tmp_path: Path, times: list[int], at: int, frac: int
) -> None:
    """edges-csv is the one format whose time unit is inferred from the text."""
    at = min(at, len(times) - 1)
    rows = [f"{t},a,{k % 2}" for k, t in enumerate(times)]
    rows[at] = f"{times[at]}.{frac},a,{at % 2}"
    data = ("timestamp,channel,level\n" + "\n".join(rows) + "\n").encode()
    err = rejected_with_position("edges-csv", data, tmp_path)
    assert err.line == at + 2
    # explicit: decimal seconds, whatever the first row looks like
    path = tmp_path / "s.csv"
    path.write_bytes(data)
    cap = F.load(path, "edges-csv", unit="s")
    assert cap.tick_s <= 1
