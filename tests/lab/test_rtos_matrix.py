"""The RTOS study's expansion: which columns run, which are skipped and why, and the
spec text each column runs (rtlab.lab.rtos_matrix)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from rtlab.errors import ConfigError
from rtlab.lab import rtos_matrix as rm
from rtlab.lab.specfile import SpecError
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

STUDY = REPO_ROOT / "examples" / "rtos-compare.toml"


@pytest.fixture
def fake_freertos(tmp_path: Path) -> dict[str, str]:
    """A folder that passes FreeRTOS's "is it a kernel" check (nothing is built here)."""
    (tmp_path / "tasks.c").write_text("")
    return {"FREERTOS_KERNEL_PATH": str(tmp_path)}


def test_an_rtos_not_brought_is_skipped_with_what_to_set() -> None:
    cols, skipped = rm.columns(paths={})
    assert not [c for c in cols if c.rtos == "freertos"]
    assert any(s.startswith("FreeRTOS: set FREERTOS_KERNEL_PATH") for s in skipped)


def test_columns_of_a_brought_rtos_and_the_filters(fake_freertos: dict[str, str]) -> None:
    cols, _ = rm.columns(["freertos"], paths=fake_freertos)
    assert [(c.machine, c.config) for c in cols] == [
        ("mps2-an385", "default"),
        ("mps2-an386", "default"),
        ("mps2-an500", "default"),
        ("microbit", "default"),
    ]
    cols, _ = rm.columns(["freertos"], ["mps2-an386", "microbit"], paths=fake_freertos)
    assert [c.core for c in cols] == ["cm4f", "cm0"]
    cols, skipped = rm.columns(["freertos"], ["virt-a53"], paths=fake_freertos)
    assert cols == [] and "none of them was asked for" in skipped[0]
    # a multi-core machine is the multi-core study's: a column only when named
    cols, _ = rm.columns(["freertos"], ["mps2-an521"], paths=fake_freertos)
    assert [c.machine for c in cols] == ["mps2-an521"]
    with pytest.raises(ConfigError, match="freertos"):
        rm.columns(["vxworks"], paths=fake_freertos)


def test_a_column_replaces_the_target_and_fills_the_labels() -> None:
    text = STUDY.read_text()
    col = rm.Column("freertos", "mps2-an386", "default")
    data = tomllib.loads(rm.column_text(text, col, STUDY))
    assert data["target"] == {
        "kind": "qemu",
        "rtos": "freertos",
        "machine": "mps2-an386",
        "rtos_config": "default",
        "icount_shift": 0,
    }
    assert data["workload"][0]["name"] == "freertos-cm4f-default"


def test_the_study_spec_must_be_for_qemu(tmp_path: Path) -> None:
    col = rm.Column("freertos", "mps2-an385", "default")
    local = STUDY.read_text().replace('kind = "qemu"', 'kind = "local"')
    with pytest.raises(SpecError, match='runs "qemu"'):
        rm.column_text(local, col, STUDY)
    inline = 'name = "x"\ntarget = {kind = "qemu"}\n[[workload]]\nkind = "rtbench"\n'
    with pytest.raises(SpecError, match=r"\[target\] table"):
        rm.column_text(inline, col, STUDY)


def test_columns_with_one_label_are_refused(tmp_path: Path, fake_freertos: dict[str, str]) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text(STUDY.read_text().replace('name = "{rtos}-{core}-{config}"', 'name = "x"'))
    with pytest.raises(SpecError, match="same cell label"):
        rm.expand(spec, ["freertos"], paths=fake_freertos)
    specs, _ = rm.expand(STUDY, ["freertos"], paths=fake_freertos)
    assert [s.cells()[0].label for s in specs] == [
        "freertos-cm3-default@idle",
        "freertos-cm4f-default@idle",
        "freertos-cm7-default@idle",
        "freertos-cm0-default@idle",
    ]


def test_a_changed_kernel_checkout_makes_new_cells(
    tmp_path: Path, fake_freertos: dict[str, str]
) -> None:
    """The cell key carries the kernel's sources: with nothing changed a second run finds
    every cell stored; a kernel edited since makes new cells instead of reusing results."""
    from rtlab.lab.rtos import identity

    kernel = Path(fake_freertos["FREERTOS_KERNEL_PATH"])
    study = tmp_path / "study.toml"
    own_paths = f'rtos_paths = {{FREERTOS_KERNEL_PATH = "{kernel}"}}'
    study.write_text(
        STUDY.read_text().replace("icount_shift = 0", f"icount_shift = 0\n{own_paths}")
    )

    def keys() -> list[str]:
        identity._trees_digest.cache_clear()
        specs, _ = rm.expand(study, ["freertos"], paths=fake_freertos)
        return [c.key for s in specs for c in s.cells()]

    first = keys()
    assert len(first) == 4 and first == keys()
    (kernel / "tasks.c").write_text("/* patched */\n")
    changed = keys()
    assert len(changed) == 4 and not set(changed) & set(first)


