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

import itertools
import os
import re
import resource
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats import FormatSpec
from rtlab.formats.isolate import run_isolated
from rtlab.formats.vcd import scanner as vcd_scan
from rtlab.fsutil import atomic_path
from rtlab.model import UNKNOWN_LEVEL, Capture, Channel

_LEVELS = {0: 0, 1: 1, "0": 0, "1": 1, "h": 1, "H": 1, "l": 0, "L": 0}
_HEADER_BYTES = 1 << 20
# `$comment rtlab tick_s=16/1000000000 t_start=0 t_end=100 $end`, written by write()
_RTLAB_RE = re.compile(
    rb"\$comment\s+rtlab\s+tick_s=([0-9]{1,20})/([0-9]{1,20})\s+t_start=(-?[0-9]{1,20})"
    rb"\s+t_end=(-?[0-9]{1,20})\s+\$end"
)
_ROOT = "rtlab"  # top scope the writer adds; the reader strips it back off


# -- the child side: everything that touches pywellen ------------------------------
def _values(sig: Any) -> tuple[np.ndarray, np.ndarray]:
    """(times int64, levels int8 with -1 for unknown) of one 1-bit signal."""
    lst = list(sig)  # pywellen has no array export: (time, value) tuples it is
    n = len(lst)
    try:  # all values known (ints): one flat pass, the fast path
        flat = np.fromiter(itertools.chain.from_iterable(lst), dtype=np.int64, count=2 * n)
        return flat[0::2].copy(), flat[1::2].astype(np.int8)
    except (ValueError, TypeError):  # x/z come as strings
        times = np.fromiter((t for t, _ in lst), dtype=np.int64, count=n)
        lv = np.fromiter((_LEVELS.get(v, -1) for _, v in lst), dtype=np.int8, count=n)
        return times, lv


def _extract(path: str) -> dict[str, Any]:
    import pywellen

    # single-threaded: a rayon pool inherited through fork (the parent used pywellen)
    # would deadlock, and two cores gain little
    wave = pywellen.Waveform(path, multi_threaded=False)
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


def _run_isolated(path: Path, timeout: float) -> dict[str, Any]:
    """pywellen in a forked child with a memory limit: on corrupt input it panics,
    and on a corrupt FST header it aborts the process asking for 2^48 bytes."""
    return run_isolated(
        path,
        _extract,
        str(path),
        what="VCD/FST",
        timeout=timeout,
        setup=lambda: _limit_memory(os.path.getsize(path)),
        on_error=lambda msg: _located(path, f"not a readable VCD/FST file: {msg}"),
    )


_VCD_CMDS = {
    "date",
    "version",
    "timescale",
    "scope",
    "upscope",
    "var",
    "comment",
    "enddefinitions",
    "dumpvars",
    "dumpon",
    "dumpoff",
    "dumpall",
    "end",
}
_SCALAR = set(b"01xXzZuUwWlLhH-")


def _located(path: Path, message: str) -> FormatError:
    """The parser's message, with the line where a plain VCD check first fails."""
    found = _first_bad_vcd_line(path)
    if found is None:
        return FormatError(path, message)
    line, what = found
    return FormatError(path, f"{what} ({message})", line=line)


