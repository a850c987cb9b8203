"""A real labgrid lab on 127.0.0.1: `labgrid-coordinator` and `labgrid-exporter` on
throwaway ports (stopped by the fixture; killed by the kernel if pytest is killed),
places made with `labgrid-client`, as a lab's admin makes them. Three emulated places
(tag board=mps2-an385) whose board is QEMU under labgrid's QEMUDriver; the ssh place
(test_ssh_place.py) adds the local sshd as an exported NetworkService.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rtlab.lab.boards.cmake_layer import build_mps2
from rtlab.lab.targets import qemu as tq
from rtlab.lab.targets.labgrid import places
from rtlab.procgroup import spawn
from tests.needs import missing_tool, wait_listening
from tests.paths import REPO_ROOT

BIN = Path(sys.executable).parent
MPS2_PLACES = ("mps2-1", "mps2-2", "mps2-3")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    wait_listening(port, proc, "labgrid-coordinator", log, 30)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def network_serial(port: int, name: str = "") -> str:
    """A NetworkSerialPort resource (raw TCP on 127.0.0.1:`port`, 115200 baud) as an
    exporter group's YAML: named `name` when the group has more than one."""
    head = f"  {name}:\n    cls: NetworkSerialPort\n" if name else "  NetworkSerialPort:\n"
    return f"{head}    host: 127.0.0.1\n    port: {port}\n    speed: 115200\n    protocol: raw\n"


@dataclass
class Lab:
    address: str
    root: Path
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def client(self, *args: str, user: str | None = None) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ)
        if user is not None:
            env["LG_USERNAME"] = user
        return subprocess.run(
            places.client_argv(self.address, *args),
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )

    def check(self, *args: str, user: str | None = None) -> str:
        r = self.client(*args, user=user)
        assert r.returncode == 0, r.stderr
        return r.stdout

    def place(self, name: str, tags: dict[str, str], match: str | None = None) -> None:
        self.check("-p", name, "create")
        self.check("-p", name, "set-tags", *(f"{k}={v}" for k, v in tags.items()))
        if match:
            self.check("-p", name, "add-match", match)

    def exported_place(
        self, place: str, board: str, exporter: str, group: str, resources: str
    ) -> None:
        """The place `place` (tag board=`board`) matching the resource group `group` that
        a new exporter `exporter` publishes; `resources`: the group's YAML, indented."""
        self.export(exporter, f"{group}:\n{resources}")
        self.place(place, {"board": board}, f"{exporter}/{group}/*")

    def export(self, name: str, config: str) -> None:
        """A labgrid-exporter named `name` with this resource YAML, once it is listed."""
        cfg = self.root / f"{name}.yaml"
        cfg.write_text(config)
        log = self.root / f"{name}.log"
        proc = spawn(
            [
                str(BIN / "labgrid-exporter"),
                "-c",
                self.address,
                "-n",
                name,
                "--hostname",
                "127.0.0.1",
                str(cfg),
            ],
            die_with_parent=True,  # a killed pytest leaves no exporter behind
            cwd=self.root,
            stdout=open(log, "w"),  # noqa: SIM115 - lives as long as the exporter
            stderr=subprocess.STDOUT,
        )
        self.procs.append(proc)
        deadline = time.monotonic() + 30
        while f"{name}/" not in self.client("resources").stdout:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"labgrid-exporter did not export: {log.read_text()[-500:]}")
            time.sleep(0.2)


@pytest.fixture(scope="package")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    for tool in ("labgrid-coordinator", "labgrid-exporter"):
        if not (BIN / tool).exists():
            pytest.fail(f"{BIN / tool} missing: `make setup` installs labgrid (pyproject.toml)")
    root = tmp_path_factory.mktemp("lab")
    port = free_port()
    log = root / "coordinator.log"
    coord = spawn(
        [str(BIN / "labgrid-coordinator"), "-l", f"127.0.0.1:{port}"],
        die_with_parent=True,  # a killed pytest leaves no coordinator behind
        cwd=root,  # its places.yaml and resources.yaml go here
        stdout=open(log, "w"),  # noqa: SIM115 - lives as long as the coordinator
        stderr=subprocess.STDOUT,
    )
    lab = Lab(f"127.0.0.1:{port}", root, [coord])
    try:
        _wait_port(port, coord, log)
        for name in MPS2_PLACES:
            lab.place(name, {"board": "mps2-an385"})
        yield lab
    finally:
        for proc in reversed(lab.procs):
            _stop(proc)


@pytest.fixture(scope="package")
def smoke_elf() -> Path:
    """The bare-metal smoke firmware the example spec runs (build/rtbench-qemu-nokernel)."""
    missing_tool("deps/apt.txt", "cmake", "arm-none-eabi-gcc", tq.QEMU)
    out = build_mps2()
    assert out == REPO_ROOT / "build" / "rtbench-qemu-nokernel"
    return out / "mps2-smoke-an385.elf"