MODEL_STUDY = REPO_ROOT / "examples" / "rp2040-model.toml"


def test_the_rp2040_model_is_a_machine_of_one_core_images(fake_freertos: dict[str, str]) -> None:
    """Asked for by name (or by a study spec naming the model's flasher), the model runs
    each port's one-core Pico configurations, never the SMP default; the QEMU study's
    default machines do not include it."""
    cols, _ = rm.columns(["freertos"], ["rp2040-model"], paths=fake_freertos)
    assert [(c.machine, c.config, c.core) for c in cols] == [
        ("rp2040-model", "one-core", "rp2040"),
        ("rp2040-model", "arm-cm0", "rp2040"),
    ]
    cols, _ = rm.columns(["freertos"], paths=fake_freertos)
    assert "rp2040-model" not in {c.machine for c in cols}
    # the cross-check's build (the QEMU layer's flags) runs only when a study names it
    cols, _ = rm.columns(["freertos"], ["rp2040-model"], ["arm-cm0-as-mps2"], fake_freertos)
    assert [c.config for c in cols] == ["arm-cm0-as-mps2"]
    specs, _ = rm.expand(MODEL_STUDY, ["freertos"], paths=fake_freertos)
    assert [s.cells()[0].label.split("@")[0] for s in specs] == [
        "freertos-rp2040-one-core",
        "freertos-rp2040-arm-cm0",
    ]


def test_a_model_column_is_the_serial_targets_model_flasher() -> None:
    col = rm.Column("nuttx", "rp2040-model", "one-core")
    data = tomllib.loads(rm.column_text(MODEL_STUDY.read_text(), col, MODEL_STUDY))
    # the model's declared uncertainties travel with the column, as the spec states them
    spec = tomllib.loads(MODEL_STUDY.read_text())
    assert data["target"].pop("variants") == spec["target"]["variants"]
    assert data["target"] == {
        "kind": "serial",
        "board": "pico",
        "flasher": "rp2040_model",
        "builtin_args": True,
        "answer_s": 300,
        "rtos": "nuttx",
        "rtos_config": "one-core",
        "xip_cache": "compulsory",
    }
    # a QEMU column of the model's spec takes none of the model's keys, and vice versa
    qemu = tomllib.loads(
        rm.column_text(
            MODEL_STUDY.read_text(), rm.Column("freertos", "microbit", "default"), MODEL_STUDY
        )
    )
    assert qemu["target"] == {
        "kind": "qemu",
        "machine": "microbit",
        "rtos": "freertos",
        "rtos_config": "default",
    }
    model = tomllib.loads(rm.column_text(STUDY.read_text(), col, STUDY))
    assert "icount_shift" not in model["target"]


CYCLES = REPO_ROOT / "examples" / "rtos-cycles.toml"


def test_a_by_name_machine_runs_only_where_a_study_names_it(
    tmp_path: Path, fake_freertos: dict[str, str]
) -> None:
    """mps2-an505 (`by_name = 1`, the cycles study's M33) is no default column of the
    RTOS comparison; the cycles spec names it in `[target] machines`."""
    specs, _ = rm.expand(STUDY, ["freertos"], paths=fake_freertos)
    assert "mps2-an505" not in {s.target["machine"] for s in specs}
    specs, _ = rm.expand(CYCLES, ["freertos"], paths=fake_freertos)
    assert [s.target["machine"] for s in specs] == [
        "mps2-an385", "mps2-an386", "mps2-an500", "mps2-an505", "microbit",
    ]  # fmt: skip
    assert all("machines" not in s.target for s in specs)  # the study's, not a column's
    bad = tmp_path / "s.toml"
    bad.write_text(CYCLES.read_text().replace('"mps2-an505"]', '"mps2-an999"]'))
    with pytest.raises(SpecError, match="mps2-an999: expected of"):
        rm.expand(bad, ["freertos"], paths=fake_freertos)


def test_the_gpio_edge_pass_is_turned_off_where_the_machine_has_no_edge(
    fake_freertos: dict[str, str],
) -> None:
    specs, _ = rm.expand(CYCLES, ["freertos"], paths=fake_freertos)
    ext = {s.target["machine"]: s.workloads[0]["irq_ext"] for s in specs}
    assert ext == {
        "mps2-an385": False, "mps2-an386": False, "mps2-an500": False,
        "mps2-an505": True, "microbit": False,
    }  # fmt: skip
    assert "# expanded: no GPIO edge on microbit" in specs[-1].text
