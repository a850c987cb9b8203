"""Counts written as a person writes them: '1 core', '2 cores', '0 entries'."""

from __future__ import annotations


def plural(n: int, one: str, many: str | None = None) -> str:
    """'1 finding', '2 findings', '1,200 findings', '0 entries': a count and its noun."""
    return f"{n:,} {one if n == 1 else (many or one + 's')}"
