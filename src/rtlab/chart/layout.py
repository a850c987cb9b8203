"""The plot area of a chart in px, and text widths (no font metrics here)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

CHAR_W = 0.58  # a sans-serif character's mean width, in font sizes


def text_width(s: str, font: float) -> float:
    """Estimated width of `s` in px at `font` px: a mean character width."""
    return len(s) * font * CHAR_W


@dataclass
class Frame:
    """The plot area in px and the data → px maps of both axes."""

    left: float
    top: float
    right: float
    bottom: float
    fx: Callable[[float], float]
    fy: Callable[[float], float]
