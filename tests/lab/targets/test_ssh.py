"""The ssh target against a real OpenSSH server on a throwaway local port: a spec runs
rtlab-latency on "the board" (this machine, reached over ssh) idle and under stress-ng,
with the board's fingerprint taken over the same connection."""

from __future__ import annotations

import os
import pwd
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rtlab.errors import RtlabError
from rtlab.lab.fingerprint import fingerprint
from rtlab.lab.runner import run_spec
from rtlab.lab.spec import parse_spec
from rtlab.lab.targets.base import make_target
from rtlab.results import Store
from tests.needs import wait_listening
from tests.paths import REPO_ROOT

SSHD = REPO_ROOT / "build" / "sshd" / "usr" / "sbin" / "sshd"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    if not SSHD.exists():
        pytest.fail(f"{SSHD} missing: `make setup` unpacks it (deps/setup.d/sshd.sh)")
    d = tmp_path_factory.mktemp("sshd")
    _keygen(d / "host_key")
    _keygen(d / "client_key")
    (d / "authorized_keys").write_text((d / "client_key.pub").read_text())
    port = _free_port()
    (d / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {d / 'host_key'}\n"
        f"AuthorizedKeysFile {d / 'authorized_keys'}\nPidFile none\nStrictModes no\n"
        "UsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "PermitRootLogin prohibit-password\n"
    )
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privsep directory
    proc = subprocess.Popen(
        [str(SSHD), "-D", "-e", "-f", str(d / "sshd_config")],
        stderr=open(d / "sshd.log", "w"),  # noqa: SIM115 - lives as long as sshd
    )
    try:
        wait_listening(port, proc, "sshd", d / "sshd.log", 10)
        yield {
            "host": "127.0.0.1",
            "port": port,
            "user": pwd.getpwuid(os.geteuid()).pw_name,
            "identity": str(d / "client_key"),
            "ssh_options": [
                "StrictHostKeyChecking=no",
                "UserKnownHostsFile=/dev/null",
                "LogLevel=ERROR",
            ],
        }
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _target_toml(t: dict[str, object], latency_exe: Path) -> str:
    opts = ", ".join(f'"{o}"' for o in t["ssh_options"])  # type: ignore[attr-defined]
    return (
        f'[target]\nkind = "ssh"\nhost = "{t["host"]}"\nport = {t["port"]}\n'
        f'user = "{t["user"]}"\nidentity = "{t["identity"]}"\nssh_options = [{opts}]\n'
        f'[target.programs]\nrtlab-latency = "{latency_exe}"\n'
    )


def test_fingerprint_over_ssh_is_the_local_one(sshd: dict[str, object]) -> None:
    target = make_target({"kind": "ssh", **sshd})
    remote, local = target.fingerprint(), fingerprint()
    assert remote["ssh_host"] == "127.0.0.1"
    for key in ("kernel", "cmdline", "clocksource", "cpu", "idle", "virtualization"):
        assert remote[key] == local[key], key
    assert remote["process"]["euid"] == os.geteuid()
    assert {w["code"] for w in remote["warnings"]} == {w["code"] for w in local["warnings"]}


def test_spec_runs_over_ssh_idle_and_loaded(
    sshd: dict[str, object], built: Path, tmp_path: Path
) -> None:
    spec = parse_spec(
        'name = "over-ssh"\nconditions = ["idle", "load"]\n'
        '[condition.load]\nprofile = "cpu"\nworkers = 1\nsettle_s = 0.2\n'
        + _target_toml(sshd, built)
        + '[[workload]]\nkind = "rtlab-latency"\nname = "w"\nmethod = "abs"\n'
        "interval_us = 500\nloops = 600\n"  # a count, not a duration: exact on a loaded host
    )
    with Store(tmp_path / "rtlab.duckdb") as st:
        out = run_spec(spec, st)
        assert [r.status for r in out.runs] == ["ok", "ok"], [r.message for r in out.runs]
        for r in out.runs:
            info = st.run_info(r.run_id)
            assert info["target"]["kind"] == "ssh"
            assert info["fingerprint"]["kernel"]["release"] == os.uname().release
            assert st.samples(r.run_id, "latency").size == 600
    # the load started over ssh (-tt) ends with its connection: no stress-ng left over
    time.sleep(0.3)
    left = subprocess.run(["pgrep", "-f", "stress-ng --cpu 1"], capture_output=True, text=True)
    assert not left.stdout.strip(), left.stdout


def test_unreachable_target_is_one_clear_error(sshd: dict[str, object]) -> None:
    target = make_target({"kind": "ssh", **sshd, "port": _free_port()})
    with pytest.raises(RtlabError, match=r"cannot reach 127\.0\.0\.1 over ssh"):
        target.fingerprint()
