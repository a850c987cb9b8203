"""Out-of-range workload parameters: what the C program would refuse
with its usage text is refused at spec load (FILE:LINE: KEY), checked against the real
programs over every ranged parameter; and a run that does fail stores the program's
own reason, not its usage text."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rtlab.lab.c_targets import build_c_target
from rtlab.lab.spec import load_spec
from rtlab.lab.specfile import SpecError
from rtlab.lab.workloads import gpio, latency
from rtlab.lab.workloads.base import KINDS
from tests.conftest import rtlab
from tests.needs import missing_tool

# every ranged parameter of a kind: (kind, base parameters, its range table)
KIND_RANGES = [
    ("rtlab-latency", {"duration": "1s"}, latency._RANGES),
    ("rtlab-toggle", {}, gpio._RANGES),
    ("rtlab-gpio-events", {}, {"count": (1, 1 << 28), "buffer": gpio._RANGES["buffer"]}),
]
OUTSIDE = [
    (kind, base, key, value)
    for kind, base, ranges in KIND_RANGES
    for key, (lo, hi) in ranges.items()
    if key in {k for k in (latency._LAT_OPTS if kind == "rtlab-latency" else
                          gpio._TOGGLE_OPTS if kind == "rtlab-toggle" else gpio._EVENT_OPTS)}
    for value in (int(lo) - 1, int(hi) + 1)
    if value >= 0 or key != "priority"  # negative: refused by the type check already
]  # fmt: skip


@pytest.fixture(scope="module")
def exe(built: Path) -> dict[str, Path]:
    missing_tool("deps/apt.txt", "cmake")
    toggle = build_c_target("rtlab-toggle")
    toggle = toggle / "rtlab-toggle" if toggle.is_dir() else toggle
    return {
        "rtlab-latency": built,
        "rtlab-toggle": toggle,
        "rtlab-gpio-events": toggle.parent / "rtlab-gpio-events",
    }


def _spec(tmp_path: Path, kind: str, params: dict[str, Any]) -> Path:
    lines = [f"{k} = {json.dumps(v)}" for k, v in params.items()]
    p = tmp_path / "bad.toml"
    p.write_text('name = "t"\n\n[[workload]]\nkind = "' + kind + '"\n' + "\n".join(lines) + "\n")
    return p


@pytest.mark.parametrize(("kind", "base", "key", "value"), OUTSIDE)
def test_the_loader_refuses_what_the_program_refuses(
    exe: dict[str, Path], tmp_path: Path, kind: str, base: dict[str, Any], key: str, value: int
) -> None:
    params = {**base, key: value}
    argv = KINDS[kind].argv(str(exe[kind]), params)
    prog = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    assert prog.returncode == 2, (argv, prog.stderr)  # the program: a usage error
    with pytest.raises(SpecError) as e:
        load_spec(_spec(tmp_path, kind, params))
    line = 5 + list(params).index(key)
    assert str(e.value).startswith(f"{tmp_path / 'bad.toml'}:{line}: workload[0].{key}:")


@pytest.mark.parametrize(
    ("kind", "params", "key"),
    [
        ("rtlab-latency", {"interval_us": 0, "duration": "1s"}, "interval_us"),
        ("rtlab-latency", {"duration": "0s"}, "duration"),
        ("rtlab-latency", {"duration": "1s", "quantile": 1.5}, "quantile"),
        ("rtlab-latency", {"duration": "1s", "bound_pct": 0.0}, "bound_pct"),
        ("rtlab-latency", {"duration": "1s", "affinity": "0-x"}, "affinity"),
        ("rtlab-latency", {"duration": "1s", "policy": "other", "priority": 5}, "priority"),
        ("rtlab-latency", {"mode": "search", "periods": list(range(1, 34))}, "periods"),
        ("rtlab-latency", {"method": "usleep", "interval_us": 1000000, "loops": 2}, "interval_us"),
        ("rtlab-toggle", {"mode": "usleep", "interval_ns": 999}, "interval_ns"),
        ("rtlab-toggle", {"lines": "3,3"}, "lines"),
        ("rtlab-toggle", {"policy": "fifo", "priority": 0}, "priority"),
    ],
)
def test_combinations_refused(
    exe: dict[str, Path], tmp_path: Path, kind: str, params: dict[str, Any], key: str
) -> None:
    argv = KINDS[kind].argv(str(exe[kind]), params)
    prog = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    assert prog.returncode in (1, 2), (argv, prog.stderr)  # usage, or refused at setup
    with pytest.raises(SpecError) as e:
        load_spec(_spec(tmp_path, kind, params))
    assert f": workload[0].{key}:" in str(e.value)


def test_short_duration_is_passed_exactly() -> None:
    # 0.4 ms was "-D 0ms" (the program refuses 0); the argv keeps what the spec says
    argv = KINDS["rtlab-latency"].argv("x", {"duration": "0.4ms"})
    assert argv[-2:] == ["-D", "0.4ms"]
    assert KINDS["rtlab-latency"].argv("x", {"duration": "4s"})[-2:] == ["-D", "4000ms"]


def test_cli_refuses_interval_zero_before_running(tmp_path: Path) -> None:
    spec = _spec(tmp_path, "rtlab-latency", {"interval_us": 0, "duration": "1s"})
    store = tmp_path / "st" / "rtlab.duckdb"
    r = rtlab("run", str(spec), "--store", str(store))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"rtlab: error: {spec}:5: workload[0].interval_us: interval_us = 0: expected 1..60000000"
    ] or "interval_us = 0: expected 1..60000000" in " ".join(r.stderr.split())
    assert "Traceback" not in r.stderr
    assert not store.exists()  # nothing run, nothing stored


def test_failed_run_stores_the_programs_reason(exe: dict[str, Path], tmp_path: Path) -> None:
    # a `command` workload is not checked: the program's own refusal is the run's note
    spec = tmp_path / "cmd.toml"
    argv = [str(exe["rtlab-latency"]), "-q", "-i", "0", "-D", "1s"]
    spec.write_text(f'name = "c"\n[[workload]]\nkind = "command"\nargv = {json.dumps(argv)}\n')
    store = tmp_path / "st" / "rtlab.duckdb"
    r = rtlab("run", str(spec), "--store", str(store))
    assert r.returncode == 1
    runs = rtlab("runs", "--store", str(store))
    from rtlab.results import Store

    with Store(store, read_only=True) as st:
        (run,) = st.runs()
    assert run["status"] == "error"
    assert run["message"] == (
        "no protocol output (exit status 2): "
        "rtlab-latency: -i: expected an integer in [1, 60000000], got '0'"
    ), run["message"]
    assert "usage" not in runs.stdout
