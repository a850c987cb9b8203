"""sigrok session files (`.sr`): a zip holding `version`, a `metadata` INI and the
logic samples in members `logic-1-1`, `logic-1-2`, … (or one `logic-1` in old files).

Samples become edges chunk by chunk with numpy: a batch of members (a few MB) is
decoded at a time, the last sample of a batch is carried into the next, so the whole
file is never in memory. One tick is one sample period (1/samplerate, exact); an
edge's time is the index of the first sample at the new level; the initial level is
the level of sample 0; the window is [0, number of samples).
"""

from __future__ import annotations

import configparser
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats import FormatSpec, name_list, text
from rtlab.formats import sigrok_zip as sr_zip
from rtlab.formats.sigrok_write import write  # noqa: F401 - FormatSpec.of finds it
from rtlab.formats.textutil import tick_option
from rtlab.model import Capture, Channel, EdgeStream
from rtlab.ticks import FILE_TICK_RANGE_S, check_tick_range, parse_frequency, parse_size

# Bounds that keep a tiny hostile file from asking for absurd work.
_MAX_META_BYTES = 1 << 20
_MAX_UNITSIZE = 64  # bytes per sample: 512 channels


def parse_samplerate(text: str) -> Fraction:
    """'1 MHz', '200 kHz', '24m', '24000000', '1.5 MHz' → samples per second (exact)."""
    rate = parse_size(text)
    if rate <= 0:
        raise ValueError(f"sample rate must be positive: {text!r}")
    return rate


