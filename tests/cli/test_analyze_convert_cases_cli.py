"""The `analyze`/`convert` command's edge cases: one-line errors instead of tracebacks,
unique quantile labels, the latency line in text output, refused option conflicts and
gaps kept by `convert`."""

from __future__ import annotations

import csv
import io
import json
import struct
from pathlib import Path

import pytest

from tests.conftest import rtlab

VCD = (
    "$timescale 1ns $end $scope module tb $end $var wire 1 ! clk $end $upscope $end "
    "$enddefinitions $end\n#0 0! #10 1! #20 0! #30 1! #40 0! #50 1! #60\n"
)


@pytest.fixture
def vcd(tmp_path: Path) -> Path:
    path = tmp_path / "clk.vcd"
    path.write_text(VCD)
    return path


def one_line_error(r, *words: str) -> None:
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


def test_parquet_metadata_tick_out_of_range(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    import rtlab as lib

    path = tmp_path / "c.parquet"
    src = tmp_path / "d.csv"
    src.write_text("10\n20\n10\n20\n")
    lib.save(lib.load(src, "pio-durations"), path)
    table = pq.read_table(path)
    meta = json.loads(table.schema.metadata[b"rtlab.capture"])
    meta["tick_s"] = "1e400"
    table = table.replace_schema_metadata({b"rtlab.capture": json.dumps(meta).encode()})
    pq.write_table(table, path)
    one_line_error(rtlab("analyze", str(path)), "tick", "out of range")


def test_quantile_labels_unique(vcd: Path) -> None:
    r = rtlab("analyze", str(vcd), "--quantiles", "0.9999995 1", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    period = doc["channels"]["tb.clk"]["period"]
    assert list(period["quantiles"]) == ["0.9999995", "1"]
    r = rtlab("analyze", str(vcd), "--quantiles", "0.9999995 1", "--csv")
    head = next(csv.reader(io.StringIO(r.stdout)))
    assert len(head) == len(set(head)) and "q0.9999995_ns" in head


def test_latency_line_in_text_output_with_one_edge(tmp_path: Path) -> None:
    path = tmp_path / "lat.csv"
    path.write_text("0,a,1\n100,b,1\n150,b,0\n")
    for fmt in ([], ["--md"]):
        r = rtlab("analyze", str(path), "-l", "a:b", *fmt)
        assert r.returncode == 0, r.stderr
        assert "a:b: 1 paired, 0 unpaired, 0 extra edges" in r.stdout, (fmt, r.stdout)


def test_convert_to_vcd_keeps_the_gaps(tmp_path: Path) -> None:
    a = [i * 1e-4 for i in range(1, 9)]
    b = [1.0e-3 + i * 1e-4 for i in range(1, 9)]
    data = struct.pack("<8siiQ", b"<SALEAE>", 1, 0, 2)
    data += struct.pack("<IdddQ", 0, 1e6, 0.0, 0.00085, 8) + struct.pack("<8d", *a)
    data += struct.pack("<IdddQ", 0, 1e6, 0.00095, 0.0019, 8) + struct.pack("<8d", *b)
    src = tmp_path / "digital_0.bin"
    src.write_bytes(data)
    r = rtlab("convert", str(src), str(tmp_path / "out.vcd"))
    assert r.returncode == 0, r.stderr
    docs = []
    for path in (src, tmp_path / "out.vcd"):
        r = rtlab("analyze", str(path), "--json")
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        docs.append((doc["gaps"], doc["window_ns"], doc["channels"]))
    assert docs[0] == docs[1]
    assert len(docs[0][0]) == 1


def test_parquet_span_refused_by_the_streaming_analyze(tmp_path: Path) -> None:
    """`rtlab analyze` streams Parquet: the 2^63-tick span is refused there too, with one
    line, not an overflow traceback from the histograms."""
    from tests.formats.test_reader_writer_cases import _parquet_with

    path = _parquet_with(tmp_path, [-(2**62), 2**62 + 5])
    one_line_error(rtlab("analyze", str(path), "--json"), "2^63")
    one_line_error(rtlab("convert", str(path), str(tmp_path / "out.parquet")), "2^63")
