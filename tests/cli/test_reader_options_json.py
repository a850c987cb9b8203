"""Reader options typed per format and --json without NaN,
through the real `rtlab` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def rtlab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rtlab.cli", *args], capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def repeats(tmp_path: Path) -> Path:
    f = tmp_path / "rep.csv"
    f.write_text("timestamp,channel,level\n10,a,1\n20,a,1\n30,a,0\n")
    return f


@pytest.mark.parametrize("value", ["false", "0", "no", "False"])
def test_false_turns_repeats_off(repeats: Path, value: str) -> None:
    r = rtlab("analyze", str(repeats), "-O", f"allow_repeats={value}")
    assert r.returncode == 2 and "repeats the previous level" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not r.stdout


@pytest.mark.parametrize("value", ["true", "1", "yes"])
def test_true_turns_repeats_on(repeats: Path, value: str) -> None:
    r = rtlab("analyze", str(repeats), "-O", f"allow_repeats={value}", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["channels"]["a"]


def test_bad_boolean_and_unknown_key_are_errors(repeats: Path) -> None:
    r = rtlab("analyze", str(repeats), "-O", "allow_repeats=maybe")
    assert r.returncode == 2 and "allow_repeats" in r.stderr and "true/false" in r.stderr
    r = rtlab("analyze", str(repeats), "-O", "allow_repeat=true")
    assert r.returncode == 2 and not r.stdout
    assert "allow_repeats, tick, unit" in r.stderr, r.stderr


def test_tie_json_has_null_not_nan(tmp_path: Path) -> None:
    f = tmp_path / "two.csv"
    f.write_text("timestamp,channel,level\n10,a,1\n20,a,0\n")
    r = rtlab("analyze", "--tie", "--json", str(f))
    assert r.returncode == 0, r.stderr

    def no_constants(name: str) -> None:
        raise AssertionError(f"{name} in the JSON document")

    doc = json.loads(r.stdout, parse_constant=no_constants)
    assert doc["channels"]["a"]


def test_dumpoff_is_a_gap_no_period_spans(tmp_path: Path) -> None:
    """A 100 MHz clock dumped with a $dumpoff pause still reads 100 MHz, duty 50 %."""
    lines = [
        "$timescale 1ns $end",
        "$scope module tb $end",
        "$var wire 1 ! clk $end",
        "$upscope $end",
        "$enddefinitions $end",
    ]
    for t in range(0, 2000, 5):
        if 500 <= t < 1500:
            if t == 500:
                lines += ["#500", "$dumpoff", "x!", "$end"]
            continue
        if t == 1500:
            lines += ["#1500", "$dumpon", "0!", "$end"]
            continue
        lines += [f"#{t}", f"{(t // 5) % 2}!"]
    f = tmp_path / "clk.vcd"
    f.write_text("\n".join(lines) + "\n")
    r = rtlab("analyze", "--json", str(f))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["n_gaps"] == 1
    d = doc["channels"]["tb.clk"]
    assert d["frequency_hz"] == pytest.approx(100e6)
    assert d["duty"] == pytest.approx(0.5)