def _parse_metadata(path: Path, text: str) -> tuple[str, dict[str, str]]:
    """The first device section with logic data: (section name, its keys)."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keep key case
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        line = getattr(exc, "lineno", None)
        msg = str(exc).splitlines()[0]
        raise FormatError(
            path, f"metadata is not an INI file: {msg}", member="metadata", line=line
        ) from None
    devices = [s for s in parser.sections() if s.startswith("device ")]
    if not devices:
        raise FormatError(path, "metadata has no [device N] section", member="metadata")
    for sec in devices:
        if "capturefile" in parser[sec]:
            return sec, dict(parser[sec])
    sec = devices[0]
    keys = dict(parser[sec])
    if any(k.startswith("analog") for k in keys):
        raise FormatError(
            path, "analog-only session: rtlab reads logic channels only", member="metadata"
        )
    raise FormatError(
        path, f"[{sec}] has no capturefile: no logic data in this session", member="metadata"
    )


def _int_key(path: Path, keys: dict[str, str], key: str, lo: int, hi: int) -> int:
    raw = keys.get(key)
    if raw is None:
        raise FormatError(path, f"metadata lacks {key}=", member="metadata")
    try:
        val = int(raw.strip())
    except ValueError:
        raise FormatError(path, f"{key}={raw!r} is not an integer", member="metadata") from None
    if not lo <= val <= hi:
        raise FormatError(path, f"{key}={val} out of range {lo}..{hi}", member="metadata")
    return val


def _probes(path: Path, keys: dict[str, str], unitsize: int) -> list[tuple[int, str]]:
    """(bit index, name) of the logic channels, in bit order."""
    probes: list[tuple[int, str]] = []
    for key, val in keys.items():
        m = re.fullmatch(r"probe([0-9]{1,6})", key)
        if not m:
            continue
        bit = int(m.group(1)) - 1
        if not 0 <= bit < unitsize * 8:
            raise FormatError(
                path, f"{key} does not fit in unitsize={unitsize} bytes", member="metadata"
            )
        probes.append((bit, val.strip() or f"D{bit}"))
    if not probes:
        raise FormatError(path, "metadata names no logic channel (probeN=)", member="metadata")
    probes.sort()
    names = [n for _, n in probes]
    if len(set(names)) != len(names):
        raise FormatError(path, "two logic channels have the same name", member="metadata")
    return probes


class _EdgeFinder:
    """Turns sample words into per-channel edge indices, batch after batch."""

    def __init__(self, unitsize: int, bits: list[int]) -> None:
        self.unitsize = unitsize
        if unitsize in (1, 2, 4, 8):
            self.dtype = np.dtype(f"<u{unitsize}")
            self.width = unitsize
        else:  # pad odd widths to whole 64-bit words
            self.dtype = np.dtype("<u8")
            self.width = -(-unitsize // 8) * 8
        self.wbits = self.dtype.itemsize * 8
        self.bits = bits
        self.n = 0  # samples seen
        self.last: np.ndarray | None = None  # last sample row
        self.first: np.ndarray | None = None
        self.rest = b""
        self.edges: list[list[np.ndarray]] = [[] for _ in bits]
        self.levels = np.empty(0, dtype=self.dtype)
        self.changes = np.empty(0, dtype=np.bool_)

    def _rows(self, data: bytes) -> np.ndarray:
        raw = np.frombuffer(data, dtype=np.uint8)
        if self.width == self.unitsize:
            return raw.view(self.dtype).reshape(-1, 1)
        rows = raw.reshape(-1, self.unitsize)
        padded = np.zeros((rows.shape[0], self.width), dtype=np.uint8)
        padded[:, : self.unitsize] = rows
        return padded.view(self.dtype)

    def _scratch(self, rows: int) -> tuple[np.ndarray, np.ndarray]:
        """Reused per-batch buffers: fresh pages are slow to touch on a VM."""
        if self.levels.shape[0] < rows:
            self.levels = np.empty(rows, dtype=self.dtype)
            self.changes = np.empty(rows, dtype=np.bool_)
        return self.levels[:rows], self.changes[:rows]

    def feed(self, data: bytes) -> None:
        if self.rest:
            data = self.rest + data
        cut = len(data) - len(data) % self.unitsize
        self.rest = data[cut:]
        if not cut:
            return
        rows = self._rows(data[:cut] if cut != len(data) else data)
        if self.first is None:
            self.first = rows[0].copy()
            self.last = rows[0]
        assert self.last is not None
        levels, changes = self._scratch(rows.shape[0])
        for k, bit in enumerate(self.bits):
            # one channel at a time as 0/1 levels: a bool mask of changes is what
            # flatnonzero scans fastest (3x faster than testing masked words)
            col, sh = divmod(bit, self.wbits)
            np.right_shift(rows[:, col], sh, out=levels)
            np.bitwise_and(levels, 1, out=levels)
            changes[0] = int(levels[0]) != (int(self.last[col]) >> sh) & 1
            np.not_equal(levels[1:], levels[:-1], out=changes[1:])
            hits = np.flatnonzero(changes)
            if hits.size:
                hits += self.n
                self.edges[k].append(hits)
        self.last = rows[-1].copy()
        self.n += rows.shape[0]

    def initial_level(self, bit: int) -> int:
        assert self.first is not None
        col, sh = divmod(bit, self.wbits)
        return int((int(self.first[col]) >> sh) & 1)


def read(path: str | Path, **options: Any) -> Capture:
    """Read the logic channels of a sigrok session file: read_stream gathered.

    `samplerate` ('1 MHz') or `tick` ('1us') override or supply the sample rate;
    `channels` names the channels to decode (all by default).
    """
    return read_stream(path, **options).gather(fresh=True)


def read_stream(
    path: str | Path,
    *,
    samplerate: str | None = None,
    tick: Any = None,
    channels: list[str] | None = None,
    threshold: Any = None,
    hysteresis: Any = None,
    **_: Any,
) -> EdgeStream:
    """The session as a stream (EdgeStream): each batch of logic data (a `logic-1-N`
    member, or a block of an old single one) turned into edges and handed out, so a
    capture of many GB is never whole in memory. The header's window end and edge
    counts are known at the end of the stream only (analyze_stream reads them then)."""
    p = Path(path)
    zf = sr_zip.open_zip(p)
    try:
        logic_names = channels
        if channels and threshold is not None:  # analog names are no logic channel to find
            from rtlab.formats.sigrok_analog import analog_probes

            meta = sr_zip.read_member(zf, p, "metadata", _MAX_META_BYTES).decode("utf-8", "replace")
            analog_names = {n for _, n in analog_probes(_parse_metadata(p, meta)[1])}
            logic_names = [c for c in channels if c not in analog_names] or None
        tick_s, unitsize, probes, section, members = _session(
            zf, p, samplerate, tick, logic_names
        )
        finder = _EdgeFinder(unitsize, [b for b, _ in probes])
        batches = sr_zip.batches(zf, p, members)
        for batch in batches:  # the first whole sample gives the initial levels
            finder.feed(batch)
            if finder.first is not None:
                break
        else:  # not one whole sample in the session: the checks of its end now
            _check_end(p, finder, unitsize, members)
        _check_end(p, finder, unitsize, members, partial=True)
        header = _header(tick_s, finder, unitsize, section, probes)
        analog = []
        if threshold is not None or hysteresis is not None:
            from rtlab.formats.sigrok_analog import add_analog

            meta = sr_zip.read_member(zf, p, "metadata", _MAX_META_BYTES).decode("utf-8", "replace")
            keys = _parse_metadata(p, meta)[1]
            analog = add_analog(zf, p, keys, threshold, hysteresis, channels, header)
    except BaseException:
        zf.close()
        raise
    header.t_end = None

    def chunks() -> Iterator[tuple[str, np.ndarray]]:
        try:
            while True:
                for k, (_, name) in enumerate(probes):
                    for part in finder.edges[k]:
                        yield name, part
                    finder.edges[k] = []
                batch = next(batches, None)
                if batch is None:
                    break
                finder.feed(batch)
            _check_end(p, finder, unitsize, members)
            for name, parts in analog:  # thresholded analog channels, one after another
                for part in parts:
                    yield name, part[part < finder.n]
            header.t_end = finder.n
            header.metadata["samples"] = finder.n
        finally:
            zf.close()

    return EdgeStream(header, dict.fromkeys(header.channels, 0), chunks())


def _session(
    zf: Any, p: Path, samplerate: str | None, tick: Any, channels: list[str] | None
) -> tuple[Fraction, int, list[tuple[int, str]], str, list[str]]:
    """(tick, unitsize, (bit, name) of the channels to decode, device section, logic
    members) from the session's version and metadata members."""
    try:
        version = sr_zip.read_member(zf, p, "version", 64).decode("ascii").strip()
    except UnicodeDecodeError:
        raise FormatError(p, "version is not text", member="version") from None
    if version not in ("1", "2"):
        raise FormatError(p, f"session file version {version!r}, expected 1 or 2", member="version")
    raw_meta = sr_zip.read_member(zf, p, "metadata", _MAX_META_BYTES)
    try:
        meta_text = raw_meta.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(
            p, "metadata is not UTF-8 text", member="metadata", offset=exc.start
        ) from None
    section, keys = _parse_metadata(p, meta_text)
    tick_s = _tick(p, keys, samplerate, tick)
    unitsize = _int_key(p, keys, "unitsize", 1, _MAX_UNITSIZE)
    probes = _probes(p, keys, unitsize)
    if channels:
        missing = set(channels) - {n for _, n in probes}
        if missing:
            raise FormatError(
                p,
                f"no logic channel named {sorted(missing)[0]!r} "
                f"(channels: {', '.join(n for _, n in probes)})",
            )
        probes = [(b, n) for b, n in probes if n in channels]
    members = sr_zip.logic_members(zf, p, keys["capturefile"].strip())
    return tick_s, unitsize, probes, section, members


