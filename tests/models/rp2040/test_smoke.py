"""The bare-metal smoke image on rtlab's RP2040 model: no kernel, no SDK; CI exercises the
model (boot through the project's ROM, SysTick, NVIC, XIP cache) and the ROM's table."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlab.protocol.parser import parse_one
from tests.models.rp2040 import model


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[model.ModelRun, model.ModelRun]:
    model.build()
    tmp = tmp_path_factory.mktemp("smoke")
    first = model.run(model.bare_image("smoke"), tmp)
    second = model.run(model.bare_image("smoke"), tmp)
    return first, second


def test_smoke_boots_and_passes(smoke: tuple[model.ModelRun, model.ModelRun]) -> None:
    res = smoke[0]
    assert res.returncode == 0, res.stderr
    assert res.stdout.endswith(b"rtbench: done errors=0\n")
    assert res.summary["reason"] == "done"
    run = parse_one(res.stdout, "smoke")
    assert run.complete and run.status == "ok"
    assert run.counters["rom_checks_failed"][0] == 0
    assert run.counters["swi_runs"][0] == 8
    # SysTick on the core clock: two reads back to back are one LDR apart (2 cycles), and
    # 1000 turns of subs + bne are 1000 x 3 - 1 cycles, plus that read (the first call
    # also takes the XIP misses of its code in flash).
    assert set(run.series["ts_pair"].values) == {2}
    loop = run.series["loop_1000"].values
    assert set(loop[1:]) == {2999 + 2} and loop[0] > 2999 + 2


def test_smoke_xip_cold_costs_misses(smoke: tuple[model.ModelRun, model.ModelRun]) -> None:
    run = parse_one(smoke[0].stdout, "smoke")
    cold, warm = run.series["xip_cold"].values, run.series["xip_warm"].values
    assert (cold > warm).all()
    assert len(set(cold)) == 1 and len(set(warm)) == 1  # every flush makes it cold again


def test_smoke_runs_are_bit_identical(smoke: tuple[model.ModelRun, model.ModelRun]) -> None:
    first, second = smoke
    assert first.stdout == second.stdout
    assert first.summary["cycles"] == second.summary["cycles"]
    assert first.summary["instructions"] == second.summary["instructions"]


def test_warm_path_costs_the_same_without_the_cache_model(tmp_path: Path) -> None:
    model.build()
    res = model.run(model.bare_image("smoke"), tmp_path, "--no-xip-cache")
    run = parse_one(res.stdout, "smoke")
    on = parse_one(model.run(model.bare_image("smoke"), tmp_path).stdout, "smoke")
    assert list(run.series["xip_warm"].values) == list(on.series["xip_warm"].values)
    assert list(run.series["xip_cold"].values) == list(run.series["xip_warm"].values)
