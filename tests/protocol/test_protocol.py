"""Protocol v1 parser and encoder (docs/protocol.md)."""

from __future__ import annotations

import zlib
from fractions import Fraction

import numpy as np
import pytest

from rtlab.protocol import ProtocolError, Writer, encode_series, parse, parse_one

DOC_EXAMPLE = """\
@rtl1 hello workload=rtlab-latency version=0.1.0
@rtl1 meta method=clock_nanosleep policy=fifo priority=80 interval_ns=1000000
@rtl1 series latency unit=ns
@rtl1 s latency 0 12034,11877,13002
@rtl1 s latency 1 12555
@rtl1 c overruns 0
@rtl1 end records=6 status=ok
"""

I64 = np.iinfo(np.int64)


def run_text(values: np.ndarray, encoding: str, crc: bool = False, chunk: int = 256) -> str:
    w = Writer(crc=crc)
    w.hello("t", "1.0", board="pc")
    w.series("lat", values, encoding=encoding, chunk=chunk)
    w.counter("loops", len(values))
    w.end()
    return w.text()


def test_doc_example() -> None:
    run = parse_one(DOC_EXAMPLE, source="doc")
    assert run.complete and run.status == "ok" and run.problems == []
    assert run.workload == "rtlab-latency" and run.version == "0.1.0"
    assert run.meta["policy"] == "fifo"
    s = run.series["latency"]
    assert s.values.tolist() == [12034, 11877, 13002, 12555]
    assert s.values.dtype == np.int64
    assert s.tick_s == Fraction(1, 10**9)
    assert run.counters == {"overruns": (0, None)}
    samples = s.samples()
    assert samples.unit == "s" and samples.tick_s == Fraction(1, 10**9) and len(samples) == 4


@pytest.mark.parametrize("encoding", ["s", "sd", "sb"])
@pytest.mark.parametrize("crc", [False, True])
def test_roundtrip_extremes(encoding: str, crc: bool) -> None:
    v = np.array([I64.max, I64.min, 0, -1, 1, 2**62, -(2**62), I64.max, 5, 5, 5], np.int64)
    run = parse_one(run_text(v, encoding, crc=crc, chunk=3))
    assert run.complete, run.problems
    assert run.series["lat"].values.tolist() == v.tolist()
    assert run.counters["loops"] == (len(v), None)


def test_mixed_encodings_in_one_series() -> None:
    v = np.arange(-50, 700, 7, dtype=np.int64)
    lines = ["@rtl1 hello workload=t version=1", "@rtl1 series x unit=count"]
    parts = [
        encode_series("x", v[i : i + 20], encoding=enc, declare=False)[0]
        for i, enc in zip(range(0, 60, 20), ["sb", "s", "sd"], strict=True)
    ]
    # renumber the chunks 0, 1, 2
    for seq, p in enumerate(parts):
        f = p.split(" ")
        f[3] = str(seq)
        lines.append(" ".join(f))
    lines.append("@rtl1 end records=5 status=ok")
    run = parse_one("\n".join(lines))
    assert run.complete, run.problems
    assert run.series["x"].values.tolist() == v[:60].tolist()


def test_interleaved_logs_and_crlf_and_several_runs() -> None:
    w1 = run_text(np.array([1, 2, 3]), "sd", crc=True).replace("\n", "\r\n")
    w2 = run_text(np.array([4]), "sd")
    text = "boot: hello world\n@rtlab is not us\n" + w1 + "random * printf = x\n" + w2
    runs = parse(text)
    assert [r.series["lat"].values.tolist() for r in runs] == [[1, 2, 3], [4]]
    assert all(r.complete for r in runs)
    assert runs[0].meta == {"board": "pc"}


def test_iterable_of_lines_and_bytes() -> None:
    lines = [ln.encode() + b"\n" for ln in DOC_EXAMPLE.splitlines()]
    assert parse_one(lines).series["latency"].values.tolist() == [12034, 11877, 13002, 12555]
    assert parse_one(DOC_EXAMPLE.encode()).complete


def test_percent_encoding_roundtrip() -> None:
    w = Writer()
    w.hello("t", "1", cmd="a b=c*d%e\tü")
    w.warn("timer_slack", "usleep under SCHED_OTHER: 50 us slack")
    w.end()
    run = parse_one(w.text())
    assert run.meta["cmd"] == "a b=c*d%e\tü"
    assert run.warnings == [("timer_slack", "usleep under SCHED_OTHER: 50 us slack")]


def test_histogram_and_ticks() -> None:
    text = """@rtl1 hello workload=t version=1
@rtl1 series cyc unit=cycles tick_hz=125000000
@rtl1 series t unit=ticks tick_ns=1/24
@rtl1 sd cyc 0 100
@rtl1 sd t 0 24 0,0
@rtl1 h lat unit=ns lo=0 hi=1000 count=5
@rtl1 h lat unit=ns lo=1000 hi=2000 count=0
@rtl1 end records=7 status=interrupted msg=ctrl-c%20pressed
"""
    run = parse_one(text)
    assert run.series["cyc"].tick_s == Fraction(1, 125_000_000)
    assert run.series["t"].tick_s == Fraction(1, 24 * 10**9)
    assert run.series["t"].values.tolist() == [24, 24, 24]
    assert run.histograms["lat"] == [(0, 1000, 5), (1000, 2000, 0)]
    assert run.histogram_units["lat"] == "ns"
    assert run.status == "interrupted" and run.complete and run.message == "ctrl-c pressed"


