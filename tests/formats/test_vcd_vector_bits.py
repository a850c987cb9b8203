"""-O vectors=bits: a VCD vector read as one channel per bit, named bus[3] … bus[0] (or
by the declared range), on the loaded and the streamed path."""

from __future__ import annotations

from pathlib import Path

import pytest

import rtlab
from tests.conftest import rtlab as run_rtlab

VCD = """$timescale 1ns $end
$scope module top $end
$var wire 1 ! clk $end
$var wire 4 % bus $end
$var reg 2 & pair [5:4] $end
$upscope $end
$enddefinitions $end
#0
$dumpvars
0!
b0 %
bx &
$end
#10
1!
b1010 %
b1 &
#20
0!
b101 %
b10 &
#30
"""


@pytest.fixture
def vcd(tmp_path: Path) -> Path:
    p = tmp_path / "v.vcd"
    p.write_text(VCD)
    return p


def test_each_bit_is_a_channel_with_its_own_edges(vcd):
    cap = rtlab.load(vcd, vectors="bits")
    names = list(cap.channels)
    assert names[:5] == ["top.clk", "top.bus[3]", "top.bus[2]", "top.bus[1]", "top.bus[0]"]
    assert set(names[5:]) == {"top.pair[5]", "top.pair[4]"}
    edges = {n: cap[n].edges.tolist() for n in names}
    # b0 -> b1010 -> b0101: bit 3 up at 10, down at 20; bit 0 up at 20
    assert edges["top.bus[3]"] == [10, 20] and edges["top.bus[0]"] == [20]
    assert edges["top.bus[2]"] == [20] and edges["top.bus[1]"] == [10, 20]
    # bx then b01, b10: x is no level; pair[4] starts high at 10, falls at 20
    assert edges["top.pair[4]"] == [20] and cap["top.pair[4]"].initial_level == 1
    assert edges["top.clk"] == [10, 20]
    assert "top.bus[3]" not in rtlab.load(vcd).channels  # skipped unless asked


def test_the_streamed_path_and_the_cli_agree(vcd):
    res = run_rtlab("analyze", str(vcd), "-O", "vectors=bits", "-c", "bus[1]", "--json")
    assert res.returncode == 0, res.stderr
    assert '"edges": 2' in res.stdout
    assert "vectors=bits" in run_rtlab("formats").stdout