def _first_bad_vcd_line(path: Path) -> tuple[int, str] | None:
    """A light VCD check run only after a parse failure, to name a line."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(16 << 20)
    except OSError:
        return None
    if data[:9] == b"\x00" + (329).to_bytes(8, "big"):
        return None  # FST: binary, the parser's message is all there is
    ids: set[bytes] = set()
    in_cmd: bytes | None = None
    cmd_line = 0
    args: list[bytes] = []
    defs_done = False
    pending_value = False
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if b"\x00" in raw:
            return lineno, "binary data where VCD text was expected"
        for tok in raw.split():
            if in_cmd is not None:
                if tok == b"$end":
                    if in_cmd == b"var":
                        if len(args) < 4 or not args[1].isdigit():
                            return cmd_line, "expected '$var type size id name $end'"
                        ids.add(args[2])
                    if in_cmd == b"enddefinitions":
                        defs_done = True
                    in_cmd, args = None, []
                else:
                    args.append(tok)
                continue
            if pending_value:
                if tok not in ids:
                    return lineno, f"unknown signal id {tok[:20]!r}"
                pending_value = False
                continue
            if tok.startswith(b"$"):
                name = tok[1:]
                if name.decode("latin-1") not in _VCD_CMDS:
                    return lineno, f"unknown command {tok[:20]!r}"
                if name in (b"dumpvars", b"dumpon", b"dumpoff", b"dumpall", b"end"):
                    if not defs_done:
                        return lineno, f"{tok.decode('latin-1')} before $enddefinitions"
                    continue
                in_cmd, cmd_line = name, lineno
                continue
            if not defs_done:
                return lineno, f"expected a $command, got {tok[:20]!r}"
            if tok[:1] == b"#":
                if not tok[1:].isdigit():
                    return lineno, f"expected a time '#<digits>', got {tok[:20]!r}"
            elif tok[:1] in (b"b", b"B", b"r", b"R", b"s", b"S"):
                pending_value = True
            elif tok[0] in _SCALAR:
                if tok[1:] not in ids:
                    return lineno, f"unknown signal id in {tok[:20]!r}"
            else:
                return lineno, f"expected a value change or '#time', got {tok[:20]!r}"
    last = data.count(b"\n") + 1
    if in_cmd is not None:
        return cmd_line, f"${in_cmd.decode('latin-1')} is never closed by $end: truncated"
    if not defs_done:
        return last, "no $enddefinitions: truncated or not a VCD file"
    if pending_value:
        return last, "a value without its signal id: truncated"
    return None


# -- the parent side -----------------------------------------------------------------
def _header(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(_HEADER_BYTES)


_FST_BLOCKS = {0: "header", 1: "value changes", 2: "blackout", 3: "geometry",
               4: "hierarchy", 5: "value changes", 6: "hierarchy", 7: "hierarchy",
               8: "value changes", 255: "skip"}


_SCAN_MAX_BYTES = 128 << 20  # the scanner's arrays take about 10x the file in memory


def _scan(path: Path) -> dict[str, Any] | None:
    """The numpy fast path; None sends the file to pywellen."""
    try:
        return vcd_scan.scan(path.read_bytes())
    except Exception:  # whatever trips the scanner, pywellen is the authority
        return None


def _check_fst_blocks(path: Path, size: int) -> None:
    """FST is a chain of blocks (type byte, big-endian u64 length): they must tile the
    file exactly, or it is truncated or corrupt (the Rust parser may not notice)."""
    pos = 0
    with open(path, "rb") as fh:
        while pos < size:
            fh.seek(pos)
            head = fh.read(9)
            if len(head) < 9:
                raise FormatError(path, "truncated: expected an FST block header", offset=pos)
            kind, length = head[0], int.from_bytes(head[1:9], "big")
            if kind not in _FST_BLOCKS:
                raise FormatError(path, f"unknown FST block type {kind}", offset=pos)
            if length < 8 or pos + 1 + length > size:
                raise FormatError(path, f"FST {_FST_BLOCKS[kind]} block of {length} bytes "
                                  "runs past the end of the file: truncated", offset=pos)
            pos += 1 + length


def _check_complete(path: Path, size: int) -> None:
    """A VCD writer ends its last line; a file cut mid-line is truncated."""
    with open(path, "rb") as fh:
        fh.seek(size - 1)
        if fh.read(1) in b" \t\r\n":
            return
        fh.seek(0)
        lines = 1
        while block := fh.read(1 << 24):
            lines += block.count(b"\n")
    raise FormatError(path, "the file ends in the middle of a line: truncated", line=lines)


def _vcd_end_time(path: Path) -> int | None:
    """The last `#time` of a VCD: the end of the dump, even with no change there."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        fh.seek(max(0, size - 65536))
        tail = fh.read()
    hits = re.findall(rb"(?:^|\s)#([0-9]{1,18})\s", tail + b"\n")
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


