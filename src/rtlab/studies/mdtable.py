"""The studies' Markdown tables, written one way: a header row, the alignment row (text
columns left, figures right) and one row per list of cells."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def md_table(head: Sequence[str], rows: Iterable[Sequence[object]], text_cols: int) -> list[str]:
    """The table's lines: the first `text_cols` columns left-aligned, the rest (figures)
    right-aligned; each cell as str() gives it (a cell holding " | " spans two)."""
    align = ["---" if i < text_cols else "---:" for i in range(len(head))]
    return [_row(head), _row(align), *(_row(r) for r in rows)]


def _row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"
