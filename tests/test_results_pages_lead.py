"""Every results page passes the 30-second test: at most 150 words before its first
table, so that what was measured, its headline figures and its verdicts come before
method text (a page's method prose follows its generated block)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGES = sorted((Path(__file__).resolve().parents[1] / "docs" / "results").glob("*.md"))
LIMIT = 150


def words_before_first_table(text: str) -> int:
    words = 0
    for line in text.splitlines():
        if line.startswith("|"):
            return words
        words += len(re.sub(r"<!--.*?-->", "", line).split())
    return words


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_a_page_opens_with_its_results(page: Path) -> None:
    n = words_before_first_table(page.read_text())
    assert n <= LIMIT, f"{page.name}: {n} words before its first table (at most {LIMIT})"


def test_the_count_stops_at_the_first_table() -> None:
    assert words_before_first_table("# T\n\nsome three words\n\n| a |\nmore words here") == 5
