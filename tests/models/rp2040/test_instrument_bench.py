"""The instrument in the loop on the model, no kernel needed: the bare-metal
smoke image runs on the board model while the rtlab capture module's real firmware, on a
second RP2040 model wired to the board's GP2..GP5 and stepped on the same clock, times
its marker pins; the stream goes through the real host driver into the store
(examples/rp2040-model-instrument-smoke.toml). Every marked path's external figure (the
module's PIO timestamps) agrees with its internal one (the board's SysTick) within one
PIO tick plus the pin's measured cost, the GPIO edge interrupt included."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from rtlab.errors import ConfigError
from rtlab.instruments.kinds import instrument_from_table
from rtlab.lab.runner import run_spec
from rtlab.lab.spec import load_spec
from rtlab.lab.targets.base import make_target
from rtlab.model import Capture, Channel
from rtlab.results import Store
from rtlab.studies import instrument_check
from tests.instruments.rp2040.harness import build_firmware
from tests.models.rp2040 import model
from tests.paths import REPO_ROOT

SMOKE_TARGET = {
    "kind": "serial",
    "board": "pico",
    "flasher": "rp2040_model",
    "image": str(model.bare_image("smoke")),
    "builtin_args": True,
}
PATHS = {"loop_1000_marked", "xip_cold_marked", "xip_warm_marked", "swi_handler", "ext_handler"}


def test_smoke_image_timed_by_the_capture_module_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model.build()
    build_firmware()
    monkeypatch.chdir(REPO_ROOT)  # the example's paths are the repository's
    spec = load_spec(REPO_ROOT / "examples" / "rp2040-model-instrument-smoke.toml")
    with Store(tmp_path / "rtlab.duckdb") as st:
        out = run_spec(spec, st)
        assert [r.status for r in out.runs] == ["ok", "ok"], [r.message for r in out.runs]
        tables = []
        for r in out.runs:
            got = instrument_check.stored(st, r.run_id)
            assert got is not None, "the run kept no capture of its marker pins"
            runs, cap = got
            assert cap.tick_s == Fraction(1, 125_000_000)  # 8 ns mode
            assert cap.metadata["instrument"] == "rtlab-rp2040"  # the module's own stream
            rows = instrument_check.compare(runs, cap)
            assert {row.series for row in rows} == PATHS
            bad = [f for f in instrument_check.findings(rows) if "agree within" not in f]
            assert not bad, bad
            for row in rows:
                assert row.agrees and row.outside == 0, row
                assert row.external_ns > 0 and row.internal_ns > 0, row
                # the pin's cost: far below the paths it brackets, yet above one tick
                assert 8 < row.bound_ns < 2_000, row
            ext = next(row for row in rows if row.series == "ext_handler")
            assert ext.n == 8  # every toggle of GP5 interrupted through the wire to GP6
            tables.append([(row.series, row.internal_ns, row.external_ns) for row in rows])
        # the board is deterministic whatever the module and its host do meanwhile
        assert tables[0] == tables[1]


def test_the_pin_of_a_loop_is_its_length_in_both_clocks(tmp_path: Path) -> None:
    """The marked 1000-turn loop: 3 cycles a turn on a Cortex-M0+ (subs 1 + bne 2),
    so both clocks see at least 2999 cycles, and they differ by less than the pin."""
    model.build()
    build_firmware()
    t = make_target({**SMOKE_TARGET, "capture_module": True})
    try:
        spec = instrument_from_table(
            {"kind": "rp2040", "port": "place", "channels": "2-5", "resolution": "8ns"}
        )
        filled = t.place_instrument(spec)  # type: ignore[attr-defined]
        assert filled.port.startswith("/dev/pts/")
        from rtlab.instruments.rp2040.kind import RP2040Instrument

        armed = RP2040Instrument(filled).arm(10, scratch=tmp_path, run_id="x")
        done = t.run([str(model.bare_image("smoke"))], timeout=120)
        cap, notes = armed.stop()
        assert done.returncode == 0 and not notes, (done.stderr, notes)
    finally:
        t.close()  # type: ignore[attr-defined]
    from rtlab.protocol.parser import parse_one

    run = parse_one(done.stdout, "serial")
    row = next(r for r in instrument_check.compare([run], cap) if r.series == "loop_1000_marked")
    ns_per_cycle = 8.0
    assert row.internal_ns >= 2999 * ns_per_cycle and row.external_ns >= 2999 * ns_per_cycle
    assert abs(row.diff_ns) <= row.bound_ns


def test_place_needs_a_module() -> None:
    model.build()
    t = make_target(SMOKE_TARGET)
    spec = instrument_from_table({"kind": "rp2040", "port": "place", "channels": "2-3"})
    with pytest.raises(ConfigError, match="capture_module = true"):
        t.place_instrument(spec)  # type: ignore[attr-defined]


def _run(meta: dict[str, str], internal: list[int]):  # type: ignore[no-untyped-def]
    from rtlab.protocol import Run
    from rtlab.protocol.records import Series

    tick = Fraction(1, 125_000_000)
    r = Run(workload="w", version="1", meta={"markers": "on", "scenario": "s", **meta})
    r.series["p"] = Series("p", "ticks", tick, {}, np.array(internal[1:], np.int64))
    r.counters["p.cold"] = (internal[0], "ticks")
    r.series["marker_cost"] = Series("marker_cost", "ticks", tick, {}, np.array([10, 10]))
    r.counters["marker_cost.cold"] = (100, "ticks")
    return r


def test_compare_pairs_pulses_by_index_and_flags_a_disagreement() -> None:
    # channel 1 pulses of 50, 40, 40 ticks (edges 0..5); the counter says 55, 45, 45: the
    # pin's cost (10) covers it; then a counter that says 90 for the warm ones does not
    cap = Capture(
        tick_s=Fraction(1, 125_000_000),
        channels={"a": Channel("a", np.array([], np.int64)),
                  "b": Channel("b", np.array([100, 150, 200, 240, 300, 340], np.int64))},
    )  # fmt: skip
    plan = {"marker.p": "1@0+2>1@1+2"}
    (row,) = instrument_check.compare([_run(plan, [55, 45, 45])], cap)
    assert row.agrees and row.n == 3 and row.diff_ns == -40.0
    (row,) = instrument_check.compare([_run(plan, [55, 90, 90])], cap)
    assert not row.agrees and row.outside == 2
    assert "disagree" in instrument_check.findings([row])[0]
    (row,) = instrument_check.compare([_run({"marker.p": "1@2+2>1@3+2"}, [55, 45, 45])], cap)
    assert row.problem is not None and "lacks edges" in row.problem  # the plan runs past
    with pytest.raises(instrument_check.InstrumentCheckError, match="A@a"):
        instrument_check.compare([_run({"marker.p": "1@0>1@1"}, [1, 2])], cap)


def test_one_measurement_on_the_model_and_on_a_labgrid_pair(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/instrument-pair.md: the real pair's spec has the model's [instrument] and
    [[workload]] unchanged; both load (the pair's names the labgrid place)."""
    import tomllib

    from rtlab.lab.spec import load_spec

    monkeypatch.chdir(REPO_ROOT)
    model_spec = REPO_ROOT / "examples" / "rp2040-model-instrument.toml"
    pair_spec = REPO_ROOT / "examples" / "labgrid" / "pico-pair-instrument.toml"
    a, b = (tomllib.loads(p.read_text()) for p in (model_spec, pair_spec))
    assert a["instrument"] == b["instrument"] and a["workload"] == b["workload"]
    assert (a["target"]["kind"], b["target"]["kind"]) == ("serial", "labgrid")
    for p in (model_spec, pair_spec):
        spec = load_spec(p)
        assert spec.instrument is not None and spec.instrument.port == "place"
