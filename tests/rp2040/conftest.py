"""The RP2040 tests need the Arm cross compiler and Node.js (rp2040js): `make setup`
installs both, so a missing one fails the test (tests/needs.py)."""

from __future__ import annotations

import pytest

from tests.needs import tool


@pytest.fixture
def arm_gcc() -> str:
    return tool("arm-none-eabi-gcc", "gcc-arm-none-eabi in deps/apt.txt")


@pytest.fixture
def emulator_tools(arm_gcc: str) -> str:
    return tool("node", "Node.js: deps/setup.d/rp2040-sim.sh")