def read(
    path: str | Path,
    *,
    channels: list[str] | None = None,
    timeout: float | None = None,
    engine: str = "auto",
    **_: Any,
) -> Capture:
    """Read the 1-bit signals of a VCD or FST file (see the module doc).

    `engine`: "auto" (the numpy scanner for plain VCD up to 128 MB, else pywellen),
    "wellen" (always pywellen) or "scan" (the scanner or an error)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        head = _header(p)
    except OSError as exc:
        raise FormatError(p, f"cannot open: {exc.strerror or exc}") from None
    res = _parse(p, size, head, engine, timeout)
    sigs = res["signals"]
    if not sigs:
        raise FormatError(
            p, f"no 1-bit signal in this {res['format']} file ({res['skipped']} other variables)"
        )
    is_vcd = res["format"].upper() == "VCD"
    if is_vcd:
        _check_complete(p, size)
    rt = _RTLAB_RE.search(head) if is_vcd else None
    tick = _timescale_s(p, res["timescale"])
    t_start, t_end = _window(p, sigs, is_vcd)
    ratio = Fraction(1)
    if rt is not None:  # our own file: exact tick, window and channel order
        ratio, tick, t_start, t_end = _apply_rtlab(p, rt, tick)
        order = {n: k for k, n in enumerate(_declared_order(head))}
        sigs = sorted(sigs, key=lambda s: order.get(s[0], len(order)))
    cap = Capture(tick_s=tick, t_start=t_start, t_end=t_end,
                  metadata={"vcd_format": res["format"], "aliases": {}, "xz_changes": {},
                            "skipped_vars": res["skipped"]})
    _add_channels(p, cap, sigs, channels, ratio if rt is not None else None)
    return cap


def _parse(p: Path, size: int, head: bytes, engine: str, timeout: float | None
           ) -> dict[str, Any]:
    """The signals of the file: the numpy scanner if it can, else pywellen (forked)."""
    if size == 0:
        raise FormatError(p, "file is empty, expected a VCD or FST file", offset=0)
    body = head.lstrip()
    if not (_sniff_fst(head, p) or head[:1] == b"\xfe" or head.startswith(b"GHDLwave")
            or body.startswith(b"$")):  # what pywellen would say, without the fork
        raise FormatError(p, "not a VCD or FST file: expected a $command (VCD) or an FST "
                          "header", line=head[: len(head) - len(body)].count(b"\n") + 1)
    res = None
    if _sniff_fst(head, p):
        _check_fst_blocks(p, size)
    elif engine != "wellen" and size <= _SCAN_MAX_BYTES and sniff(head, p):
        _check_complete(p, size)
        res = _scan(p)
    if res is None:
        if engine == "scan":
            raise FormatError(p, "not a plain VCD that the numpy scanner reads")
        res = _run_isolated(p, timeout if timeout is not None else 60 + size / 2e5)
    return res


def _window(p: Path, sigs: list[Any], is_vcd: bool) -> tuple[int, int]:
    """First change to the last time stamp (a VCD's final `#t` counts)."""
    firsts = [int(t[0]) for _, _, t, _ in sigs if t.size]
    lasts = [int(t[-1]) for _, _, t, _ in sigs if t.size]
    t_start = min(firsts) if firsts else 0
    t_end = max(lasts) if lasts else t_start
    if is_vcd:
        end = _vcd_end_time(p)
        if end is not None and end > t_end:
            t_end = end
    return t_start, t_end


def _add_channels(p: Path, cap: Capture, sigs: list[Any], channels: list[str] | None,
                  ratio: Fraction | None) -> None:
    """One channel per signal (selected by full or short name); `ratio` is set for
    rtlab's own files, whose times are timescale units relative to t_start."""
    shortcount: dict[str, int] = {}
    for _, short, _, _ in sigs:
        shortcount[short] = shortcount.get(short, 0) + 1
    want = set(channels) if channels else None
    for full, short, times, lv in sigs:
        name = full
        if ratio is not None and full.startswith(_ROOT + "."):
            name = full[len(_ROOT) + 1 :]
        if want is not None and name not in want and short not in want:
            continue
        if name in cap.channels:
            raise FormatError(p, f"two 1-bit signals are named {name!r}")
        edges, level, xz = _to_edges(times, lv)
        if ratio is not None:
            edges = _from_units(p, name, edges, ratio) + cap.t_start
        cap.add(Channel(name, edges, initial_level=level))
        if xz:
            cap.metadata["xz_changes"][name] = xz
        if shortcount[short] == 1 and short != name:
            cap.metadata["aliases"][short] = name
    if want is not None:
        missing = want - set(cap.channels) - set(cap.metadata["aliases"])
        if missing:
            raise FormatError(p, f"no 1-bit signal named {sorted(missing)[0]!r}")


def _declared_order(head: bytes) -> list[str]:
    """Full names of the variables in the order the header declares them."""
    names, scope = [], []
    for m in re.finditer(rb"\$(scope|upscope|var)\b(.*?)\$end", head, re.S):
        kind, args = m.group(1), m.group(2).split()
        if kind == b"scope" and len(args) >= 2:
            scope.append(args[1].decode("utf-8", "replace"))
        elif kind == b"upscope" and scope:
            scope.pop()
        elif kind == b"var" and len(args) >= 4:
            names.append(".".join([*scope, args[3].decode("utf-8", "replace")]))
    return names


def _apply_rtlab(
    path: Path, m: re.Match[bytes], ts: Fraction
) -> tuple[Fraction, Fraction, int, int]:
    """(tick / timescale, tick, t_start, t_end) from the comment write() puts in."""
    num, den = int(m.group(1)), int(m.group(2))
    lo, hi = int(m.group(3)), int(m.group(4))
    if not (0 < num < 2**40 and 0 < den < 2**62 and abs(lo) < 2**62 and abs(hi) < 2**62):
        raise FormatError(path, "rtlab header comment: tick or window out of range")
    tick = Fraction(num, den)
    ratio = tick / ts
    if max(ratio.numerator, ratio.denominator) >= 2**31:
        raise FormatError(path, "rtlab header comment: tick does not fit the timescale")
    return ratio, tick, lo, hi


def _to_units(rel: np.ndarray, ratio: Fraction) -> np.ndarray:
    """Ticks → timescale units, rounded to nearest (exact when ratio is whole)."""
    p, q = ratio.numerator, ratio.denominator
    if q == 1:
        return rel * p
    return (rel * (2 * p) + q) // (2 * q)


def _from_units(path: Path, name: str, v: np.ndarray, ratio: Fraction) -> np.ndarray:
    """Timescale units → ticks, checking that they came from whole ticks."""
    p, q = ratio.numerator, ratio.denominator
    if v.size and int(np.abs(v).max()) > (2**62) // (2 * q):
        raise FormatError(path, f"{name}: times too large for the rtlab tick")
    t = (v * (2 * q) + p) // (2 * p)
    if not np.array_equal(_to_units(t, ratio), v):
        raise FormatError(path, f"{name}: a change is not on the rtlab tick grid")
    return t


# -- the writer ----------------------------------------------------------------------
_UNITS = ((0, "s"), (-3, "ms"), (-6, "us"), (-9, "ns"), (-12, "ps"), (-15, "fs"))


def _choose_timescale(tick: Fraction) -> tuple[str, Fraction]:
    """(timescale text, tick / timescale): the largest decimal unit that divides the
    tick; a tick that is no whole number of fs (1/24 MHz) gets 1 ps (or 1 fs below
    1 ns) and rounded times, which read() turns back into exact ticks."""
    for exp, unit in _UNITS:
        for factor in (100, 10, 1):
            ts = Fraction(factor) * Fraction(10) ** exp
            if (tick / ts).denominator == 1:
                return f"{factor}{unit}", tick / ts
    if tick >= Fraction(1, 10**9):
        return "1ps", tick * 10**12
    return "1fs", tick * 10**15


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
    round-trips exactly (also for ticks like 1/24 MHz, written rounded to 1 ps).
    Gaps are not written (VCD has no notion of them)."""
    timescale, ratio = _choose_timescale(cap.tick_s)
    chans = list(cap)
    ids = [_ident(k) for k in range(len(chans))]
    t0, t1 = cap.window()
    if any(len(c) and (c.edges[0] < t0 or c.edges[-1] > t1) for c in chans):
        raise FormatError(path, "cannot write VCD: an edge lies outside the capture window")
    if (t1 - t0) * 2 * ratio.numerator >= 2**62:
        raise FormatError(path, "cannot write VCD: the capture is too long for the timescale")
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
        for block in _body_blocks(chans, ids, ratio, t0):
            fh.write(block)
        fh.write(f"#{int(_to_units(np.array([t1 - t0]), ratio)[0])}\n".encode())


def _scopes(chans: list[Channel], ids: list[str]) -> list[str]:
    lines = [f"$scope module {_ROOT} $end"]
    open_: list[str] = []
    for ch, ident in zip(chans, ids, strict=True):  # capture order; scopes reopen if needed
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
    level = np.concatenate(
        [(np.arange(len(c)) + (1 if c.initial_level == 0 else 0)) % 2 for c in chans]
    ).astype(np.uint8)
    order = np.lexsort((who, times))
    return times[order], who[order], level[order]


def _format_block(
    times: np.ndarray,
    new: np.ndarray,
    who: np.ndarray,
    level: np.ndarray,
    id_mat: np.ndarray,
    id_len: np.ndarray,
) -> bytes:
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


def _body_blocks(chans: list[Channel], ids: list[str], ratio: Fraction, t0: int) -> Iterator[bytes]:
    """The value-change section in blocks of bytes, times relative to t0."""
    if not chans or not sum(len(c) for c in chans):
        return
    times, who, level = _events(chans)
    rel = _to_units(times - t0, ratio)
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
    FormatSpec(
        name="vcd",
        extensions=(".vcd",),
        read=read,
        sniff=sniff,
        write=write,
        description="Value Change Dump (simulators, PulseView, GTKWave)",
    ),
    FormatSpec(
        name="fst",
        extensions=(".fst",),
        read=read,
        sniff=_sniff_fst,
        description="FST waveform (GTKWave, Verilator, Icarus -fst)",
    ),
]
