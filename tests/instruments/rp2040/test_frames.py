"""The host decoder on synthetic frames: no emulator needed."""

from __future__ import annotations

import itertools
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtlab.instruments.rp2040 import wire as p
from rtlab.instruments.rp2040.frames import CaptureDecoder, DeviceError, DeviceInfo, parse_hello

INFO = DeviceInfo(1, "0.1", 125_000_000, 2, 8, 57344, 29)


def varint(v: int) -> bytes:
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def started(nch: int = 1, base: int = 2) -> bytes:
    pl = struct.pack("<BBIBIBIII", base, nch, 125_000_000, 2, 57344, 0xFF, 0, 0, 0)
    return p.encode_frame(p.F_STARTED, pl)


def edges(ch: int, n0: int, ks: list[int]) -> bytes:
    pl = bytes([ch]) + varint(n0) + varint(ks[0])
    pl += b"".join(varint(b - a) for a, b in itertools.pairwise(ks))
    return p.encode_frame(p.F_EDGES, pl)


def stopped(end_k: int, totals: list[int]) -> bytes:
    pl = varint(end_k) + varint(0) + varint(0) + b"".join(varint(t) for t in totals)
    return p.encode_frame(p.F_STOPPED, pl)


def decode(stream: bytes) -> tuple[CaptureDecoder, p.FrameReader]:
    reader, dec = p.FrameReader(), CaptureDecoder(INFO)
    for f in reader.feed(stream):
        dec.handle(f)
    return dec, reader


def test_varint_and_crc() -> None:
    for v in (0, 1, 127, 128, 300, 2**32 - 1, 2**40 + 5):
        assert p.read_varint(varint(v), 0) == (v, len(varint(v)))
    assert p.crc8(b"123456789") == 0xF4  # CRC-8 (poly 0x07) check value


def test_clean_stream_decodes_exactly() -> None:
    ks = [0, 10, 25, 26, 400]  # k = 0: high at the first sample, not an edge
    dec, _ = decode(started() + edges(0, 0, ks[:3]) + edges(0, 3, ks[3:]) + stopped(500, [5]))
    cap = dec.capture()
    assert cap["GP2"].initial_level == 1
    assert cap["GP2"].edges.tolist() == [10, 25, 26, 400]
    assert cap.t_end == 500 and len(cap.gaps) == 0


def test_overflow_record_becomes_gap_with_known_level() -> None:
    over = p.encode_frame(p.F_OVERFLOW, bytes([0]) + varint(2) + varint(3))
    # records 0, 1 known; 2..4 lost; 5, 6 known
    stream = (
        started() + edges(0, 0, [100, 200]) + over + edges(0, 5, [900, 1000]) + stopped(2000, [7])
    )
    cap = decode(stream)[0].capture()
    assert cap.gaps.tolist() == [[201, 900]]
    assert cap["GP2"].edges.tolist() == [100, 200, 900, 1000]
    assert cap["GP2"].gap_levels.tolist() == [1]  # 5 records before 900: level 1
    assert cap.metadata["records_lost"] == {"GP2": 3}


def test_corrupted_link_bytes_become_a_gap_not_garbage() -> None:
    good = started() + edges(0, 0, [10, 20])
    hit = bytearray(edges(0, 2, [30, 40]))
    hit[7] ^= 0x55  # a flipped byte: this frame fails its CRC
    stream = good + bytes(hit) + edges(0, 4, [50, 60]) + stopped(100, [6])
    dec, reader = decode(stream)
    assert reader.crc_errors >= 1
    cap = dec.capture()
    assert cap["GP2"].edges.tolist() == [10, 20, 50, 60]
    assert cap.gaps.tolist() == [[21, 50]]


def test_missing_tail_before_stop_is_a_gap_to_the_end() -> None:
    cap = decode(started() + edges(0, 0, [10, 20]) + stopped(100, [5]))[0].capture()
    assert cap.gaps.tolist() == [[21, 100]]


def test_other_channels_lose_edges_inside_a_gap_and_count_them() -> None:
    over = p.encode_frame(p.F_OVERFLOW, bytes([0]) + varint(1) + varint(1))
    stream = (
        started(nch=2)
        + edges(0, 0, [10])
        + over
        + edges(0, 2, [50])
        + edges(1, 0, [5, 30, 60])
        + stopped(100, [3, 3])
    )
    cap = decode(stream)[0].capture()
    assert cap.gaps.tolist() == [[11, 50]]
    assert cap["GP3"].edges.tolist() == [5, 60]
    assert cap.metadata["edges_dropped_in_gaps"] == 1
    assert cap["GP3"].gap_levels.tolist() == [0]  # after records 5, 30: level 0


def test_stall_ends_the_trusted_data() -> None:
    stall = p.encode_frame(p.F_STALL, bytes([1]) + varint(2))
    stream = started() + edges(0, 0, [10, 20]) + stall + stopped(100, [2])
    cap = decode(stream)[0].capture()
    assert cap.gaps.tolist() == [[21, 101]] and cap.metadata["stalled"] == ["GP2"]


def test_device_error_and_bad_hello() -> None:
    with pytest.raises(DeviceError, match="bad channel range"):
        decode(p.encode_frame(p.F_ERROR, bytes([2])))
    with pytest.raises(DeviceError, match="not an rtlab"):
        parse_hello(b"XXXX" + bytes(20))
    with pytest.raises(DeviceError, match="incomplete"):
        decode(started() + edges(0, 0, [1]))[0].capture()


def test_malformed_frame_is_reported_with_its_offset() -> None:
    bad = p.encode_frame(p.F_EDGES, bytes([0]) + b"\xff")  # truncated varint
    with pytest.raises(DeviceError, match="malformed EDGES frame at byte"):
        decode(started() + bad)


def test_reader_survives_random_noise() -> None:
    rng = np.random.default_rng(1)
    noise = rng.integers(0, 256, 5000, dtype=np.uint8).tobytes()
    frames = p.FrameReader().feed(noise + started() + edges(0, 0, [1, 2]))
    assert [f.type for f in frames][-2:] == [p.F_STARTED, p.F_EDGES]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600))
def test_random_bytes_never_crash_the_decoder(data: bytes) -> None:
    """Whatever arrives on the link: frames or nothing, DeviceError at worst."""
    reader, dec = p.FrameReader(), CaptureDecoder(INFO)
    try:
        for f in reader.feed(started() + data):
            dec.handle(f)
        dec.capture()
    except DeviceError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 5000), min_size=1, max_size=60), st.data())
def test_any_loss_pattern_gives_a_valid_capture(deltas: list[int], data) -> None:
    """Random edges, random frames lost on the link: the capture validates, every edge it
    keeps is a real one, and every real edge is kept or inside a gap."""
    ks = list(itertools.accumulate(deltas))
    frames, n = [], 0
    while n < len(ks):
        m = data.draw(st.integers(1, 8))
        frames.append(edges(0, n, ks[n : n + m]))
        n += m
    keep = data.draw(st.lists(st.booleans(), min_size=len(frames), max_size=len(frames)))
    stream = started() + b"".join(f for f, k in zip(frames, keep, strict=True) if k)
    cap = decode(stream + stopped(ks[-1] + 10, [len(ks)]))[0].capture()
    cap.validate()
    got = set(cap["GP2"].edges.tolist())
    assert got <= set(ks)
    for k in ks:
        inside = any(lo <= k < hi for lo, hi in cap.gaps.tolist())
        assert (k in got) != inside
