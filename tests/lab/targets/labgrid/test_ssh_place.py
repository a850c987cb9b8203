"""A Linux board on a labgrid place: the local sshd exported by a real labgrid-exporter as
a NetworkService, reached through labgrid's SSHDriver; rtlab-latency runs there and the
board's fingerprint is taken over the driver's connection."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from rtlab.lab.runner import run_spec
from rtlab.lab.spec import parse_spec
from rtlab.lab.targets.base import Completed, make_target
from rtlab.lab.targets.labgrid import places
from rtlab.results import Store
from tests.lab.targets.labgrid.conftest import Lab
from tests.lab.targets.test_ssh import sshd  # the fixture: a real sshd

__all__ = ["sshd"]


def test_spec_runs_on_an_exported_ssh_board(
    lab: Lab,
    sshd: dict[str, object],
    built: Path,
    tmp_path: Path,
) -> None:
    service = (
        f"  NetworkService:\n    address: 127.0.0.1\n    port: {sshd['port']}\n"
        f"    username: {sshd['user']}\n"
    )
    lab.exported_place("orangepi-1", "orangepi", "pi-exporter", "orangepi", service)
    env = tmp_path / "lab-env.yaml"
    env.write_text(
        f"targets:\n  main:\n    drivers:\n      SSHDriver:\n        keyfile: {sshd['identity']}\n"
    )
    spec = parse_spec(
        'name = "labgrid-ssh"\n'
        f'[target]\nkind = "labgrid"\nenv = "{env}"\nplace = "orangepi-1"\n'
        f'coordinator = "{lab.address}"\n'
        f'programs = {{rtlab-latency = "{built}"}}\n'
        '[[workload]]\nkind = "rtlab-latency"\nname = "w"\nmethod = "abs"\n'
        "interval_us = 500\nloops = 600\n"  # a count, not a duration: exact on a loaded host
    )
    with Store(tmp_path / "rtlab.duckdb") as st:
        out = run_spec(spec, st)
        assert [r.status for r in out.runs] == ["ok"], [r.message for r in out.runs]
        info = st.run_info(out.runs[0].run_id)
        assert info["target"] == {
            "kind": "labgrid",
            "place": "orangepi-1",
            "board": "ssh",
            "host": "127.0.0.1",
            "port": sshd["port"],
        }
        assert info["fingerprint"]["kernel"]["release"] == os.uname().release
        assert info["fingerprint"]["labgrid_place"] == "orangepi-1"
        assert st.samples(out.runs[0].run_id, "latency").size == 600
    assert places.holder(lab.address, "orangepi-1") is None

    # Ctrl-C of a parallel run: abort() ends a command running on the board at once
    target = make_target({**spec.target})
    try:
        done: list[Completed] = []
        runs = threading.Thread(target=lambda: done.append(target.run(["sleep", "900"], 1200)))
        t0 = time.monotonic()
        runs.start()
        time.sleep(1)
        target.abort()  # type: ignore[attr-defined]
        runs.join(timeout=600)
        # long before the command's own 900 s: it was ended, whatever the host's load
        assert done and done[0].returncode != 0 and time.monotonic() - t0 < 900
    finally:
        target.close()  # type: ignore[attr-defined]
    assert places.holder(lab.address, "orangepi-1") is None
