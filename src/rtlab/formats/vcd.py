"""VCD and FST through pywellen (the one adapter module), and a fast VCD writer.

Reading: every 1-bit variable becomes a channel named by its full hierarchical name
(`tb.u.clk`); `metadata["aliases"]` maps each unambiguous short name (`clk`) to it and
`channels=` selects by either. One tick is one timescale unit (exact). Values x/z (and
the other unknown states of 9-valued logic) are not levels: a channel's initial level is
its first known level, an x/z in the middle holds the previous level (the next known
level makes an edge only if it differs); `metadata["xz_changes"]` counts them. Repeated
equal values are not edges. Multi-bit, real and string variables are skipped.

pywellen is Rust: on a corrupt file it may raise odd exceptions, panic, or abort the
whole process (an allocation of a size read from the file). So the parsing runs in a
forked child with a memory limit and a timeout; whatever goes wrong there comes back as
one FormatError.
"""

from __future__ import annotations

import os
import pickle
import re
import resource
import select
import signal
import tempfile
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats import FormatSpec
from rtlab.fsutil import atomic_path
from rtlab.model import UNKNOWN_LEVEL, Capture, Channel

_LEVELS = {0: 0, 1: 1, "0": 0, "1": 1, "h": 1, "H": 1, "l": 0, "L": 0}
_HEADER_BYTES = 1 << 20
# `$comment rtlab tick_s=16/1000000000 t_start=0 t_end=100 $end`, written by write()
_RTLAB_RE = re.compile(
    rb"\$comment\s+rtlab\s+tick_s=([0-9]+)/([0-9]+)\s+t_start=(-?[0-9]+)\s+t_end=(-?[0-9]+)"
    rb"\s+\$end"
)
_ROOT = "rtlab"  # top scope the writer adds; the reader strips it back off


# -- the child side: everything that touches pywellen ------------------------------
def _values(sig: Any) -> tuple[np.ndarray, np.ndarray]:
    """(times int64, levels int8 with -1 for unknown) of one 1-bit signal."""
    lst = list(sig)
    if not lst:
        return np.zeros(0, np.int64), np.zeros(0, np.int8)
    try:
        arr = np.array(lst, dtype=np.int64)
        return np.ascontiguousarray(arr[:, 0]), arr[:, 1].astype(np.int8)
    except (ValueError, TypeError):  # x/z come as strings
        times = np.fromiter((t for t, _ in lst), dtype=np.int64, count=len(lst))
        lv = np.fromiter((_LEVELS.get(v, -1) for _, v in lst), dtype=np.int8, count=len(lst))
        return times, lv


def _extract(path: str) -> dict[str, Any]:
    import pywellen

    wave = pywellen.Waveform(path)
    ts = wave.timescale
    out: dict[str, Any] = {
        "format": str(wave.file_format),
        "timescale": (int(ts.factor), int(ts.unit.to_exponent())) if ts is not None else None,
        "signals": [],
        "skipped": 0,
    }
    seen: set[str] = set()
    for var in wave.all_vars():
        full = str(var.full_name(wave) if callable(var.full_name) else var.full_name)
        if not var.is_1bit or var.is_real or var.is_string or full in seen:
            out["skipped"] += 1
            continue
        seen.add(full)
        times, lv = _values(var.signal)
        out["signals"].append((full, str(var.name), times, lv))
    return out


def _limit_memory(file_size: int) -> None:
    try:
        with open("/proc/self/statm") as fh:
            vm = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return
    budget = vm + (2 << 30) + 64 * file_size
    resource.setrlimit(resource.RLIMIT_AS, (budget, budget))


def _child(path: str, wfd: int, errfd: int) -> None:
    os.dup2(errfd, 2)  # Rust prints panics to stderr: keep them for the message
    try:
        _limit_memory(os.path.getsize(path))
        result: tuple[str, Any] = ("ok", _extract(path))
    except BaseException as exc:
        msg = str(exc).strip().splitlines()
        result = ("error", f"{type(exc).__name__}: {msg[0] if msg else ''}"[:300])
    try:
        data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(wfd, view[: 1 << 20]):]
    finally:
        os._exit(0)


