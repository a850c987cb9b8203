"""The serial target's board is a machine (rtlab.catalog.machines.Machine): by name the
registry's own, by path a TOML file read the same way, with the same defaults; a bad
file is one error (key "board") naming the file as a board description."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlab.catalog.machines import DEFAULT_BAUD, MACHINES
from rtlab.errors import ConfigError
from rtlab.lab.serialboard.description import board_description, known_boards


def test_a_board_by_name_is_the_registrys_machine() -> None:
    pico = board_description("pico")
    assert pico is MACHINES.get("pico")
    assert (pico.uf2_drive, pico.model, pico.baud, pico.board) == (
        "RPI-RP2",
        "rp2040",
        115200,
        "pico",
    )
    assert pico.source.endswith("workloads/rtbench/boards/rp2040/machines/pico.toml")


def test_a_model_is_no_board_of_its_own() -> None:
    """The RP2040 model runs the Pico's images: a spec names board = "pico" and the
    model's flasher, so the model is not among the boards a spec may name."""
    assert "pico" in known_boards() and "rp2040-model" not in known_boards()
    with pytest.raises(ConfigError, match="board = 'rp2040-model': no board description"):
        board_description("rp2040-model")


def test_a_description_by_path_takes_the_registrys_defaults(tmp_path: Path) -> None:
    path = tmp_path / "b.toml"
    path.write_text('board = "b"\n')
    b = board_description(str(path))
    assert (b.name, b.board, b.source, b.baud, b.qemu_serial) == (
        "b",
        "b",
        str(path),
        DEFAULT_BAUD,
        0,
    )
    assert not (b.qemu_machine or b.openocd_config or b.pyocd_target or b.uf2_drive or b.model)


def test_the_board_its_images_print_is_its_board_key(tmp_path: Path) -> None:
    """`board` names what the image prints (meta board, what the serial target expects)
    and `machine` the file's own name: a file with both still expects its images to say
    the board, as when the board key was its name."""
    path = tmp_path / "b.toml"
    path.write_text('machine = "my-bench"\nboard = "pico"\nmodel = "rp2040"\n')
    b = board_description(str(path))
    assert (b.name, b.board) == ("my-bench", "pico")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('board = "b"\nqemu_serial = 9\n', "qemu_serial: expected 0..7"),
        ('board = "b"\nbaud = 0\n', "baud: expected a positive integer"),
        ('board = "b"\nbaud = "fast"\n', "baud: expected a positive integer"),
        ('board = "b"\npyocd_target = 3\n', "pyocd_target: expected a string"),
        ("qemu_serial = 1\n", 'no board = "name"'),
        ('board = "b"\nbaud = \n', "Invalid value"),
    ],
)
def test_a_bad_description_is_one_error_naming_its_file(
    tmp_path: Path, text: str, says: str
) -> None:
    path = tmp_path / "b.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as e:
        board_description(str(path))
    assert e.value.key == "board" and str(e.value).startswith(f"board description {path}: ")
    assert says in str(e.value)


def test_a_missing_file_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"board = '.*nope\.toml': no such file"):
        board_description(str(tmp_path / "nope.toml"))
