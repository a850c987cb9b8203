"""rtlab-toggle (C, Rust and Kotlin/Native) and rtlab-gpio-events against a real kernel GPIO driver.

One boot of qemu-system-aarch64 -M virt (Debian's arm64 kernel, its gpio-pl061 driver on
QEMU's PL061, a busybox initramfs) runs tests/lab/workloads/gpio/guest.sh; each test checks one
step of it. Boot and script take a few seconds under TCG. Figures from the guest are
emulated: the workloads label them (meta emulated=qemu-tcg) and no test reads a time
as a board figure.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rtlab.lab import gpio_guest as gg
from rtlab.protocol import Run, parse
from tests.needs import guest_can_boot
from tests.paths import REPO_ROOT

HERE = Path(__file__).resolve().parent
ROOT = REPO_ROOT
BOOT_TIMEOUT_S = 150  # 2 shared cores: the boot takes ~3 s alone, far less than this


@pytest.fixture(scope="module")
def guest() -> gg.GuestRun:
    guest_can_boot()
    run = gg.boot_guest(
        (HERE / "guest.sh").read_text(),
        timeout_s=BOOT_TIMEOUT_S,
        triggers={"ready=1": "system_powerdown"},  # pulses PL061 line 3
    )
    assert not run.timed_out, f"guest timed out after {run.seconds:.0f} s:\n{run.log[-3000:]}"
    assert run.exit_status == 0, run.log[-3000:]
    return run


def langs(guest: gg.GuestRun) -> list[str]:
    have = ["c"]
    if "@@have rust=1" in guest.log:
        have.append("rs")
    if "kotlin=1" in guest.log:
        have.append("kt")
    return have


def one_run(text: str) -> Run:
    runs = parse(text)
    assert len(runs) == 1, text
    return runs[0]


def test_rust_workload_is_in_the_guest(guest: gg.GuestRun) -> None:
    if "@@have rust=1" not in guest.log:
        pytest.fail(
            "no Rust workload in the guest: no Rust toolchain for aarch64 "
            "(deps/setup.d/rust-aarch64.sh; make setup)"
        )


def test_kotlin_workload_is_in_the_guest(guest: gg.GuestRun) -> None:
    if "kt" not in langs(guest):
        pytest.fail(
            "no Kotlin/Native workload in the guest (deps/setup.d/kotlin-native.sh; make setup)"
        )


@pytest.mark.parametrize("lang", ["c", "rs", "kt"])
def test_toggles_and_reads_back(guest: gg.GuestRun, lang: str) -> None:
    if lang not in langs(guest):
        pytest.skip(f"no {lang} workload in this guest")
    assert guest.rc(f"toggle_{lang}") == 0, guest.section(f"toggle_{lang}")
    run = one_run(guest.section(f"toggle_{lang}"))
    assert run.status == "ok" and run.complete, run.problems
    assert run.meta["emulated"] == "qemu-tcg"
    assert run.meta["chip_label"].endswith(".pl061")
    assert run.meta["lines"] == "0,1"
    assert run.counters["writes"][0] == 200
    # Read back through the uAPI (GET_VALUES) after every write: all as written.
    assert run.counters["readback_checks"][0] == 200
    assert run.counters["readback_errors"][0] == 0
    ts = run.series["write_ts"].values
    assert len(ts) == 200 and bool((np.diff(ts) > 0).all())
    assert len(run.series["period"].values) == 99


@pytest.mark.parametrize("lang", ["c", "rs", "kt"])
def test_absolute_period_mode(guest: gg.GuestRun, lang: str) -> None:
    if lang not in langs(guest):
        pytest.skip(f"no {lang} workload in this guest")
    run = one_run(guest.section(f"toggle_abs_{lang}"))
    assert run.status == "ok" and run.meta["mode"] == "abs"
    assert run.meta["interval_ns"] == "200000"
    ts = run.series["write_ts"].values
    # Deadlines are absolute: never sooner than the interval on average, whatever the
    # jitter (how much later depends on the host's load: no bound here).
    span = (ts[-1] - ts[0]) / (len(ts) - 1)
    assert span > 150_000
    assert "overruns" in run.counters


def test_line_is_claimed(guest: gg.GuestRun) -> None:
    others = [f"busy_{lang}" for lang in ("rs", "kt") if lang in langs(guest)]
    for step in ["busy_c", "busy_events", *others]:
        out = guest.section(step)
        assert guest.rc(step) == 3, out
        assert "line 2 of /dev/gpiochip0 busy: held by 'rtlab-toggle' (EBUSY)" in out
    if "rs" in langs(guest):
        assert "busy: held by 'rtlab-toggle-rs'" in guest.section("busy_by_rs")
    if "kt" in langs(guest):
        assert "busy: held by 'rtlab-toggle-kt'" in guest.section("busy_by_kt")


def test_released_on_sigint(guest: gg.GuestRun) -> None:
    assert guest.rc("hold_c") == 130
    run = one_run(guest.section("hold_c"))
    assert run.status == "interrupted" and run.message == "SIGINT"
    assert run.counters["writes"][0] > 0
    assert guest.rc("after_sigint_c") == 0, guest.section("after_sigint_c")


def test_released_on_sigterm_rust(guest: gg.GuestRun) -> None:
    if "rs" not in langs(guest):
        pytest.skip("no Rust workload in this guest")
    assert guest.rc("hold_rs") == 130
    run = one_run(guest.section("hold_rs"))
    assert run.status == "interrupted" and run.message == "SIGTERM"
    assert guest.rc("after_sigterm_rs") == 0, guest.section("after_sigterm_rs")


@pytest.mark.parametrize(("hold", "signal"), [("hold_kt", "SIGTERM"), ("hold_kt_int", "SIGINT")])
def test_released_on_signals_kotlin(guest: gg.GuestRun, hold: str, signal: str) -> None:
    if "kt" not in langs(guest):
        pytest.skip("no Kotlin/Native workload in this guest")
    assert guest.rc(hold) == 130, guest.section(hold)
    run = one_run(guest.section(hold))
    assert run.status == "interrupted" and run.message == signal
    assert run.counters["writes"][0] > 0
    after = "after_sigterm_kt" if signal == "SIGTERM" else "after_sigint_kt"
    assert guest.rc(after) == 0, guest.section(after)


# A parameter mistake (its step in the guest script is <mistake>_<language>): the exit
# status and the words every language's workload says for it.
BAD_PARAMETERS = {
    "range": (3, "line 8 out of range: /dev/gpiochip0 (9030000.pl061) has lines 0..7"),
    "chip": (3, "unknown GPIO chip /dev/gpiochip5: no such device"),
    "label": (3, "unknown GPIO chip 'no-such-chip'"),
    "notchip": (3, "/dev/null is not a GPIO character device"),
    "perm": (3, "no permission to open /dev/gpiochip0"),
    "usage": (2, "--mode: fast, busy, abs or usleep, got 'sideways'"),
}
# the guest script tries each mistake in C and Kotlin, four of them in Rust
MISTAKES_BY_LANGUAGE = {
    "c": list(BAD_PARAMETERS),
    "rs": ["range", "chip", "perm", "usage"],
    "kt": list(BAD_PARAMETERS),
}


@pytest.mark.parametrize(
    ("step", "rc", "message"),
    [
        (f"{mistake}_{lang}", *BAD_PARAMETERS[mistake])
        for lang, mistakes in MISTAKES_BY_LANGUAGE.items()
        for mistake in mistakes
    ]
    + [("range_events", 3, "line 9 out of range")],
)
def test_bad_parameters(guest: gg.GuestRun, step: str, rc: int, message: str) -> None:
    lang = step.rsplit("_", 1)[1]
    if lang in ("rs", "kt") and lang not in langs(guest):
        pytest.skip(f"no {lang} workload in this guest")
    out = guest.section(step)
    assert guest.rc(step) == rc, out
    assert message in out
    assert "@rtl1" not in out  # nothing claimed, nothing measured: no protocol run


def test_edge_events_with_kernel_timestamps(guest: gg.GuestRun) -> None:
    # QEMU's power button pulses line 3 for 100 ms of virtual time: rising, then falling.
    run = one_run(guest.section("events"))
    assert run.status == "ok", guest.section("events")
    assert run.series["edge_kind"].values.tolist() == [1, 2]
    assert run.series["edge_line"].values.tolist() == [3, 3]
    assert run.counters["events"][0] == 2 and run.counters["lost"][0] == 0
    (gap,) = run.series["interval"].values.tolist()
    assert 50_000_000 < gap < 500_000_000
