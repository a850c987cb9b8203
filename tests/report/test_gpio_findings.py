"""The GPIO study's finding names what differs between the fastest and slowest cell."""

from __future__ import annotations

from typing import Any

from rtlab.report.sections.gpio import findings


def _row(impl: str, cell: str, mhz: float) -> dict[str, Any]:
    return {
        "source": "emulated",
        "environment": "",
        "implementation": impl,
        "cell": cell,
        "freq_mhz": mhz,
        "mean_ns": 1000 / mhz,
        "rms_ns": 1.0,
        "max_dev_ns": 2.0,
        "runs": 3,
    }


def test_one_language_in_two_cells_is_told_apart_by_cell() -> None:
    (text,) = findings([_row("C", "c[policy=fifo]", 2.0), _row("C", "c[policy=other]", 1.0)])
    assert "C (c[policy=fifo]) is fastest" in text
    assert "slowest C (c[policy=other])" in text


def test_two_languages_are_named_by_language() -> None:
    (text,) = findings([_row("Rust", "rs", 2.0), _row("C", "c", 1.0)])
    assert "Rust is fastest" in text and "slowest C (c)" in text
    assert "pooled over 3 runs" in text
