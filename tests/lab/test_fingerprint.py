"""The environment fingerprint, read from this very machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from rtlab.lab.fingerprint import (
    LoadMonitor,
    fingerprint,
    parse_cmdline,
    pitfalls,
    preemption_model,
)
from tests.conftest import latency_output


def codes(warnings: list[dict[str, str]]) -> set[str]:
    return {w["code"] for w in warnings}


def test_fingerprint_is_json_and_matches_this_host() -> None:
    fp = fingerprint()  # its speed: bench/speed_checks.py
    json.loads(json.dumps(fp))  # JSON-able, nothing exotic inside
    assert fp["kernel"]["release"] == os.uname().release
    assert fp["kernel"]["version"] == os.uname().version
    assert fp["cmdline"] == Path("/proc/cmdline").read_text().strip()
    assert fp["cpu"]["count"] == os.cpu_count()
    cs = Path("/sys/devices/system/clocksource/clocksource0/current_clocksource")
    if cs.exists():
        assert fp["clocksource"]["current"] == cs.read_text().strip()
    assert fp["process"]["timer_slack_ns"] == int(Path("/proc/self/timerslack_ns").read_text())
    assert fp["process"]["policy"] == "other"
    rt = Path("/sys/kernel/realtime")
    assert fp["kernel"]["preempt_rt"] == (rt.exists() and rt.read_text().strip() == "1")
    assert fp["kernel"]["preempt_rt"] == ("no_preempt_rt" not in codes(fp["warnings"]))


def test_virtualization_agrees_with_cpuinfo() -> None:
    fp = fingerprint()
    flag = " hypervisor" in Path("/proc/cpuinfo").read_text()
    assert fp["virtualization"]["cpuinfo_hypervisor_flag"] == flag
    if flag:
        assert fp["virtualization"]["virtual"] and "vm" in codes(fp["warnings"])


def test_run_pitfalls_from_workload_meta() -> None:
    risky = {"policy": "other", "method": "usleep", "timer_slack_ns": "50000", "mlockall": "0"}
    fp = fingerprint(risky)
    assert {"timer_slack", "no_mlockall"} <= codes(fp["warnings"])
    safe = {"policy": "fifo", "method": "usleep", "timer_slack_ns": "0", "mlockall": "1"}
    assert not {"timer_slack", "no_mlockall"} & codes(pitfalls(fp, safe))
    slack1 = {"policy": "other", "method": "clock_nanosleep", "timer_slack_ns": "1"}
    assert "timer_slack" not in codes(pitfalls(fp, slack1))


def test_fingerprint_of_a_real_latency_run() -> None:
    from rtlab.protocol import parse_one

    run = parse_one(latency_output("-l", "20", "-i", "200", "-w", "usleep"))
    assert "timer_slack" in codes(fingerprint(run.meta)["warnings"])


def test_parse_cmdline_and_preemption_model() -> None:
    cmd = "ro quiet isolcpus=2,3 nohz_full=2-3 idle=poll threadirqs -- isolcpus=9"
    assert parse_cmdline(cmd) == {
        "isolcpus": "2,3",
        "nohz_full": "2-3",
        "idle": "poll",
        "threadirqs": True,
    }
    assert preemption_model("#1 SMP PREEMPT_RT Debian", None) == "PREEMPT_RT"
    assert preemption_model("#1 SMP PREEMPT_DYNAMIC", None) == "PREEMPT_DYNAMIC"
    assert (
        preemption_model("#1 SMP PREEMPT_DYNAMIC", None, "none voluntary (full) lazy")
        == "PREEMPT_DYNAMIC(full)"
    )
    assert preemption_model("#1 SMP", "1") == "PREEMPT_RT"
    assert preemption_model("#1 SMP PREEMPT Tue", None) == "PREEMPT"


def test_load_monitor_sees_a_busy_cpu() -> None:
    # A child burns one CPU for 0.5 s: at least ~1/ncpu of the machine was busy.
    with LoadMonitor() as load:
        subprocess.run(
            [sys.executable, "-c", "import time\nt=time.time()\nwhile time.time()-t<0.5: pass"],
            check=True,
        )
    r = load.result()
    assert r["seconds"] >= 0.5
    assert r["cpu_busy"] is not None and r["cpu_busy"] > 0.7 / (os.cpu_count() or 1)
    json.dumps(r)
