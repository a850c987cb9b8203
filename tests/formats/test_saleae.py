"""Saleae Logic 2 binary export (v0, v1 with gaps) and digital CSV export, from files
written here following Saleae's documented layout, with edges known beforehand."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import rtlab
from rtlab.errors import FormatError
from rtlab.formats import saleae_bin, saleae_csv
from rtlab.model import UNKNOWN_LEVEL

# --- a small writer of the documented binary layout ----------------------------------


def bin_v0(path: Path, initial: int, begin: float, end: float, times: np.ndarray) -> Path:
    head = struct.pack("<8sii", b"<SALEAE>", 0, 0)
    head += struct.pack("<IddQ", initial, begin, end, len(times))
    path.write_bytes(head + np.asarray(times, dtype="<f8").tobytes())
    return path


def bin_v1(path: Path, chunks: list[tuple[int, float, float, float, np.ndarray]]) -> Path:
    out = struct.pack("<8sii", b"<SALEAE>", 1, 0) + struct.pack("<Q", len(chunks))
    for initial, rate, begin, end, times in chunks:
        out += struct.pack("<IdddQ", initial, rate, begin, end, len(times))
        out += np.asarray(times, dtype="<f8").tobytes()
    path.write_bytes(out)
    return path


def random_edges(seed: int, n: int, lo: int, hi: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.cumsum(rng.integers(lo, hi, n)) + 1000


def test_v0_one_file_is_one_channel_in_ns(tmp_path: Path) -> None:
    ticks = random_edges(1, 5000, 2, 400)  # whole ns, as Saleae's sample periods are
    path = bin_v0(tmp_path / "digital_3.bin", 1, 0.0, (ticks[-1] + 77) * 1e-9, ticks * 1e-9)
    cap = rtlab.load(path)
    assert cap.metadata["format"] == "saleae-bin"
    assert cap.tick_s == Fraction(1, 10**9)
    assert list(cap.channels) == ["digital_3"]
    ch = cap["digital_3"]
    np.testing.assert_array_equal(ch.edges, ticks)
    assert ch.initial_level == 1
    assert (cap.t_start, cap.t_end) == (0, ticks[-1] + 77)
    assert len(cap.gaps) == 0


def test_v0_with_pretrigger_times_and_a_tick(tmp_path: Path) -> None:
    ticks = random_edges(2, 1000, 1, 50) - 30000  # negative: before the trigger
    path = bin_v0(tmp_path / "d.bin", 0, -31000 * 4e-9, 0.01, ticks * 4e-9)
    cap = saleae_bin.read(path, tick="4ns", name="clk")
    np.testing.assert_array_equal(cap["clk"].edges, ticks)
    assert cap.t_start == -31000


def test_too_coarse_tick_is_refused_not_merged(tmp_path: Path) -> None:
    path = bin_v0(tmp_path / "d.bin", 0, 0.0, 1e-3, np.array([1e-8, 2e-8, 3e-8]))
    with pytest.raises(FormatError, match="finer tick"):
        saleae_bin.read(path, tick="1us")


def test_v1_chunks_with_holes_become_gaps(tmp_path: Path) -> None:
    rate = 100e6  # 10 ns samples: the tick is one sample
    a = random_edges(3, 300, 1, 20)
    b = a[-1] + 5000 + random_edges(4, 200, 1, 20)
    c = b[-1] + 40 + random_edges(5, 100, 1, 20)
    chunks = [
        (0, rate, 0.0, (a[-1] + 10) / rate, a / rate),
        (1, rate, (a[-1] + 3000) / rate, (b[-1] + 10) / rate, b / rate),  # hole before
        (0, rate, (b[-1] + 10) / rate, (c[-1] + 5) / rate, c / rate),  # touching
    ]
    cap = saleae_bin.read(bin_v1(tmp_path / "digital_0.bin", chunks))
    assert cap.tick_s == Fraction(1, 100_000_000)
    np.testing.assert_array_equal(cap.gaps, [[a[-1] + 10, a[-1] + 3000]])
    ch = cap["digital_0"]
    assert ch.gap_levels.tolist() == [1]
    # chunk 2 ends high (1 + 200 edges), chunk 3 starts low: that is an edge at its start
    np.testing.assert_array_equal(ch.edges, np.concatenate([a, b, [b[-1] + 10], c]))
    assert ch.initial_level == 0
    assert (cap.t_start, cap.t_end) == (0, c[-1] + 5)
    cap.validate()


def test_v1_edge_at_a_chunk_end_stays_out_of_the_gap(tmp_path: Path) -> None:
    rate = 1e9
    chunks = [
        (0, rate, 0.0, 100e-9, np.array([50e-9, 100e-9])),  # an edge at the end
        (1, rate, 200e-9, 300e-9, np.array([250e-9])),
    ]
    cap = saleae_bin.read(bin_v1(tmp_path / "e.bin", chunks))
    np.testing.assert_array_equal(cap.gaps, [[101, 200]])
    assert cap["e"].edges.tolist() == [50, 100, 250]
    cap.validate()


def test_v1_touching_chunks_with_a_clashing_edge_are_refused(tmp_path: Path) -> None:
    chunks = [
        (0, 1e9, 0.0, 100e-9, np.array([100e-9])),  # ends high, edge at 100
        (0, 1e9, 100e-9, 200e-9, np.array([150e-9])),
    ]  # starts low at 100
    with pytest.raises(FormatError, match="chunk 0 has an edge"):
        saleae_bin.read(bin_v1(tmp_path / "c.bin", chunks))


def test_directory_of_files_merges_into_one_capture(tmp_path: Path) -> None:
    d = tmp_path / "export"
    d.mkdir()
    edges = {k: random_edges(10 + k, 100, 5, 50) for k in (0, 1, 10)}
    for k, e in edges.items():
        bin_v0(d / f"digital_{k}.bin", k % 2, 0.0, 1e-3, e * 1e-9)
    cap = saleae_bin.read(d)
    assert list(cap.channels) == ["digital_0", "digital_1", "digital_10"]
    for k, e in edges.items():
        np.testing.assert_array_equal(cap[f"digital_{k}"].edges, e)
    assert cap["digital_1"].initial_level == 1


@pytest.mark.parametrize(
    ("mutate", "message", "offset"),
    [
        (lambda b: b[:10], "truncated header", 0),
        (lambda b: b"<SALEAF>" + b[8:], "expected <SALEAE>", 0),
        (lambda b: b[:8] + struct.pack("<i", 7) + b[12:], "version 7", 8),
        (lambda b: b[:12] + struct.pack("<i", 1) + b[16:], "analog export", 12),
        (lambda b: b[:16] + struct.pack("<I", 2) + b[20:], "initial state 2", 16),
        (lambda b: b[:-4], "declared", 36),
        (lambda b: b + b"\0" * 8, "unexpected bytes", 44 + 8 * 3),
        (lambda b: b[:36] + struct.pack("<Q", 2**62) + b[44:], "declared", 36),
        (lambda b: b[:44] + struct.pack("<d", float("nan")) + b[52:], "not a finite", 44),
    ],
)
def test_bad_binary_files_are_located(tmp_path: Path, mutate, message: str, offset: int) -> None:
    good = bin_v0(tmp_path / "g.bin", 0, 0.0, 1.0, np.array([0.1, 0.2, 0.3])).read_bytes()
    bad = tmp_path / "bad.bin"
    bad.write_bytes(mutate(good))
    with pytest.raises(FormatError, match=message) as exc:
        saleae_bin.read(bad)
    assert exc.value.offset == offset
    assert str(exc.value).startswith(str(bad))


def test_v1_huge_chunk_count_is_refused_without_allocating(tmp_path: Path) -> None:
    path = tmp_path / "h.bin"
    path.write_bytes(struct.pack("<8siiQ", b"<SALEAE>", 1, 0, 2**63))
    with pytest.raises(FormatError, match="chunk count"):
        saleae_bin.read(path)


def test_v1_overlapping_chunks_are_refused(tmp_path: Path) -> None:
    path = bin_v1(
        tmp_path / "o.bin",
        [(0, 1e6, 0.0, 1.0, np.array([0.5])), (0, 1e6, 0.9, 2.0, np.array([1.5]))],
    )
    with pytest.raises(FormatError, match="chunk 1 begins before chunk 0 ends"):
        saleae_bin.read(path)


# --- CSV ------------------------------------------------------------------------------


def csv_time(ns: int) -> str:
    sign = "-" if ns < 0 else ""
    return f"{sign}{abs(ns) // 10**9}.{abs(ns) % 10**9:09d}"


def write_csv(
    path: Path, names: list[str], rows: list[tuple[int, list[str]]], newline: str = "\n"
) -> Path:
    lines = ["Time [s]," + ",".join(names)]
    lines += [csv_time(t) + "," + ",".join(v) for t, v in rows]
    path.write_text(newline.join(lines) + newline)
    return path


def square_rows(seed: int, n: int) -> tuple[list[tuple[int, list[str]]], dict[int, list[int]]]:
    """Rows of two channels toggling at random times; and each channel's edges."""
    rng = np.random.default_rng(seed)
    times = np.cumsum(rng.integers(1, 10**6, n)).tolist()
    level = [0, 1]
    rows = [(0, ["0", "1"])]
    edges: dict[int, list[int]] = {0: [], 1: []}
    for t in times:
        which = [c for c in (0, 1) if rng.random() < 0.6] or [0]
        for c in which:
            level[c] ^= 1
            edges[c].append(t)
        rows.append((t, [str(v) for v in level]))
    return rows, edges


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_csv_times_are_exact_ns(tmp_path: Path, newline: str) -> None:
    rows, edges = square_rows(7, 3000)
    end = rows[-1][0] + 500
    rows.append((end, ["X", "X"]))  # Logic 2 ends with a row of X
    path = write_csv(tmp_path / "digital.csv", ["Channel 0", "Channel 1"], rows, newline)
    cap = rtlab.load(path)
    assert cap.metadata["format"] == "saleae-csv"
    assert cap.tick_s == Fraction(1, 10**9)
    assert (cap.t_start, cap.t_end) == (0, end)
    assert len(cap.gaps) == 0
    for c, name in enumerate(["Channel 0", "Channel 1"]):
        assert cap[name].edges.tolist() == edges[c]
        assert cap[name].initial_level == c


