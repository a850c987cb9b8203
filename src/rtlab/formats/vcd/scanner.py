"""A numpy scanner for plain VCD files: the fast path of the `vcd` reader.

pywellen parses fast in Rust, but hands every change to Python as a tuple, which
costs most of the read time. For the common VCD (1-bit scalar changes, `#time`
lines, vectors that are skipped; a one-bit vector value `b1 !` on a 1-bit variable is
its change) this module finds the 1-bit changes with numpy on the
raw bytes instead, and returns exactly what the pywellen path returns. Anything
unusual (comments or `$dumpoff` in the body, escaped or indexed names, unknown variable
types, times going backwards, text it does not expect) makes it return None: the
caller then uses pywellen, which either reads the file or says what is wrong with it.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

try:  # the compiled one-pass scanner of plain bodies (native/src/vcd.rs)
    from rtlab_native import vcd_changes as _vcd_changes
except ImportError:  # pragma: no cover - depends on the install
    _vcd_changes = None

# 1-bit kinds read as levels; any other kind of 1-bit variable sends the file to pywellen
_BIT_TYPES = {
    b"wire", b"reg", b"logic", b"bit", b"tri", b"tri0", b"tri1", b"triand", b"trior",
    b"trireg", b"wand", b"wor", b"supply0", b"supply1", b"uwire",
}  # fmt: skip
_OTHER_TYPES = {
    b"integer", b"parameter", b"real", b"realtime", b"time", b"event", b"string", b"int",
    b"shortint", b"longint", b"byte", b"enum", b"shortreal", b"port", b"sparray",
} | _BIT_TYPES  # fmt: skip
_UNITS = {b"s": 0, b"ms": -3, b"us": -6, b"ns": -9, b"ps": -12, b"fs": -15}
_BODY_CMDS = {b"$dumpvars", b"$dumpall", b"$end"}
_LEVEL = np.full(256, -1, dtype=np.int8)
for _c in b"0lL":
    _LEVEL[_c] = 0
for _c in b"1hH":
    _LEVEL[_c] = 1
_BITCHAR = np.zeros(256, dtype=bool)
_BITCHAR[list(b"01xXzZuUwWlLhH-")] = True
# token classes by first byte
_BAD, _TIME, _SCL, _VEC, _CMD, _ID = range(6)
_CLASS = np.full(256, _BAD, dtype=np.uint8)
_CLASS[list(b"01xXzZuUwWlLhH-")] = _SCL
_CLASS[list(b"bBrRsS")] = _VEC
_CLASS[ord("#")] = _TIME
_CLASS[ord("$")] = _CMD
_SPACE = np.zeros(256, dtype=bool)
_SPACE[list(b" \t\n\r\v\f")] = True
_MAX_ID = 8  # id codes up to 8 bytes become one uint64 key
_WIDE = -3  # the level of a vector value of several bits


class _Scope:
    __slots__ = ("items", "subs")

    def __init__(self) -> None:
        self.items: list[tuple[str, Any]] = []  # ("var", (name, id)) | ("scope", name)
        self.subs: dict[str, _Scope] = {}


_SCOPE_TYPES = {
    b"module",
    b"task",
    b"function",
    b"begin",
    b"fork",
    b"generate",
    b"struct",
    b"union",
    b"class",
    b"interface",
    b"package",
    b"program",
}


def _commands(head: bytes) -> list[tuple[bytes, list[bytes]]]:
    """`$cmd args… $end` blocks by whitespace tokens; [] plus a bad entry on junk."""
    out: list[tuple[bytes, list[bytes]]] = []
    cmd: bytes | None = None
    args: list[bytes] = []
    for tok in head.split():
        if cmd is None:
            if not tok.startswith(b"$") or tok == b"$end":
                return [(b"?", [])]
            cmd, args = tok[1:], []
        elif tok == b"$end":
            out.append((cmd, args))
            cmd = None
        elif tok.startswith(b"$end") or (
            tok.startswith(b"$") and cmd != b"comment" and not (cmd == b"var" and len(args) == 2)
        ):
            return [(b"?", [])]  # `$` only starts a var's id code; else an $end is missing
        else:
            args.append(tok)
    return out if cmd is None else [(b"?", [])]


_BIT_SELECT = re.compile(rb"^\[([0-9]{1,9})(?::([0-9]{1,9}))?\]$")


def bit_select_name(args: list[bytes]) -> bytes | None:
    """`name[k]` for a 1-bit variable that is one bit of a bus (`$var wire 1 " data [0]
    $end`, or `data[0]`, or `data [3:3]`), else None. Each is a channel of its own (as
    sigrok reads them); pywellen would merge neighbouring bits into one vector."""
    if len(args) == 5 and args[1] == b"1":
        name, sel = args[3], args[4]
    elif len(args) == 4 and args[1] == b"1" and args[3].endswith(b"]") and b"[" in args[3]:
        name, sel = args[3][: args[3].index(b"[")], args[3][args[3].index(b"[") :]
    else:
        return None
    m = _BIT_SELECT.match(sel)
    if m is None or not name or (m.group(2) is not None and m.group(2) != m.group(1)):
        return None
    return name + b"[" + m.group(1) + b"]"


_Header = tuple[tuple[int, int] | None, list[tuple[str, str, bytes]], int, set[int]]


def _header(head: bytes) -> _Header | None:
    """(timescale, [(full name, short name, id)] in pywellen's order, number of skipped
    variables, the id keys of all variables)."""
    root = _Scope()
    stack = [root]
    timescale = None
    skipped = 0
    declared: set[int] = set()
    for cmd, args in _commands(head):
        if cmd == b"scope":
            if len(args) != 2 or args[0] not in _SCOPE_TYPES:
                return None
            name = args[1].decode("utf-8", "replace")
            cur = stack[-1]
            if name not in cur.subs:
                cur.subs[name] = _Scope()
                cur.items.append(("scope", name))
            stack.append(cur.subs[name])
        elif cmd == b"upscope":
            if len(stack) == 1 or args:
                return None
            stack.pop()
        elif cmd == b"var":
            ranged = len(args) == 5 and args[4][:1] == b"[" and args[1] != b"1"
            name = bit_select_name(args)
            if name is None and (not (len(args) == 4 or ranged) or not args[1].isdigit()):
                return None
            if args[0] not in _OTHER_TYPES:
                return None
            name = name if name is not None else args[3]
            if name.startswith(b"\\") or (b"[" in name and bit_select_name(args) is None):
                return None
            if len(stack) == 1 or len(args[2]) > _MAX_ID:
                return None
            declared.add(_id_key(args[2]))
            if args[1] == b"1" and args[0] in _BIT_TYPES:
                stack[-1].items.append(("var", (name.decode("utf-8", "replace"), args[2])))
            else:
                skipped += 1
        elif cmd == b"timescale":
            ts = re.fullmatch(rb"(1|10|100)\s*(s|ms|us|ns|ps|fs)", b" ".join(args))
            if ts is None:
                return None
            timescale = (int(ts.group(1)), _UNITS[ts.group(2)])
        elif cmd == b"enddefinitions":
            if args:
                return None
        elif cmd not in (b"date", b"version", b"comment"):
            return None
    if len(stack) != 1:
        return None
    out: list[tuple[str, str, bytes]] = []

    def walk(scope: _Scope, prefix: str) -> None:
        for kind, item in scope.items:
            if kind == "scope":
                walk(scope.subs[item], f"{prefix}{item}.")
            else:
                out.append((prefix + item[0], item[0], item[1]))

    walk(root, "")
    names = [full for full, _, _ in out]
    if len(set(names)) != len(names):
        return None  # duplicate names: leave the policy to the pywellen path
    return timescale, out, skipped, declared


def _keys(joined: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Each byte string (start, length) as one big-endian uint64 (length <= 8)."""
    key = np.zeros(start.size, dtype=np.uint64)
    for j in range(int(length.max(initial=0))):
        inside = j < length
        byte = joined[np.minimum(start + j, joined.size - 1)].astype(np.uint64)
        key = np.where(inside, (key << np.uint64(8)) | byte, key)
    return key