def _fork_and_collect(path: Path, timeout: float, errfd: int
                      ) -> tuple[int, list[bytes], bool]:
    """Parse in a forked child; (its wait status, the bytes it sent, timed out?)."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns
        os.close(rfd)
        _child(str(path), wfd, errfd)
    os.close(wfd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([rfd], [], [], max(left, 0))
            if not ready:
                timed_out = True
                os.kill(pid, signal.SIGKILL)
                break
            block = os.read(rfd, 1 << 20)
            if not block:
                break
            chunks.append(block)
    finally:
        os.close(rfd)
        _, status = os.waitpid(pid, 0)
    return status, chunks, timed_out


def _run_isolated(path: Path, timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryFile() as errf:
        status, chunks, timed_out = _fork_and_collect(path, timeout, errf.fileno())
        errf.seek(0)
        stderr = errf.read(4000).decode("utf-8", "replace")
    if timed_out:
        raise FormatError(path, f"the VCD/FST parser took more than {timeout:.0f} s: gave up")
    if os.WIFSIGNALED(status) or not chunks:
        why = next((ln for ln in stderr.splitlines() if ln.strip()), "no message")
        raise FormatError(path, f"the VCD/FST parser crashed on this file ({why.strip()[:200]}); "
                          "it is corrupt or truncated")
    try:
        kind, payload = pickle.loads(b"".join(chunks))
    except Exception:
        raise FormatError(path, "the VCD/FST parser returned no result") from None
    if kind != "ok":
        raise FormatError(path, f"not a readable VCD/FST file: {payload}")
    return payload


# -- the parent side -----------------------------------------------------------------
def _header(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(_HEADER_BYTES)


def _vcd_end_time(path: Path) -> int | None:
    """The last `#time` of a VCD: the end of the dump, even with no change there."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        fh.seek(max(0, size - 65536))
        tail = fh.read()
    hits = re.findall(rb"(?:^|\s)#([0-9]+)\s", tail + b"\n")
    return int(hits[-1]) if hits else None


def _to_edges(times: np.ndarray, lv: np.ndarray) -> tuple[np.ndarray, int, int]:
    """(edge times, initial level, x/z changes) of one signal's value changes."""
    known = lv >= 0
    xz = int(lv.size - np.count_nonzero(known))
    t, v = times[known], lv[known]
    if v.size == 0:
        return np.zeros(0, np.int64), UNKNOWN_LEVEL, xz
    flips = np.flatnonzero(v[1:] != v[:-1]) + 1
    return t[flips], int(v[0]), xz


def _timescale_s(path: Path, ts: tuple[int, int] | None) -> Fraction:
    if ts is None:
        return Fraction(1, 10**9)  # wellen's default when the file names none
    factor, exp = ts
    if factor <= 0:
        raise FormatError(path, f"timescale factor {factor} is not positive")
    return Fraction(factor) * Fraction(10) ** exp


