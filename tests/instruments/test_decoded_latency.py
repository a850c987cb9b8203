"""A latency from a protocol event that sigrok's own decoders find (sigrok-cli -P) to an
output pin, checked against the waveform's own timing, to the sample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import rtlab
from tests.formats.conftest import need
from tests.instruments.protocol_waves import i2c, session, spi, uart, with_output


def _latency(path: Path, spec: str, *args: str) -> dict:
    need("sigrok-cli")
    res = rtlab("analyze", str(path), "-l", spec, "--extremes", "3", "--json", *args)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)["latency"][spec]


def _check(lat: dict, ends: list[int], after: dict[int, int]) -> None:
    want = sorted(after.values())
    assert lat["paired"] == len(after) and lat["unpaired"] == 0
    assert sorted(e["value_ticks"] for e in lat["extremes"]["latency"]["smallest"]) == want
    # each latency starts where its byte ends (1 MHz: a sample is 1000 ns)
    got = {e["at_tick"]: e["value_ticks"] for e in lat["extremes"]["latency"]["smallest"]}
    assert got == {ends[i]: v for i, v in after.items()}


def test_uart_byte_to_pin(tmp_path):
    data = [0x12, 0x55, 0xA0, 0x55, 0x54]
    ch, ends = uart(data)
    after = {1: 37, 3: 123}  # out rises 37 and 123 samples after each 0x55 ends
    sr = session(tmp_path / "uart.sr", with_output(ch, ends, after))
    lat = _latency(sr, "uart:rx:data=0x55->out:rising", "-D", "uart:baudrate=100000")
    _check(lat, ends, after)
    assert lat["min_ns"] == 37_000 and lat["max_ns"] == 123_000


def test_spi_byte_to_pin_through_another_format(tmp_path):
    data = [0x12, 0xA5, 0x33, 0xA5]
    ch, ends = spi(data)
    after = {1: 9, 3: 250}
    sr = session(tmp_path / "spi.sr", with_output(ch, ends, after))
    # the same capture as VCD: rtlab writes the session sigrok-cli decodes
    vcd = tmp_path / "spi.vcd"
    assert rtlab("convert", str(sr), str(vcd)).returncode == 0
    for path in (sr, vcd):
        lat = _latency(path, "spi:mosi-data=0xA5->out:rising", "-D", "spi:clk=clk:mosi=mosi:cs=cs")
        _check(lat, ends, after)


def test_i2c_data_byte_to_pin(tmp_path):
    ch, ends = i2c(0x50, [0x3C, 0x77, 0x3C])
    after = {0: 15, 2: 4}
    sr = session(tmp_path / "i2c.sr", with_output(ch, ends, after))
    lat = _latency(sr, "i2c:data-write=0x3C->out:rising")
    _check(lat, ends, after)


def test_a_window_and_an_edge_source(tmp_path):
    ch, ends = uart([0x55, 0x55, 0x55])
    after = {0: 5, 1: 6, 2: 7}
    sr = session(tmp_path / "u.sr", with_output(ch, ends, after))
    # --from cuts the first byte away: the decoder runs on the cut capture, times stay
    lat = _latency(sr, "uart:rx-data=0x55->out:rising", "-D", "uart:baudrate=100000",
                   "--from", f"{ends[0] + 20}us")  # fmt: skip
    _check(lat, ends, {1: 6, 2: 7})
    edge = _latency(sr, "out:rising->out:falling")
    assert edge["min_ns"] == edge["max_ns"] == 10_000


@pytest.mark.parametrize(("spec", "says"), [
    ("uart->out:rising", "DECODER:CLASS"),
    ("uart:rx-data=0x55->uart:rx-data", "must be an edge"),
    ("nosuchdecoder:x=1->out:rising", "sigrok-cli -P nosuchdecoder"),
])  # fmt: skip
def test_a_bad_decoder_latency_is_one_line(tmp_path, spec, says):
    ch, ends = uart([0x55])
    sr = session(tmp_path / "u.sr", with_output(ch, ends, {0: 5}))
    res = rtlab("analyze", str(sr), "-l", spec)
    assert res.returncode == 2, res.stderr
    assert says in res.stderr.replace("\n", "") and "Traceback" not in res.stderr
