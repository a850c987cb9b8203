"""The example spec (examples/labgrid-mps2.toml, docs/labgrid.md) on a real labgrid lab
of three emulated places: the cells spread over them, each (cell, repetition) stored
once, with the figures the direct `qemu` target stores (icount: identical); a place held
by someone else fails or is waited for; killing rtlab releases its place."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from rtlab.lab.runner import run_spec
from rtlab.lab.spec import load_spec, parse_spec
from rtlab.lab.targets.labgrid import places
from rtlab.results import Store
from tests.lab.targets.labgrid.conftest import MPS2_PLACES, Lab
from tests.paths import REPO_ROOT

EXAMPLE = REPO_ROOT / "examples" / "labgrid-mps2.toml"
TARGET = re.compile(r"^\[target\]\n(?:(?!\[).*\n)*", re.M)


def _with_target(target: str, name: str | None = None, reps: int | None = None) -> str:
    """The example spec's text with another [target] table (and name, repetitions)."""
    text = TARGET.sub(target, EXAMPLE.read_text())
    if name:
        text = re.sub(r'^name = ".*"', f'name = "{name}"', text, flags=re.M)
    if reps:
        text = re.sub(r"^repetitions = \d+", f"repetitions = {reps}", text, flags=re.M)
    return text


ONE_PLACE = '[target]\nkind = "labgrid"\nenv = "examples/labgrid/mps2-env.yaml"\nplace = "{p}"\n'
# `elf`: the firmware is the workload's own (argv[0]), not rtbench built on an RTOS
DIRECT = (
    '[target]\nkind = "qemu"\nmachine = "mps2-an385"\nicount_shift = 0\n'
    'elf = "build/rtbench-qemu-nokernel/mps2-smoke-an385.elf"\n'
)


def _stored(st: Store, spec_name: str) -> dict[tuple[str, int], Any]:
    """Everything a run stored that the workload decides, by (cell label, repetition)."""
    out = {}
    for r in st.runs(spec_name=spec_name, status="ok"):
        rid = r["run_id"]
        series = {
            name: st.samples(rid, name).tolist()
            for (name,) in st.sql("SELECT name FROM series WHERE run_id=?", [rid])
        }
        counters = st.sql("SELECT name, value FROM counters WHERE run_id=? ORDER BY name", [rid])
        out[(r["params"]["label"], r["repetition"])] = (r["meta"], series, counters)
    return out


def _free(lab: Lab) -> list[str | None]:
    return [places.holder(lab.address, p) for p in MPS2_PLACES]


@pytest.fixture
def in_repo(lab: Lab, smoke_elf: Path, monkeypatch: pytest.MonkeyPatch) -> Lab:
    monkeypatch.chdir(REPO_ROOT)  # the example's paths are the repository's
    monkeypatch.setenv("LG_COORDINATOR", lab.address)
    return lab


def test_example_spreads_over_three_places_and_stores_what_qemu_stores(
    in_repo: Lab, tmp_path: Path
) -> None:
    spec = load_spec(EXAMPLE)
    with Store(tmp_path / "lab" / "rtlab.duckdb") as st:
        t0 = time.monotonic()
        out = run_spec(spec, st)
        three = time.monotonic() - t0
        assert [r.status for r in out.runs] == ["ok"] * 12, [r.message for r in out.runs]
        assert {r.place for r in out.runs} == set(MPS2_PLACES)
        rows = st.runs(spec_name=spec.name)
        pairs = [(r["cell_key"], r["repetition"]) for r in rows]
        assert len(pairs) == len(set(pairs)) == 12  # every cell once, none lost
        assert {r["target"]["place"] for r in rows} == set(MPS2_PLACES)
        assert all(r["target"]["timebase"] == "icount" for r in rows)
        via_labgrid = _stored(st, spec.name)
        again = run_spec(spec, st)  # resume: nothing left to run
        assert (again.planned, again.skipped) == (0, 12)
    assert _free(in_repo) == [None, None, None]

    direct = parse_spec(_with_target(DIRECT), EXAMPLE)
    with Store(tmp_path / "direct" / "rtlab.duckdb") as st:
        assert {r.status for r in run_spec(direct, st).runs} == {"ok"}
        by_qemu = _stored(st, direct.name)
        for key, (meta, series, counters) in by_qemu.items():
            assert (meta, series, counters) == via_labgrid[key], key
    one = parse_spec(_with_target(ONE_PLACE.format(p="mps2-2")), EXAMPLE)
    with Store(tmp_path / "one" / "rtlab.duckdb") as st:
        t0 = time.monotonic()
        runs = run_spec(one, st).runs
        single = time.monotonic() - t0
        assert {r.status for r in runs} == {"ok"} and {r.place for r in runs} == {None}
        assert _stored(st, one.name) == via_labgrid
    print(f"\n12 runs: 3 places {three:.1f} s, 1 place {single:.1f} s")


