"""Shared fixtures: synthetic captures whose statistics the tests know independently."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from rtlab.model import Capture, Channel


def square_wave(highs: np.ndarray, lows: np.ndarray, start: int = 100) -> np.ndarray:
    """Edge times of a wave that starts low, rises at `start`, then alternates."""
    d = np.empty(highs.size + lows.size, dtype=np.int64)
    d[0::2] = highs
    d[1::2] = lows
    return np.concatenate(([start], start + np.cumsum(d)))


@pytest.fixture
def jittery_capture() -> tuple[Capture, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(42)
    highs = rng.integers(60, 70, 5000)
    lows = rng.integers(70, 90, 5000)
    cap = Capture(tick_s=Fraction(16, 10**9), t_start=0)
    cap.add(Channel("D0", square_wave(highs, lows), initial_level=0))
    return cap, highs, lows


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """End with what was skipped and why, one line per reason (tests/needs.py: only what
    the user brings skips; a missing install step fails instead)."""
    reasons: dict[str, int] = {}
    for rep in terminalreporter.stats.get("skipped", []):
        longrepr = rep.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    if not reasons:
        return
    terminalreporter.section("skipped, and why")
    for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(f"{n:4d} {reason}")
