"""The GPIO study's section of the HTML report, opened in headless Chromium: its
Fig. 2 images decode, nothing logs an error, the tables are there."""

from __future__ import annotations

from pathlib import Path

from rtlab.report.html import write_report
from rtlab.results import Store
from rtlab.results import query as results
from tests.report.cdp import Browser, console_errors
from tests.studies.gpio_store import c_and_kotlin_store, make_gpio_store


def test_gpio_section_renders_in_chromium(tmp_path: Path) -> None:
    path, _ = make_gpio_store(tmp_path / "store" / "rtlab.duckdb")
    out = tmp_path / "report.html"
    with Store(path, read_only=True) as st:
        write_report(st, results.select_many(st, (), "gpio"), out, title="gpio")
    b = Browser(width=1400, height=2000)
    try:
        assert console_errors(b.open(out.as_uri())) == []
        images = b.evaluate(
            "Array.from(document.images).map(i => [i.alt, i.complete, i.naturalWidth])"
        )
        gpio = [im for im in images if im[0].startswith("GPIO study Fig. 2")]
        assert len(gpio) == 2, images  # instrument and self-timestamped
        assert all(done and width > 0 for _, done, width in images), images
        headings = b.evaluate("Array.from(document.querySelectorAll('h3')).map(h => h.textContent)")
        assert "Table 1: period, frequency, jitter" in headings
        assert any(h.startswith("Reference: published") for h in headings)
        # the sections fold: closed, its figures take no room; opened, they do
        b.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        width = b.evaluate(
            "document.querySelector('img[alt^=\"GPIO study\"]').getBoundingClientRect().width"
        )
        assert width > 300
        # the report reads top to bottom: nothing wider than the window, all sections open
        assert b.evaluate("document.documentElement.scrollWidth") <= 1400
        assert b.evaluate("document.querySelector('#reproduction-gpio') !== null")
    finally:
        b.close()


# Every space-separated word of the report's table cells whose text breaks over two
# lines (one client rect a line: a word broken inside has two), but at a hyphen or dash.
BROKEN_WORDS = """
(() => {
  const broken = [];
  for (const td of document.querySelectorAll('td')) {
    const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /\\S+/g;
      for (let m = re.exec(node.data); m; m = re.exec(node.data)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
        if (lines.size > 1 && !/[-\u2013]/.test(m[0])) broken.push(m[0]);
      }
    }
  }
  return broken;
})()
"""


def test_table_cells_break_words_only_between_them(tmp_path: Path) -> None:
    """At 1400 and 800 px every cell wraps at spaces and hyphens ("Kotlin/Native" and
    "reproduced" stay whole; a cell name breaks where html.breakable put a <wbr>, as a
    text node of its own), and the page is no wider than the window: a table too wide
    for it scrolls in its own box."""
    st = c_and_kotlin_store(tmp_path / "g" / "rtlab.duckdb")
    out = tmp_path / "report.html"
    write_report(st, results.select_many(st, (), None), out, title="gpio")
    st.close()
    assert "kotlin<wbr>[policy=<wbr>other]<wbr>@idle" in out.read_text()
    for width in (1400, 800):
        b = Browser(width=width, height=2000)
        try:
            assert console_errors(b.open(out.as_uri())) == []
            b.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            assert b.evaluate("document.querySelectorAll('table.repro td').length") > 20
            assert b.evaluate(BROKEN_WORDS) == [], width
            assert b.evaluate("document.documentElement.scrollWidth") <= width
        finally:
            b.close()
