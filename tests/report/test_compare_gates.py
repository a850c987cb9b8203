"""Gates on the point estimate vs on the bootstrap interval (`--gate-on ci`)."""

from __future__ import annotations

import pytest

from rtlab.report.compare import MetricChange, parse_gate

# p99 grew 12 % (from 100 µs to 112 µs); the 95 % interval is [-3 %, +30 %].
NOISY = MetricChange("p99", 100_000.0, 112_000.0, 12.0, -3.0, 30.0)
# the same estimate, but the interval is [+11 %, +13 %]: the growth is sure.
SURE = MetricChange("p99", 100_000.0, 112_000.0, 12.0, 11.0, 13.0)


@pytest.mark.parametrize(
    ("gate", "m", "on", "fails"),
    [
        ("p99 > +10%", NOISY, "estimate", True),
        ("p99 > +10%", NOISY, "ci", False),  # the change may be noise
        ("p99 > +10%", SURE, "ci", True),
        ("p99 > 110us", SURE, "ci", True),  # lower bound of NEW: 111 µs
        ("p99 > 111.5us", SURE, "ci", False),
        ("p99 > +5us", NOISY, "ci", False),  # lower bound of the change: -3 µs
        ("p99 < -10%", NOISY, "ci", False),  # upper bound +30 % is not below -10 %
        ("p99 < +40%", NOISY, "ci", True),  # even the upper bound is below +40 %
    ],
)
def test_gate_on_estimate_or_interval(gate: str, m: MetricChange, on: str, fails: bool) -> None:
    assert (parse_gate(gate).violated(m, on) is not None) is fails


def test_gate_mode_is_checked() -> None:
    with pytest.raises(ValueError, match="estimate"):
        parse_gate("p99 > +10%").violated(NOISY, "sure")
