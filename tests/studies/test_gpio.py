"""The GPIO study's section of the report (rtlab.studies.gpio) on a real DuckDB
store of toggle runs: every figure against numpy on the generated values."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rtlab.report import document
from rtlab.report.html import render_html
from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import gpio as gpio_study
from tests.studies.gpio_store import TICK, Truth, make_gpio_store

QS = (0.05, 0.25, 0.5, 0.75, 0.95)
C, RUST, C_FIFO = "c[policy=other]@idle", "rust[policy=other]@idle", "c[policy=fifo]@idle"


@pytest.fixture(scope="module")
def gpio(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Truth]:
    return make_gpio_store(tmp_path_factory.mktemp("gpio") / "rtlab.duckdb")


Rendered = tuple[dict[str, Any], str, str, str]


def _study(path: Path, spec: str | None = "gpio", page: bool = True) -> Rendered:
    """The section's dict, the Markdown, JSON and HTML reports of `spec`'s runs."""
    with Store(path, read_only=True) as st:
        cells = results.select_many(st, (), spec)
        s = gpio_study.study(st, cells)
        doc = gpio_study.to_dict(s) if s is not None else {}
        rep = document.build(st, cells)  # one report object, three renderings
        return doc, rep.markdown(), rep.json(), render_html(rep) if page else ""


@pytest.fixture(scope="module")
def gpio_doc(gpio: tuple[Path, Truth]) -> dict[str, Any]:
    return _study(gpio[0], page=False)[0]


def _row(rows: list[dict[str, Any]], cell: str, source: str) -> dict[str, Any]:
    (r,) = [r for r in rows if r["cell"] == cell and r["source"] == source]
    return r


def test_tables_equal_numpy(gpio: tuple[Path, Truth], gpio_doc: dict[str, Any]) -> None:
    truth, doc = gpio[1], gpio_doc
    cases = [
        (C, "instrument", "inst_period"),
        (C, "self-timestamped", "self_period"),
        (RUST, "instrument", "inst_period"),
        (RUST, "self-timestamped", "self_period"),
        (C_FIFO, "self-timestamped", "self_period"),
    ]
    for cell, source, which in cases:
        x = truth.pooled(which, cell).astype(np.float64)
        mean = x.mean()
        dev = np.abs(x - mean)
        t1 = _row(doc["table1"], cell, source)
        assert t1["n"] == x.size
        assert t1["mean_ns"] == pytest.approx(mean, rel=1e-12)
        assert t1["freq_mhz"] == pytest.approx(1e3 / mean, rel=1e-12)
        assert t1["rms_ns"] == pytest.approx(np.sqrt(np.mean((x - mean) ** 2)), rel=1e-9)
        assert t1["max_dev_ns"] == pytest.approx(dev.max(), rel=1e-12)
        t2 = _row(doc["table2"], cell, source)
        for q in QS:
            k = format(q, "g")
            assert t2["period_q"][k] == np.quantile(x, q, method="inverted_cdf")
            want = np.quantile(dev, q, method="inverted_cdf")
            assert t2["abs_dev_q"][k] == pytest.approx(want, rel=1e-9, abs=1e-9)
    # the failed C run is not pooled; 2 ok runs per instrumented cell
    assert _row(doc["table1"], C, "instrument")["runs"] == 2
    assert _row(doc["table1"], C, "instrument")["resolution_ns"] == 16
    impl = {r["cell"]: r["implementation"] for r in doc["table1"]}
    assert impl == {C: "C", RUST: "Rust", C_FIFO: "C"}
    assert {r["policy"] for r in doc["table1"] if r["cell"] == C_FIFO} == {"fifo"}


def test_sources_labelled_instrument_first(gpio_doc: dict[str, Any]) -> None:
    doc = gpio_doc
    sources = [(r["cell"], r["source"]) for r in doc["table1"]]
    assert sources == [
        (C, "instrument"),
        (C, "self-timestamped"),
        (RUST, "instrument"),
        (RUST, "self-timestamped"),
        (C_FIFO, "self-timestamped"),
    ]
    assert "wake@idle" not in {r["cell"] for r in doc["table1"]}


def test_fig2_levels_and_trim(gpio: tuple[Path, Truth], gpio_doc: dict[str, Any]) -> None:
    truth, doc = gpio[1], gpio_doc
    for source, which in (("instrument", "inst_levels"), ("self-timestamped", "self_intervals")):
        rows = [r for r in doc["fig2"] if r["source"] == source]
        cutoffs = []
        for r in rows:
            x = truth.pooled(which, r["cell"]).astype(np.float64)
            dev = np.abs(x - x.mean())
            assert r["n"] == x.size
            assert r["median_ns"] == pytest.approx(np.quantile(dev, 0.5, method="inverted_cdf"))
            assert r["mean_ns"] == pytest.approx(dev.mean(), rel=1e-9)
            assert r["max_ns"] == pytest.approx(dev.max(), rel=1e-12)
            cutoffs.append(np.quantile(dev, 0.99, method="inverted_cdf"))
        cut = max(cutoffs)
        for r in rows:
            x = truth.pooled(which, r["cell"]).astype(np.float64)
            dev = np.abs(x - x.mean())
            assert r["cutoff_ns"] == pytest.approx(cut)
            assert r["trimmed_share"] == pytest.approx(np.mean(dev > cut + 1e-6))
    assert {r["cell"] for r in doc["fig2"] if r["source"] == "instrument"} == {C, RUST}
    # high/low asymmetry of 140 ns: the typical deviation is half of it, as in the study
    c = _row(doc["fig2"], C, "instrument")
    assert 50 < c["median_ns"] < 90


def test_density_area_is_the_share_shown(gpio: tuple[Path, Truth]) -> None:
    with Store(gpio[0], read_only=True) as st:
        s = gpio_study.study(st, results.select_many(st, (), "gpio"))
    assert s is not None
    for f in s.figures:
        width = np.diff(f.edges_ns)
        assert f.edges_ns[-1] > f.cutoff_ns and np.allclose(width, width[0])
        assert width[0] % 16 == 0 if f.source == "instrument" else True
        for cv in f.curves:
            assert float(np.sum(cv.density * width)) == pytest.approx(1 - cv.trimmed_share)


def test_markdown_json_html(gpio: tuple[Path, Truth]) -> None:
    doc, md, js, page = _study(gpio[0], None)  # every run: the latency cell too
    assert "## GPIO study" in md and "| instrument |" in md and "| self-timestamped |" in md
    assert gpio_study.PUBLISHED_LABEL in md and "| C/C++ | 2,199 | 0.455 | 210 | 30,760 |" in md
    assert "emulated" not in md.split("## GPIO study")[1].split("Reference")[0]
    j = json.loads(js)
    assert {c["cell"] for c in j["cells"]} >= {C, RUST, "wake@idle"}  # the summary stays
    g = j["gpio_study"]
    assert g["table1"] == doc["table1"] and g["emulated"] == []
    assert [r["implementation"] for r in g["published"]["rows"]] == ["C/C++", "Kotlin/Native"]
    assert all("published" not in r["source"] for r in g["table1"])
    assert 'id="study-gpio-study"' in page and page.count('alt="GPIO study Fig. 2') == 2
    assert "Summary per cell" in page and gpio_study.PUBLISHED_LABEL in page


def test_absent_without_gpio_cells(gpio: tuple[Path, Truth]) -> None:
    doc, md, js, page = _study(gpio[0], "other")
    assert doc == {}
    assert "GPIO study" not in md and "gpio_study" not in json.loads(js)
    assert "gpio-study" not in page and "Summary per cell" in page


def test_emulated_runs_are_labelled(tmp_path: Path) -> None:
    path, _ = make_gpio_store(tmp_path / "rtlab.duckdb", emulated=True)
    doc, md, _js, page = _study(path)  # one HTML render: the heading and the warning
    assert doc["emulated"] == ["emulated (qemu-tcg)"]
    assert {r["environment"] for r in doc["table1"]} == {"emulated (qemu-tcg)"}
    assert "## GPIO study — emulated (qemu-tcg)" in md
    assert "GPIO study — emulated (qemu-tcg)</h2>" in page and "Emulated target" in page


def test_reading_of_the_studys_jitter_column(tmp_path: Path) -> None:
    """Periods shaped like the study's C row (16 ns ticks, mean exactly 2199.42 ns)
    give its Table 2 column: the "jitter" quantiles are quantiles of |T_i − mean T|
    (P05 7.42 ns), not |Q(T) − mean T| (which would be 23.42 at P05)."""
    ticks = np.repeat([136, 137, 138, 139, 390], [13_600, 41_600, 24_000, 700, 100])
    assert ticks.sum() * 16 / ticks.size == pytest.approx(2199.42, abs=1e-9)
    with Store(tmp_path / "rtlab.duckdb") as st:
        with st.run(workload="rtlab-toggle", spec_name="s", params={"label": "c@idle"}) as w:
            w.add_series("instrument.period", ticks, unit="ticks", tick_s=TICK)
        s = gpio_study.study(st, results.select_many(st, (), "s"))
    assert s is not None
    (t2,) = gpio_study.table2(s)
    assert list(t2["period_q"].values()) == [2176, 2192, 2192, 2208, 2208]
    assert [round(v, 2) for v in t2["abs_dev_q"].values()] == [7.42, 7.42, 7.42, 8.58, 23.42]
    assert gpio_study.table1(s)[0]["mean_ns"] == pytest.approx(2199.42)


def test_mixed_tick_lengths_pool_exactly(tmp_path: Path) -> None:
    with Store(tmp_path / "rtlab.duckdb") as st:
        for tick, v in ((Fraction(16, 10**9), [137, 138]), (Fraction(8, 10**9), [275, 273])):
            with st.run(workload="x", spec_name="s", params={"label": "c@idle"}) as w:
                w.add_series("instrument.period", v, unit="ticks", tick_s=tick)
        s = gpio_study.study(st, results.select_many(st, (), "s"))
    assert s is not None
    (t1,) = gpio_study.table1(s)
    assert t1["n"] == 4 and t1["mean_ns"] == pytest.approx((2192 + 2208 + 2200 + 2184) / 4)
    assert t1["resolution_ns"] == 8