def read(path: str | Path, *, channels: list[str] | None = None, timeout: float | None = None,
         **_: Any) -> Capture:
    """Read the 1-bit signals of a VCD or FST file (see the module doc)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        head = _header(p)
    except OSError as exc:
        raise FormatError(p, f"cannot open: {exc.strerror or exc}") from None
    if size == 0:
        raise FormatError(p, "file is empty, expected a VCD or FST file", offset=0)
    res = _run_isolated(p, timeout if timeout is not None else 60 + size / 2e5)
    tick = _timescale_s(p, res["timescale"])
    sigs = res["signals"]
    if not sigs:
        raise FormatError(p, f"no 1-bit signal in this {res['format']} file "
                          f"({res['skipped']} other variables)")
    is_vcd = res["format"].upper() == "VCD"
    rt = _RTLAB_RE.search(head) if is_vcd else None
    firsts = [int(t[0]) for _, _, t, _ in sigs if t.size]
    lasts = [int(t[-1]) for _, _, t, _ in sigs if t.size]
    t_start = min(firsts) if firsts else 0
    t_end = max(lasts) if lasts else t_start
    if is_vcd:
        end = _vcd_end_time(p)
        if end is not None and end > t_end:
            t_end = end
    shortcount: dict[str, int] = {}
    for _, short, _, _ in sigs:
        shortcount[short] = shortcount.get(short, 0) + 1
    scale = 1
    if rt is not None:
        scale, tick, t_start, t_end = _apply_rtlab(p, rt, tick, t_start, t_end)
    cap = Capture(tick_s=tick, t_start=t_start, t_end=t_end,
                  metadata={"vcd_format": res["format"], "aliases": {}, "xz_changes": {},
                            "skipped_vars": res["skipped"]})
    want = set(channels) if channels else None
    for full, short, times, lv in sigs:
        name = full[len(_ROOT) + 1:] if rt is not None and full.startswith(_ROOT + ".") else full
        if want is not None and name not in want and short not in want:
            continue
        edges, level, xz = _to_edges(times, lv)
        if rt is not None:  # written by write(): times are relative to t_start
            if np.any(edges % scale):
                raise FormatError(p, f"{name}: a change is not on the rtlab tick grid")
            edges = edges // scale + t_start
        cap.add(Channel(name, edges, initial_level=level))
        if xz:
            cap.metadata["xz_changes"][name] = xz
        if shortcount[short] == 1 and short != name:
            cap.metadata["aliases"][short] = name
    if want is not None:
        missing = want - set(cap.channels) - set(cap.metadata["aliases"])
        if missing:
            raise FormatError(p, f"no 1-bit signal named {sorted(missing)[0]!r}")
    return cap


def _apply_rtlab(path: Path, m: re.Match[bytes], ts: Fraction, t_start: int,
                 t_end: int) -> tuple[int, Fraction, int, int]:
    """Restore the tick and window that write() stored in its header comment."""
    num, den = int(m.group(1)), int(m.group(2))
    if num <= 0 or den <= 0:
        raise FormatError(path, "rtlab header comment: bad tick")
    tick = Fraction(num, den)
    ratio = tick / ts
    if ratio.denominator != 1:
        raise FormatError(path, "rtlab header comment: tick is not a multiple of the timescale")
    return int(ratio), tick, int(m.group(3)), int(m.group(4))


# -- the writer ----------------------------------------------------------------------
_UNITS = ((0, "s"), (-3, "ms"), (-6, "us"), (-9, "ns"), (-12, "ps"), (-15, "fs"))


def _choose_timescale(tick: Fraction) -> tuple[str, Fraction, int]:
    """(timescale text, its length in s, ticks → timescale units factor), exact if the
    tick is a whole number of some decimal unit down to 1 fs."""
    for exp, unit in _UNITS:
        for factor in (100, 10, 1):
            ts = Fraction(factor) * Fraction(10) ** exp
            ratio = tick / ts
            if ratio.denominator == 1:
                return f"{factor}{unit}", ts, int(ratio)
    raise ValueError(f"tick {tick} s is not a whole number of femtoseconds")


def _ident(k: int) -> str:
    chars = []
    k += 1
    while k:
        k, r = divmod(k - 1, 94)
        chars.append(chr(33 + r))
    return "".join(chars)


def _safe(name: str) -> str:
    return re.sub(r"\s", "_", name) or "_"


def write(cap: Capture, path: str | Path, **_: Any) -> None:
    """Write a Capture as VCD (opens in GTKWave, PulseView, Surfer).

    Each channel is a 1-bit wire under a top scope `rtlab` (dots in a name make
    sub-scopes). The timescale is the largest decimal unit that divides the tick; the
    exact tick and window go in a header comment that read() uses, so a capture
    round-trips exactly. Gaps are not written (VCD has no notion of them)."""
    try:
        timescale, _, mult = _choose_timescale(cap.tick_s)
    except ValueError as exc:
        raise FormatError(path, f"cannot write VCD: {exc}") from None
    chans = list(cap)
    ids = [_ident(k) for k in range(len(chans))]
    t0, t1 = cap.window()
    if any(len(c) and (c.edges[0] < t0 or c.edges[-1] > t1) for c in chans):
        raise FormatError(path, "cannot write VCD: an edge lies outside the capture window")
    header = [
        "$date rtlab $end",
        "$version rtlab $end",
        f"$comment rtlab tick_s={cap.tick_s.numerator}/{cap.tick_s.denominator} "
        f"t_start={t0} t_end={t1} $end",
        f"$timescale {timescale} $end",
        *_scopes(chans, ids),
        "$enddefinitions $end",
        "#0",
        "$dumpvars",
    ]
    for ch, ident in zip(chans, ids, strict=True):
        lv = ch.initial_level
        header.append(("x" if lv == UNKNOWN_LEVEL else str(lv)) + ident)
    header.append("$end")
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(("\n".join(header) + "\n").encode())
        for block in _body_blocks(chans, ids, mult, t0):
            fh.write(block)
        fh.write(f"#{(t1 - t0) * mult}\n".encode())


def _scopes(chans: list[Channel], ids: list[str]) -> list[str]:
    lines = [f"$scope module {_ROOT} $end"]
    open_: list[str] = []
    for ch, ident in sorted(zip(chans, ids, strict=True), key=lambda ci: ci[0].name.split(".")):
        parts = [_safe(s) for s in ch.name.split(".")]
        path, leaf = parts[:-1], parts[-1]
        common = 0
        while common < min(len(open_), len(path)) and open_[common] == path[common]:
            common += 1
        lines += ["$upscope $end"] * (len(open_) - common)
        lines += [f"$scope module {s} $end" for s in path[common:]]
        open_ = path
        lines.append(f"$var wire 1 {ident} {leaf} $end")
    lines += ["$upscope $end"] * (len(open_) + 1)
    return lines


_BLOCK = 1 << 20  # value changes formatted per numpy pass


def _events(chans: list[Channel]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(time, channel index, new level) of every edge, time-ordered."""
    times = np.concatenate([c.edges for c in chans])
    who = np.concatenate([np.full(len(c), k, dtype=np.int64) for k, c in enumerate(chans)])
    level = np.concatenate([
        (np.arange(len(c)) + (1 if c.initial_level == 0 else 0)) % 2 for c in chans
    ]).astype(np.uint8)
    order = np.lexsort((who, times))
    return times[order], who[order], level[order]