def _id_key(ident: bytes) -> int:
    return int.from_bytes(ident, "big")


def split_header(data: bytes) -> tuple[_Header, int] | None:
    """The header of a plain VCD (see _header) and the offset of its body, or None."""
    end = data.find(b"$enddefinitions")
    close = data.find(b"$end", end + len(b"$enddefinitions")) if end >= 0 else -1
    head = _header(data[: close + 4]) if close >= 0 else None
    return None if head is None else (head, close + 4)


def scan(data: bytes) -> dict[str, Any] | None:
    """The 1-bit changes of a plain VCD, or None when pywellen should read it."""
    found = split_header(data)
    if found is None:
        return None
    (timescale, variables, skipped, declared), at = found
    body = data[at:]
    fast = _native_scan(body, variables, declared)
    if fast is not None:
        return {"format": "VCD", "timescale": timescale, "signals": fast, "skipped": skipped,
                "plain": True}  # fmt: skip
    if b"$comment" in body or b"$dumpoff" in body or b"$dumpon" in body or b"\0" in body:
        return None
    # tokens found with numpy: no Python object per token
    joined = np.frombuffer(body, dtype=np.uint8)
    edge = np.diff((~_SPACE[joined]).view(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts = np.flatnonzero(edge == 1)
    lens = np.flatnonzero(edge == -1) - starts
    del edge
    first = joined[starts]
    cls = _CLASS[first]
    vec = cls == _VEC
    if vec.size and vec[-1]:
        return None
    ids = np.flatnonzero(vec[:-1]) + 1  # the id after a vector value (may start # or $)
    if not _vectors_ok(joined, starts[ids - 1], lens[ids - 1]):
        return None
    cls[ids] = _ID
    if np.any(cls == _BAD) or np.any((cls == _SCL) & (lens < 2)):
        return None
    at = np.flatnonzero(cls == _CMD)
    if (
        not {body[i : i + n] for i, n in zip(starts[at].tolist(), lens[at].tolist(), strict=True)}
        <= _BODY_CMDS
    ):
        return None
    is_time = cls == _TIME
    times = _times(joined, starts[is_time], lens[is_time])
    if times is None:
        return None
    sc = np.flatnonzero(cls == _SCL)
    tidx = np.cumsum(is_time) - 1  # the timestamp in force at each token
    if sc.size and tidx[sc[0]] < 0:
        return None  # a change before any time
    # the changes: scalar values, and vector values, whose id may be a collected 1-bit
    # variable (`b1 !` changes it as `1!` does)
    vt = ids - 1
    tok = np.concatenate((sc, vt))
    order = np.argsort(tok, kind="stable")  # file order
    tok = tok[order]
    key_start = np.concatenate((starts[sc] + 1, starts[ids]))[order]
    key_len = np.concatenate((lens[sc] - 1, lens[ids]))[order]
    one_bit = _LEVEL[joined[np.minimum(starts[vt] + 1, joined.size - 1)]]
    levels = np.concatenate((_LEVEL[first[sc]], np.where(lens[vt] == 2, one_bit, _WIDE)))
    levels = levels[order]
    found = _changes_by_id(joined, key_start, key_len, declared, variables)
    if found is None:
        return None
    used = np.concatenate([np.zeros(0, np.int64), *found])
    if np.any(levels[used] == _WIDE) or np.any(tidx[tok[used]] < 0):
        return None  # several bits on a 1-bit variable, or a change before any time
    change_t = times[tidx[tok]] if tok.size else np.zeros(0, np.int64)
    signals = [
        (full, short, change_t[sel], levels[sel])
        for (full, short, _), sel in zip(variables, found, strict=True)
    ]
    return {"format": "VCD", "timescale": timescale, "signals": signals, "skipped": skipped}


def _native_scan(
    body: bytes, variables: list[tuple[str, str, bytes]], declared: set[int]
) -> list[tuple[str, str, np.ndarray, np.ndarray]] | None:
    """The signals by the compiled one-pass scanner (rtlab_native.vcd_changes) when the
    body is plain (one-byte ids, times never going backwards, no comment or $dumpoff:
    `plain` in the result tells the reader that its time-line check has nothing to
    find); None otherwise, and without rtlab_native."""
    plan = one_byte_slots(variables, declared) if _vcd_changes is not None else None
    if plan is None:
        return None
    slots, n_out, out_of = plan
    found = _vcd_changes(body, slots, n_out)
    if found is None:
        return None
    arrays = [(np.frombuffer(t, np.int64), np.frombuffer(lv, np.int8)) for t, lv in found]
    pairs = zip(variables, out_of, strict=True)
    return [(full, short, *arrays[k]) for (full, short, _), k in pairs]


def one_byte_slots(variables: list[tuple[str, str, bytes]], declared: set[int]) -> Any:
    """For the compiled scanners, when every id is one byte: (slots: per id byte its
    output, -1 declared but not collected, -2 undeclared; the number of outputs; the
    output of each variable: variables may share an id), else None."""
    if any(k > 255 for k in declared) or any(len(i) != 1 for _, _, i in variables):
        return None
    slots = [-2] * 256
    for k in declared:
        slots[k] = -1
    outputs: dict[int, int] = {}
    for _, _, ident in variables:
        outputs.setdefault(ident[0], len(outputs))
    for k, i in outputs.items():
        slots[k] = i
    return slots, len(outputs), [outputs[i[0]] for _, _, i in variables]


def _vectors_ok(joined: np.ndarray, start: np.ndarray, length: np.ndarray) -> bool:
    """Vector values are b<bits> with 4/9-state bit characters (reals and strings
    are left to pywellen)."""
    if start.size == 0:
        return True
    if not np.all((joined[start] == ord("b")) | (joined[start] == ord("B"))):
        return False
    bad = np.cumsum(~_BITCHAR[joined], dtype=np.int64)
    bad = np.concatenate(([0], bad))
    return bool(np.all(bad[start + length] - bad[start + 1] == 0) and np.all(length >= 2))


def _changes_by_id(
    joined: np.ndarray,
    key_start: np.ndarray,
    key_len: np.ndarray,
    declared: set[int],
    variables: list[tuple[str, str, bytes]],
) -> list[np.ndarray] | None:
    """For each variable, the indices of its changes (whose id codes are the byte strings
    (key_start, key_len)), in file order; None if a change names an undeclared id
    (pywellen then reports it)."""
    if key_len.size and key_len.max() > _MAX_ID:
        return None
    if key_len.size == 0 or key_len.max() == 1:
        # one-byte ids (up to 94 signals, the usual case): a 256-entry table
        table = np.zeros(256, dtype=bool)
        table[[k for k in declared if k < 256]] = True
        keys = joined[key_start] if key_start.size else np.zeros(0, np.uint8)
        if not table[keys].all():
            return None
        order = np.argsort(keys, kind="stable")
        bounds = np.searchsorted(keys[order], np.arange(257))
        return [
            order[bounds[ident[0]] : bounds[ident[0] + 1]] if len(ident) == 1 else order[:0]
            for _, _, ident in variables
        ]
    keys = _keys(joined, key_start, key_len)
    known = np.array(sorted(declared), dtype=np.uint64)
    if keys.size and not np.all(np.isin(keys, known)):
        return None
    order = np.argsort(keys, kind="stable")
    skeys = keys[order]
    out = []
    for _, _, ident in variables:
        k = np.uint64(_id_key(ident))
        lo, hi = np.searchsorted(skeys, [k, k + np.uint64(1)])
        out.append(order[lo:hi])
    return out


def _times(joined: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray | None:
    """'#123' tokens → int64, non-decreasing; None if any is not a plain time."""
    if start.size == 0:
        return np.zeros(0, np.int64)
    nd = length - 1
    if nd.min() < 1 or nd.max() > 18:
        return None
    val = np.zeros(start.size, dtype=np.int64)
    for j in range(int(nd.max())):
        inside = j < nd
        byte = joined[np.minimum(start + 1 + j, joined.size - 1)].astype(np.int64) - ord("0")
        if np.any(inside & ((byte < 0) | (byte > 9))):
            return None
        val = np.where(inside, val * 10 + byte, val)
    if np.any(val[1:] < val[:-1]):
        return None  # pywellen skips backward times: let it decide
    return val