def test_csv_logic1_style_header_and_few_decimals(tmp_path: Path) -> None:
    path = tmp_path / "l1.csv"
    path.write_text("Time[s], Channel 0\n-0.25, 1\n0.5, 0\n0.75, 1\n1.125, 0\n")
    cap = saleae_csv.read(path)
    assert cap.tick_s == Fraction(1, 1000)
    assert cap["Channel 0"].edges.tolist() == [500, 750, 1125]
    assert cap.t_start == -250
    cap2 = saleae_csv.read(path, tick="125us")
    assert cap2["Channel 0"].edges.tolist() == [4000, 6000, 9000]
    with pytest.raises(FormatError, match="whole number of ticks") as exc:
        saleae_csv.read(path, tick="200ms")
    assert exc.value.line == 2


def test_csv_x_spans_become_gaps(tmp_path: Path) -> None:
    rows = [
        (0, ["0", "X"]),  # channel B starts later: a gap until it has data
        (100, ["1", "X"]),  # an A edge inside that gap: dropped and counted
        (200, ["1", "1"]),
        (300, ["0", "1"]),
        (400, ["X", "0"]),  # A drops out; B's edge at 400 is the gap start
        (500, ["1", "0"]),
        (600, ["0", "1"]),
        (700, ["X", "X"]),
    ]
    cap = saleae_csv.read(write_csv(tmp_path / "g.csv", ["A", "B"], rows))
    np.testing.assert_array_equal(cap.gaps, [[0, 200], [400, 500]])
    assert cap["A"].edges.tolist() == [300, 600]
    assert cap["A"].gap_levels.tolist() == [1, 1]
    assert cap["B"].edges.tolist() == [600]
    assert cap["B"].gap_levels.tolist() == [1, 0]
    assert cap.metadata["edges_in_gaps"] == 2  # A at 100, B at 400
    assert cap.t_end == 700
    cap.validate()