def _format_block(times: np.ndarray, new: np.ndarray, who: np.ndarray, level: np.ndarray,
                  id_mat: np.ndarray, id_len: np.ndarray) -> bytes:
    """VCD text for a block of changes: '#t' lines (where `new`) and '<v><id>' lines.

    Each event is one row of a byte matrix with a mask of the bytes in use, so the
    text comes out of one boolean gather instead of a Python loop."""
    n = times.size
    nd = np.ones(n, dtype=np.int64)
    big = 10
    while True:  # digits of each time
        more = times >= big
        if not more.any():
            break
        nd += more
        big *= 10
    d = int(nd.max())
    w_id = id_mat.shape[1]
    width = 1 + d + 1 + 1 + w_id + 1
    m = np.zeros((n, width), dtype=np.uint8)
    use = np.zeros((n, width), dtype=bool)
    m[:, 0] = ord("#")
    use[:, 0] = new
    pos = np.arange(d)
    p10 = 10 ** (d - 1 - pos).astype(np.int64)
    m[:, 1 : 1 + d] = (times[:, None] // p10[None, :]) % 10 + ord("0")
    use[:, 1 : 1 + d] = new[:, None] & (pos[None, :] >= (d - nd)[:, None])
    m[:, 1 + d] = ord("\n")
    use[:, 1 + d] = new
    c = 2 + d
    m[:, c] = level + ord("0")
    use[:, c] = True
    m[:, c + 1 : c + 1 + w_id] = id_mat[who]
    use[:, c + 1 : c + 1 + w_id] = np.arange(w_id)[None, :] < id_len[who][:, None]
    # the newline right after each id: shift it into the first unused id byte
    m[np.arange(n), c + 1 + id_len[who]] = ord("\n")
    use[np.arange(n), c + 1 + id_len[who]] = True
    return m[use].tobytes()


def _body_blocks(chans: list[Channel], ids: list[str], mult: int, t0: int):
    """The value-change section in blocks of bytes, times relative to t0."""
    if not chans or not sum(len(c) for c in chans):
        return
    times, who, level = _events(chans)
    rel = (times - t0) * mult
    new = np.ones(rel.size, dtype=bool)
    new[1:] = rel[1:] != rel[:-1]
    new &= rel != 0  # changes at t_start follow the $dumpvars block directly
    w_id = max(len(i) for i in ids) + 1
    id_mat = np.zeros((len(ids), w_id), dtype=np.uint8)
    id_len = np.array([len(i) for i in ids], dtype=np.int64)
    for k, ident in enumerate(ids):
        id_mat[k, : len(ident)] = np.frombuffer(ident.encode(), dtype=np.uint8)
    for lo in range(0, rel.size, _BLOCK):
        sl = slice(lo, lo + _BLOCK)
        yield _format_block(rel[sl], new[sl], who[sl], level[sl], id_mat, id_len)


def sniff(head: bytes, path: Path) -> bool:
    text = head.lstrip()
    return text.startswith((b"$date", b"$version", b"$timescale", b"$scope", b"$comment"))


def _sniff_fst(head: bytes, path: Path) -> bool:
    # FST starts with a header block: type 0, then its 64-bit length 329
    return head[:9] == b"\x00" + (329).to_bytes(8, "big")


FORMATS = [
    FormatSpec(name="vcd", extensions=(".vcd",), read=read, sniff=sniff, write=write,
               description="Value Change Dump (simulators, PulseView, GTKWave)"),
    FormatSpec(name="fst", extensions=(".fst",), read=read, sniff=_sniff_fst,
               description="FST waveform (GTKWave, Verilator, Icarus -fst)"),
]

