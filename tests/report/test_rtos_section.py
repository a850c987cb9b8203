"""The RTOS comparison in the report: one table per machine (its RTOS × configuration
columns, each group titled with its unit) and a rank chart per primitive."""

from __future__ import annotations

import base64
import re

from rtlab.report.sections import rtos_compare as section
from rtlab.studies import rtos_compare, rtos_compare_tables
from tests.studies.test_rtos_compare import _runs


def _cmp() -> rtos_compare.Comparison:
    fr3 = _runs("freertos", "mps2-an385", {"sem_give": "2,2", "sem_take": "3,3"})
    ze3 = _runs("zephyr", "mps2-an385", {"sem_give": "1,1", "sem_take": "5,5"})
    fr0 = _runs("freertos", "microbit", {"sem_give": "4,4"})
    uc0 = _runs("ucos3", "microbit", {"sem_give": "6,6"})
    cmp = rtos_compare.compare([("a", fr3), ("b", ze3), ("c", fr0), ("d", uc0)])
    assert cmp is not None
    return cmp


def test_one_table_per_machine_with_its_own_columns() -> None:
    cmp = _cmp()
    machines = section._per_machine(cmp, rtos_compare_tables.formatted_tables(cmp))
    assert [m["machine"] for m in machines] == ["microbit (M0)", "mps2-an385 (M3)"]
    m0, m3 = machines
    assert m0["head"] == ["FreeRTOS v1", "µC/OS-III v1"] and len(m3["head"]) == 2
    title, _, rows = m3["groups"][0]
    assert title.startswith("Primitives, warm: instructions")  # the unit in the group title
    assert rows["Semaphore give"] == ["80 (0.080 µs)", "40 (0.040 µs)"]
    assert "Semaphore take" not in m0["groups"][0][2]  # no figure on that machine: no row


def test_a_rank_chart_per_primitive() -> None:
    charts = dict(section._rank_charts(_cmp()))
    assert set(charts) == {"Semaphore give", "Semaphore take"}
    svg = base64.b64decode(charts["Semaphore give"].split(",", 1)[1]).decode()
    assert "Semaphore give" in svg and re.search(r"rank \(1 = fewest\)", svg)
