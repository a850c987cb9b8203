"""The native format read as a stream: the same edges as `read`, by either decoder (the
compiled one on rtlab's own layout, Arrow in a forked child on any other), and a
FormatError, never a crash or a wrong answer, on a damaged file."""

from __future__ import annotations

import contextlib
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rtlab
from rtlab.errors import FormatError
from rtlab.formats import parquet, parquet_direct, parquet_write
from rtlab.formats.parquet_footer import read_plan
from rtlab.model import Capture, Channel


def _capture(n: int = 5000) -> Capture:
    rng = np.random.default_rng(3)
    cap = Capture(tick_s=Fraction(8, 10**9), gaps=[[10**9, 10**9 + 5]])
    for k, name in enumerate(("D0", "D1", "D2")):
        e = np.cumsum(rng.integers(1, 90 + 5000 * k, n)).astype(np.int64)
        e = e[(e < 10**9) | (e >= 10**9 + 5)]
        cap.add(Channel(name, e, k % 2, np.array([1 - k % 2], dtype=np.int8)))
    return cap


def _edges(stream) -> dict[str, np.ndarray]:
    parts: dict[str, list[np.ndarray]] = {}
    for name, arr in stream.chunks:
        parts.setdefault(name, []).append(arr.copy())
    return {k: np.concatenate(v) for k, v in parts.items()}


@pytest.fixture
def small_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parquet_write, "ROW_GROUP", 777)  # many row groups, odd sizes


def test_stream_gives_the_edges_read_gives(tmp_path: Path, small_groups: None) -> None:
    cap = _capture()
    rtlab.save(cap, tmp_path / "c.parquet")
    stream = parquet.read_stream(tmp_path / "c.parquet", channels=["D2", "D0"])
    assert list(stream.header.channels) == ["D0", "D2"]
    got = _edges(stream)
    for name in ("D0", "D2"):
        assert np.array_equal(got[name], cap[name].edges)
        assert stream.edge_counts[name] == len(cap[name])
    assert stream.header["D0"].gap_levels.tolist() == [1]


def old_writer(path: Path, meta: dict) -> Any:
    """The pyarrow writer rtlab used before its own (parquet_encode.py): its files must
    still read. A context manager giving (writer, schema)."""
    schema = pa.schema(
        [("channel", pa.uint16()), ("time", pa.int64())],
        metadata={b"rtlab.capture": json.dumps(meta).encode()},
    )
    writer = pq.ParquetWriter(
        path,
        schema,
        compression="none",
        use_dictionary=["channel"],
        column_encoding={"time": "DELTA_BINARY_PACKED"},
        write_statistics=["channel", "time"],
    )
    return contextlib.closing(writer), schema


def test_a_file_of_another_writer_goes_through_duckdb(tmp_path: Path) -> None:
    """Snappy pages and dictionary encoding: not the compiled decoder's layout."""
    cap = _capture(3000)
    rtlab.save(cap, tmp_path / "c.parquet")
    table = pq.read_table(tmp_path / "c.parquet")
    pq.write_table(table, tmp_path / "other.parquet", compression="snappy", row_group_size=500)
    plan = read_plan(tmp_path / "other.parquet", b"rtlab.capture")
    assert plan.locations[0] is None
    got = _edges(parquet.read_stream(tmp_path / "other.parquet"))
    for ch in cap:
        assert np.array_equal(got[ch.name], ch.edges)


def test_analyze_of_the_stream_is_the_in_memory_analysis(tmp_path: Path, small_groups) -> None:
    from rtlab.analysis.stream import analyze_stream

    cap = _capture()
    rtlab.save(cap, tmp_path / "c.parquet")
    ref = rtlab.analyze(rtlab.load(tmp_path / "c.parquet"), edge="falling").to_dict()
    got = analyze_stream(rtlab.formats.open_stream(tmp_path / "c.parquet"), edge="falling")
    assert json.dumps(got.to_dict(), default=str) == json.dumps(ref, default=str)


def test_unsorted_across_row_groups_is_an_error(tmp_path: Path) -> None:
    cap = _capture(100)
    rtlab.save(cap, tmp_path / "c.parquet")
    meta = pq.read_schema(tmp_path / "c.parquet").metadata
    times = np.concatenate([np.arange(10, 20), np.arange(5, 15)]).astype(np.int64)
    schema = pa.schema([("channel", pa.uint16()), ("time", pa.int64())], metadata=meta)
    doc = json.loads(meta[b"rtlab.capture"])
    doc["channels"] = [{"name": "D0", "initial_level": 0, "n_edges": 20, "gap_levels": None}]
    doc["gaps"] = []
    schema = schema.with_metadata({b"rtlab.capture": json.dumps(doc).encode()})
    with pq.ParquetWriter(
        tmp_path / "bad.parquet",
        schema,
        compression="none",
        use_dictionary=["channel"],
        column_encoding={"time": "DELTA_BINARY_PACKED"},
    ) as w:
        for part in (times[:10], times[10:]):
            chan = pa.array(np.zeros(10, dtype=np.uint16))
            w.write_table(pa.Table.from_arrays([chan, pa.array(part)], schema=schema))
    with pytest.raises(FormatError, match="not sorted"):
        _edges(parquet.read_stream(tmp_path / "bad.parquet"))


