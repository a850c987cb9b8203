"""Streaming analysis = in-memory analysis, through every reader, chunked anywhere.

For each format, random edge times (hypothesis) written in that format (sigrok and FST
by the real sigrok-cli and Icarus Verilog), then `open_stream(file, chunk=k)` analyzed
chunk by chunk against `analyze(load(file))`, every edge mode. Parquet (row groups),
sigrok, Saleae binary, the PIO CSV, the edges CSV and plain VCD bodies (blocks) have
their own streaming readers (the text ones also with blocks of a few bytes); the
other readers (FST, other VCD bodies, Saleae CSV) are read whole and handed out in chunks of k edges
(rtlab.formats.open_stream), so the pipeline from each reader's capture through the
chunked statistics is what is proven for them.
"""

from __future__ import annotations

import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rtlab
import rtlab.formats as F
from rtlab.analysis.stream import analyze_stream
from rtlab.model import Capture, Channel
from tests.analysis.test_stream import _doc, assert_same_figures
from tests.format_samples import TESTBENCH, write_fst
from tests.formats.test_reader_properties import saleae_bin, saleae_csv, vcd

SETTINGS = settings(
    max_examples=15, deadline=None, suppress_health_check=list(HealthCheck)
)
increasing = st.lists(st.integers(1, 500), min_size=1, max_size=60).map(
    lambda d: np.cumsum(d).tolist()
)


def _write(fmt: str, times: list[int], tmp: Path) -> Path:
    if fmt == "parquet":
        cap = Capture(tick_s=Fraction(1, 10**9))
        cap.add(Channel("a", np.asarray(times, dtype=np.int64), 0))
        cap.add(Channel("b", np.asarray(times[::2], dtype=np.int64) + 1, 1))
        rtlab.save(cap, tmp / "f.parquet")
        return tmp / "f.parquet"
    if fmt == "edges-csv":
        rows = [f"{t},a,{(k + 1) % 2}\n" for k, t in enumerate(times)]
        rows += [f"{t + 1},b,{k % 2}\n" for k, t in enumerate(times[::3])]
        (tmp / "f.csv").write_text("timestamp,channel,level\n" + "".join(rows))
        return tmp / "f.csv"
    if fmt == "pio-durations":
        durations = np.diff([0, *times]).tolist()
        (tmp / "f.pio.csv").write_text("".join(f"{d}\n" for d in durations))
        return tmp / "f.pio.csv"
    writer = {"vcd": (".vcd", vcd), "saleae-csv": (".csv", saleae_csv)}.get(fmt)
    if writer is None:
        writer = (".bin", saleae_bin)
    path = tmp / f"f{writer[0]}"
    path.write_bytes(writer[1](times))
    return path


def assert_stream_equals_load(path: Path, fmt: str | None, chunk: int) -> None:
    cap = F.load(path, fmt)
    for edge in ("rising", "falling", "both"):
        ref = _doc(rtlab.analyze(cap, edge=edge))
        got = _doc(analyze_stream(F.open_stream(path, fmt, chunk=chunk), edge=edge))
        assert_same_figures(ref, got)


@pytest.mark.parametrize(
    "fmt", ["parquet", "edges-csv", "pio-durations", "vcd", "saleae-csv", "saleae-bin"]
)
@SETTINGS
@given(times=increasing, chunk=st.integers(1, 9))
def test_every_reader_streams_the_figures_it_loads(
    fmt: str, times: list[int], chunk: int, tmp_path: Path
) -> None:
    path = _write(fmt, times, tmp_path)
    assert_stream_equals_load(path, fmt, chunk)


@pytest.mark.skipif(not shutil.which("sigrok-cli"), reason="sigrok-cli not installed")
@pytest.mark.parametrize("pattern", ["incremental", "random"])
def test_sigrok_session_streams_the_figures_it_loads(pattern: str, tmp_path: Path) -> None:
    path = tmp_path / "demo.sr"
    subprocess.run(
        ["sigrok-cli", "-d", "demo:logic_channels=4:analog_channels=0", "-g", "Logic",
         "-c", f"pattern={pattern}", "--samples", "5000", "-o", str(path)],
        check=True,
    )  # fmt: skip
    for chunk in (1, 7, 1 << 22):
        assert_stream_equals_load(path, "sigrok", chunk)