def test_csv_channel_without_data_is_left_out(tmp_path: Path) -> None:
    rows = [(0, ["0", "X"]), (10, ["1", "X"]), (20, ["X", "X"])]
    cap = saleae_csv.read(write_csv(tmp_path / "e.csv", ["A", "B"], rows))
    assert list(cap.channels) == ["A"]
    assert cap.metadata["empty_channels"] == ["B"]
    assert cap["A"].initial_level == 0 and UNKNOWN_LEVEL not in cap["A"].gap_levels


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("0.0,0,1\n0.1,0\n", 3, "values of 0, 1 or X"),
        ("0.0,0,1\n0.1,2,1\n", 3, "values of 0, 1 or X"),
        ("0.0,0,1\n1e-3,0,0\n", 3, "decimal time"),
        ("0.0,0,1\n0.1.2,0,0\n", 3, "decimal time"),
        ("0.0,0,1\nabc,0,0\n", 3, "decimal time"),
        ("0.5,0,1\n0.4,0,0\n", 3, "backwards"),
        ("0.0,0,1\n\n0.4,0,0\n", 3, "empty line"),
        ("0.0,0,1\n1234567890123.123456789,0,0\n", 3, "decimal time"),
    ],
)
def test_bad_csv_rows_name_their_line(tmp_path: Path, body: str, line: int, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("Time [s],A,B\n" + body)
    with pytest.raises(FormatError, match=message) as exc:
        saleae_csv.read(path)
    assert exc.value.line == line
    assert str(exc.value).startswith(f"{path}:{line}:")


def test_csv_headers_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    path.write_text("Trigger [s],Time [s],Ch0\n0.0,0.0,1.5\n")
    with pytest.raises(FormatError, match="analog"):
        saleae_csv.read(path)
    path.write_text("timestamp,channel,level\n0,a,1\n")
    with pytest.raises(FormatError, match="Time \\[s\\]") as exc:
        saleae_csv.read(path)
    assert exc.value.line == 1


def test_load_and_cli_take_an_export_directory(tmp_path: Path) -> None:
    d = tmp_path / "export"
    d.mkdir()
    edges = random_edges(3, 200, 5, 50)
    bin_v0(d / "digital_0.bin", 0, 0.0, 1e-3, edges * 1e-9)
    cap = rtlab.load(d)
    assert cap.metadata["format"] == "saleae-bin"
    np.testing.assert_array_equal(cap["digital_0"].edges, edges)
    out = subprocess.run(
        [sys.executable, "-m", "rtlab.cli", "analyze", str(d), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    periods = json.loads(out.stdout)["channels"]["digital_0"]["period"]
    assert periods["n"] == len(edges[::2]) - 1


def test_other_directories_are_refused_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(FormatError, match="without digital_"):
        rtlab.load(tmp_path)
    bin_v0(tmp_path / "digital_0.bin", 0, 0.0, 1e-3, np.array([1e-6]))
    with pytest.raises(FormatError, match="reads one file"):
        rtlab.load(tmp_path, "vcd")


def test_binary_export_streams_block_by_block(tmp_path: Path, monkeypatch) -> None:
    """Times read a few at a time (blocks of 7): the stream gives the edges, gaps and
    window that load() gives, and a time out of order deep in a chunk is an error naming
    its byte offset, raised while streaming."""
    from rtlab.analysis.stream import analyze_stream

    monkeypatch.setattr(saleae_bin, "_BLOCK", 7)
    a = random_edges(5, 50, 2, 40) * 1e-9
    b = (random_edges(6, 30, 2, 40) + 100_000) * 1e-9
    chunks = [(0, 1e9, 0.0, a[-1] + 1e-6, a), (1, 1e9, b[0] - 5e-6, b[-1] + 1e-6, b)]
    path = bin_v1(tmp_path / "digital_0.bin", chunks)
    cap = rtlab.load(path)
    stream = rtlab.formats.open_stream(path)
    assert stream.total_edges == len(cap["digital_0"])
    got = analyze_stream(stream).to_dict()
    assert json.dumps(got, default=str) == json.dumps(rtlab.analyze(cap).to_dict(), default=str)
    bad_b = b.copy()
    bad_b[20] = bad_b[19]
    bad = bin_v1(tmp_path / "bad.bin", [chunks[0], (*chunks[1][:4], bad_b)])
    offset = 16 + 8 + 36 + 8 * a.size + 36 + 8 * 20
    with pytest.raises(FormatError, match="not strictly increasing") as exc:
        for _ in rtlab.formats.open_stream(bad).chunks:
            pass
    assert exc.value.offset == offset
