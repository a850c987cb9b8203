"""`rtlab run` with `[instrument] kind = "rp2040"`: the emulated module on a pseudo-terminal
is armed before a real rtlab-latency run and stopped after it; the pin's periods land in
the store as `instrument.period` in 16 ns ticks."""

from __future__ import annotations

import os
import tty
from fractions import Fraction
from pathlib import Path

import pytest

from rtlab import formats
from rtlab.lab.c_targets import build_c_target
from rtlab.lab.runner import run_spec
from rtlab.lab.spec import parse_spec
from rtlab.results import Store
from tests.instruments.rp2040 import harness as h

pytestmark = pytest.mark.usefixtures("emulator_tools")


def test_runner_drives_the_module_around_a_run(tmp_path: Path) -> None:
    h.build_firmware()
    build_c_target("rtlab-latency")
    half = 500  # cycles: a 1000-cycle (8 us) period on GP2 = 500 ticks of 16 ns
    toggles = {2: [100 + half * i for i in range(6000)], 3: [350 + half * i for i in range(6000)]}
    master, slave = os.openpty()
    tty.setraw(slave)
    proc = h.start(tmp_path, toggles=toggles, stdin=master, stdout=master)
    spec = parse_spec(
        f"""\
name = "rp"
[instrument]
kind = "rp2040"
port = "{os.ttyname(slave)}"
channels = "2-3"
names = ["pin", "echo"]
response = "echo"
timeout_s = 30

[[workload]]
kind = "rtlab-latency"
duration = "200ms"
""",
        tmp_path / "rp.toml",
    )
    store = tmp_path / "s" / "rtlab.duckdb"
    try:
        with Store(store) as st:
            (res,) = run_spec(spec, st).runs
            assert res.status == "ok", res.message
            period = st.samples(res.run_id, "instrument.period")
            lat = st.samples(res.run_id, "instrument.latency")
            meta = st.run_info(res.run_id)["meta"]
            ticks = st.sql(
                "SELECT DISTINCT tick_num, tick_den FROM series WHERE run_id=? "
                "AND name LIKE 'instrument.%'",
                [res.run_id],
            )
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
        os.close(slave)
    assert period.size > 10 and set(period.tolist()) == {half}  # 2 * half cycles / 2
    assert set(lat.tolist()) == {125}  # echo rises 250 cycles after pin: 125 ticks
    assert ticks == [(1, 62_500_000)], period.size  # 16 ns
    assert meta["instrument.kind"] == "rp2040" and meta["instrument.firmware"]
    cap = formats.load(store.parent / meta["instrument.capture_file"])
    assert cap.tick_s == Fraction(16, 10**9) and list(cap.channels) == ["pin", "echo"]