def test_fst_streams_the_figures_it_loads(tmp_path: Path) -> None:
    if not write_fst(TESTBENCH, tmp_path / "f.fst"):
        pytest.skip("Icarus Verilog (iverilog, vvp) not installed")
    for chunk in (1, 2, 5):
        assert_stream_equals_load(tmp_path / "f.fst", "fst", chunk)


@pytest.mark.skipif(not shutil.which("sigrok-cli"), reason="sigrok-cli not installed")
def test_sigrok_session_converts_streaming(tmp_path: Path) -> None:
    """The .sr stream's header is complete only at its end (window, edge counts): the
    Parquet file written from it holds them, as one written from the loaded session."""
    from rtlab.formats.parquet_write import write_stream

    path = tmp_path / "demo.sr"
    subprocess.run(
        ["sigrok-cli", "-d", "demo:logic_channels=4:analog_channels=0", "-g", "Logic",
         "-c", "pattern=random", "--samples", "20000", "-o", str(path)],
        check=True,
    )  # fmt: skip
    write_stream(F.open_stream(path), tmp_path / "s.parquet")
    a, b = F.load(path), F.load(tmp_path / "s.parquet")
    assert (b.t_start, b.t_end) == (a.t_start, a.t_end) == (0, 20000)
    for ch in a:
        assert np.array_equal(b[ch.name].edges, ch.edges)
        assert b[ch.name].initial_level == ch.initial_level


@pytest.mark.parametrize("fmt", ["edges-csv", "pio-durations", "vcd"])
@SETTINGS
@given(times=increasing, block=st.integers(1, 48))
def test_block_readers_cut_anywhere_read_and_stream_what_one_block_does(
    fmt: str, times: list[int], block: int, tmp_path: Path
) -> None:
    """The text readers that read block by block (edges CSV, PIO CSV, plain VCD), with
    blocks of a few bytes (cut between any two lines: inside a pulse, between a time
    and its changes): the capture of one whole block, and its figures when streamed."""
    from rtlab.formats import edges_csv, pio_durations
    from rtlab.formats.vcd import plain

    path = _write(fmt, times, tmp_path)
    whole = F.load(path, fmt)
    with pytest.MonkeyPatch.context() as m:
        if fmt == "vcd":
            m.setattr(plain, "WHOLE_MAX", 0)
            m.setattr(plain, "BLOCK", block)
        else:
            m.setattr(edges_csv if fmt == "edges-csv" else pio_durations, "_BLOCK", block)
        cut = F.load(path, fmt)
        assert [(c.name, c.initial_level, c.edges.tolist()) for c in cut] == [
            (c.name, c.initial_level, c.edges.tolist()) for c in whole
        ]
        assert (cut.t_start, cut.t_end, cut.tick_s) == (whole.t_start, whole.t_end, whole.tick_s)
        for edge in ("rising", "falling", "both"):
            got = _doc(analyze_stream(F.open_stream(path, fmt), edge=edge))
            assert_same_figures(_doc(rtlab.analyze(whole, edge=edge)), got)


@pytest.mark.parametrize("name", sorted(F.SNIFF_PREFIX))
def test_a_sniff_prefix_is_the_formats_own_rule(name: str, tmp_path: Path) -> None:
    """guess() skips a format whose SNIFF_PREFIX the head lacks: its sniff must refuse
    such a head (whatever the file's name), and accept nothing shorter than the prefix."""
    spec, prefix = F.get(name), F.SNIFF_PREFIX[name]
    assert spec.sniff is not None
    for ext in (*spec.extensions, ".dat"):
        for head in (b"", prefix[:-1], b"x" + prefix, b"$date\n", b"\0" * 64):
            assert not spec.sniff(head, tmp_path / f"f{ext}"), (name, head)