def _rtlab(*args: str) -> list[str]:
    return [sys.executable, "-m", "rtlab.cli", *args]


def _env(lab: Lab) -> dict[str, str]:
    return {**os.environ, "LG_COORDINATOR": lab.address, "PYTHONPATH": str(REPO_ROOT / "src")}


def _run_in(lab: Lab, spec: Path, store: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """`rtlab run spec --store store` against the lab's coordinator, to its end."""
    cmd = _rtlab("run", str(spec), "--store", str(store))
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(lab), timeout=timeout)


def test_a_held_place_fails_naming_its_holder_or_is_waited_for(
    in_repo: Lab, tmp_path: Path
) -> None:
    spec = tmp_path / "one.toml"
    spec.write_text(_with_target(ONE_PLACE.format(p="mps2-1"), reps=1))
    store = tmp_path / "rtlab.duckdb"
    in_repo.check("-p", "mps2-1", "acquire", user="alice")
    try:
        busy = _run_in(in_repo, spec, store)
        assert busy.returncode == 2, busy.stderr
        assert re.search(r"place mps2-1 is held by \S+/alice", busy.stderr), busy.stderr
        assert "Traceback" not in busy.stderr
        with Store(store) as st:
            assert st.runs() == []  # no half-run cell
        waiting = subprocess.Popen(
            _rtlab("run", str(spec), "--store", str(store), "--wait"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(in_repo),
        )
        assert waiting.stderr is not None
        said = []  # until it says it waits, however long its start takes on this host
        for line in waiting.stderr:
            said.append(line)
            if line.startswith("waiting: labgrid place mps2-1 is held by"):
                break
        assert waiting.poll() is None, "".join(said)  # still waiting for alice
    finally:
        in_repo.check("-p", "mps2-1", "release", user="alice")
    _, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    assert "waiting: labgrid place mps2-1 is held by" in "".join(said)
    with Store(store) as st:
        assert len(st.runs(status="ok")) == 6
    assert places.holder(in_repo.address, "mps2-1") is None


def _stat(pid: int) -> tuple[str, list[str]] | None:
    """(comm, the fields after it) of /proc/PID/stat; None once the process is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :].split()


def _qemu_children(parent: int, timeout_s: float) -> dict[int, str]:
    """The qemu-system-* children of `parent` (pid -> start time), waited for."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = {}
        for d in Path("/proc").iterdir():
            st = _stat(int(d.name)) if d.name.isdigit() else None
            if st and st[0].startswith("qemu-system") and int(st[1][1]) == parent:
                found[int(d.name)] = st[1][19]  # starttime: a reused pid is not it
        if found:
            return found
        assert time.monotonic() < deadline, f"no QEMU child of rtlab (pid {parent})"
        time.sleep(0.05)


def _alive(pid: int, start: str) -> bool:
    st = _stat(pid)
    return st is not None and st[1][19] == start and st[1][0] not in ("Z", "X")


TAGGED = (
    '[target]\nkind = "labgrid"\nenv = "examples/labgrid/mps2-env.yaml"\n'
    'tags = {board = "mps2-an385"}\n'
)


@pytest.mark.parametrize(
    ("sig", "target", "held"),
    [
        (signal.SIGTERM, ONE_PLACE.format(p="mps2-3"), ["mps2-3"]),
        (signal.SIGKILL, ONE_PLACE.format(p="mps2-3"), ["mps2-3"]),
        (signal.SIGTERM, TAGGED, list(MPS2_PLACES)),  # parallel: every place, every run
    ],
    ids=["sigterm", "sigkill", "sigterm-3-places"],
)
def test_killing_rtlab_mid_run_releases_the_place(
    in_repo: Lab, tmp_path: Path, sig: signal.Signals, target: str, held: list[str]
) -> None:
    spec = tmp_path / "long.toml"
    spec.write_text(_with_target(target, reps=50))
    store = tmp_path / "rtlab.duckdb"
    proc = subprocess.Popen(
        _rtlab("run", str(spec), "--store", str(store)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(in_repo),
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # mid-run: a first run stored, more to come
            if line.startswith("ok "):
                break
        assert all(places.holder(in_repo.address, p) is not None for p in held)
        qemus = _qemu_children(proc.pid, timeout_s=60)  # killed while QEMU runs
        proc.send_signal(sig)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 10  # the kernel's SIGKILL (PR_SET_PDEATHSIG) is at once
    while survivors := [pid for pid, start in qemus.items() if _alive(pid, start)]:
        assert time.monotonic() < deadline, f"QEMU of the killed run still runs: {survivors}"
        time.sleep(0.2)
    deadline = time.monotonic() + 30  # SIGKILL: the reaper releases it
    while any(places.holder(in_repo.address, p) is not None for p in held):
        assert time.monotonic() < deadline, "a place is still held"
        time.sleep(0.5)
    if sig == signal.SIGTERM:
        assert proc.returncode == 130, proc.stderr.read() if proc.stderr else ""
        with Store(store) as st:
            rows = st.runs()
            pairs = [(r["cell_key"], r["repetition"]) for r in rows]
            assert len(pairs) == len(set(pairs)) and 0 < len(rows) < 300
            assert {r["status"] for r in rows} <= {"ok", "interrupted"}, [
                r["message"] for r in rows if r["status"] == "error"
            ]
            assert not any(r["status"] == "running" for r in rows)


def test_spec_mistakes_are_one_line(in_repo: Lab, tmp_path: Path) -> None:
    for target, says in (
        ('[target]\nkind = "labgrid"\nplace = "mps2-1"\n', "env"),
        (ONE_PLACE.format(p="nowhere"), "nowhere"),
        (ONE_PLACE.replace("mps2-env", "none").format(p="mps2-1"), "no such file"),
        (
            '[target]\nkind = "labgrid"\nenv = "examples/labgrid/mps2-env.yaml"\n'
            'tags = {board = "pdp-11"}\n',
            "no place has tags board=pdp-11",
        ),
    ):
        spec = tmp_path / "bad.toml"
        spec.write_text(_with_target(target))
        r = _run_in(in_repo, spec, tmp_path / "rtlab.duckdb")
        assert r.returncode == 2 and says in r.stderr, r.stderr
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) <= 2
    assert places.holder(in_repo.address, "mps2-1") is None


def test_with_tags_a_held_place_is_skipped_and_the_free_ones_run(
    in_repo: Lab, tmp_path: Path
) -> None:
    store = tmp_path / "rtlab.duckdb"
    in_repo.check("-p", "mps2-1", "acquire", user="alice")
    try:
        r = _run_in(in_repo, EXAMPLE, store, timeout=300)
        assert places.holder(in_repo.address, "mps2-1").endswith("/alice")  # type: ignore[union-attr]
    finally:
        in_repo.check("-p", "mps2-1", "release", user="alice")
    assert r.returncode == 0, r.stderr
    assert "skipped: labgrid place mps2-1 is held by" in r.stderr
    with Store(store) as st:
        rows = st.runs(status="ok")
        assert len(rows) == 12
        assert {row["target"]["place"] for row in rows} == {"mps2-2", "mps2-3"}
