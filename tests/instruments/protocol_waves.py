"""UART, SPI and I²C waveforms sampled as a logic analyzer would see them, written as
sigrok sessions whose channels bear the decoders' pin names (sigrok-cli maps them), with
an output pin `out` that rises a chosen number of samples after chosen bytes end. Each
generator returns the sample where every byte ends by the protocol's own timing, so a
test can compute the latency without sigrok."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.formats.conftest import write_sr


def session(path: Path, channels: dict[str, np.ndarray], rate: str = "1 MHz") -> Path:
    names = list(channels)
    data = np.zeros(len(next(iter(channels.values()))), dtype=np.uint8)
    for i, n in enumerate(names):
        data |= (channels[n].astype(np.uint8) & 1) << i
    meta = "[global]\nsigrok version=0.5.2\n[device 1]\ncapturefile=logic-1\n"
    meta += f"total probes={len(names)}\nsamplerate={rate}\n"
    meta += "".join(f"probe{i + 1}={n}\n" for i, n in enumerate(names)) + "unitsize=1\n"
    write_sr(path, meta, data.tobytes())
    return path


def uart(data: list[int], bit: int = 10, gap: int = 200, n: int = 4000) -> tuple[dict, list[int]]:
    """rx idles high; a frame is a start bit, 8 data bits LSB first, a stop bit. A byte
    ends where its last data bit ends: frame start + 9 bits."""
    rx = np.ones(n, np.uint8)
    ends, t = [], 50
    for byte in data:
        rx[t : t + bit] = 0
        for k in range(8):
            rx[t + bit * (k + 1) : t + bit * (k + 2)] = (byte >> k) & 1
        ends.append(t + 9 * bit)
        t += 10 * bit + gap
    return {"rx": rx}, ends


def spi(data: list[int], half: int = 5, gap: int = 100, n: int = 4000) -> tuple[dict, list[int]]:
    """Mode 0, MSB first, cs low around each byte: mosi changes on the falling clock edge,
    is sampled on the rising one. A byte ends where its last bit cell ends: one clock
    period after its 8th rising edge."""
    clk, mosi, cs = np.zeros(n, np.uint8), np.zeros(n, np.uint8), np.ones(n, np.uint8)
    ends, t = [], 50
    for byte in data:
        cs[t : t + 2 * half * 8 + 2 * half] = 0
        s = t + half
        for k in range(8):
            b = (byte >> (7 - k)) & 1
            mosi[s + 2 * half * k : s + 2 * half * (k + 1)] = b
            clk[s + 2 * half * k + half : s + 2 * half * (k + 1)] = 1
        ends.append(s + 2 * half * 8 + half)
        t += 2 * half * 8 + 2 * half + gap
    return {"clk": clk, "mosi": mosi, "cs": cs}, ends


def i2c(addr: int, data: list[int], half: int = 5, n: int = 4000) -> tuple[dict, list[int]]:
    """One write transfer: start, 7-bit address + W, ack, then each data byte + ack,
    stop; sda changes while scl is low. A data byte ends where its 8th bit cell ends, at
    the rising scl edge of its ack bit."""
    scl, sda = np.ones(n, np.uint8), np.ones(n, np.uint8)
    t = 50
    sda[t:] = 0  # start: sda falls while scl is high
    t += half
    scl[t:] = 0
    ends = []

    def clock_bit(b: int) -> int:
        nonlocal t
        sda[t : t + 2 * half] = b
        scl[t + half : t + 2 * half] = 1
        rise = t + half
        t += 2 * half
        return rise

    for k in range(8):
        clock_bit(((addr << 1) >> (7 - k)) & 1)
    clock_bit(0)  # ack
    for byte in data:
        rises = [clock_bit((byte >> (7 - k)) & 1) for k in range(8)]
        ends.append(rises[-1] + 2 * half)
        clock_bit(0)
    sda[t : t + half] = 0  # stop: scl rises, then sda
    scl[t + half :] = 1
    sda[t + 2 * half :] = 1
    return {"scl": scl, "sda": sda}, ends


def with_output(channels: dict, ends: list[int], after: dict[int, int], n: int = 4000) -> dict:
    """Add `out`, high for 10 samples from ends[i] + after[i] for each i in `after`."""
    out = np.zeros(n, np.uint8)
    for i, lat in after.items():
        out[ends[i] + lat : ends[i] + lat + 10] = 1
    return {**channels, "out": out}
