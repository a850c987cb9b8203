"""The pl061-trace instrument: QEMU's pl061_set_output trace lines into edges (only
level changes count), and the spec-load refusals (icount, another target)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlab.instruments.pl061 import capture_from_trace
from rtlab.lab.spec import load_spec, parse_spec
from rtlab.lab.specfile import SpecError
from tests.paths import REPO_ROOT

DEV = "/machine/unattached/device[6]"


def _line(t_us: int, line: int, value: int) -> str:
    s, us = divmod(1_795_480_000_000_000 + t_us, 1_000_000)
    return f"26539@{s}.{us:06d}:pl061_set_output {DEV} setting output {line} to {value}"


def test_only_level_changes_are_edges_in_microseconds_from_the_first_line() -> None:
    lines = [_line(0, n, 0) for n in range(8)]  # the reset: every output low, no edge
    lines += [_line(1000, 0, 1), _line(1500, 0, 1), _line(2000, 0, 0), _line(3000, 0, 1)]
    lines += [_line(2500, 3, 1), "some other log line", _line(4000, 0, 0)]
    cap = capture_from_trace("\n".join(lines) + "\n", ("L0", "L3"))
    assert list(cap["L0"].edges) == [1000, 2000, 3000, 4000]  # 1500: no change
    assert list(cap["L3"].edges) == [2500]
    assert (cap.t_start, cap.t_end) == (1000, 4000)
    assert list(cap["L0"].periods("rising").values) == [2000]
    assert list(cap["L0"].widths("high").values) == [1000, 1000]


def test_the_example_spec_loads() -> None:
    spec = load_spec(REPO_ROOT / "examples" / "user-vs-kernel-trace.toml")
    assert spec.instrument is not None and spec.instrument.kind == "pl061-trace"
    assert len(spec.cells()) == 4


SPEC = """\
name = "t"
[target]
kind = "qemu_gpio"
kernel = "rt"
{extra}
[instrument]
kind = "pl061-trace"
channels = {channels}
[[workload]]
kind = "rtlab-hrtimer"
period_us = 1000
gpio = 504
"""


@pytest.mark.parametrize(
    ("extra", "channels", "words"),
    [
        ("icount_shift = 1", '["L0"]', "not the guest's under icount"),
        ("", '["L8"]', "expected PL061 lines"),
        ("", '["L0", "L0"]', "expected PL061 lines"),
    ],
)
def test_refused_at_spec_load(tmp_path: Path, extra: str, channels: str, words: str) -> None:
    with pytest.raises(SpecError, match=words) as e:
        parse_spec(SPEC.format(extra=extra, channels=channels))
    assert "instrument" in str(e.value)


def test_refused_on_another_target() -> None:
    text = SPEC.format(extra="", channels='["L0"]').replace(
        'kind = "qemu_gpio"\nkernel = "rt"', 'kind = "local"'
    )
    with pytest.raises(SpecError, match="times the qemu_gpio guest's PL061"):
        parse_spec(text)
