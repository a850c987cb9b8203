"""The instrument in the loop with an RTOS: examples/rp2040-model-instrument.toml
runs FreeRTOS (its RP2040 port, one core) on the board model with rtbench's marker pins
and the external-interrupt pass, the capture module's firmware on a second RP2040 model
timing the pins, as `rtlab run` runs it. Every marked path's two figures agree within one
PIO tick plus the pin's cost, the external interrupt's handler and task latencies are in
the report from both clocks. Skips with one line naming what to set."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlab.lab.runner import run_spec
from rtlab.lab.spec import load_spec
from rtlab.report.html import write_report
from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import instrument_check
from tests.instruments.rp2040.harness import build_firmware
from tests.lab.targets.serial.test_pico_one_core import _freertos
from tests.models.rp2040 import model
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

MARKED = {
    "sem_give", "sem_take", "queue_send", "queue_recv", "preempt_sem", "return_sem",
    "preempt_queue", "return_queue", "isr_handler", "isr_task", "isr_handler_tm",
    "isr_task_tm", "isr_handler_ext", "isr_task_ext",
}  # fmt: skip


def test_freertos_timed_by_the_capture_module_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _freertos()
    model.build()
    build_firmware()
    monkeypatch.chdir(REPO_ROOT)
    spec = load_spec(REPO_ROOT / "examples" / "rp2040-model-instrument.toml")
    with Store(tmp_path / "rtlab.duckdb") as st:
        out = run_spec(spec, st)
        assert [r.status for r in out.runs] == ["ok"], [r.message for r in out.runs]
        got = instrument_check.stored(st, out.runs[0].run_id)
        assert got is not None
        runs, cap = got
        rows = instrument_check.compare(runs, cap)
        assert {r.series for r in rows} == MARKED
        for r in rows:
            assert r.agrees and r.outside == 0, r
        counters = {k: v for run in runs for k, (v, _) in run.counters.items()}
        assert counters["isr_lost_ext"] == 0  # every GP5 toggle reached the handler
        # the external interrupt: a GPIO edge is taken faster than the pend call's path
        row = {r.series: r for r in rows}
        assert row["isr_handler_ext"].external_ns < row["isr_handler"].external_ns
        assert row["isr_task_ext"].internal_ns > row["isr_handler_ext"].internal_ns
        html = tmp_path / "report.html"
        write_report(st, results.select_many(st, [], spec.name), html)
        text = html.read_text()
    assert "Instrument vs cycle counter" in text
    assert "isr_handler_ext" in text and "isr_task_ext" in text
    assert "14 of 14 marked paths" in text