def test_truncated_output_marks_run_incomplete() -> None:
    text = run_text(np.arange(1000), "sd")
    cut = "\n".join(text.splitlines()[:-3])  # end, counter and the last chunk lost
    run = parse_one(cut, source="cut")
    assert not run.complete and run.status == "truncated"
    assert any("no end record" in p for p in run.problems)
    assert run.series["lat"].values.tolist() == list(range(768))  # what arrived is kept


def test_new_hello_before_end_truncates_previous_run() -> None:
    a = run_text(np.arange(10), "s").splitlines()[:-1]
    b = run_text(np.arange(3), "s")
    runs = parse("\n".join(a) + "\n" + b)
    assert len(runs) == 2
    assert not runs[0].complete and "before this run's end" in runs[0].problems[0]
    assert runs[1].complete


def test_records_before_hello() -> None:
    text = "\n".join(DOC_EXAMPLE.splitlines()[3:])  # joined mid-run, series undeclared
    run = parse_one(text)
    assert not run.complete
    assert "without a hello" in run.problems[0]
    assert any("undeclared series" in p for p in run.problems)


def test_lost_chunk() -> None:
    lines = run_text(np.arange(1000), "sb").splitlines()
    del lines[3]  # chunk 1 of 4
    run = parse_one("\n".join(lines))
    assert not run.complete and run.status == "ok"
    assert any("chunk(s) 1 lost" in p for p in run.problems)
    assert any("end says 7 records, 6 seen" in p for p in run.problems)
    assert run.series["lat"].values.tolist() == [*range(256), *range(512, 1000)]


def test_record_count_mismatch() -> None:
    run = parse_one(DOC_EXAMPLE.replace("records=6", "records=9"))
    assert not run.complete
    assert run.problems == ["line 7: end says 9 records, 6 seen: records were lost"]


def test_bad_crc_is_reported_not_used() -> None:
    lines = run_text(np.arange(600), "sd", crc=True).splitlines()
    lines[3] = lines[3].replace(",1,", ",2,", 1)  # corrupt a chunk, keep its CRC
    run = parse_one("\n".join(lines), source="uart")
    assert not run.complete
    offset = sum(len(line) + 1 for line in lines[:3])
    assert f"line 4 (byte {offset}): bad CRC, record dropped" in run.problems
    assert any("chunk(s) 1 lost" in p for p in run.problems)
    assert len(run.series["lat"].values) == 600 - 256


def test_good_crc_accepted_and_computed_like_zlib() -> None:
    body = "@rtl1 c n 5"
    line = f"{body} *{zlib.crc32(body.encode()):08x}"
    text = f"@rtl1 hello workload=t version=1\n{line}\n@rtl1 end records=2 status=ok"
    assert parse_one(text).counters["n"] == (5, None)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("@rtl1 s latency 2 12,x3,4", "expected comma-separated integers"),
        ("@rtl1 s latency 2 12,,4", "expected comma-separated integers"),
        ("@rtl1 s latency 2 12,4,", "expected comma-separated integers"),
        ("@rtl1 s latency 2 -,4", "expected comma-separated integers"),
        ("@rtl1 s latency 2 1,99999999999999999999", "does not fit in 64 bits"),
        ("@rtl1 s latency x 1", "chunk sequence number: expected an integer"),
        ("@rtl1 s latency 2", "expected s NAME SEQ"),
        ("@rtl1 s latency 2 1 2", "expected s NAME SEQ"),
        ("@rtl1 sd latency 2 +5 1", "first value: expected an integer"),
        ("@rtl1 sb latency 2 2 AQID", "COUNT says 2"),
        ("@rtl1 sb latency 2 1 !!!!", "bad base64"),
        ("@rtl1 sb latency 2 1 gICAgICAgICAgAE", "longer than 10 bytes"),
        ("@rtl1 bogus a b", "unknown record type 'bogus'"),
        ("@rtl1", "no record type"),
        ("@rtl1  c x 1", "empty field"),
        ("@rtl1 c x 1.5", "expected an integer"),
        ("@rtl1 meta novalue", "expected key=value"),
        ("@rtl1 h lat unit=ns lo=5 hi=5 count=1", "bad bucket"),
        ("@rtl1 series latency unit=ns", "declared twice"),
        ("@rtl1 series other unit=furlongs", "unit must be one of"),
        ("@rtl1 c x 1 *1234", "bad CRC field"),
        ("@rtl1 c x*2 1", "'*' outside a CRC field"),
        ("@rtl2 c x 1", "protocol version 2 not supported"),
        # a tick the store cannot hold exactly: refused at the line
        ("@rtl1 series t unit=ticks tick_ns=1e400", "tick_ns: 1e400 is out of range"),
        ("@rtl1 series t unit=ticks tick_ns=1e-400", "tick_ns: 1e-400 is out of range"),
        ("@rtl1 series t unit=cycles tick_hz=1e400", "tick_hz: 1e400 is out of range"),
        ("@rtl1 series t unit=cycles tick_hz=1e-400", "tick_hz: 1e-400 is out of range"),
        ("@rtl1 series t unit=ticks tick_ns=1/99999999999999999999", "out of range"),
        ("@rtl1 series t unit=ticks tick_ns=nan", "expected a decimal or a/b"),
        ("@rtl1 series t unit=ticks tick_ns=inf", "expected a decimal or a/b"),
    ],
)
def test_malformed_line_names_source_and_line(line: str, message: str) -> None:
    lines = DOC_EXAMPLE.splitlines()
    lines.insert(4, "some log line")
    lines.insert(5, line)  # line 6 of the input
    with pytest.raises(ProtocolError, match=message) as info:
        parse("\n".join(lines), source="cap.log")
    assert info.value.line == 6
    assert str(info.value).startswith("cap.log:6: ")


