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
