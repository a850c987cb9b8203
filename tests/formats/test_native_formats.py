"""pio-durations, edges-csv and rtlab's Parquet format: exact reading, and clear errors."""

from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rtlab
from rtlab.errors import FormatError
from rtlab.model import Capture, Channel

# --- pio-durations -------------------------------------------------------------------


def write_durations(path: Path, values) -> Path:
    path.write_text("\n".join(str(v) for v in values) + "\n")
    return path


def test_pio_durations_reproduce_the_study_definitions(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    highs, lows = rng.integers(60, 70, 3000), rng.integers(70, 75, 3000)
    d = np.empty(6000, np.int64)
    d[0::2], d[1::2] = highs, lows
    cap = rtlab.load(write_durations(tmp_path / "c.csv", d))
    assert cap.metadata["format"] == "pio-durations"
    assert cap.tick_s == Fraction(16, 10**9)
    st = rtlab.stats(cap["D0"].periods())
    periods = (highs + lows) * 16.0  # the study: T_i = (t1 + t0) * 16 ns
    assert st.n == 3000
    assert st.mean == pytest.approx(periods.mean())
    assert st.rms == pytest.approx(periods.std())
    assert st.max_dev == pytest.approx(np.abs(periods - periods.mean()).max())
    np.testing.assert_array_equal(cap["D0"].widths("high").values, highs)


def test_pio_durations_options(tmp_path: Path) -> None:
    f = write_durations(tmp_path / "c.csv", [3, 5, 3, 5])
    cap = rtlab.load(f, "pio-durations", tick="8ns", first_level=0, channel="gpio")
    assert cap.tick_s == Fraction(8, 10**9)
    np.testing.assert_array_equal(cap["gpio"].widths("low").values, [3, 3])


@pytest.mark.parametrize(
    ("content", "message", "line"),
    [
        (b"", "empty", None),
        (b"12\n13\nabc\n", "unexpected byte", 3),
        (b"12\n0\n", "duration 0", 2),
        (b"12 13\n", "two values on one line", 1),
        (b"12\n-5\n", "a negative duration", 2),
        (b"\x89PNG\r\n\x1a\n", "unexpected byte", 1),
        (b"1\n" + b"9" * 30 + b"\n", "too large", 2),
    ],
)
def test_pio_durations_bad_input(tmp_path: Path, content: bytes, message: str, line) -> None:
    f = tmp_path / "bad.csv"
    f.write_bytes(content)
    with pytest.raises(FormatError, match=message) as exc:
        rtlab.load(f, "pio-durations")
    assert str(f) in str(exc.value)
    if line is not None:
        assert exc.value.line == line


# --- edges-csv -------------------------------------------------------------------------


def test_edges_csv_integer_ticks_and_interleaved_channels(tmp_path: Path) -> None:
    f = tmp_path / "e.csv"
    f.write_text(
        "timestamp,channel,level\n"
        "100,irq,1\n105,task,1\n150,irq,0\n170,task,0\n300,irq,1\n309,task,1\n350,irq,0\n"
    )
    cap = rtlab.load(f)
    assert cap.metadata["format"] == "edges-csv"
    np.testing.assert_array_equal(cap["irq"].edges, [100, 150, 300, 350])
    assert cap["irq"].initial_level == 0
    r = rtlab.latency(cap, "irq", "task")
    np.testing.assert_array_equal(r.samples.values, [5, 9])


def test_edges_csv_decimal_seconds_are_exact(tmp_path: Path) -> None:
    f = tmp_path / "e.csv"
    f.write_text("time,channel,level\n0.000000001,a,1\n0.000000301,a,0\n0.100000001,a,1\n")
    cap = rtlab.load(f)
    assert cap.tick_s == Fraction(1, 10**9)
    np.testing.assert_array_equal(cap["a"].edges, [1, 301, 100_000_001])


@pytest.mark.parametrize(
    ("content", "message", "line"),
    [
        ("timestamp,channel,level\n1,a,1\n2,a\n", "expected 3 fields", 3),
        ("timestamp,channel,level\n1,a,1\nx,a,0\n", "bad timestamp", 3),
        ("timestamp,channel,level\n5,a,1\n3,a,0\n", "backwards", 3),
        ("timestamp,channel,level\n1,a,1\n2,a,1\n", "edge is missing", 3),
        ("timestamp,channel,level\n1,a,2\n", "level must be 0 or 1", 2),
        ("timestamp,channel,level\n", "no edge rows", None),
    ],
)
def test_edges_csv_bad_input(tmp_path: Path, content: str, message: str, line) -> None:
    f = tmp_path / "e.csv"
    f.write_text(content)
    with pytest.raises(FormatError, match=message) as exc:
        rtlab.load(f, "edges-csv")
    assert exc.value.line == line


def test_edges_csv_binary_garbage(tmp_path: Path) -> None:
    f = tmp_path / "e.csv"
    f.write_bytes(b"timestamp,channel,level\n\xff\xfe\x00\x01")
    with pytest.raises(FormatError, match=r"binary data|UTF-8"):
        rtlab.load(f, "edges-csv")


# --- parquet ---------------------------------------------------------------------------


def test_parquet_round_trip_keeps_everything(tmp_path: Path) -> None:
    cap = Capture(
        tick_s=Fraction(1, 24_000_000),
        gaps=[[1000, 2000]],
        t_start=0,
        t_end=5000,
        resolution_s=Fraction(1, 12_000_000),
        metadata={"instrument": "test", "note": "ünïcode"},
    )
    cap.add(Channel("D0", np.array([10, 20, 30, 2500, 2600]), 0, gap_levels=np.array([1])))
    cap.add(Channel("D1", np.array([], dtype=np.int64), 1, gap_levels=np.array([1])))
    out = tmp_path / "c.parquet"
    rtlab.save(cap, out)
    back = rtlab.load(out)
    assert back.tick_s == cap.tick_s and back.resolution_s == cap.resolution_s
    assert (back.t_start, back.t_end) == (0, 5000)
    np.testing.assert_array_equal(back.gaps, cap.gaps)
    np.testing.assert_array_equal(back["D0"].edges, cap["D0"].edges)
    assert back["D1"].initial_level == 1 and len(back["D1"]) == 0
    assert list(back["D0"].gap_levels) == [1]
    assert back.metadata["note"] == "ünïcode"


def test_parquet_is_a_plain_edge_table_for_duckdb(tmp_path: Path) -> None:
    import duckdb

    cap = Capture(tick_s=Fraction(1, 10**9))
    cap.add(Channel("a", np.arange(0, 100, 10), 0))
    cap.add(Channel("b", np.arange(5, 100, 10), 0))
    out = tmp_path / "c.parquet"
    rtlab.save(cap, out)
    rows = duckdb.sql(f"SELECT channel, count(*) FROM '{out}' GROUP BY 1 ORDER BY 1").fetchall()
    assert rows == [(0, 10), (1, 10)]


def test_parquet_many_row_groups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rtlab.formats.parquet_write as pqfmt  # the writer owns ROW_GROUP

    monkeypatch.setattr(pqfmt, "ROW_GROUP", 1000)
    e = np.cumsum(np.random.default_rng(0).integers(1, 50, 10_500))
    cap = Capture(tick_s=Fraction(1, 10**9))
    cap.add(Channel("a", e, 0))
    cap.add(Channel("b", e + 3, 1))
    out = tmp_path / "c.parquet"
    rtlab.save(cap, out)
    assert pq.ParquetFile(out).num_row_groups == 22
    back = rtlab.load(out, channels=["b"])
    assert list(back.channels) == ["b"]
    np.testing.assert_array_equal(back["b"].edges, e + 3)


def test_parquet_write_failure_leaves_no_partial_file(tmp_path: Path) -> None:
    cap = Capture(tick_s=Fraction(1, 10**9))
    cap.add(Channel("a", np.array([5, 3]), 0))  # unsorted: refused
    out = tmp_path / "c.parquet"
    with pytest.raises(ValueError, match="not sorted"):
        rtlab.save(cap, out)
    assert list(tmp_path.iterdir()) == []


def test_parquet_bad_input(tmp_path: Path) -> None:
    cap = Capture(tick_s=Fraction(1, 10**9))
    cap.add(Channel("a", np.arange(0, 100_000, 7), 0))
    good = tmp_path / "good.parquet"
    rtlab.save(cap, good)
    data = good.read_bytes()
    cases = {
        "truncated": data[: len(data) // 2],
        "empty": b"",
        "garbage": b"PAR1" + bytes(range(256)) * 4,
        "footer-only": b"PAR1\x00\x00\x00\x00PAR1",
    }
    for name, content in cases.items():
        f = tmp_path / f"{name}.parquet"
        f.write_bytes(content)
        with pytest.raises(FormatError) as exc:
            rtlab.load(f, "parquet")
        assert str(f) in str(exc.value), name
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1, 2, 3]}), other)
    with pytest.raises(FormatError, match="not an rtlab capture"):
        rtlab.load(other)
    f = tmp_path / "png.parquet"
    f.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
    with pytest.raises(FormatError, match="not a Parquet file"):
        rtlab.load(f, "parquet")


def test_unknown_format_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="no such file"):
        rtlab.load(tmp_path / "nope.sr")
    f = tmp_path / "mystery.bin2"
    f.write_bytes(b"\x01\x02\x03")
    with pytest.raises(FormatError, match="cannot tell the format"):
        rtlab.load(f)
