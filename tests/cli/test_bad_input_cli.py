"""Every reader, through the CLI: truncated, empty, wrong-type and garbage files give one
line naming the file, exit status 2, no traceback and no output."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from rtlab.cli import app
from tests.format_samples import FORMATS, seed_files

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64)


def variants(good: bytes) -> dict[str, bytes]:
    garbage = np.random.default_rng(len(good)).integers(0, 256, 700, dtype=np.uint8).tobytes()
    return {
        "truncated": good[: max(len(good) // 2, 1)],
        "empty": b"",
        "wrong-type": PNG,
        "garbage": garbage,
    }


def cases() -> list[tuple[str, str]]:
    return [
        (fmt, kind) for fmt in FORMATS for kind in ("truncated", "empty", "wrong-type", "garbage")
    ]


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    out = {}
    for fmt in FORMATS:
        d = tmp_path_factory.mktemp(fmt.replace("-", "_"))
        seed_files(fmt, d)
        files = sorted(p for p in d.iterdir() if p.is_file())
        if files:
            out[fmt] = files[0].read_bytes()
    return out


@pytest.mark.parametrize(("fmt", "kind"), cases())
def test_bad_file_gives_a_clear_error(
    samples: dict[str, bytes], tmp_path: Path, fmt: str, kind: str
) -> None:
    if fmt not in samples:
        pytest.fail(f"no sample of {fmt}: sigrok-cli missing? (deps/apt.txt; make setup)")
    content = variants(samples[fmt])[kind]
    if fmt == "pio-durations" and kind == "truncated":
        content = content[:-3] + b"x\n"  # half of a valid duration list is still valid
    bad = tmp_path / f"bad-{kind}.dat"
    bad.write_bytes(content)
    # In-process (the same code path as the `rtlab` command, minus interpreter start-up;
    # tests/cli/test_analyze_cli.py runs the real command).
    r = CliRunner().invoke(app, ["analyze", "--format", fmt, str(bad), "--json"])
    assert r.exit_code == 2, (r.stdout[-500:], r.stderr[-2000:], r.exception)
    assert r.exception is None or isinstance(r.exception, SystemExit)
    assert str(bad) in r.stderr.replace("\n", "")
    assert r.stdout == ""


def test_error_line_keeps_brackets(tmp_path: Path) -> None:
    """Cell labels and paths hold [brackets] (wake[method=abs]@idle): the one-line error
    prints them as written, not as console markup."""
    missing = tmp_path / "wake[method=abs]@idle.csv"
    r = CliRunner().invoke(app, ["analyze", str(missing)])
    assert r.exit_code == 2
    assert "wake[method=abs]@idle.csv" in r.stderr.replace("\n", "")
