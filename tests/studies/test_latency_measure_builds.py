"""The Zephyr cross-check names the build settings that differ between latency_measure's
build and rtbench's (a named cause for a row's gap), and nothing when they agree."""

from __future__ import annotations

from rtlab.protocol import Run
from rtlab.studies.latency_measure import config_difference, cross_check

RTBENCH = {"CONFIG_SPIN_VALIDATE": "n", "CONFIG_ASSERT": "n", "optimization": "-Os"}
LM = {"CONFIG_SPIN_VALIDATE": "y", "CONFIG_ASSERT": "y", "optimization": "-Os"}


def test_a_spin_validation_only_one_build_has_is_named() -> None:
    why = config_difference(RTBENCH, LM)
    assert "CONFIG_SPIN_VALIDATE is y in latency_measure, n in rtbench" in why
    assert "CONFIG_ASSERT is y in latency_measure" in why
    assert "optimization" not in why  # the same in both


def test_builds_that_agree_or_are_unknown_add_nothing() -> None:
    assert config_difference(RTBENCH, RTBENCH) == ""
    assert config_difference({}, LM) == ""


def test_every_row_carries_the_builds_difference() -> None:
    lm = Run(workload="latency_measure", version="1", status="ok", complete=True)
    lm.counters["average_semaphore_signal_time.ns"] = (52, "ns")
    rows = cross_check(lm, [], kconfig_rtbench=RTBENCH, kconfig_lm=LM)
    assert rows and all("CONFIG_SPIN_VALIDATE is y" in r.difference for r in rows)
    assert rows[0].lm_ns == 52
