"""The model as a device: the `serial` target with the `rp2040_model` flasher runs the image
a Pico takes and reads its UART0 through the same serial path (a pseudo-terminal opened
with pyserial); every run says it is a cycle model, and two runs give the same output."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import pytest

from rtlab.errors import ConfigError
from rtlab.lab.runner import run_spec
from rtlab.lab.serialboard.description import board_description
from rtlab.lab.serialboard.errors import BoardSilent
from rtlab.lab.serialboard.flashers.rp2040_model import Rp2040ModelFlasher
from rtlab.lab.spec import load_spec
from rtlab.lab.targets.base import make_target
from rtlab.results import Store
from tests.lab.targets.labgrid.test_mps2_places import _stored
from tests.models.rp2040 import model
from tests.paths import REPO_ROOT


def _target(**extra: object):  # type: ignore[no-untyped-def]
    model.build()
    spec = {"kind": "serial", "board": "pico", "flasher": "rp2040_model",
            "image": str(model.bare_image("smoke")), "builtin_args": True, **extra}  # fmt: skip
    return make_target(spec)


def test_smoke_through_the_serial_target_twice_identical() -> None:
    t = _target()
    first = t.run([str(model.bare_image("smoke"))], timeout=120)
    second = t.run([str(model.bare_image("smoke"))], timeout=120)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    run = first.read_runs("serial")[0]  # the flasher's labels travel beside the text
    assert run.complete and run.status == "ok"
    assert run.meta["timebase"] == "rp2040_model"
    assert run.meta["timing"] == "cycle model (rp2040js), not silicon"
    assert "DMA bus cycles" in run.meta["model_leaves_out"]
    assert run.meta["arbitration_ties"] == "round-robin per arbiter, the first tie to core 0"
    assert run.meta["timing_mode"] == "rp2040-model"  # both cores in one clock
    assert run.meta["board"] == "pico"
    d = t.describe()
    assert d["flasher"] == "rp2040_model" and d["timebase"] == "rp2040_model"


def test_xip_cache_off_is_said(tmp_path: Path) -> None:
    t = _target(xip_cache=False)
    done = t.run([str(model.bare_image("smoke"))], timeout=120)
    run = done.read_runs("serial")[0]
    assert run.meta["xip_cache"] == "off"
    assert list(run.series["xip_cold"].values) == list(run.series["xip_warm"].values)


def test_xip_cache_compulsory_is_said_and_passed_on() -> None:
    t = _target(xip_cache="compulsory")
    run = t.run([str(model.bare_image("smoke"))], timeout=120).read_runs("serial")[0]
    assert run.meta["xip_cache"] == "compulsory misses only (no conflict misses)"
    same_set = run.series["xip_same_set"].values  # warm rounds: no conflict miss
    assert len(set(same_set[1:])) == 1 and same_set[0] > same_set[1]
    assert t.describe()["xip_cache"] == "compulsory"


def test_a_layout_shift_is_said_passed_on_and_an_axis_of_the_target() -> None:
    t = _target(layout_shift_kib=3)
    run = t.run([str(model.bare_image("smoke"))], timeout=120).read_runs("serial")[0]
    assert run.meta["xip_layout_shift"] == "3 KiB mid-image"
    assert t.describe()["layout_shift_kib"] == 3
    spec = {"kind": "serial", "board": "pico", "flasher": "rp2040_model",
            "xip_cache": ["fully-associative", "two-way"], "layout_shift_kib": [0, 3]}  # fmt: skip
    from rtlab.lab.targets.base import target_variants

    axes = [axis for _, axis in target_variants(spec)]
    assert axes[0] == {"xip_cache": "fully-associative", "layout_shift_kib": 0}  # the page's
    assert len(axes) == 4
    for bad in (-1, 65, True, "3"):
        with pytest.raises(ConfigError, match=r"layout_shift_kib: expected KiB 0\.\.64"):
            _target(layout_shift_kib=bad)


def test_arbitration_ties_are_said_and_passed_on() -> None:
    t = _target(arbitration_ties="core1-always")
    t.run([str(model.bare_image("smoke"))], timeout=120)  # fills in the image
    flasher = t.flasher  # type: ignore[attr-defined]
    assert flasher.argv()[-2:] == ["--arbitration-ties", "core1-always"]
    assert t.describe()["arbitration_ties"] == "core1-always"


@pytest.mark.parametrize("value", ["core2-first", 0, True])
def test_bad_arbitration_ties_are_one_error(value: object) -> None:
    with pytest.raises(ConfigError, match="arbitration_ties: expected one of core0-first, "
                       "core1-first, core0-always, core1-always"):  # fmt: skip
        _target(arbitration_ties=value)


@pytest.mark.parametrize("value", ["four-way", 1, ""])
def test_a_bad_xip_cache_is_one_error(value: object) -> None:
    with pytest.raises(
        ConfigError,
        match="xip_cache: expected true, false or one of two-way, compulsory, "
        "fully-associative, off",
    ):
        _target(xip_cache=value)


def test_a_model_error_ends_the_run_with_its_line(tmp_path: Path) -> None:
    """The model stops (a missing ROM function) before the image says hello: the port
    closes, and the run ends at once with one error carrying the model's line."""
    image = model.missing_rom_call_image(tmp_path)
    t = _target(image=str(image))
    with pytest.raises(
        BoardSilent, match="rp2040_model: rp2040-model: the image called ROM function 'ZZ'"
    ) as e:
        t.run([str(image)], timeout=120)
    assert "before the port closed" in str(e.value)  # the port's end, not a timeout


def test_a_board_without_the_model_is_one_error() -> None:
    with pytest.raises(ConfigError, match='names no model = "rp2040"'):
        make_target({"kind": "serial", "board": "pico2", "flasher": "rp2040_model",
                     "image": "x.uf2", "builtin_args": True})  # fmt: skip


def test_example_stores_identical_samples_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """examples/rp2040-model-smoke.toml: two repetitions, the same stored samples."""
    model.build()
    monkeypatch.chdir(REPO_ROOT)
    spec = load_spec(REPO_ROOT / "examples" / "rp2040-model-smoke.toml")
    with Store(tmp_path / "rtlab.duckdb") as st:
        out = run_spec(spec, st)
        assert [r.status for r in out.runs] == ["ok", "ok"], [r.message for r in out.runs]
        stored = _stored(st, spec.name)
    (m1, s1, c1), (_m2, s2, c2) = stored.values()
    assert s1 == s2 and c1 == c2
    assert s1["xip_cold"] and s1["xip_warm"]
    assert m1["timebase"] == "rp2040_model"


def test_a_late_reader_still_reads_the_models_last_line() -> None:
    """The model exits right after its done line, and a pty hung up drops what its reader
    has not read yet: a reader a second late (a loaded host) must still read it all."""
    model.build()
    flasher = Rp2040ModelFlasher(board_description("pico"), {})
    image = model.bare_image("smoke")
    flasher.flash(image, [])
    port = os.open(flasher.port() or "", os.O_RDONLY | os.O_NOCTTY)
    try:
        flasher.reset()
        assert flasher.proc is not None
        assert flasher.proc.wait(timeout=120) == 0  # the model has exited
        time.sleep(1.0)
        out = bytearray()
        with contextlib.suppress(OSError):  # EIO: the port hung up, once read
            while chunk := os.read(port, 65536):
                out += chunk
    finally:
        os.close(port)
        flasher.finish()
    assert out.endswith(b"rtbench: done errors=0\n"), bytes(out[-200:])
    assert out.startswith(b"@rtl1 hello")