def test_end_status_must_be_known() -> None:
    with pytest.raises(ProtocolError, match="status must be one of"):
        parse(DOC_EXAMPLE.replace("status=ok", "status=great"))


@pytest.mark.parametrize(
    ("field", "tick"),
    [
        ("tick_ns=1/1000000000", Fraction(1, 10**18)),  # 1 as: the finest tick accepted
        ("tick_ns=9223372036854775807000000000", Fraction(2**63 - 1)),  # the coarsest
        ("tick_hz=1.515151e6", Fraction(1, 1515151)),
    ],
)
def test_extreme_ticks_that_fit_are_kept_exactly(field: str, tick: Fraction) -> None:
    text = f"@rtl1 hello workload=t version=1\n@rtl1 series t unit=ticks {field}\n"
    assert parse_one(text).series["t"].tick_s == tick


def test_series_without_tick_has_no_time_samples() -> None:
    text = "@rtl1 hello workload=t version=1\n@rtl1 series t unit=ticks\n@rtl1 s t 0 1\n"
    run = parse_one(text)
    with pytest.raises(ValueError, match="no tick length"):
        run.series["t"].samples()


@pytest.mark.parametrize("encoding", ["s", "sd", "sb"])
def test_million_samples_parse_exactly(encoding: str) -> None:
    rng = np.random.default_rng(7)
    v = rng.integers(0, 2_000_000, 1_000_000) + 10_000
    run = parse_one(run_text(v, encoding))  # how fast: bench/speed_checks.py
    assert np.array_equal(run.series["lat"].values, v)


def _mutants(text: str, rng: np.random.Generator, n: int) -> list[str]:
    alphabet = "0123456789-,=* %@rtl1abcdefAZ+/\r\n"
    out = []
    for _ in range(n):
        t = list(text)
        for _ in range(int(rng.integers(1, 4))):
            if not t:
                break
            i = int(rng.integers(0, len(t)))
            op = rng.integers(0, 4)
            if op == 0:
                t[i] = alphabet[int(rng.integers(0, len(alphabet)))]
            elif op == 1:
                del t[i]
            elif op == 2:
                t.insert(i, alphabet[int(rng.integers(0, len(alphabet)))])
            else:
                t = t[:i]  # truncation
        out.append("".join(t))
    return out


@pytest.mark.parametrize("encoding", ["s", "sd", "sb"])
@pytest.mark.parametrize("crc", [False, True])
def test_fuzz_mutations_never_crash_the_parser(encoding: str, crc: bool) -> None:
    """Any mutation either parses (maybe incomplete) or raises ProtocolError with a line."""
    v = np.array([5, -3, 10**12, 0, 7, I64.max, I64.min, 42] * 8, dtype=np.int64)
    w = Writer(crc=crc)
    w.hello("t", "1", note="a b")
    w.series("lat", v, encoding=encoding, chunk=16)
    w.counter("n", 1)
    w.histogram("h", [(0, 10, 1)])
    w.warn("x", "y")
    w.end()
    rng = np.random.default_rng(zlib.crc32(f"{encoding}{crc}".encode()))
    for m in _mutants(w.text(), rng, 400):
        try:
            runs = parse(m, source="fuzz")
        except ProtocolError as e:
            assert e.line is not None and str(e).startswith("fuzz:")
            continue
        for r in runs:
            for s in r.series.values():
                assert s.values.dtype == np.int64
            if crc and r.complete:  # with CRCs, a complete run is exactly the original
                assert np.array_equal(r.series["lat"].values, v)


@pytest.mark.parametrize("field", ["tick_hz=1e05000000", "tick_ns=1e-9999999", "tick_ns=1e400"])
def test_a_huge_exponent_is_refused_at_once(field: str) -> None:
    """Found by bench/fuzz_parsers.py: Fraction('1e05000000') builds a
    5-million-digit integer, minutes of work for one header line."""
    text = f"@rtl1 hello workload=w version=1\n@rtl1 series s unit=ticks {field}\n"
    with pytest.raises(ProtocolError, match="out of range"):  # said before any Fraction
        parse(text.encode(), source="x")