def _check_end(
    p: Path, finder: _EdgeFinder, unitsize: int, members: list[str], partial: bool = False
) -> None:
    if finder.rest and not partial:
        raise FormatError(
            p,
            f"logic data ends inside a sample ({len(finder.rest)} of {unitsize} bytes): truncated",
            member=members[-1],
        )
    if finder.n == 0:
        raise FormatError(p, "the session holds no samples", member=members[0])


def _header(
    tick_s: Fraction, finder: _EdgeFinder, unitsize: int, section: str, probes: list[Any]
) -> Capture:
    cap = Capture(
        tick_s=tick_s,
        t_start=0,
        t_end=finder.n,
        metadata={
            "samplerate_hz": str(1 / tick_s),
            "samples": finder.n,
            "unitsize": unitsize,
            "sigrok_device": section,
        },
    )
    for bit, name in probes:
        cap.add(Channel(name, np.zeros(0, np.int64), initial_level=finder.initial_level(bit)))
    return cap


def samplerate_option(text: str) -> Fraction:
    """The `samplerate=` option as rtlab reads every frequency (rtlab.ticks: '24MHz',
    '16mHz' is millihertz), or a bare number of Hz; in the range of a tick option."""
    s = text.strip()
    try:
        rate = Fraction(s) if re.fullmatch(r"[0-9]+(\.[0-9]+)?", s) else parse_frequency(s)
    except (ValueError, ZeroDivisionError) as exc:
        raise ValueError(f"bad samplerate {text!r}: {exc}") from None
    if rate <= 0:
        raise ValueError(f"samplerate must be positive: {text!r}")
    check_tick_range(1 / rate, f"samplerate {text!r}", "1 mHz to 1 PHz")
    return rate


def _tick(path: Path, keys: dict[str, str], samplerate: str | None, tick: Any) -> Fraction:
    if tick is not None and samplerate is not None:
        raise FormatError(path, "give --tick or -O samplerate=, not both (one sets the other)")
    if tick is not None:
        return tick_option(path, tick, "1s")
    try:
        if samplerate is not None:
            return 1 / samplerate_option(samplerate)
    except (ValueError, ZeroDivisionError) as exc:
        raise FormatError(path, f"bad option: {exc}") from None
    raw = keys.get("samplerate")
    if raw is None:
        raise FormatError(
            path,
            "metadata has no samplerate; give -O samplerate=1MHz or --tick 1us",
            member="metadata",
        )
    try:
        tick = 1 / parse_samplerate(raw)
    except ValueError as exc:
        raise FormatError(path, str(exc), member="metadata") from None
    lo, hi = FILE_TICK_RANGE_S
    if not lo <= tick <= hi:
        raise FormatError(
            path, f"samplerate={raw.strip()!r} out of range (1 µHz to 1 EHz)", member="metadata"
        )
    return Fraction(tick)


def sniff(head: bytes, path: Path) -> bool:
    if not head.startswith(b"PK\x03\x04"):
        return False
    # the first member of a session file is `version` (or `metadata`)
    name_len = int.from_bytes(head[26:28], "little")
    first = head[30 : 30 + name_len]
    return first in (b"version", b"metadata") or path.suffix.lower() == ".sr"


FORMAT = FormatSpec.of(
    globals(), "sigrok", (".sr",), "sigrok session file (.sr: PulseView, sigrok-cli)",
    {"samplerate": text, "tick": text, "channels": name_list, "threshold": text,
     "hysteresis": text},
)  # fmt: skip
