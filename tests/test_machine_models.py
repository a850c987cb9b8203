"""A machine model is a machine file like any board's (the RP2040 cycle model:
workloads/rtbench/boards/rp2040/machines/rp2040-model.toml), read into the one Machine
type: the RTOS study's columns and the studies' machine names and labels come from the
catalog, and no module of the runner, studies or report keeps a machine of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rtlab.catalog.machines import MACHINES, machines_in, model_of, models
from rtlab.errors import ConfigError
from rtlab.lab import rtos_matrix as rm
from rtlab.lab.serialboard.flashers import rp2040_model
from rtlab.studies import multicore, rtos_compare
from tests.paths import REPO_ROOT

SRC = REPO_ROOT / "src" / "rtlab"
# Where a pseudo-machine would come back: the runner, the studies, the report.
CODE = ("lab", "studies", "report")
MODEL = "rp2040-model"


@pytest.fixture
def fake_freertos(tmp_path: Path) -> dict[str, str]:
    """A folder that passes FreeRTOS's "is it a kernel" check (nothing is built here)."""
    (tmp_path / "tasks.c").write_text("")
    return {"FREERTOS_KERNEL_PATH": str(tmp_path)}


def test_the_rp2040_model_is_a_machine_file_of_the_picos_images() -> None:
    m = MACHINES.get(MODEL)
    assert m.path == REPO_ROOT / "workloads/rtbench/boards/rp2040/machines/rp2040-model.toml"
    assert (m.board, m.target, m.flasher, m.cores) == ("pico", "serial", "rp2040_model", 1)
    assert (m.core, m.core_label) == ("rp2040", "M0+ model")
    assert list(models()) == [MODEL] and m.is_model and not MACHINES.get("pico").is_model


def test_every_machine_the_rtos_study_runs_is_a_machine_file(
    fake_freertos: dict[str, str],
) -> None:
    """Asked for every name it knows, the matrix's columns run on machine files only, the
    model's among them (FreeRTOS builds for the Pico)."""
    cols, _ = rm.columns(["freertos"], list(MACHINES), paths=fake_freertos)
    on = {c.machine for c in cols}
    assert MODEL in on and on <= set(machines_in(REPO_ROOT / "workloads/rtbench/boards").names())


def _literals(path: Path) -> list[tuple[int, str, bool]]:
    """(line, value, is a dict key) of every string literal of a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    keys = {id(k) for n in ast.walk(tree) if isinstance(n, ast.Dict) for k in n.keys if k}
    return [
        (n.lineno, n.value, id(n) in keys)
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def pseudo_machines(files: list[Path]) -> list[str]:
    """A dict keyed by a machine's name, or a model's name written out, in code: a
    machine kept beside the machine files. The model's own flasher (the module named as
    its file's `flasher`) writes what its runs record, the timing mode, which is spelt
    as the model's name: there it stays."""
    writers = {m.flasher: str(m.get("timing_mode")) for m in models().values()}
    found = []
    for path in files:
        for line, value, key in _literals(path):
            if (key and value in MACHINES) or (
                value in models() and writers.get(path.stem) != value
            ):
                found.append(f"{path}:{line}: {value!r}")
    return found


def test_no_machine_is_kept_in_code() -> None:
    files = sorted(p for top in CODE for p in (SRC / top).rglob("*.py"))
    assert pseudo_machines(files) == []


# Each a machine kept in code: a model's table, a machine's dict, a model named outright.
KEPT_IN_CODE = [
    'MODELS = {"rp2040-model": ("pico", {})}\n',
    'CORES = {"mps2-an385": "cm3"}\n',
    'machine = "rp2040-model" if model else board\n',
    'TIMING_MODE = "rp2040-model"\n',
]


def test_the_check_finds_a_machine_kept_in_code(tmp_path: Path) -> None:
    for i, text in enumerate(KEPT_IN_CODE):
        path = tmp_path / f"m{i}.py"
        path.write_text(text)
        assert pseudo_machines([path]), text
    # the model's flasher writes what its runs record; a board compared with is no table
    writer, reader = tmp_path / "rp2040_model.py", tmp_path / "x.py"
    writer.write_text('TIMING_MODE = "rp2040-model"  # what its runs record\n')
    reader.write_text('CORES = core_labels()\nif board == "pico":\n    pass\n')
    assert pseudo_machines([writer, reader]) == []


def test_a_stored_model_run_names_the_model_machine() -> None:
    """Stored runs on the model say board = "pico" and timebase = rp2040_model: the
    studies name their machine and core from the model's file, as before."""
    on_model = {"board": "pico", "timebase": "rp2040_model"}
    assert model_of(on_model) is MACHINES.get(MODEL)
    assert model_of({"board": "pico", "timebase": "monotonic"}) is None
    assert model_of({"board": "mps2-an385", "timebase": "icount"}) is None
    assert rtos_compare.CORES[MODEL] == "M0+ model" and rtos_compare.CORES["mps2-an385"] == "M3"


def test_the_models_timing_mode_is_what_its_runs_record() -> None:
    """The flasher writes the mode into every run; the machine file says what it is, and
    the multi-core study's tables read that."""
    mode = rp2040_model.TIMING_MODE
    assert MACHINES.get(MODEL).get("timing_mode") == mode
    assert "RP2040 cycle model" in multicore.MODES[mode]


def _tree(tmp_path: Path, model: str) -> Path:
    boards = tmp_path / "boards"
    (boards / "toy" / "machines").mkdir(parents=True)
    (boards / "toy" / "machines" / "toy1.toml").write_text('machine = "toy1"\n')
    (boards / "toy" / "machines" / "toy1-model.toml").write_text(model)
    return boards


def test_a_model_names_a_board_with_a_machine_file(tmp_path: Path) -> None:
    boards = _tree(tmp_path, 'machine = "toy1-model"\nboard = "toy1"\nflasher = "x"\n')
    m = machines_in(boards)["toy1-model"]
    assert (m.board, m.is_model, m.target) == ("toy1", True, "serial")
    bad = _tree(tmp_path / "b", 'machine = "toy1-model"\nboard = "toy9"\nflasher = "x"\n')
    with pytest.raises(ConfigError, match=r"toy1-model\.toml: board = 'toy9': no machine file"):
        machines_in(bad)
    qemu = _tree(tmp_path / "q", 'machine = "m"\ntarget = "qemu"\nflasher = "x"\n')
    with pytest.raises(ConfigError, match=r"toy1-model\.toml: flasher: expected a machine model"):
        machines_in(qemu)