@pytest.mark.skipif(parquet_direct.decode_delta_chunk is None, reason="no rtlab_native")
def test_damaged_pages_are_format_errors(tmp_path: Path) -> None:
    """Bytes flipped anywhere in the data: an error naming the row group, or edges that
    still decode (a flipped bit inside a value), never a crash of the process."""
    rtlab.save(_capture(4000), tmp_path / "c.parquet")
    data = bytearray((tmp_path / "c.parquet").read_bytes())
    footer_len = int.from_bytes(data[-8:-4], "little")
    rng = np.random.default_rng(9)
    errors = 0
    for k in range(60):
        bad = bytearray(data)
        for at in rng.integers(4, len(data) - footer_len - 8, 3):
            bad[at] ^= int(rng.integers(1, 256))
        p = tmp_path / f"bad{k}.parquet"
        p.write_bytes(bytes(bad))
        try:
            _edges(parquet.read_stream(p))
        except FormatError as exc:
            assert "row group" in str(exc) or "sorted" in str(exc)
            errors += 1
    assert errors > 0  # most flips land inside a packed value: still valid edges


def test_same_time_pulses_of_old_files_read_as_read_does(tmp_path: Path) -> None:
    """A file written before one-value-per-time-step (zero-width pulses stored): the
    stream drops them as read() does, across row-group boundaries too, and `convert`
    writes the counts it wrote."""
    from rtlab.analysis.stream import analyze_stream

    rng = np.random.default_rng(4)
    e = np.cumsum(rng.integers(0, 4, 20_000)).astype(np.int64)  # many equal times
    cap = Capture(tick_s=Fraction(1, 10**9))
    cap.add(Channel("D0", e, 0))
    cap.add(Channel("D1", e[::2], 1))
    meta = {
        "version": 1, "tick_s": "1/1000000000", "resolution_s": None, "t_start": None,
        "t_end": None, "gaps": [], "metadata": {},
        "channels": [
            {"name": ch.name, "initial_level": ch.initial_level, "n_edges": len(ch),
             "gap_levels": None} for ch in cap
        ],
    }  # fmt: skip
    old = tmp_path / "old.parquet"
    closing, schema = old_writer(old, meta)
    with closing as writer:
        for k, ch in enumerate(cap):
            for lo in range(0, len(ch), 333):
                part = ch.edges[lo : lo + 333]
                chan = pa.array(np.full(part.size, k, dtype=np.uint16))
                writer.write_table(pa.Table.from_arrays([chan, pa.array(part)], schema=schema))
    ref = rtlab.analyze(rtlab.load(old)).to_dict()
    assert ref["channels"]["D0"]["edges"] < len(e)
    got = analyze_stream(rtlab.formats.open_stream(old)).to_dict()
    assert json.dumps(got, default=str) == json.dumps(ref, default=str)
    parquet.write_stream(rtlab.formats.open_stream(old), tmp_path / "new.parquet")
    a, b = rtlab.load(old), rtlab.load(tmp_path / "new.parquet")
    for name in ("D0", "D1"):
        assert np.array_equal(a[name].edges, b[name].edges)


@pytest.mark.skipif(parquet_direct.decode_delta_chunk is None, reason="no rtlab_native")
def test_every_bit_width_decodes(tmp_path: Path) -> None:
    """Deltas of every packed width (0 to 54 bits) and counts that are not multiples of
    a miniblock: the compiled decoder reads back exactly what was written."""
    rng = np.random.default_rng(12)
    cap = Capture(tick_s=Fraction(1, 10**9))
    for w in range(55):
        n = int(rng.integers(1, 300))
        d = rng.integers(0, 1 << w, n, dtype=np.int64) if w else np.ones(n, np.int64)
        cap.add(Channel(f"w{w}", np.cumsum(d + 1).astype(np.int64), 0))
    rtlab.save(cap, tmp_path / "w.parquet")
    got = _edges(parquet.read_stream(tmp_path / "w.parquet"))
    for ch in cap:
        assert np.array_equal(got[ch.name], ch.edges), ch.name
