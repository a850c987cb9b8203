"""The cycle models' cross-check names each row's cause from its figures: none where the
two agree to the cycle, the Pico's veneer to memcpy where a queue row differs by exactly
its cycles per item copy, and "not traced" for any other difference."""

from __future__ import annotations

from rtlab.studies.cycles_crosscheck import VENEER_CYCLES, Row, markdown


def test_a_row_that_agrees_to_the_cycle_has_no_cause() -> None:
    assert Row("sem_give", 129, 129).cause.startswith("none")


def test_a_queue_row_off_by_its_copies_veneers_names_the_veneer() -> None:
    assert "1 × 9 cycles" in Row("queue_send", 220, 220 + VENEER_CYCLES).cause
    assert "2 × 9 cycles" in Row("preempt_queue", 721, 721 + 2 * VENEER_CYCLES).cause


def test_any_other_difference_is_not_traced() -> None:
    assert Row("queue_send", 220, 221).cause == "not traced"
    assert Row("sem_take", 105, 105 + VENEER_CYCLES).cause == "not traced"  # no copy there
    assert "| not traced |" in markdown([Row("sem_take", 100, 120)])
