"""Byte-level protocol of the rtlab RP2040 capture module (docs/capture-module.md).

frame = 0xA5, type, len, seq (u16 LE), payload[len], CRC-8 (poly 0x07, init 0) over
type..payload. The same framing carries host commands (their seq is ignored).
"""

from __future__ import annotations

from dataclasses import dataclass

SYNC = 0xA5
PROTO_VERSION = 1

F_HELLO, F_STARTED, F_EDGES, F_OVERFLOW, F_STALL, F_STATUS, F_STOPPED, F_ERROR = range(1, 9)
C_HELLO, C_START, C_STOP = 0x48, 0x53, 0x58

FRAME_NAMES = {
    F_HELLO: "HELLO",
    F_STARTED: "STARTED",
    F_EDGES: "EDGES",
    F_OVERFLOW: "OVERFLOW",
    F_STALL: "STALL",
    F_STATUS: "STATUS",
    F_STOPPED: "STOPPED",
    F_ERROR: "ERROR",
}
DEVICE_ERRORS = {
    1: "a capture is already running",
    2: "bad channel range (pins 2..28, at most 8 channels)",
    3: "bad self-test pin or period (pin outside the channels, 2..28)",
    10: "START payload too short",
    11: "STOP while no capture runs",
    12: "unknown command",
}


def _crc8_table() -> list[int]:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = ((c << 1) ^ 0x07) & 0xFF if c & 0x80 else (c << 1) & 0xFF
        table.append(c)
    return table


_CRC8 = _crc8_table()


def crc8(data: bytes | bytearray | memoryview) -> int:
    crc = 0
    for b in data:
        crc = _CRC8[crc ^ b]
    return crc


def encode_frame(ftype: int, payload: bytes = b"", seq: int = 0) -> bytes:
    if len(payload) > 255:
        raise ValueError("payload longer than 255 bytes")
    body = bytes([ftype, len(payload), seq & 0xFF, (seq >> 8) & 0xFF]) + payload
    return bytes([SYNC]) + body + bytes([crc8(body)])


START_TEST_X_WRAP = 0x01  # flags: start the PIO counters near their wrap (tests)
START_FINE = 0x02  # flags: 8 ns, two state machines per pin on alternate clocks


def cmd_start(
    base_pin: int,
    nch: int,
    st_gpio: int | None = None,
    st_div: int = 1,
    st_top: int = 1,
    flags: int = 0,
) -> bytes:
    payload = bytes(
        [
            base_pin,
            nch,
            0xFF if st_gpio is None else st_gpio,
            st_div,
            st_top & 0xFF,
            (st_top >> 8) & 0xFF,
        ]
    )
    if flags:
        payload += bytes([flags])
    return encode_frame(C_START, payload)


def read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    """LEB128 unsigned: (value, next position); ValueError when truncated."""
    value = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated varint")
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint longer than 64 bits")


@dataclass(frozen=True)
class Frame:
    type: int
    seq: int
    payload: bytes
    offset: int  # byte offset of the sync byte in the stream

    @property
    def name(self) -> str:
        return FRAME_NAMES.get(self.type, f"0x{self.type:02x}")


class FrameReader:
    """Incremental parser: feed bytes, iterate complete frames. Bytes that do not form a
    valid frame are skipped and counted (`bad_bytes`, `crc_errors`), never guessed at."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.offset = 0  # stream offset of buf[0]
        self.bad_bytes = 0
        self.crc_errors = 0
        self.seq_gaps = 0
        self._next_seq: int | None = None

    def feed(self, data: bytes) -> list[Frame]:
        """All frames completed by `data` (a list, so that a caller who stops early
        cannot leave consumed bytes in the buffer)."""
        self.buf += data
        buf = self.buf
        frames: list[Frame] = []
        pos = 0
        while True:
            start = buf.find(SYNC, pos)
            if start < 0:
                self.bad_bytes += len(buf) - pos
                pos = len(buf)
                break
            self.bad_bytes += start - pos
            if len(buf) - start < 6:
                pos = start
                break
            length = buf[start + 2]
            end = start + 6 + length
            if len(buf) < end:
                pos = start
                break
            body = bytes(buf[start + 1 : end - 1])
            if crc8(body) != buf[end - 1]:
                self.crc_errors += 1
                self.bad_bytes += 1
                pos = start + 1  # resynchronise on the next sync byte
                continue
            seq = body[2] | (body[3] << 8)
            if self._next_seq is not None and seq != self._next_seq:
                self.seq_gaps += 1
            self._next_seq = (seq + 1) & 0xFFFF
            frames.append(Frame(body[0], seq, body[4:], self.offset + start))
            pos = end
        del buf[:pos]
        self.offset += pos
        return frames
