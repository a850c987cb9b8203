"""The HTML report reads in 30 seconds: its first study section is open, "click to
open" shows only on a closed section, counts are written with their plural, the
fingerprint has no blank rows, and codes and numbers never break inside a word."""

from __future__ import annotations

import re
from pathlib import Path

from rtlab.report.html import plural
from tests.conftest import rtlab
from tests.results.test_store_v0_fixture import store_v0  # noqa: F401 - the fixture


def test_plurals():
    assert [plural(n, "finding") for n in (0, 1, 2, 1200)] == [
        "0 findings", "1 finding", "2 findings", "1,200 findings"]  # fmt: skip
    assert plural(1, "entry", "entries") == "1 entry"
    assert plural(3, "entry", "entries") == "3 entries"


def test_the_report_opens_its_first_study_and_reads_cleanly(store_v0: Path, tmp_path: Path):  # noqa: F811
    out = tmp_path / "r.html"
    res = rtlab("report", "--store", str(store_v0), "-o", str(out))
    assert res.returncode == 0, res.stderr
    page = out.read_text()
    studies = re.findall(r'<details class="study" id="study-[^"]+"( open)?>', page)
    assert studies and studies[0] == " open"
    assert "(s)" not in re.sub(r"<style>.*?</style>", "", page, flags=re.S)
    # the hint is a span the stylesheet hides inside an open section
    assert 'details[open] > summary .closed-hint { display: none; }' in page
    assert '<span class="closed-hint"> — click to open</span>' in page
    assert "<code></code>" not in page and "<code>None</code>" not in page
    css = page[page.index("<style>") : page.index("</style>")]
    assert "code { font-size: 12px; overflow-wrap: anywhere" not in css
    assert re.search(r"td\.num \{[^}]*white-space: nowrap", css)
