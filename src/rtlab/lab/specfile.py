"""Where a key sits in a TOML file: semantic spec errors name the line, like syntax ones.

tomllib reports lines only for syntax errors; once parsed, the document has no
positions. `KeyLines(text).line(("workload", 1, "method"))` scans the text for table
headers (`[a.b]`, `[[a]]` with their running index) and `key = value` lines, and answers
the line of the longest known prefix of the path. Dotted and quoted keys are handled;
values spanning several lines (arrays, multi-line strings) are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rtlab.errors import FormatError

Path = tuple[str | int, ...]
_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_PART = r"""(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')"""
_KEY = re.compile(rf"^\s*({_PART}(?:\s*\.\s*{_PART})*)\s*=")


class SpecError(FormatError):
    """A mistake in an experiment spec: file, line and key."""


def _split_key(text: str) -> list[str]:
    parts = re.findall(r""""([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+)""", text)
    return [a or b or c for a, b, c in parts]


def _opens(value: str) -> int:
    """Net bracket depth a value leaves open (strings stripped): >0 spans lines."""
    value = re.sub(r'"(\\.|[^"\\])*"|\'[^\']*\'', "", value.split("#", 1)[0])
    return value.count("[") + value.count("{") - value.count("]") - value.count("}")


class KeyLines:
    def __init__(self, text: str) -> None:
        self.lines: dict[Path, int] = {}
        aot: dict[tuple[str, ...], int] = {}  # array-of-tables header → last index
        table: Path = ()
        depth = 0
        in_ml = False
        for no, line in enumerate(text.splitlines(), 1):
            if in_ml:
                in_ml = line.count('"""') % 2 == 0 and line.count("'''") % 2 == 0
                continue
            if depth > 0:
                depth += _opens(line)
                continue
            h = _HEADER.match(line)
            if h:
                keys = _split_key(h.group(2))
                table = self._with_indexes(keys, aot)
                if h.group(1) == "[[":
                    aot[tuple(keys)] = aot.get(tuple(keys), -1) + 1
                    table = self._with_indexes(keys, aot)
                self.lines.setdefault(table, no)
                continue
            k = _KEY.match(line)
            if k:
                path = table + tuple(_split_key(k.group(1)))
                self.lines.setdefault(path, no)
                rest = line[k.end() :]
                if rest.count('"""') % 2 == 1 or rest.count("'''") % 2 == 1:
                    in_ml = True
                depth = max(0, _opens(rest))

    @staticmethod
    def _with_indexes(keys: Sequence[str], aot: dict[tuple[str, ...], int]) -> Path:
        out: list[str | int] = []
        for i, key in enumerate(keys):
            out.append(key)
            prefix = tuple(keys[: i + 1])
            if prefix in aot:
                out.append(aot[prefix])
        return tuple(out)

    def line(self, path: Path) -> int | None:
        for n in range(len(path), 0, -1):
            if path[:n] in self.lines:
                return self.lines[path[:n]]
        return None


def dotted(path: Path) -> str:
    """("workload", 1, "method") → "workload[1].method" (the name shown to the user)."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out
