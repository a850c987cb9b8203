"""The runner's GPIO workload kinds: spec checks, argv, and the example spec."""

from __future__ import annotations

import pytest

from rtlab.lab.spec import SpecError, load_spec, parse_spec
from rtlab.lab.workloads.base import KINDS
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT


def test_kinds_registered() -> None:
    assert {"rtlab-toggle", "rtlab-toggle-rs", "rtlab-toggle-kt", "rtlab-gpio-events"} <= set(KINDS)


def test_matrix_and_argv() -> None:
    spec = parse_spec(
        'name = "g"\n[[workload]]\nkind = "rtlab-toggle"\nmode = ["fast", "abs"]\n'
        "lines = [0, 1]\ncount = 100\ntimestamps = true\ninterval_ns = 1000000\n"
        'meta = { emulated = "no" }\n'
    )
    cells = spec.cells()
    assert [c.label for c in cells] == [
        "rtlab-toggle[mode=fast]@idle",
        "rtlab-toggle[mode=abs]@idle",
    ]
    argv = KINDS["rtlab-toggle"].argv("T", cells[1].params)
    assert argv == ["T", "-q", "-w", "abs", "-l", "0,1", "-n", "100", "-t", "-i", "1000000",
                    "--meta", "emulated=no"]  # fmt: skip
    assert KINDS["rtlab-toggle"].seconds(cells[1].params) == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('kind = "rtlab-toggle"\nmode = "warp"', "expected one of fast, busy, abs, usleep"),
        ('kind = "rtlab-toggle-rs"\ncount = 5\nduration = "1s"', "count or duration"),
        ('kind = "rtlab-gpio-events"\nedge = "up"', "expected one of rising, falling, both"),
        ('kind = "rtlab-toggle"\nspeed = 3', "unknown rtlab-toggle parameter 'speed'"),
    ],
)
def test_spec_errors(body: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_spec(f'name = "g"\n[[workload]]\n{body}\n')


def test_example_spec_loads() -> None:
    spec = load_spec(ROOT / "examples" / "gpio-study.toml")
    kinds = {c.kind for c in spec.cells()}
    assert kinds == {"rtlab-toggle", "rtlab-toggle-rs", "rtlab-toggle-kt"}
