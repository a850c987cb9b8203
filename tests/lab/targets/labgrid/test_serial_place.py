"""RTOS boards on labgrid places, read through labgrid's SerialDriver from a serial port a
real labgrid-exporter publishes: an emulated serial board (QEMU mps2 under icount started
by the `qemu` flasher where the place's NetworkSerialPort points) stores what the direct
`qemu` target stores; a Nucleo place whose debug probe is not plugged in is one error
from labgrid's OpenOCDDriver role, before any run."""

from __future__ import annotations

import re
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from rtlab.lab.runner import run_spec
from rtlab.lab.spec import load_spec, parse_spec
from rtlab.lab.targets.base import make_target
from rtlab.lab.targets.labgrid import places
from rtlab.results import Store
from tests.conftest import rtlab
from tests.instruments.rp2040 import harness as h
from tests.lab.targets.labgrid.conftest import Lab, free_port, network_serial
from tests.lab.targets.labgrid.test_mps2_places import DIRECT, _stored
from tests.lab.targets.serial.conftest import PortServer
from tests.paths import REPO_ROOT

EXAMPLE = REPO_ROOT / "examples" / "labgrid" / "serial-mps2.toml"
NUCLEO = REPO_ROOT / "examples" / "labgrid" / "nucleo-f411re.toml"
TARGET = re.compile(r"^\[target\]\n(?:(?!\[).*\n)*", re.M)


def _serial_place(lab: Lab, monkeypatch: pytest.MonkeyPatch, n: str, board: str) -> None:
    """The place serial-mps2-1 (n "") or serial-mps2<n>, tagged `board`, over the
    NetworkSerialPort mps2-serial<n> of the exporter serial-exporter<n>; the lab's
    coordinator in LG_COORDINATOR and the repository the working directory (the
    example's paths are the repository's)."""
    place = f"serial-mps2{n or '-1'}"
    lab.exported_place(
        place, board, f"serial-exporter{n}", f"mps2-serial{n}", network_serial(free_port())
    )
    monkeypatch.chdir(REPO_ROOT)
    monkeypatch.setenv("LG_COORDINATOR", lab.address)


