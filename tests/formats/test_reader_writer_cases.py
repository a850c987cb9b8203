"""The readers' and writers' edge cases (numbers you can trust): each test names its case
and covers the siblings of the file shown in other readers and paths."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rtlab.formats as F
from rtlab.analysis.stats import parse_quantiles, quantile_key
from rtlab.errors import FormatError, RtlabError
from rtlab.model import Capture, Channel
from rtlab.ticks import parse_duration
from tests.formats.conftest import write_sr

HEAD = (
    "$timescale 1ns $end $scope module tb $end $var wire 1 ! clk $end $upscope $end "
    "$enddefinitions $end\n"
)
ENGINES = ("scan", "wellen")


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def edges(cap: Capture, name: str) -> list[int]:
    return cap[name].edges.tolist()


# -- case 1: several changes at one time step: the last value wins, never a 0-ns period


@pytest.mark.parametrize("engine", ENGINES)
def test_vcd_changes_at_one_time_last_wins(tmp_path: Path, engine: str) -> None:
    one_line = write(tmp_path, "a.vcd", HEAD + "#0 0! #10 1! 0! 1! #20 0! #30 1! #40\n")
    cap = F.load(one_line, engine=engine)
    assert edges(cap, "tb.clk") == [10, 20, 30]  # sigrok: 3 edges, 50 MHz
    assert cap["clk"].periods().values.tolist() == [20]
    assert cap.metadata["same_time_changes"] == {"tb.clk": 2}
    repeated = write(tmp_path, "b.vcd", HEAD + "#0\n0!\n#10\n1!\n#10\n0!\n#20\n1!\n#30\n")
    cap = F.load(repeated, engine="wellen" if engine == "wellen" else "auto")
    assert edges(cap, "tb.clk") == [20]  # truth: one edge, no 0-ns high level
    assert cap["clk"].widths("high").values.tolist() == []


def test_edges_csv_rows_at_one_time_last_wins(tmp_path: Path) -> None:
    path = write(tmp_path, "e.csv", "0,a,0\n10,a,1\n10,a,0\n20,a,1\n30,a,0\n30,a,1\n30,a,0\n")
    cap = F.load(path, "edges-csv")
    assert edges(cap, "a") == [0, 20, 30]
    assert not np.any(cap["a"].intervals().values == 0)
    # a row that only repeats the level at its own time is no lost edge
    path = write(tmp_path, "d.csv", "0,a,0\n10,a,1\n10,a,1\n20,a,0\n")
    assert edges(F.load(path, "edges-csv"), "a") == [0, 10, 20]


def test_saleae_csv_rows_at_one_time_last_wins(tmp_path: Path) -> None:
    rows = "0.000,0\n0.010,1\n0.010,0\n0.020,1\n0.030,0\n"
    cap = F.load(write(tmp_path, "s.csv", "Time [s],Channel 0\n" + rows))
    assert edges(cap, "Channel 0") == [20, 30]


def _parquet_with(tmp_path: Path, times: list[int], meta: dict | None = None) -> Path:
    """An rtlab Parquet file written by pyarrow directly (what an old or foreign writer
    may leave): one channel D0 with `times`."""
    doc = {
        "version": 1,
        "tick_s": "1/1000000000",
        "resolution_s": None,
        "t_start": None,
        "t_end": None,
        "gaps": [],
        "channels": [{"name": "D0", "initial_level": 0, "n_edges": len(times)}],
        "metadata": {},
        **(meta or {}),
    }
    schema = pa.schema(
        [("channel", pa.uint16()), ("time", pa.int64())],
        metadata={b"rtlab.capture": json.dumps(doc).encode()},
    )
    table = pa.Table.from_arrays(
        [pa.array(np.zeros(len(times), np.uint16)), pa.array(times, pa.int64())], schema=schema
    )
    path = tmp_path / "p.parquet"
    pq.write_table(table, path)
    return path


def test_parquet_and_writers_one_value_per_time(tmp_path: Path) -> None:
    cap = F.load(_parquet_with(tmp_path, [0, 10, 10, 20, 30, 30, 30]))
    assert edges(cap, "D0") == [0, 20, 30]
    # rtlab's writers apply the same rule: no glitch written, the same figures read back
    mem = Capture(tick_s=Fraction(1, 10**9), t_start=0, t_end=40)
    mem.add(Channel("D0", np.array([10, 10, 20, 30]), 0))
    for suffix in (".vcd", ".parquet"):
        F.save(mem, tmp_path / f"w{suffix}")
        back = F.load(tmp_path / f"w{suffix}")
        assert edges(back, "D0") == [20, 30], suffix
    text = (tmp_path / "w.vcd").read_text()
    assert "#10" not in text  # the zero-width pulse at 10 is not written


def test_model_refuses_two_edges_at_one_time() -> None:
    cap = Capture(tick_s=Fraction(1, 10**9))
    cap.add(Channel("D0", np.array([5, 5, 9]), 0))
    with pytest.raises(ValueError, match="two edges at one time"):
        cap.validate()


# -- case 2: 1-bit bit-selects are channels of their own

BITS = (
    '$timescale 1ns $end $scope module tb $end $var wire 1 " data [0] $end '
    "$var wire 1 # data [1] $end $upscope $end $enddefinitions $end\n"
    '#0 0" 1# #10 1" #20 0# #30\n'
)


@pytest.mark.parametrize("engine", ENGINES)
def test_bit_selects_are_two_channels(tmp_path: Path, engine: str) -> None:
    cap = F.load(write(tmp_path, "b.vcd", BITS), engine=engine)
    assert list(cap.channels) == ["tb.data[0]", "tb.data[1]"]
    assert edges(cap, "data[0]") == [10] and edges(cap, "data[1]") == [20]
    assert cap["data [0]"] is cap["tb.data[0]"]  # as the header spells it
    sel = F.load(tmp_path / "b.vcd", engine=engine, channels=["data [1]"])
    assert list(sel.channels) == ["tb.data[1]"]


@pytest.mark.parametrize("engine", ENGINES)
def test_bit_selects_apart_and_unspaced(tmp_path: Path, engine: str) -> None:
    """Bits that are not neighbours (pywellen gave both the name `tb.data` and dropped
    one) and the `data[0]` spelling."""
    text = (
        '$timescale 1ns $end $scope module tb $end $var wire 1 " data[3] $end '
        "$var wire 1 # data [5] $end $var wire 1 $ clk $end $upscope $end "
        '$enddefinitions $end\n#0 0" 1# 0$ #10 1" x# #20 0# #30\n'
    )
    cap = F.load(write(tmp_path, "c.vcd", text), engine=engine)
    assert list(cap.channels) == ["tb.data[3]", "tb.data[5]", "tb.clk"]
    assert edges(cap, "data[3]") == [10] and edges(cap, "data[5]") == [20]


def test_names_match_sigrok(tmp_path: Path) -> None:
    sigrok = shutil.which("sigrok-cli")
    if sigrok is None:
        pytest.skip("sigrok-cli missing (deps/apt.txt)")
    path = write(tmp_path, "b.vcd", BITS)
    shown = subprocess.run(
        [sigrok, "-I", "vcd", "-i", str(path), "--show"], capture_output=True, text=True
    ).stdout
    names = [ln[2:].split(":")[0] for ln in shown.splitlines() if ln.startswith("- ")]
    assert names == [n.split(".", 1)[1] for n in F.load(path).channels]


# -- case 3: a headerless edges CSV whose first timestamp is no number


@pytest.mark.parametrize("first", ["1O0", "nan", "inf", "-inf", "NaN"])
def test_bad_first_timestamp_refused_at_line_1(tmp_path: Path, first: str) -> None:
    path = write(tmp_path, "h.csv", f"{first},a,1\n200,a,0\n300,a,1\n")
    with pytest.raises(FormatError, match="bad timestamp") as info:
        F.load(path, "edges-csv")
    assert info.value.line == 1


def test_a_word_header_is_still_a_header(tmp_path: Path) -> None:
    path = write(tmp_path, "h.csv", "time [ns],chan,level\n100,a,1\n200,a,0\n")
    assert edges(F.load(path, "edges-csv"), "a") == [100, 200]


# -- case 4: gaps survive a conversion to VCD


def _two_chunks(tmp_path: Path) -> Path:
    """A Saleae v1 binary export of two chunks: one gap between 850 and 950 us."""
    a = [i * 1e-4 for i in range(1, 9)]
    b = [1.0e-3 + i * 1e-4 for i in range(1, 9)]
    data = struct.pack("<8siiQ", b"<SALEAE>", 1, 0, 2)
    data += struct.pack("<IdddQ", 0, 1e6, 0.0, 0.00085, len(a)) + struct.pack("<8d", *a)
    data += struct.pack("<IdddQ", 0, 1e6, 0.00095, 0.0019, len(b)) + struct.pack("<8d", *b)
    return write(tmp_path, "digital_0.bin", data)


def _same(a: Capture, b: Capture) -> None:
    assert (a.tick_s, a.window(), a.gaps.tolist()) == (b.tick_s, b.window(), b.gaps.tolist())
    assert list(a.channels) == list(b.channels)
    for ch in a:
        other = b[ch.name]
        assert ch.edges.tolist() == other.edges.tolist(), ch.name
        assert ch.initial_level == other.initial_level
        gl = [] if ch.gap_levels is None else ch.gap_levels.tolist()
        assert gl == ([] if other.gap_levels is None else other.gap_levels.tolist())


@pytest.mark.parametrize("suffix", [".vcd", ".parquet"])
def test_convert_keeps_gaps(tmp_path: Path, suffix: str) -> None:
    src = F.load(_two_chunks(tmp_path))
    assert len(src.gaps) == 1
    F.save(src, tmp_path / f"out{suffix}")
    back = F.load(tmp_path / f"out{suffix}")
    _same(src, back)
    assert back["digital_0"].periods().values.max() == 200  # µs ticks: no period over the gap


def test_an_edge_at_a_gap_end_is_refused_not_lost(tmp_path: Path) -> None:
    cap = Capture(tick_s=Fraction(1, 10**9), gaps=[[20, 30]], t_start=0, t_end=50)
    cap.add(Channel("D0", np.array([10, 30, 40]), 0, gap_levels=np.array([1])))
    with pytest.raises(FormatError, match="edge at the end of gap 0"):
        F.save(cap, tmp_path / "g.vcd")
    assert not (tmp_path / "g.vcd").exists()


# -- case 5: odd sample rates: the writer and the reader accept the same range


def _sr(tmp_path: Path, samples: int, rate: str) -> Path:
    """A sigrok session of `samples` samples of a square wave on D0 (period 64)."""
    data = ((np.arange(samples) // 32) % 2).astype(np.uint8).tobytes()
    path = tmp_path / "odd.sr"
    write_sr(
        path,
        f"[global]\nsigrok version=0.5.2\n[device 1]\ncapturefile=logic-1\n"
        f"total probes=1\nsamplerate={rate}\ntotal analog=0\nprobe1=D0\nunitsize=1\n",
        data,
    )
    return path


@pytest.mark.parametrize("samples", [1_000_000, 8_333_331])  # 0.66 s and 5.5 s
def test_a_real_odd_rate_round_trips_through_vcd(tmp_path: Path, samples: int) -> None:
    src = F.load(_sr(tmp_path, samples, "1.515151 MHz"))
    assert src.tick_s == Fraction(1, 1515151)
    F.save(src, tmp_path / "odd.vcd")
    _same(src, F.load(tmp_path / "odd.vcd"))


@pytest.mark.parametrize(
    "tick", [Fraction(1, 24_000_000), Fraction(1, 1515151), Fraction(3, 7 * 10**9)]
)
def test_writer_refuses_only_what_the_reader_refuses(tmp_path: Path, tick: Fraction) -> None:
    """Up to the longest window VCD's 64-bit times hold, a capture round-trips; one
    tick more is refused by the writer with one error (not written, then unreadable)."""
    from rtlab.formats.vcd.roundtrip import fits_units
    from rtlab.formats.vcd.writer import _choose_timescale

    ratio = _choose_timescale(tick)[1]
    longest = int((2**63 - 1) / ratio) - 2
    while not fits_units(longest + 1, ratio):
        longest -= 1
    cap = Capture(tick_s=tick, t_start=0, t_end=longest)
    cap.add(Channel("D0", np.array([1, longest // 2, longest]), 0))
    F.save(cap, tmp_path / "long.vcd")
    _same(cap, F.load(tmp_path / "long.vcd"))
    cap.t_end = longest + 10**6
    with pytest.raises(FormatError, match="too long"):
        F.save(cap, tmp_path / "longer.vcd")


# -- case 6: times spanning 2^63 ticks or more


def test_parquet_span_beyond_int64_refused(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="2\\^63"):
        F.load(_parquet_with(tmp_path, [-(2**62), 2**62 + 5]))
    with pytest.raises(FormatError, match="2\\^63"):  # the window alone
        F.load(_parquet_with(tmp_path, [0, 10], {"t_start": -(2**63) + 1, "t_end": 2**62}))
    with pytest.raises(FormatError, match=r"2\^63|64 bits|metadata"):
        F.load(_parquet_with(tmp_path, [0, 10], {"t_end": 10**30}))


def test_vcd_rtlab_window_beyond_int64_refused(tmp_path: Path) -> None:
    text = (
        "$comment rtlab tick_s=1/1000000000 t_start=4611686018427387000 t_end="
        "4611686018427388000 $end\n" + HEAD.replace("tb", "rtlab") + "#0 0! "
        "#9223372036854775000 1! #9223372036854775001\n"
    )
    with pytest.raises(FormatError, match=r"2\^63|window"):
        F.load(write(tmp_path, "w.vcd", text))


# -- case 7: ticks beyond a float: one FormatError, no OverflowError


@pytest.mark.parametrize("tick", ["1e400s", "1e-400Hz", "1e-400s", "1e400Hz"])
def test_tick_options_out_of_range(tmp_path: Path, tick: str) -> None:
    path = write(tmp_path, "d.pio.csv", "10\n20\n")
    with pytest.raises(FormatError, match="out of range"):
        F.load(path, tick=tick)


@pytest.mark.parametrize("tick_s", ["1e400", "1e-400", "nan"])
def test_parquet_tick_out_of_range(tmp_path: Path, tick_s: str) -> None:
    with pytest.raises(FormatError, match="tick"):
        F.load(_parquet_with(tmp_path, [0, 10], {"tick_s": tick_s}))


# -- case 8: quantile labels


def test_quantile_keys_exact_and_unique() -> None:
    assert quantile_key(0.9999995) == "0.9999995"
    assert [quantile_key(q) for q in parse_quantiles("0.9999995 1")] == ["0.9999995", "1"]
    assert [quantile_key(q) for q in parse_quantiles("p50 p99.9 0.05")] == ["0.5", "0.999", "0.05"]
    with pytest.raises(ValueError, match="twice"):
        parse_quantiles("0.5 p50")


# -- case 13: a duration file cut mid-number


def test_pio_durations_cut_mid_number_refused(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="truncated") as info:
        F.load(write(tmp_path, "cut.pio.csv", "10\n20\n10\n20\n1"))
    assert info.value.line == 5
    # the siblings refuse the same cut
    with pytest.raises(FormatError, match="truncated"):
        F.load(write(tmp_path, "cut.csv", "Time [s],A\n0.0,1\n0.5,0\n0.7"), "saleae-csv")
    with pytest.raises(FormatError, match="truncated"):
        F.load(write(tmp_path, "cut.vcd", HEAD + "#0 0!\n#10 1!\n#2"))


# -- case 15: refusals that name the real problem


def test_pio_file_with_negative_value_named(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="negative duration") as info:
        F.load(write(tmp_path, "x.pio.csv", "-5\n10\n"))
    assert info.value.line == 1


def test_long_timestamp_named_out_of_range(tmp_path: Path) -> None:
    path = write(tmp_path, "big.csv", "1234567890123456789,a,1\n2,a,0\n")
    with pytest.raises(FormatError, match="out of range"):
        F.load(path)


@pytest.mark.parametrize("ts", ["1 NS", "1 xs", "1", "3 ns"])
@pytest.mark.parametrize("engine", ["auto", "wellen"])
def test_bad_timescale_named(tmp_path: Path, ts: str, engine: str) -> None:
    path = write(tmp_path, "t.vcd", HEAD.replace("1ns", ts) + "#0 0! #10 1! #20\n")
    with pytest.raises(FormatError, match="bad \\$timescale") as info:
        F.load(path, engine=engine)
    assert "TypeError" not in str(info.value) and info.value.line == 1


def test_saleae_time_unit_named(tmp_path: Path) -> None:
    path = write(tmp_path, "ms.csv", "Time [ms],Channel 0\n0.000,1\n1.000,0\n")
    with pytest.raises(FormatError, match="seconds") as info:
        F.load(path)
    assert info.value.line == 1


# -- case 16: one meaning per option, conflicts refused


def test_mhz_is_millihertz_and_mhz_lowercase_refused() -> None:
    assert parse_duration("16mHz") == Fraction(1000, 16)
    assert parse_duration("16MHz") == Fraction(1, 16 * 10**6)
    with pytest.raises(ValueError, match="ambiguous"):
        parse_duration("16mhz")


def test_sigrok_tick_and_samplerate_conflict(tmp_path: Path) -> None:
    path = _sr(tmp_path, 1000, "1 MHz")
    with pytest.raises(FormatError, match="not both"):
        F.load(path, tick="2us", samplerate="1MHz")
    assert F.load(path, samplerate="16mHz").tick_s == Fraction(1000, 16)
    with pytest.raises(FormatError, match="ambiguous"):
        F.load(path, samplerate="16mhz")


@pytest.mark.parametrize(
    ("name", "data", "fmt"),
    [
        ("e.csv", "0,a,1\n5,a,0\n", "edges-csv"),
        ("d.pio.csv", "10\n20\n", "pio-durations"),
        ("v.vcd", HEAD + "#0 0! #10 1! #20\n", "vcd"),
    ],
)
def test_channels_option_means_the_same_everywhere(
    tmp_path: Path, name: str, data: str, fmt: str
) -> None:
    path = write(tmp_path, name, data)
    with pytest.raises((FormatError, RtlabError), match="nope"):
        F.load(path, fmt, channels=["nope"])
    assert len(F.load(path, fmt, channels=[next(iter(F.load(path, fmt).channels))])) == 1


@pytest.mark.parametrize("text", ["1e05000000s", "1e05000000Hz"])
def test_huge_exponents_refused_at_once(tmp_path: Path, text: str) -> None:
    """Fraction('1e05000000') takes minutes: the option and the Parquet metadata refuse
    such an exponent before building it (the fuzzer found it in the @rtl1 parser)."""
    with pytest.raises(ValueError, match="out of range"):
        parse_duration(text)
    with pytest.raises(FormatError, match="out of range"):
        F.load(_parquet_with(tmp_path, [0, 10], {"tick_s": text[:-1].rstrip("H")}))
