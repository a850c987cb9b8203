"""What `rtlab run` refuses, and how a refused run leaves the others, with the real CLI
and a DuckDB store."""

from __future__ import annotations

import json
from pathlib import Path

from rtlab.results import Store
from tests.conftest import rtlab
from tests.paths import REPO_ROOT


def _printf(series_line: str) -> str:
    lines = [
        "@rtl1 hello workload=x version=1",
        series_line,
        "@rtl1 s lat 0 1,2,3",
        "@rtl1 end records=3 status=ok",
    ]
    return json.dumps(["printf", "\\n".join(lines) + "\\n"])


def test_a_tick_the_store_cannot_hold_fails_its_run_and_the_others_run(tmp_path: Path) -> None:
    """tick_ns=1e400 made the store's insert raise a DuckDB exception: a traceback, and
    the remaining repetitions never ran. Now: refused at its line, that run `error`,
    every other run (its own repetitions too) measured."""
    spec = tmp_path / "c7.toml"
    spec.write_text(
        'name = "c7"\nrepetitions = 2\n'
        '[[workload]]\nkind = "command"\nname = "huge"\n'
        f"argv = {_printf('@rtl1 series lat unit=ticks tick_ns=1e400')}\nseconds = 1\n"
        '[[workload]]\nkind = "command"\nname = "fine"\n'
        f"argv = {_printf('@rtl1 series lat unit=ticks tick_ns=8')}\nseconds = 1\n"
    )
    store = tmp_path / "s" / "rtlab.duckdb"
    r = rtlab("run", str(spec), "--store", str(store))
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr and "Exception" not in r.stderr, r.stderr
    refusals = [ln for ln in r.stderr.splitlines() if "tick_ns: 1e400 is out of range" in ln]
    assert len(refusals) == 2, r.stderr  # one line per refused run
    assert all(":2: " in ln for ln in refusals), refusals  # the protocol line named
    with Store(store, read_only=True) as st:
        runs = st.runs(spec_name="c7")
        got = sorted((r["params"]["workload"], r["repetition"], r["status"]) for r in runs)
        assert [g[2] for g in got] == ["ok", "ok", "error", "error"]
        fine = [r for r in runs if r["status"] == "ok"]
        for run in fine:
            assert st.samples(run["run_id"], "lat").tolist() == [1, 2, 3]


def test_a_study_spec_given_to_run_is_refused_with_the_command_that_runs_it(
    tmp_path: Path,
) -> None:
    """`rtlab run examples/rtos-compare.toml` ran one qemu cell literally named
    `{rtos}-{core}-{config}` with no RTOS and exited 0."""
    store = tmp_path / "s" / "rtlab.duckdb"
    spec = REPO_ROOT / "examples" / "rtos-compare.toml"
    r = rtlab("run", str(spec), "--store", str(store))
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    line = (spec.read_text().splitlines().index('name = "{rtos}-{core}-{config}"')) + 1
    assert f"rtos-compare.toml:{line}:" in lines[0]
    assert f"rtlab study rtos {spec}" in lines[0]
    assert not store.exists()  # nothing ran, nothing written


def test_a_placeholder_anywhere_in_a_spec_is_refused(tmp_path: Path) -> None:
    """The study fills {rtos}, {core}, {config} wherever they are: so does the refusal."""
    spec = tmp_path / "mine.toml"
    spec.write_text(
        'name = "mine"\n[[workload]]\nkind = "command"\nname = "w"\n'
        'argv = ["echo", "{core}"]\nseconds = 1\n'
    )
    r = rtlab("run", str(spec), "--store", str(tmp_path / "s.duckdb"))
    assert r.returncode == 2 and "mine.toml:5: workload[0].argv[1]" in r.stderr, r.stderr
    assert "rtlab study rtos" in r.stderr
