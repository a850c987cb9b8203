"""The module's self-test square wave, as the CLI (`rtlab capture rp2040
--selftest-pin`) and the runner (`selftest_pin` of an rp2040 [instrument]) ask for it."""

from __future__ import annotations

from fractions import Fraction

from rtlab.errors import RtlabError
from rtlab.instruments.rp2040.driver import selftest_params

DEFAULT_PERIOD_S = Fraction(1, 10_000)  # 100 us


def selftest(pin: int, period_s: Fraction | None, clk_hz: int) -> tuple[int, int, int]:
    """(pin, divider, top) of a square wave of `period_s` (default 100 us) from a
    `clk_hz` system clock; RtlabError when the period is no whole number of cycles."""
    period = period_s or DEFAULT_PERIOD_S
    cycles = Fraction(period) * clk_hz
    if cycles.denominator != 1:
        raise RtlabError(f"self-test period {period} s is not a whole number of {clk_hz} Hz cycles")
    return (pin, *selftest_params(int(cycles)))
