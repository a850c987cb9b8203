"""The time line of a VCD body, checked on both reading paths (scanner and pywellen).

pywellen skips a time that goes backwards (its changes are lost), takes `#-5` and
stops at a time above 2^63 with an OverflowError: this check runs first and names the
line instead. It also returns the `$dumpoff … $dumpon` pauses, which the reader turns
into capture gaps (pywellen reports them only as x values).

Tokens are found with numpy as in scanner.py; only commands (`$…`) and times go
through Python one by one, and the body is read in chunks split at line ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats.textutil import line_blocks

_CHUNK = 64 << 20
_I64_MAX = 2**63 - 1
_SPACE = np.zeros(256, dtype=bool)
_SPACE[list(b" \t\n\r\v\f")] = True
_VEC = np.zeros(256, dtype=bool)
_VEC[list(b"bBrRsS")] = True  # a vector, real or string value: an id code follows


@dataclass
class _State:
    line: int  # line number of the chunk's first byte
    time: int | None = None  # the time in force
    time_line: int = 0  # its line
    id_next: bool = False  # the next token is the id code of a vector value
    in_comment: bool = False
    off: int | None = None  # the time of an open $dumpoff
    gaps: list[tuple[int, int]] = field(default_factory=list)


def timeline(path: Path) -> list[tuple[int, int]]:
    """The `$dumpoff` pauses as (time of $dumpoff, time of $dumpon); raises FormatError
    (with the line) on a time that is negative, above 2^63-1, or before the previous."""
    with open(path, "rb") as fh:
        head = fh.read(1 << 20)
        start = _body_start(head)
        if start is None:
            return []  # no header end: the parser reports that
        st = _State(line=head[:start].count(b"\n") + 1)
        fh.seek(start)
        for block, _, line in line_blocks(fh, _CHUNK, st.line):
            st.line = line
            _chunk(path, block, st)
    if st.off is not None and st.time is not None and st.time > st.off:
        st.gaps.append((st.off, st.time))  # dumped off to the end
    return st.gaps


_TIMESCALE = re.compile(rb"\$timescale\b(.*?)\$end", re.S)
_TIMESCALE_OK = re.compile(rb"^(1|10|100)\s*(s|ms|us|ns|ps|fs)$")


def check_timescale(p: Path, head: bytes) -> None:
    """A `$timescale` must be 1, 10 or 100 and a unit s … fs (IEEE 1364, lower case):
    the parser would fail on anything else without saying so."""
    m = _TIMESCALE.search(head[: head.find(b"$enddefinitions") % (len(head) + 1)])
    if m is None:
        return
    text = b" ".join(m.group(1).split())
    if not _TIMESCALE_OK.match(text):
        shown = text.decode("latin-1")[:40]
        raise FormatError(
            p,
            f"bad $timescale {shown!r}: expected 1, 10 or 100 and a unit s, ms, us, ns, "
            "ps or fs (lower case)",
            line=head.count(b"\n", 0, m.start()) + 1,
        )


def _body_start(head: bytes) -> int | None:
    end = head.find(b"$enddefinitions")
    if end < 0:
        return None
    close = head.find(b"$end", end + len(b"$enddefinitions"))
    return None if close < 0 else close + 4


def _chunk(path: Path, data: bytes, st: _State) -> None:
    if not data:
        return
    joined = np.frombuffer(data, dtype=np.uint8)
    edge = np.diff((~_SPACE[joined]).view(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts = np.flatnonzero(edge == 1)
    ends = np.flatnonzero(edge == -1)
    del edge
    if starts.size == 0:
        return
    first = joined[starts]
    is_id = np.zeros(starts.size, dtype=bool)
    is_id[1:] = _VEC[first[:-1]]
    is_id[0] = st.id_next
    # an id code may itself start with b/r/s (`b1 b`): an id is never a value
    for k in (np.flatnonzero(is_id[1:] & is_id[:-1]) + 1).tolist():
        is_id[k] = bool(_VEC[first[k - 1]]) and not is_id[k - 1]
    st.id_next = bool(_VEC[first[-1]]) and not is_id[-1]
    nl = np.flatnonzero(joined == 10)

    def line_of(k: int) -> int:
        return st.line + int(np.searchsorted(nl, starts[k]))

    # commands, one by one (few): comments hide what they hold; dumpoff/dumpon marks
    hidden = np.zeros(starts.size + 1, dtype=np.int64)  # +1/-1 at comment bounds
    marks: list[tuple[int, bytes]] = []
    was_in_comment = st.in_comment
    for k in np.flatnonzero((first == ord("$")) & ~is_id).tolist():
        tok = data[int(starts[k]) : int(ends[k])]
        if st.in_comment:
            if tok == b"$end":
                st.in_comment = False
                hidden[k] -= 1
        elif tok == b"$comment":
            st.in_comment = True
            hidden[k] += 1
        elif tok in (b"$dumpoff", b"$dumpon"):
            marks.append((k, tok))
    in_comment = (np.cumsum(hidden)[:-1] + int(was_in_comment)) > 0
    tk = np.flatnonzero((first == ord("#")) & ~is_id & ~in_comment)
    values = _values(joined, starts[tk], ends[tk] - starts[tk])
    bad = np.flatnonzero(values < 0)
    stop = int(bad[0]) if bad.size else tk.size
    prev = np.concatenate(([st.time if st.time is not None else -1], values[:stop]))
    back = np.flatnonzero(prev[1:] < prev[:-1])
    if back.size:
        i = int(back[0])
        before = f"line {line_of(int(tk[i - 1]))}" if i else f"line {st.time_line}"
        raise FormatError(
            path,
            f"time goes backwards: #{int(prev[i + 1])} after #{int(prev[i])} ({before})",
            line=line_of(int(tk[i])),
        )
    for i in bad.tolist():  # negative, too long or not a number: Python says which
        values[i] = _time(path, data[int(starts[tk[i]]) : int(ends[tk[i]])], line_of(int(tk[i])))
        if i and values[i] < values[i - 1]:  # (a long but valid time, then a smaller one)
            raise FormatError(
                path,
                f"time goes backwards: #{int(values[i])} after #{int(values[i - 1])}",
                line=line_of(int(tk[i])),
            )
    for k, tok in marks:
        n = int(np.searchsorted(tk, k))
        now = int(values[n - 1]) if n else st.time
        if tok == b"$dumpoff":
            if st.off is None and now is not None:
                st.off = now
        else:
            if st.off is not None and now is not None and now > st.off:
                st.gaps.append((st.off, now))
            st.off = None
    if tk.size:
        st.time, st.time_line = int(values[-1]), line_of(int(tk[-1]))


def _values(joined: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """'#123' tokens → int64; -1 where a token is not 1-18 plain digits."""
    nd = length - 1
    val = np.zeros(start.size, dtype=np.int64)
    ok = (nd >= 1) & (nd <= 18)
    for j in range(int(nd.max(initial=0))):
        inside = (j < nd) & ok
        byte = joined[np.minimum(start + 1 + j, joined.size - 1)].astype(np.int64) - ord("0")
        ok &= ~(inside & ((byte < 0) | (byte > 9)))
        val = np.where(inside, val * 10 + byte, val)
    val[~ok] = -1
    return val


def _time(path: Path, tok: bytes, line: int) -> int:
    """The value of a time token that is not 1-18 plain digits, or its error."""
    digits = tok[1:]
    if digits[:1] == b"-" and digits[1:].isdigit():
        raise FormatError(path, f"negative time {tok.decode()}: VCD times are >= 0", line=line)
    if not digits.isdigit() or not digits.isascii():
        shown = tok[:24].decode("latin-1")
        raise FormatError(path, f"expected a time '#<digits>', got {shown!r}", line=line)
    t = int(digits)
    if t > _I64_MAX:
        raise FormatError(
            path, f"time #{t} does not fit in 64 bits (the largest is #{_I64_MAX})", line=line
        )
    return t