def test_example_serial_place_stores_what_qemu_stores(
    lab: Lab, smoke_elf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _serial_place(lab, monkeypatch, "", "mps2-an385-serial")
    spec = load_spec(EXAMPLE)
    with Store(tmp_path / "lab" / "rtlab.duckdb") as st:
        out = run_spec(spec, st)
        assert [r.status for r in out.runs] == ["ok"] * 4, [r.message for r in out.runs]
        rows = st.runs(spec_name=spec.name)
        assert {r["target"]["place"] for r in rows} == {"serial-mps2-1"}
        assert {r["target"]["serial"] for r in rows} == {"labgrid SerialDriver"}
        assert {r["target"]["flasher"] for r in rows} == {"qemu"}
        via_labgrid = _stored(st, spec.name)
    assert places.holder(lab.address, "serial-mps2-1") is None  # released
    direct = parse_spec(TARGET.sub(DIRECT, EXAMPLE.read_text()), EXAMPLE)
    with Store(tmp_path / "direct" / "rtlab.duckdb") as st:
        assert {r.status for r in run_spec(direct, st).runs} == {"ok"}
        by_qemu = _stored(st, direct.name)
    assert len(by_qemu) == 4 and by_qemu == via_labgrid


def test_wrong_image_on_a_serial_place(
    lab: Lab, smoke_elf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The place's board is described as mps2-an386; the an385 image says otherwise."""
    _serial_place(lab, monkeypatch, "-2", "x")
    text = EXAMPLE.read_text().replace('place = "serial-mps2-1"', 'place = "serial-mps2-2"')
    text = text.replace('board = "mps2-an385"', 'board = "mps2-an386"')
    spec = tmp_path / "s.toml"
    spec.write_text(text.replace('env = "examples/', f'env = "{REPO_ROOT}/examples/'))
    store = tmp_path / "st.duckdb"
    proc = rtlab("run", str(spec), "--store", str(store), timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "wrong image on board mps2-an386" in proc.stderr and "Traceback" not in proc.stderr
    with Store(store) as st:
        assert st.runs() == []
    assert places.holder(lab.address, "serial-mps2-2") is None


def test_nucleo_place_without_its_probe(
    lab: Lab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/labgrid.md's Nucleo spec on a place whose exporter has its serial port but not
    its ST-LINK: one line naming the probe, exit 2, nothing stored, the place released."""
    vcp = PortServer(b"")
    try:
        probe = "  USBDebugger:\n    match:\n      ID_SERIAL_SHORT: 066DFF555185754867154835\n"
        lab.exported_place(
            "nucleo-f411re-1", "nucleo-f411re", "nucleo-exporter", "nucleo-f411re-1",
            network_serial(vcp.port) + probe,
        )  # fmt: skip
        monkeypatch.chdir(REPO_ROOT)
        monkeypatch.setenv("LG_COORDINATOR", lab.address)
        store = tmp_path / "st.duckdb"
        proc = rtlab("run", str(NUCLEO), "--store", str(store), timeout=300)
    finally:
        vcp.stop()
    err = proc.stderr.strip()
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "labgrid place nucleo-f411re-1: its debug probe" in err, err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert not store.exists() or Store(store).runs() == []
    assert places.holder(lab.address, "nucleo-f411re-1") is None


SIGROK = REPO_ROOT / "examples" / "labgrid" / "mps2-sigrok.toml"


def test_the_places_analyzer_is_the_instrument(
    lab: Lab, smoke_elf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A place = board + instrument: the exporter publishes a SigrokDevice (sigrok's demo
    driver, captured by the real sigrok-cli), the spec's [instrument] driver = "labgrid"
    takes it from the place rtlab holds."""
    lab.exported_place(
        "mps2-sigrok-1", "mps2-an385-sigrok", "sigrok-exporter", "mps2-bench",
        "  SigrokDevice:\n    driver: demo\n",
    )  # fmt: skip
    monkeypatch.chdir(REPO_ROOT)
    monkeypatch.setenv("LG_COORDINATOR", lab.address)
    spec = load_spec(SIGROK)
    with Store(tmp_path / "rtlab.duckdb") as st:
        (res,) = run_spec(spec, st).runs
        assert res.status == "ok", res.message
        info = st.run_info(res.run_id)
        assert info["fingerprint"]["instrument"]["driver"] == "demo"
        assert info["params"]["instrument"]["driver"] == "labgrid"
        assert st.samples(res.run_id, "instrument.period").size > 100
        assert info["meta"]["timebase"] == "icount"
    assert places.holder(lab.address, "mps2-sigrok-1") is None


def test_labgrid_analyzer_on_another_target_is_one_error(tmp_path: Path) -> None:
    text = SIGROK.read_text().split("[instrument]")[1]
    spec = tmp_path / "s.toml"
    spec.write_text('name = "s"\n[target]\nkind = "local"\n[instrument]' + text)
    proc = rtlab("run", str(spec), "--store", str(tmp_path / "s.duckdb"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert '"labgrid" names the device of a labgrid place; the target is local' in proc.stderr


def test_the_capture_modules_port_is_a_second_serial_resource(lab: Lab, tmp_path: Path) -> None:
    """A Nucleo + its Pico capture module on one place: two NetworkSerialPorts, the
    board's bound by the role's SerialDriver, the Pico's by a SerialDriver named
    `instrument`; [instrument] port = "labgrid" becomes the Pico's URL."""
    board_port, pico_port = PortServer(b""), PortServer(b"")
    try:
        lab.exported_place(
            "nucleo-pico-1", "pair", "pair-exporter", "nucleo-pico",
            network_serial(board_port.port, "board-port") + network_serial(pico_port.port, "pico"),
        )  # fmt: skip
        env = tmp_path / "env.yaml"
        env.write_text(
            "targets:\n  main:\n    drivers:\n"
            "      - SerialDriver:\n          bindings: {port: board-port}\n"
            "      - SerialDriver:\n          name: instrument\n          bindings: {port: pico}\n"
        )
        spec = parse_spec(
            f'name = "p"\n[target]\nkind = "labgrid"\nenv = "{env}"\nplace = "nucleo-pico-1"\n'
            f'coordinator = "{lab.address}"\nboard = "mps2-an385"\n'
            '[instrument]\nkind = "rp2040"\nport = "labgrid"\nchannels = [2]\n'
            '[[workload]]\nkind = "command"\nname = "x"\nseconds = 1\nargv = [["x.elf"]]\n'
        )
        target: Any = make_target(spec.target)
        try:
            assert spec.instrument is not None
            inst = target.place_instrument(spec.instrument)
            assert inst.port == f"socket://127.0.0.1:{pico_port.port}"
            assert target.describe()["serial"] == "labgrid SerialDriver"
            assert target.board.serial.port.port == board_port.port
        finally:
            target.close()
        assert places.holder(lab.address, "nucleo-pico-1") is None
    finally:
        board_port.stop()
        pico_port.stop()


@pytest.mark.usefixtures("emulator_tools")
def test_the_places_pico_times_the_run_over_the_network(
    lab: Lab, smoke_elf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A place = an emulated board + its Pico: the capture module (rtlab's firmware in
    the RP2040 emulator) answers on a TCP port the exporter publishes as the place's
    NetworkSerialPort `pico`; `[instrument] port = "labgrid"` captures through it."""
    h.build_firmware()
    half = 500  # cycles: a 1000-cycle (8 us) period on GP2 = 500 ticks of 16 ns
    toggles = {2: [100 + half * i for i in range(6000)]}
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = int(server.getsockname()[1])
    running: list[tuple[socket.socket, subprocess.Popen[bytes]]] = []

    def serve() -> None:  # the module starts when rtlab opens its port, as on USB
        conn, _ = server.accept()
        fd = conn.fileno()
        running.append((conn, h.start(tmp_path, toggles=toggles, stdin=fd, stdout=fd)))

    threading.Thread(target=serve, daemon=True).start()
    lab.exported_place(
        "mps2-pico-1", "mps2-pico", "pico-exporter", "mps2-pico", network_serial(port, "pico")
    )
    env = tmp_path / "env.yaml"
    env.write_text(
        (REPO_ROOT / "examples" / "labgrid" / "mps2-env.yaml")
        .read_text()
        .replace(
            "tools:",
            "      SerialDriver:\n        name: instrument\n        bindings: {port: pico}\ntools:",
        )
    )
    monkeypatch.chdir(REPO_ROOT)
    spec = parse_spec(
        f'name = "pico"\n[target]\nkind = "labgrid"\nenv = "{env}"\nplace = "mps2-pico-1"\n'
        f'coordinator = "{lab.address}"\n'
        '[instrument]\nkind = "rp2040"\nport = "labgrid"\nchannels = 2\nnames = ["pin"]\n'
        "timeout_s = 30\n"
        '[[workload]]\nkind = "command"\nname = "smoke"\nseconds = 0.2\n'
        f'argv = [["{smoke_elf}"]]\n'
    )
    try:
        with Store(tmp_path / "rtlab.duckdb") as st:
            (res,) = run_spec(spec, st).runs
            assert res.status == "ok", res.message
            period = st.samples(res.run_id, "instrument.period")
            info = st.run_info(res.run_id)
    finally:
        for conn, proc in running:
            proc.kill()
            proc.wait()
            conn.close()
        server.close()
    assert period.size > 10 and set(period.tolist()) == {half}
    assert info["fingerprint"]["instrument"]["port"] == f"socket://127.0.0.1:{port}"
    assert info["params"]["instrument"]["port"] == "labgrid"
    assert places.holder(lab.address, "mps2-pico-1") is None
