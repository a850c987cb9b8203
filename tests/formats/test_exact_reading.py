"""Readers that state only what the file says: Parquet time columns that are not int64
ticks (floats, uint64 past 2^63, nulls) are refused or read exactly; the edges CSV
breaks lines at `\\n` only; a Saleae v0 export's resolution is inferred and labelled so;
`-` and missing files are named."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rtlab.formats as F
from rtlab.errors import FormatError


def _parquet(tmp_path: Path, column: Any, n: int, **write: Any) -> Path:
    """An rtlab capture of one channel D0 whose `time` column is `column` (pyarrow)."""
    doc = {
        "version": 1, "tick_s": "1/1000000000", "resolution_s": None, "t_start": None,
        "t_end": None, "gaps": [], "metadata": {},
        "channels": [{"name": "D0", "initial_level": 0, "n_edges": n}],
    }  # fmt: skip
    schema = pa.schema(
        [("channel", pa.uint16()), ("time", column.type)],
        metadata={b"rtlab.capture": json.dumps(doc).encode()},
    )
    table = pa.Table.from_arrays([pa.array(np.zeros(n, np.uint16)), column], schema=schema)
    path = tmp_path / "p.parquet"
    pq.write_table(table, path, **write)
    return path


def _load_both(path: Path) -> list[Any]:
    """The whole-file read and the stream, gathered."""
    stream = F.open_stream(path)
    parts = [e for _, e in stream.chunks]
    return [F.load(path), np.concatenate(parts) if parts else np.zeros(0, np.int64)]


@pytest.mark.parametrize("kind", [pa.float64(), pa.float32()])
def test_parquet_float_time_column_is_refused(tmp_path: Path, kind: Any) -> None:
    path = _parquet(tmp_path, pa.array([10.7, 20.2, 40.9], kind), 3)
    with pytest.raises(FormatError, match=r"time column is (double|float).*integer ticks"):
        F.load(path)
    with pytest.raises(FormatError, match=r"time column is (double|float)"):
        F.open_stream(path)


@pytest.mark.parametrize("kind", [pa.timestamp("ns"), pa.decimal128(38, 0)])
def test_parquet_time_column_with_a_logical_type_is_refused(tmp_path: Path, kind: Any) -> None:
    values = [10, 20, 40]
    column = pa.array(values, pa.int64()).cast(kind)
    with pytest.raises(FormatError, match=r"time column"):
        F.load(_parquet(tmp_path, column, 3))


def test_parquet_uint64_times_past_2_63_are_refused(tmp_path: Path) -> None:
    big = 2**63 + 5
    path = _parquet(tmp_path, pa.array([10, 20, big], pa.uint64()), 3)
    with pytest.raises(FormatError, match=r"row 2: time 9223372036854775813 is above 2\^63 - 1"):
        F.load(path)


@pytest.mark.parametrize("kind", [pa.uint64(), pa.uint32(), pa.int32(), pa.uint16()])
def test_parquet_integer_time_columns_read_exactly(tmp_path: Path, kind: Any) -> None:
    top = 2**63 - 1 if kind == pa.uint64() else 60_000
    times = [10, 20, top]
    path = _parquet(tmp_path, pa.array(times, kind), 3)
    cap, streamed = _load_both(path)
    assert cap["D0"].edges.tolist() == times
    assert streamed.tolist() == times


@pytest.mark.parametrize("dictionary", [False, True])
def test_parquet_null_time_is_named_as_a_null(tmp_path: Path, dictionary: bool) -> None:
    path = _parquet(
        tmp_path, pa.array([10, None, 30], pa.int64()), 3, use_dictionary=dictionary
    )
    with pytest.raises(FormatError, match=r"null") as err:
        F.load(path)
    assert "corrupt" not in str(err.value)
    assert "row 1" in str(err.value) or "null edge times" in str(err.value)


# -- edges CSV: lines end at \n ------------------------------------------------------------


@pytest.mark.parametrize("char", ["\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_edges_csv_breaks_lines_at_newline_only(tmp_path: Path, char: str) -> None:
    """A name holding a character str.splitlines() breaks at is one name, and a bad
    row after it is named at its `\\n` line."""
    path = tmp_path / "e.csv"
    path.write_text(f"timestamp,channel,level\n10,a{char}b,1\n20,a{char}b,0\n", encoding="utf-8")
    cap = F.load(path, format="edges-csv")
    assert list(cap.channels) == [f"a{char}b"]
    assert cap[f"a{char}b"].edges.tolist() == [10, 20]
    path.write_text(f"10,a{char}b,1\n20,a,0\nbad\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"e\.csv:3: "):
        F.load(path, format="edges-csv")


def test_edges_csv_reads_crlf_lines(tmp_path: Path) -> None:
    path = tmp_path / "e.csv"
    path.write_bytes(b"timestamp,channel,level\r\n10,D0,1\r\n20,D0,0\r\nbad\r\n")
    with pytest.raises(FormatError, match=r"e\.csv:4: "):
        F.load(path, format="edges-csv")
    path.write_bytes(b"10,D0,1\r\n20,D0,0\r\n")
    assert F.load(path, format="edges-csv")["D0"].edges.tolist() == [10, 20]


# -- Saleae binary v0: no sample rate stated -----------------------------------------------


def _saleae_v0(path: Path, times_s: list[float], initial: int = 0) -> Path:
    head = b"<SALEAE>" + struct.pack("<ii", 0, 0)
    body = struct.pack("<IddQ", initial, 0.0, times_s[-1] + 1e-6, len(times_s))
    path.write_bytes(head + body + struct.pack(f"<{len(times_s)}d", *times_s))
    return path


def test_saleae_v0_resolution_is_inferred_and_labelled(tmp_path: Path) -> None:
    """Every edge a multiple of 160 ns (6.25 MS/s): not a resolution of 1 ns."""
    times = [k * 160e-9 for k in (3, 7, 8, 20, 21, 40)]
    cap = F.load(_saleae_v0(tmp_path / "digital_0.bin", times))
    assert cap.tick_s * 10**9 == 1
    assert cap.resolution * 10**9 == 160
    assert cap.metadata["resolution_inferred"] is True
    assert cap.metadata["time_unit"].startswith("s")


def test_saleae_v0_inferred_resolution_is_said_in_the_analysis(tmp_path: Path) -> None:
    from rtlab.analysis.summary import analyze
    from rtlab.report.tables import header_lines

    times = [k * 80e-9 for k in (1, 3, 4, 9, 10, 12)]
    an = analyze(F.load(_saleae_v0(tmp_path / "digital_0.bin", times)))
    doc = an.to_dict()
    assert doc["resolution_ns"] == 80.0 and doc["resolution_inferred"] is True
    assert "resolution 80 ns (inferred from the edges)" in header_lines(an)[0]


def test_saleae_v0_with_a_given_tick_states_no_inferred_resolution(tmp_path: Path) -> None:
    times = [k * 160e-9 for k in (3, 7, 8)]
    cap = F.load(_saleae_v0(tmp_path / "digital_0.bin", times), tick="10ns")
    assert "resolution_inferred" not in cap.metadata
    assert cap.resolution == cap.tick_s


def test_other_formats_state_their_resolution(tmp_path: Path) -> None:
    path = tmp_path / "e.csv"
    path.write_text("10,D0,1\n20,D0,0\n")
    from rtlab.analysis.summary import analyze

    assert analyze(F.load(path, format="edges-csv")).to_dict()["resolution_inferred"] is False


# -- names of what is not a file ---------------------------------------------------------


def test_standard_input_is_said_to_be_unsupported() -> None:
    with pytest.raises(FormatError, match=r"standard input is not read"):
        F.load("-")


def test_parquet_metadata_naming_a_channel_twice_is_refused(tmp_path: Path) -> None:
    """Found by bench/fuzz_parsers.py: a ValueError (a traceback) before."""
    path = _parquet(tmp_path, pa.array([10, 20], pa.int64()), 2)
    meta = json.loads(pq.read_schema(path).metadata[b"rtlab.capture"])
    meta["channels"] = [meta["channels"][0], {**meta["channels"][0], "n_edges": 0}]
    table = pq.read_table(path)
    table = table.replace_schema_metadata({b"rtlab.capture": json.dumps(meta).encode()})
    pq.write_table(table, path)
    with pytest.raises(FormatError, match=r"duplicate channel name 'D0'"):
        F.load(path)
