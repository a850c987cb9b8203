"""Gates on the point estimate vs on the bootstrap interval (`--gate-on ci`)."""

from __future__ import annotations

import pytest

from rtlab.report.compare import MetricChange, SeriesChange, check_gates, parse_gate

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


def test_no_interval_refuses_a_gate_on_it_but_not_on_the_estimate() -> None:
    # one run a side: no interval (rtlab.analysis.runchange says why)
    none = MetricChange("p99", 100_000.0, 112_000.0, 12.0, None, None, "BASE has 1 run, NEW 1 run")
    gate = parse_gate("p99 > +10%")
    with pytest.raises(ValueError, match=r"no interval.*BASE has 1 run"):
        gate.violated(none, "ci")
    assert gate.violated(none, "estimate") == pytest.approx(12.0)
    median = MetricChange("median", 80_000.0, 81_000.0, 1.25, -1.0, 3.0)
    sc = SeriesChange("wake@idle", "wake@idle", "latency", 1000, 1000, [median, none], 1, 1)
    with pytest.raises(ValueError, match=r"--gate-on ci: latency wake@idle → wake@idle: no p99"):
        check_gates([sc], [gate], "ci")
    assert check_gates([sc], [parse_gate("median > +10%")], "ci") == []  # no gate on p99
