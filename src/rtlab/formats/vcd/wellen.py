"""The pywellen side of the VCD/FST reader, run in a forked child.

pywellen is Rust: on a corrupt file it may raise odd exceptions, panic, or abort the
whole process (an allocation of a size read from the file). So the parsing runs in a
forked child with a memory limit and a timeout; whatever goes wrong there comes back as
one FormatError, located at a line by a light VCD check where one fails.
"""

from __future__ import annotations

import itertools
import os
import re
import resource
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats.isolate import run_isolated
from rtlab.formats.vcd.scanner import bit_select_name

_LEVELS = {0: 0, 1: 1, "0": 0, "1": 1, "h": 1, "H": 1, "l": 0, "L": 0}


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


def read_isolated(path: Path, timeout: float) -> dict[str, Any]:
    """pywellen in a forked child with a memory limit: on corrupt input it panics,
    and on a corrupt FST header it aborts the process asking for 2^48 bytes.

    A VCD whose header declares single bits of a bus (`data [0]`, `data [1]`) is
    parsed from a copy in which each such bit has a name of its own: pywellen would
    merge neighbouring bits into one vector (and give separate ones the same name)."""
    renames, copy = _separate_bit_selects(path)
    try:
        res: dict[str, Any] = run_isolated(
            path,
            _extract,
            str(copy or path),
            what="VCD/FST",
            timeout=timeout,
            setup=lambda: _limit_memory(os.path.getsize(path)),
            on_error=lambda msg: _located(path, f"not a readable VCD/FST file: {msg}"),
        )
    finally:
        if copy is not None:
            copy.unlink(missing_ok=True)
    if renames:
        res["signals"] = [
            (_renamed(full, renames), _renamed(short, renames), t, lv)
            for full, short, t, lv in res["signals"]
        ]
    return res


_HEADER_MAX = 16 << 20
_VAR = re.compile(rb"\$var\s(.*?)\$end", re.S)


def _renamed(name: str, renames: dict[str, str]) -> str:
    head, dot, leaf = name.rpartition(".")
    return f"{head}{dot}{renames[leaf]}" if leaf in renames else name


def _separate_bit_selects(path: Path) -> tuple[dict[str, str], Path | None]:
    """({placeholder: 'data[0]'}, a copy of the VCD with the placeholders) when its
    header declares bit-selects, else ({}, None). Lines keep their numbers."""
    with open(path, "rb") as fh:
        head = fh.read(_HEADER_MAX)
    end = head.find(b"$enddefinitions")
    if head[:9] == b"\x00" + (329).to_bytes(8, "big") or end < 0:
        return {}, None
    renames: dict[str, str] = {}

    def swap(m: re.Match[bytes]) -> bytes:
        args = m.group(1).split()
        name = bit_select_name(args)
        if name is None:
            return m.group(0)
        key = f"rtlab_bit_select_{len(renames)}_"
        renames[key] = name.decode("utf-8", "replace")
        return b"$var " + b" ".join([*args[:3], key.encode()]) + b" $end"

    new_head = _VAR.sub(swap, head[:end])
    if not renames:
        return {}, None
    fd, name = tempfile.mkstemp(suffix=".vcd", prefix="rtlab-")
    with os.fdopen(fd, "wb") as out, open(path, "rb") as src:
        out.write(new_head)
        src.seek(end)
        shutil.copyfileobj(src, out, 1 << 20)
    return renames, Path(name)


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
