"""`analyze --extremes N` and `rtlab events`: when the outliers happen, checked against
sigrok's own `timing` decoder on a capture of sigrok-cli's demo driver."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from tests.conftest import rtlab
from tests.formats.conftest import LOGIC4, need, run, sigrok_demo


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sigrok_demo(tmp_path_factory, "demo.sr", LOGIC4, "-c samplerate=1m --samples 20000")


def sigrok_periods(sr: Path, channel: str) -> list[tuple[int, float]]:
    """(start sample, period in µs) of every rising-to-rising period, by sigrok's
    timing decoder with --protocol-decoder-samplenum."""
    out = run([need("sigrok-cli"), "-i", str(sr), "-P", f"timing:data={channel}:edge=rising",
               "-A", "timing=time", "--protocol-decoder-samplenum"])  # fmt: skip
    rows = []
    for line in out.splitlines():
        m = re.match(r"(\d+)-(\d+) timing-1: ([0-9.]+) μs", line)
        assert m, line
        rows.append((int(m[1]), float(m[3])))
    return rows


def test_extremes_json_gives_sigroks_samples_of_the_largest_and_smallest_periods(demo):
    res = rtlab("analyze", str(demo), "--extremes", "3", "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    for ch in ("D0", "D1", "D2"):
        ref = sigrok_periods(demo, ch)
        largest = sorted(ref, key=lambda r: (-r[1], r[0]))[:3]
        smallest = sorted(ref, key=lambda r: (r[1], r[0]))[:3]
        ext = doc["channels"][ch]["extremes"]["period"]
        got_l = [(e["sample"], e["value_ns"] / 1000) for e in ext["largest"]]
        got_s = [(e["sample"], e["value_ns"] / 1000) for e in ext["smallest"]]
        assert got_l == largest, ch
        assert got_s == smallest, ch
        # a start time is its sample at the capture's 1 MHz
        assert [e["at_ns"] for e in ext["largest"]] == [s * 1000.0 for s, _ in largest]


def test_extremes_in_the_table_markdown_and_csv(demo):
    ref = sorted(sigrok_periods(demo, "D1"), key=lambda r: (-r[1], r[0]))[:2]
    table = rtlab("analyze", str(demo), "-c", "D1", "--extremes", "2")
    assert table.returncode == 0, table.stderr
    assert "extremes" in table.stdout and "max 2" in table.stdout
    md = rtlab("analyze", str(demo), "-c", "D1", "--extremes", "2", "--md").stdout
    assert "| channel | metric | rank | value | starts at | sample |" in md
    csv_out = rtlab("analyze", str(demo), "-c", "D1", "--extremes", "2", "--csv").stdout
    rows = list(csv.DictReader(csv_out.splitlines()))
    period = next(r for r in rows if r["metric"] == "period")
    assert [int(period["max1_sample"]), int(period["max2_sample"])] == [s for s, _ in ref]
    assert float(period["max1_ns"]) == ref[0][1] * 1000


def test_extremes_out_of_range_is_one_line_and_status_2(demo):
    res = rtlab("analyze", str(demo), "--extremes", "100000")
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "--extremes" in res.stderr


def test_events_csv_lists_every_period_sigrok_decodes(demo, tmp_path):
    out = tmp_path / "events.csv"
    res = rtlab("events", str(demo), "-c", "D1", "-m", "period", "-o", str(out))
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(out.open()))
    assert [(int(r["sample"]), float(r["value_ns"]) / 1000) for r in rows] == sigrok_periods(
        demo, "D1"
    )
    assert f"{len(rows)} events" in res.stderr


def test_events_parquet_holds_the_rows_of_the_csv(demo, tmp_path):
    import duckdb

    pq, cs = tmp_path / "e.parquet", tmp_path / "e.csv"
    for out in (pq, cs):
        res = rtlab("events", str(demo), "-m", "period,high", "-c", "D0,D2", "-o", str(out))
        assert res.returncode == 0, res.stderr
    q = "SELECT channel, metric, start_tick, value_ticks FROM {} ORDER BY ALL"
    con = duckdb.connect()
    a = con.execute(q.format(f"read_parquet('{pq}')")).fetchall()
    b = con.execute(q.format(f"read_csv('{cs}')")).fetchall()
    assert a == b and len(a) > 1000
    assert {r[0] for r in a} == {"D0", "D2"} and {r[1] for r in a} == {"period", "high"}


def test_events_refuses_an_unknown_output_suffix_before_reading(demo, tmp_path):
    res = rtlab("events", str(demo), "-o", str(tmp_path / "e.txt"))
    assert res.returncode == 2 and ".csv or .parquet" in res.stderr
    assert not (tmp_path / "e.txt").exists()
