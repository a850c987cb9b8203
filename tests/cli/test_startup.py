"""`rtlab --help` starts like a shell tool: no numpy, pyarrow, DuckDB or matplotlib.

The milliseconds depend on the machine's load; the imports do not, so these are asserted."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

HEAVY = ("numpy", "pyarrow", "duckdb", "matplotlib", "rich", "polars", "pandas")

_PROBE = """
import sys
from typer.testing import CliRunner
import rtlab.cli
res = CliRunner().invoke(rtlab.cli.app, {args!r})
assert res.exit_code == 0 and "Usage" in res.output, res.output
print(" ".join(sorted({{m.split(".")[0] for m in sys.modules}} & set({heavy!r}))))
"""


@pytest.mark.parametrize(
    "args", [["--help"], ["analyze", "--help"], ["report", "--help"], ["capture", "--help"]]
)
def test_help_imports_no_heavy_module(args: list[str]) -> None:
    code = _PROBE.format(args=args, heavy=HEAVY)
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, check=True
    )
    assert res.stdout.strip() == "", f"`rtlab {' '.join(args)}` imported {res.stdout.strip()}"


def test_import_rtlab_is_cheap_and_the_api_still_works() -> None:
    code = (
        "import sys, rtlab\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))\n"
        "from rtlab import load, analyze, Capture, RtlabError\n"
        "print(rtlab.load is load, callable(rtlab.latency), 'Stats' in dir(rtlab))\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, check=True
    )
    assert res.stdout.splitlines() == ["[]", "True True True"]


def test_unknown_attribute_is_an_attribute_error() -> None:
    import rtlab

    with pytest.raises(AttributeError, match="no_such_thing"):
        rtlab.no_such_thing  # noqa: B018
