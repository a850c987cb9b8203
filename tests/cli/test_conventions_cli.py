"""The command line as the tools people know: --version, -h, comma lists, named
placeholders, a header row, one unit policy, hints in command-line spelling, a clear
word for an ambiguous channel, and a progress bar that always has a total."""

from __future__ import annotations

import re
import time
from fractions import Fraction
from pathlib import Path

import pytest

from rtlab.cli.progress import DelayedProgress
from rtlab.report.units import TimeColumn, fmt_duration, fmt_rate
from tests.conftest import rtlab
from tests.formats.conftest import write_sr


def test_version_and_short_help():
    from rtlab import __version__

    res = rtlab("--version")
    assert res.returncode == 0 and res.stdout.strip() == f"rtlab {__version__}"
    for args in (["-h"], ["analyze", "-h"], ["events", "-h"], ["report", "-h"]):
        res = rtlab(*args)
        assert res.returncode == 0 and res.stdout.startswith("Usage: rtlab"), args


def test_every_help_names_its_placeholders(capsys):
    import typer

    from rtlab.cli.commands import app
    from rtlab.cli.placeholders import named_placeholders

    root = named_placeholders(typer.main.get_command(app))
    stack: list[tuple[list[str], object]] = [([], root)]
    seen = 0
    while stack:
        path, cmd = stack.pop()
        for name, sub in getattr(cmd, "commands", {}).items():
            stack.append(([*path, name], sub))
        if not path:
            continue
        root.main([*path, "-h"], prog_name="rtlab", standalone_mode=False)
        text = capsys.readouterr().out
        assert text.startswith(f"Usage: rtlab {' '.join(path)}"), path
        assert "<str>" not in text and "<path>" not in text and "<int>" not in text, path
        assert not re.search(r"\{[A-Za-z_.]+\}", text), path  # typer's {file}
        seen += 1
    assert seen >= 8
    help_text = rtlab("analyze", "-h").stdout
    assert help_text.splitlines()[0] == "Usage: rtlab analyze [OPTIONS] FILE"
    assert "-c, --channel CHANNEL" in help_text and "--tick DURATION" in help_text


def test_formats_has_a_header_row_and_no_empty_cell():
    lines = rtlab("formats").stdout.splitlines()
    assert lines[0].split() == ["FORMAT", "MODE", "EXTENSIONS", "DESCRIPTION"]
    csv_line = next(ln for ln in lines if ln.startswith("saleae-csv"))
    assert "(by content)" in csv_line


@pytest.fixture(scope="module")
def slow_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two channels toggling every 2 s and every 3 µs (ticks of 1 ns)."""
    rows = ["timestamp,channel,level"]
    rows += [f"{i * 2}.000000000,A,{(i + 1) % 2}" for i in range(20)]
    rows += [f"{i * 0.000003:.9f},B,{(i + 1) % 2}" for i in range(20)]
    f = tmp_path_factory.mktemp("conv") / "slow.csv"
    f.write_text("\n".join(rows) + "\n")
    return f


def test_comma_lists_and_a_unit_per_column(slow_csv):
    one = rtlab("analyze", str(slow_csv), "-c", "A,B", "--md")
    assert one.returncode == 0, one.stderr
    two = rtlab("analyze", str(slow_csv), "-c", "A", "-c", "B", "--md")
    assert one.stdout == two.stdout
    head = next(ln for ln in one.stdout.splitlines() if ln.startswith("| channel"))
    assert "| mean s |" in head  # a 4 s period: seconds, not 4,000,000,000
    only_b = rtlab("analyze", str(slow_csv), "-c", "B").stdout
    assert "mean µs" in only_b and re.search(r"│ B\s+│ period\s+│\s+9 │\s+6 │", only_b)


def test_ticks_and_rates_as_a_person_writes_them(tmp_path):
    assert fmt_duration(Fraction(1, 1000)) == "1 ms"
    assert fmt_duration(Fraction(1, 24_000_000)) == "41.6667 ns"
    assert fmt_duration(Fraction(3, 2 * 10**6)) == "1.5 µs"
    assert fmt_rate(6.25e6) == "6.25 MHz" and fmt_rate(187_537.6) == "187.538 kHz"
    assert fmt_rate(50) == "50 Hz"
    col = TimeColumn([2_000.0, 27_808.0], 8.0)
    assert (col.unit, col(27_808.0), col(2_000.0)) == ("µs", "27.808", "2")
    col = TimeColumn([769_384_712.0], 1.0)  # every ns of a 1 ns tick shows, in ms
    assert (col.unit, col(769_384_712.0)) == ("ms", "769.384712")
    meta = "[global]\nsigrok version=0.5.2\n[device 1]\ncapturefile=logic-1\n"
    meta += "total probes=1\nsamplerate=6.25 MHz\nprobe1=D0\nunitsize=1\n"
    sr = tmp_path / "r.sr"
    write_sr(sr, meta, bytes([0, 1] * 50))
    out = rtlab("analyze", str(sr)).stdout
    assert "tick 160 ns (6.25 MHz)" in out


def test_a_hint_gives_the_command_line_spelling(tmp_path):
    meta = "[global]\nsigrok version=0.5.2\n[device 1]\ncapturefile=logic-1\n"
    meta += "total probes=1\nprobe1=D0\nunitsize=1\n"
    sr = tmp_path / "no-rate.sr"
    write_sr(sr, meta, bytes([0, 1] * 50))
    res = rtlab("analyze", str(sr))
    assert res.returncode == 2 and "-O samplerate=" in res.stderr and "--tick" in res.stderr


VCD = """$timescale 1ns $end
$scope module top $end
$scope module a $end
$var wire 1 ! clk_i $end
$upscope $end
$scope module b $end
$var wire 1 " clk_i $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
0!
0"
#10
1!
1"
#20
0!
0"
"""


@pytest.mark.parametrize("command", ["analyze", "plot"])
def test_an_ambiguous_short_name_says_so_and_lists_the_candidates(tmp_path, command):
    vcd = tmp_path / "amb.vcd"
    vcd.write_text(VCD)
    extra = ["-o", str(tmp_path / "p.svg")] if command == "plot" else []
    res = rtlab(command, str(vcd), "-c", "clk_i", *extra)
    assert res.returncode == 2, res.stderr
    msg = res.stderr.replace("\n", "")
    assert "ambiguous" in msg and "top.a.clk_i, top.b.clk_i" in msg


def test_progress_counts_bytes_of_the_file_when_the_edges_are_unknown(tmp_path):
    f = tmp_path / "data.bin"
    f.write_bytes(b"x" * 10_000)
    bar = DelayedProgress("x", delay_s=0.01, enabled=True, path=f)
    with open(f, "rb", buffering=0) as fh, bar:
        fh.read(2_500)
        deadline = time.monotonic() + 20
        while bar._bar is None and time.monotonic() < deadline:
            time.sleep(0.05)
        bar(123, 0)
        task = bar._bar.tasks[0]
        assert (task.completed, task.total) == (2_500, 10_000)
        assert task.fields["count"] == "2,500/10,000 bytes"
    with DelayedProgress("x", delay_s=0.01, enabled=True) as bar:
        while bar._bar is None and time.monotonic() < deadline:
            time.sleep(0.05)
        bar(5, 10)
        task = bar._bar.tasks[0]
        assert (task.completed, task.total, task.fields["count"]) == (5, 10, "5/10 edges")
        bar._last = 0
        bar(7, 0)  # neither edges nor a file known: a count, no made-up total
        assert bar._bar.tasks[0].fields["count"] == "7 edges"
