"""rtlab.chart, the report's SVG charts without matplotlib: readable ticks (1-2-5 steps,
decades on log axes), the scales in the axes' id, text kept as text, every primitive the
report draws, and a well-formed SVG document."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from rtlab.chart import TAB10, Chart
from rtlab.chart import axis_ticks as tk
from rtlab.chart.svg import render

NS = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize(
    ("lo", "hi", "want"),
    [
        (-0.68, 13.6, [0, 2, 4, 6, 8, 10, 12]),
        (0, 1, [0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        (95, 1050, [200, 400, 600, 800, 1000]),
        (-3.2, 3.2, [-3, -2, -1, 0, 1, 2, 3]),
    ],
)
def test_linear_ticks_are_1_2_5_steps(lo: float, hi: float, want: list[float]) -> None:
    assert tk.linear_ticks(lo, hi) == pytest.approx(want)


def test_log_ticks_decades_or_1_2_5() -> None:
    major, minor = tk.log_ticks(1e-6, 1.2)
    assert major == pytest.approx([1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0])
    assert 2e-6 in [pytest.approx(v) for v in minor]
    assert tk.log_ticks(50, 3000)[0] == pytest.approx([50, 100, 200, 500, 1000, 2000])
    assert tk.log_ticks(50, 3000, room=4)[0] == pytest.approx([100, 1000])  # no room
    assert tk.log_ticks(80, 130)[0] == pytest.approx([80, 90, 100, 110, 120, 130])


def test_labels_read_as_numbers() -> None:
    assert [tk.label(v) for v in (0, 0.05, 1234.5, 2e6, -3)] == [
        "0", "0.05", "1,234.5", "2,000,000", "−3",
    ]  # fmt: skip
    assert tk.label(0.15, step=0.05) == "0.15" and tk.label(0.1, step=0.05) == "0.10"
    assert tk.log_labels([1e-6, 1e-3, 1.0]) == ["10⁻⁶", "10⁻³", "10⁰"]
    assert tk.log_labels([10, 100, 1000]) == ["10", "100", "1,000"]
    assert tk.log_labels([2e6, 1e7]) == ["2×10⁶", "10⁷"]


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(NS + "text")]


def test_a_chart_is_svg_with_text_and_the_scales_in_its_id() -> None:
    ch = Chart(title="wake <&> latency", xlabel="latency [µs]", ylabel="1 − CDF",
               xscale="log", yscale="log", legend=True)  # fmt: skip
    ch.step([10, 20, 50, 100, 1000], [1, 0.5, 0.1, 0.01, 1e-4], label="abs@idle")
    ch.step([12, 30, 80, 300, 3000], [1, 0.5, 0.1, 0.01, 1e-4], label="usleep@idle")
    svg = render(ch)
    root = ET.fromstring(svg)  # well-formed; the title's < & > escaped
    assert root.get("font-family") == "sans-serif"
    assert 'id="axes0-xlog-ylog"' in svg
    texts = _texts(svg)
    assert {"wake <&> latency", "latency [µs]", "1 − CDF", "abs@idle", "usleep@idle"} <= set(texts)
    assert {"10⁻⁴", "10⁰"} <= set(texts) and "1,000" in texts  # decades on both axes
    assert TAB10[0] in svg and TAB10[1] in svg  # tab10 order, as matplotlib


def test_every_primitive_draws() -> None:
    ch = Chart(xcats=["T1 basic", "T2 cooperative", "T3"], rotate=True, legend=True,
               legend_top=True, ylabel="%")  # fmt: skip
    ch.bars([-0.2, 0.8, 1.8], [100, 90, 80], 0.4, label="1 core", err=[5, 0, 3])
    ch.bars([0.2, 1.2, 2.2], [180, 150, 170], 0.4, label="2 cores")
    ch.hline(100)
    svg = render(ch)
    assert len(re.findall(r"<rect x=", svg)) >= 6 + 1  # six bars and the frame
    assert "rotate(-30" in svg and "stroke-dasharray" in svg
    assert {"T1 basic", "T2 cooperative", "T3", "1 core", "2 cores"} <= set(_texts(svg))
    assert 'id="axes0-xlinear-ylinear"' in svg
    ch = Chart()
    ch.stairs([1, 4, 2], [0, 1, 2, 3], fill=True)
    ch.band([0, 1, 2], [0, 1, 0], [2, 3, 2])
    ch.points([0.5, 1.5], [1, 2], marker="^")
    ch.line([0, 3], [0, 4], marker="o", dash=":")
    ET.fromstring(render(ch))


def test_inverted_y_puts_rank_1_on_top() -> None:
    ch = Chart(xcats=["a", "b"], ylim=(3.4, 0.6), yticks=[1.0, 2.0, 3.0])
    ch.line([0, 1], [1, 3])
    root = ET.fromstring(render(ch))
    ys = {t.text: float(t.get("y") or 0) for t in root.iter(NS + "text")}
    assert ys["1"] < ys["2"] < ys["3"]  # SVG y grows downwards: 1 is highest


def test_log_axis_keeps_zero_counts_out_of_sight() -> None:
    ch = Chart(yscale="log")
    ch.stairs([0, 10, 0, 1000], [1, 2, 3, 4, 5])
    svg = render(ch)
    assert "nan" not in svg and "inf" not in svg
    assert 'clip-path="url(#plot)"' in svg  # drawn below the axis, clipped
