"""The incremental reader: whatever way the bytes are split, the runs are those of the
whole output; truncation and corruption are said with the line and its byte offset;
labels go into each run's meta without touching the text."""

from __future__ import annotations

import numpy as np
import pytest

from rtlab.protocol import Labels, ProtocolError, Reader, Run, Writer, parse
from rtlab.protocol.cut import parse_cut


def _output(crc: bool = False) -> bytes:
    text = []
    for i, enc in enumerate(("s", "sd", "sb")):
        w = Writer(crc=crc)
        w.hello("t", "1", note="a b")
        w.meta(run=i)
        w.series("lat", np.arange(600, dtype=np.int64) * (i + 1) - 300, encoding=enc)
        w.counter("n", i, unit="count")
        w.histogram("h", [(0, 10, 2), (10, 20, 1)], unit="ns")
        w.warn("w", "a warning")
        w.end()
        text.append("boot noise: é\r\n" + w.text())
    return "".join(text).encode()


def _same(a: list[Run], b: list[Run]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert (x.workload, x.meta, x.counters, x.histograms, x.warnings) == (
            y.workload, y.meta, y.counters, y.histograms, y.warnings,
        )  # fmt: skip
        assert (x.status, x.complete, x.problems) == (y.status, y.complete, y.problems)
        assert x.series.keys() == y.series.keys()
        for name in x.series:
            assert np.array_equal(x.series[name].values, y.series[name].values)


@pytest.mark.parametrize("crc", [False, True])
def test_byte_by_byte_gives_the_runs_of_the_whole_output(crc: bool) -> None:
    data = _output(crc)
    reader = Reader("uart")
    ends = []
    for i in range(len(data)):
        ends += [line.number for line in reader.feed(data[i : i + 1]) if line.rtype == "end"]
    runs = reader.close()
    _same(runs, parse(data))
    assert len(ends) == 3 and all(r.complete for r in runs)


@pytest.mark.parametrize("size", [2, 7, 64, 1000, 4096])
def test_any_chunk_size_gives_the_same_runs(size: int) -> None:
    data = _output(crc=True)
    reader = Reader()
    lines = []
    for i in range(0, len(data), size):
        lines += reader.feed(data[i : i + size])
    _same(reader.close(), parse(data))
    # every whole line once, in order, each at its byte offset in the stream
    assert [line.number for line in lines] == list(range(1, len(lines) + 1))
    for line in lines:
        assert data[line.offset :].startswith(line.text.encode())


def test_a_run_in_progress_shows_its_meta_before_its_end() -> None:
    reader = Reader()
    reader.feed(b"@rtl1 hello workload=t version=1\n@rtl1 meta board=pi%20co\n@rtl1 c n")
    assert reader.current is not None and reader.current.meta == {"board": "pi co"}
    assert reader.runs == []
    reader.feed(b" 1\n@rtl1 end records=3 status=ok\n")
    assert reader.current is None and reader.runs[0].complete


def test_output_cut_mid_line_is_a_truncated_run() -> None:
    data = _output()
    cut = data[: data.index(b"@rtl1 sd") + 20]  # the second run, mid-chunk
    reader = Reader("cut")
    reader.feed(cut)
    with pytest.raises(ProtocolError, match="cut:17: byte"):
        reader.close()  # without cut=True the half line is a malformed record
    reader = Reader("cut")
    reader.feed(cut)
    runs = reader.close(cut=True)
    assert [r.complete for r in runs] == [True, False]
    assert runs[1].status == "truncated"
    last = cut.count(b"\n") + 1
    assert runs[1].problems == [f"no end record: output truncated after line {last}"]
    _same(runs, parse_cut(cut.decode(), "cut"))


def test_a_bad_crc_names_its_line_and_byte_offset() -> None:
    data = bytearray(_output(crc=True))
    at = data.index(b"@rtl1 c n 1")
    data[at + 10] = ord("7")  # the counter's value, its CRC kept
    line = data[:at].count(b"\n") + 1
    runs = parse(bytes(data))
    assert not runs[1].complete and "n" not in runs[1].counters
    assert f"line {line} (byte {at}): bad CRC, record dropped" in runs[1].problems
    assert runs[0].complete and runs[2].complete


def test_a_malformed_line_names_its_line_and_byte_offset() -> None:
    data = b"log\n@rtl1 hello workload=t version=1\n@rtl1 c n x\n"
    reader = Reader("uart")
    with pytest.raises(ProtocolError) as e:
        for i in range(len(data)):
            reader.feed(data[i : i + 1])
    assert (e.value.line, e.value.offset) == (3, data.index(b"@rtl1 c"))
    assert str(e.value).startswith(f"uart:3: byte {data.index(b'@rtl1 c')}: ")


def test_labels_go_under_or_over_the_workloads_own_meta() -> None:
    text = (
        "@rtl1 hello workload=t version=1\n@rtl1 meta timebase=cycles emulated=no\n"
        "@rtl1 end records=2 status=ok\n"
    )
    under = parse(text, labels=Labels.of(under={"timebase": "icount", "shift": 0}))[0]
    assert under.meta == {"timebase": "cycles", "emulated": "no", "shift": "0"}
    over = parse(text, labels=Labels.of(over={"emulated": "qemu-tcg"}))[0]
    assert over.meta["emulated"] == "qemu-tcg"
    assert under.complete and over.complete  # the record counts are the workload's own
    cut = parse(text.split("@rtl1 end")[0], labels=Labels.of(over={"x": 1}))[0]
    assert "x" not in cut.meta  # a run without its end is not labelled over


def test_feeding_text_or_lines_gives_the_same_runs() -> None:
    data = _output(crc=True)
    text = data.decode()
    _same(parse(text), parse(data))
    _same(parse(text.splitlines(keepends=True)), parse(data))
