"""`rtlab analyze FILE …` runs without typer (cli/fast.py) and means what typer would
make of the same command line; anything else goes to typer, whose help and usage
errors stay the only ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from rtlab.cli import app, commands
from rtlab.cli.fast import ANALYZE_DEFAULTS, ANALYZE_OPTIONS, parse_analyze

REPO = Path(__file__).resolve().parents[2]
CAPTURE = REPO / "examples" / "captures" / "gpio-toggle-pio.csv"


def _analyze_command() -> Any:
    return typer.main.get_command(app).commands["analyze"]  # type: ignore[attr-defined]


def _typer_kwargs(args: list[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """What the typer command hands run_analyze for `rtlab analyze ARGS`."""
    seen: dict[str, Any] = {}
    monkeypatch.setattr(commands, "run_analyze", lambda **kw: seen.update(kw))
    res = CliRunner().invoke(app, ["analyze", *args])
    assert res.exit_code == 0, res.output
    return seen


def test_the_table_is_the_typer_commands_options() -> None:
    table = {}
    for p in _analyze_command().params:
        if p.param_type_name == "argument":
            assert p.name == "file"
            continue
        kind = "flag" if p.is_flag else "multi" if p.multiple else None
        table[p.name] = (tuple(p.opts), kind, p.default)
    assert set(table) == set(ANALYZE_OPTIONS) == set(ANALYZE_DEFAULTS)
    for name, (spellings, kind) in ANALYZE_OPTIONS.items():
        opts, click_kind, default = table[name]
        assert spellings == opts, name
        assert (kind if kind in ("flag", "multi") else None) == click_kind, name
        assert ANALYZE_DEFAULTS[name] == (list(default) if click_kind == "multi" else default)


PLAIN = [
    ["cap.sr"],
    ["cap.sr", "--json"],
    ["--md", "cap.sr", "-c", "D0", "-c", "D1", "--channel=D2"],
    ["cap.vcd", "--tick", "16ns", "--tick=8ns", "--first-level", "0", "-f", "pio-durations"],
    ["cap.csv", "-O", "tick=5ns", "--opt=first_level=1", "--edge", "both", "--tie"],
    ["cap.csv", "--nominal", "1kHz", "--quantiles", "p50,p99", "--plot", "out/p", "--csv"],
    ["cap.csv", "-l", "A:B", "--latency=C:D", "--tick="],
]


@pytest.mark.parametrize("args", PLAIN)
def test_plain_command_lines_parse_as_typer_parses_them(
    args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = parse_analyze(args, {})
    assert fast is not None
    assert fast == _typer_kwargs(args, monkeypatch)


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--help"],
        ["cap.sr", "--help"],
        ["cap.sr", "--bogus"],
        ["cap.sr", "--tick"],
        ["cap.sr", "--tick", "-5ns"],
        ["cap.sr", "--first-level", "x"],
        ["a.sr", "b.sr"],
        ["--", "cap.sr"],
        ["-"],
        ["cap.sr", "-fvcd"],
        ["cap.sr", "--json=1"],
    ],
)
def test_anything_else_goes_to_typer(args: list[str]) -> None:
    assert parse_analyze(args, {}) is None


def test_shell_completion_goes_to_typer() -> None:
    assert parse_analyze(["cap.sr"], {"_RTLAB_COMPLETE": "bash_complete"}) is None


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_analyze_runs_without_typer_and_exits_like_it() -> None:
    probe = (
        "import sys\n"
        "sys.argv = ['rtlab', 'analyze', {args}]\n"
        "from rtlab.cli import main\n"
        "try:\n    main()\n"
        "except SystemExit as e:\n    code = e.code\n"
        "print('typer' in sys.modules, code, file=sys.stderr)\n"
    )
    ok = _run(probe.format(args=f"{str(CAPTURE)!r}, '--json'"))
    assert ok.stderr.split() == ["False", "0"], ok.stderr
    assert '"schema": "rtlab.analyze/1"' in ok.stdout
    bad = _run(probe.format(args="'/no/such.vcd'"))
    lines = bad.stderr.strip().splitlines()
    assert lines[-1].split() == ["False", "2"], bad.stderr
    assert lines[0] == "rtlab: error: /no/such.vcd: no such file"
    usage = _run(probe.format(args="'x.vcd', '--bogus'"))
    assert "No such option: --bogus" in usage.stderr
    assert usage.stderr.split()[-2:] == ["True", "2"]


def test_a_closed_pipe_is_exit_status_1_without_a_word() -> None:
    cmd = f"{sys.executable} -m rtlab.cli analyze {CAPTURE} --json | head -c 1 >/dev/null"
    res = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {cmd}; echo ${{PIPESTATUS[0]}}"],
        capture_output=True,
        text=True,
    )
    assert res.stdout.strip() in ("0", "1"), res  # 0: the output fit the pipe's buffer
    assert "Traceback" not in res.stderr and "Error" not in res.stderr, res.stderr
