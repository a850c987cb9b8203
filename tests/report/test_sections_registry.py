"""The report's sections are plug-ins of the one Registry, each built once per report,
and every rendering (HTML, Markdown, JSON) is made from that one built object."""

from __future__ import annotations

import dataclasses
import html as _html
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from rtlab.registry import Registry
from rtlab.report import document, sections
from rtlab.report import html as html_module
from rtlab.report.html import headline_rows, render_html
from rtlab.report.sections import SECTIONS, Section, SectionKind
from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import memo
from tests.studies.gpio_store import make_gpio_store

SECTIONS_DIR = Path(sections.__file__).parent


def test_every_section_module_is_a_registered_plugin() -> None:
    modules = sorted(p.stem for p in SECTIONS_DIR.glob("*.py") if p.stem != "__init__")
    assert isinstance(SECTIONS, Registry)
    assert sorted(SECTIONS.names()) == modules
    for name, kind in SECTIONS.items():
        assert isinstance(kind, SectionKind) and kind.name == name
    # the Markdown order puts the published studies first, like the report did
    assert SECTIONS.get("reproduction").md_rank < 0 <= SECTIONS.get("rtos_compare").md_rank


def test_an_unknown_section_names_the_known_ones() -> None:
    with pytest.raises(Exception, match="unknown report section 'nope'; one of reproduction"):
        SECTIONS.get("nope")


@pytest.fixture(scope="module")
def gpio_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_gpio_store(tmp_path_factory.mktemp("sections") / "rtlab.duckdb")[0]


def test_one_build_renders_html_markdown_and_json(
    gpio_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: Counter[str] = Counter()

    def counted(kind: SectionKind) -> SectionKind:
        def build(store: Store, cells: dict[str, results.CellRuns]) -> Any:
            calls[kind.name] += 1
            return kind.build(store, cells)

        return dataclasses.replace(kind, build=build)

    for name, kind in SECTIONS.items():
        monkeypatch.setitem(SECTIONS._plugins, name, counted(kind))
    with Store(gpio_store, read_only=True) as st:
        cells = results.select_many(st, (), "gpio")
        rep = document.build(st, cells, "gpio")
        page, md, doc = render_html(rep), rep.markdown(), json.loads(rep.json())
        assert calls and set(calls.values()) == {1}, calls  # every section built once
        empty = json.loads(document.build(st, {}, "none").json())
    assert set(calls) == set(SECTIONS.names())
    built = {kind.name for kind, _ in rep.built}
    assert "gpio" in built
    gpio = next(sec for kind, sec in rep.built if kind.name == "gpio")
    # the one object's parts, in each rendering
    assert doc["gpio_study"] == gpio.json["gpio_study"]
    assert "\n".join(gpio.markdown) in md
    assert doc["findings"] == rep.findings() and rep.findings()
    for f in rep.findings():
        assert f"- {f}" in md
    for f in gpio.findings:
        assert _html.escape(f) in page
    assert f'id="study-{gpio.id}"' in page
    repro = [sec for kind, sec in rep.built if kind.name == "reproduction"]
    assert repro and doc["reproduction"] == repro[0].json["reproduction"]
    assert empty["reproduction"] == []  # a key the JSON always has (json_default)


def test_a_study_two_sections_read_is_computed_once_per_report(gpio_store: Path) -> None:
    """The GPIO section and the reproduction of the published GPIO study both read the
    GPIO study of the same cells: one report computes it once (rtlab.studies.memo)."""
    with Store(gpio_store, read_only=True) as st:
        cells = results.select_many(st, (), "gpio")
        rep = document.build(st, cells, "gpio")
        m = memo.last()
        again = document.build(st, cells, "gpio")  # a second report computes its own
    built = {kind.name for kind, _ in rep.built}
    assert {"gpio", "reproduction"} <= built
    assert m is not None and m.computed["rtlab.studies.gpio.study"] == 1, m
    assert memo.last() is not m and rep.markdown() == again.markdown()


def test_the_page_shows_a_section_as_its_fields_say() -> None:
    """Opened, listing its findings, heading the published studies' lines: fields of the
    section, which html.py and its template read; neither names a section."""
    secs = [
        Section("far", "Far", "t", {}, ["far first", "far second"], shows=("s1",), nearness=2),
        Section("near", "Near", "t", {}, ["near first"], shows=("s1",), nearness=1),
        Section(
            "pub", "Published", "t", {}, ["S1: x", "S2: y"], open=True, own_findings=False,
            published=[
                {"study": "s1", "anchor": "pub-s1", "short": "S1", "text": "x"},
                {"study": "s2", "anchor": "pub-s2", "short": "S2", "text": "y"},
            ],
        ),
    ]  # fmt: skip
    rows = headline_rows(secs)
    assert [r["study"] for r in rows] == ["Far", "Near", "S2"]  # no row of "Published"
    assert rows[0]["text"] == "far first (+1 more in the section)" and not rows[0]["published"]
    assert rows[1]["published"] == [{"anchor": "pub-s1", "short": "S1", "text": "x"}]
    assert rows[2]["published"] == [{"anchor": "pub-s2", "short": "S2", "text": "y"}]
    code = (
        Path(html_module.__file__).read_text()
        + (Path(html_module.__file__).parent / "templates" / "report.html.j2").read_text()
    )
    assert not re.search(r"\.id\s*[!=]=", code)
