"""The capture firmware in the lockstep emulator, decoded by the real host driver.

Toggle times are cycles relative to the capture origin (the first PIO sample). The
program samples every 2 cycles, so an edge driven at cycle c must come back as tick
t = ceil(c / 2), i.e. 0 <= 2t - c <= 1: within one PIO cycle.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from rtlab.instruments.rp2040.driver import RP2040Module, selftest_params
from rtlab.model import Capture
from tests.instruments.rp2040 import harness as h

pytestmark = pytest.mark.usefixtures("emulator_tools")


@pytest.fixture(scope="module", autouse=True)
def firmware() -> Path:
    return h.build_firmware()


def capture(tmp: Path, base: int, nch: int, duration: Fraction, **kw) -> tuple[Capture, dict]:
    selftest = kw.pop("selftest", None)
    flags = kw.pop("flags", 0)
    with h.running(tmp, **kw) as proc:
        mod = RP2040Module(h.PipePort(proc), timeout_s=30)
        mod.hello()
        cap = mod.capture(base, nch, duration, selftest=selftest, flags=flags)
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=30)
    return cap, h.summary(tmp)


def expected_ticks(cycles: list[int]) -> np.ndarray:
    return (np.asarray(cycles, dtype=np.int64) + 1) // 2


def in_gaps(ticks: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    inside = np.zeros(ticks.shape, dtype=bool)
    for lo, hi in gaps:
        inside |= (ticks >= lo) & (ticks < hi)
    return inside


def check_channel(cap: Capture, name: str, cycles: list[int]) -> None:
    """Every decoded edge is a driven one within one cycle; every driven edge outside a
    gap is decoded."""
    want = expected_ticks(cycles)
    keep = ~in_gaps(want, cap.gaps)
    got = cap[name].edges
    assert len(got) == int(keep.sum()), f"{name}: {len(got)} decoded, {keep.sum()} expected"
    err = 2 * got - np.asarray(cycles, dtype=np.int64)[keep]
    assert err.min() >= 0 and err.max() <= 1, f"{name}: error {err.min()}..{err.max()} cycles"


def random_toggles(rng: random.Random, n: int, start: int, lo: int, hi: int) -> list[int]:
    out, t = [], start
    for _ in range(n):
        t += rng.randint(lo, hi)
        out.append(t)
    return out


def test_every_edge_within_one_cycle(tmp_path: Path) -> None:
    rng = random.Random(6)
    toggles = {
        2: random_toggles(rng, 300, 3, 2, 3000),
        3: random_toggles(rng, 300, 0, 2, 40),
        4: [2, 4, 6, 9, 11, 400_000],  # minimum 2-cycle pulses
        5: random_toggles(rng, 200, 1000, 500, 2000),
    }
    cap, summ = capture(tmp_path, 2, 4, Fraction(4, 1000), toggles=toggles, initial={3: 1})
    assert len(cap.gaps) == 0
    assert cap.tick_s == Fraction(16, 10**9) and cap.resolution == cap.tick_s
    assert cap["GP3"].initial_level == 1 and cap["GP2"].initial_level == 0
    for pin, cyc in toggles.items():
        check_channel(cap, f"GP{pin}", cyc)
    assert summ["edges_driven"] == sum(len(v) for v in toggles.values())
    assert cap.t_end is not None and cap.t_end >= max(int(ch.edges[-1]) for ch in cap)


def test_eight_channels_both_pios_share_one_time_base(tmp_path: Path) -> None:
    rng = random.Random(8)
    common = random_toggles(rng, 50, 100, 2, 5000)  # the same edges on every pin
    toggles = {
        pin: common + random_toggles(rng, 100, common[-1] + 10, 2, 500) for pin in range(6, 14)
    }
    cap, _ = capture(tmp_path, 6, 8, Fraction(2, 1000), toggles=toggles)
    assert len(cap.gaps) == 0 and cap.metadata["ring_words"] == 4096  # 8 streams: 16 KB
    for pin, cyc in toggles.items():
        check_channel(cap, f"GP{pin}", cyc)
    first = {int(ch.edges[0]) for ch in cap}
    assert len(first) == 1, "PIO0 and PIO1 channels must start in the same cycle"


def test_burst_of_50k_edges_at_full_rate_is_lossless(tmp_path: Path) -> None:
    burst = [1000 + 2 * i for i in range(50_000)]  # an edge on every sample, 100k cycles
    cap, _ = capture(tmp_path, 2, 1, Fraction(2, 1000), toggles={2: burst})
    assert len(cap.gaps) == 0 and cap.metadata["records_lost"]["GP2"] == 0
    check_channel(cap, "GP2", burst)


def test_burst_overflow_becomes_gap(tmp_path: Path) -> None:
    burst = [10_000 + 2 * i for i in range(60_000)]  # full PIO rate: an edge per sample
    after = [burst[-1] + 1000 * (i + 1) for i in range(200)]
    slow = [777 * (i + 1) for i in range(400)]
    toggles = {2: burst + after, 3: slow}
    cap, _ = capture(tmp_path, 2, 2, Fraction(3, 1000), toggles=toggles)
    assert cap.metadata["ring_words"] == 28672
    lost = cap.metadata["records_lost"]
    assert lost["GP2"] > 0 and len(cap.gaps) >= 1, "the burst must overflow the ring"
    # Nothing silently dropped: driven = decoded + inside a declared gap.
    for pin, cyc in toggles.items():
        check_channel(cap, f"GP{pin}", cyc)
    # After the gap the channel's level is known and right (parity of the records).
    ticks = expected_ticks(toggles[2])
    for g, (_, hi) in enumerate(cap.gaps):
        level = int(np.count_nonzero(ticks < hi) % 2)
        assert cap["GP2"].gap_levels is not None
        assert cap["GP2"].gap_levels[g] == level
    # The slow edges after the burst all came through.
    assert cap["GP2"].edges[-1] == expected_ticks([after[-1]])[0]


def test_selftest_two_channels_from_one_wire_have_no_skew(tmp_path: Path) -> None:
    """The self-test looped to two channels at once: the instrument's own channel-to-
    channel offset, which must be zero (one clock, one start cycle)."""
    div, top = selftest_params(2000)
    cap, _ = capture(
        tmp_path, 2, 2, Fraction(2, 1000), loop=[(15, 2), (15, 3)], selftest=(15, div, top)
    )
    a, b = cap["GP2"].edges, cap["GP3"].edges
    assert len(a) > 100 and a.tolist() == b.tolist()


def test_usb_cdc_stream(tmp_path: Path) -> None:
    """The same capture over the firmware's own USB CDC device, enumerated by rp2040js's
    host-side helper (simplified enumeration: this does not prove a Linux host accepts
    it)."""
    rng = random.Random(3)
    toggles = {2: random_toggles(rng, 2000, 1000, 2, 400), 3: [5000, 5002, 5004]}
    cap, summ = capture(tmp_path, 2, 2, Fraction(3, 1000), toggles=toggles, usb=True)
    assert summ["usbConnectedCycle"] > 0
    assert len(cap.gaps) == 0
    for pin, cyc in toggles.items():
        check_channel(cap, f"GP{pin}", cyc)


def test_selftest_square_wave(tmp_path: Path) -> None:
    period = 1250  # cycles: 10 us
    div, top = selftest_params(period)
    cap, _ = capture(tmp_path, 2, 1, Fraction(2, 1000), loop=(15, 2), selftest=(15, div, top))
    rises = cap["GP2"].edge_times("rising")
    assert len(rises) > 100
    assert set(np.diff(rises).tolist()) == {period // 2}  # ticks of 2 cycles
    assert cap.metadata["selftest_period_cycles"] == period


def test_session_start_stop_around_a_workload(tmp_path: Path) -> None:
    from rtlab.instruments.rp2040.session import CaptureSession

    toggles = {2: [100 + 400 * i for i in range(2000)]}
    with h.running(tmp_path, toggles=toggles) as proc:
        mod = RP2040Module(h.PipePort(proc), timeout_s=30)
        with CaptureSession(mod, 2, 1) as session:
            while session.status is None or session.status.k < 100_000:  # the "workload"
                time.sleep(0.01)
            cap = session.stop()
    assert len(cap.gaps) == 0 and len(cap["GP2"]) > 200
    assert set(np.diff(cap["GP2"].edges).tolist()) == {200}


def test_counter_wrap_costs_no_cycle(tmp_path: Path) -> None:
    """X starts at 2^16 (test flag), so it wraps ~1 ms into the run instead of after
    68.7 s: every time comes back shifted by the same constant, across the wrap."""
    from rtlab.instruments.rp2040.wire import START_TEST_X_WRAP

    rng = random.Random(5)
    toggles = {
        2: random_toggles(rng, 2500, 100, 2, 200),
        3: random_toggles(rng, 300, 100, 300, 400),
    }
    toggles[3] += random_toggles(rng, 4000, 128_000, 4, 6)  # edges around X's wrap
    cap, _ = capture(tmp_path, 2, 2, Fraction(3, 1000), toggles=toggles, flags=START_TEST_X_WRAP)
    shift = 2**32 - 1 - 2**16  # ~X0 with X0 = 2^16 instead of 0xFFFFFFFF
    assert len(cap.gaps) == 0
    for pin, cyc in toggles.items():
        want = expected_ticks(cyc)
        got = cap[f"GP{pin}"].edges
        assert len(got) == len(want)
        assert set((got - want).tolist()) == {shift}
    # both counters really wrapped: decrements (samples minus edges) passed 2^16
    assert all(int(ch.edges[-1]) - shift - (len(ch) - 1) > 2**16 for ch in cap)


def test_a_capture_left_running_is_stopped_by_the_next_host(tmp_path: Path) -> None:
    from rtlab.instruments.rp2040 import wire as proto

    toggles = {2: [100 + 400 * i for i in range(10_000)]}  # cycles from the first start
    with h.running(tmp_path, toggles=toggles) as proc:
        port = h.PipePort(proc)
        port.write(proto.cmd_start(2, 1))  # a previous host started and went away
        mod = RP2040Module(port, timeout_s=30)
        mod.hello()
        cap = mod.capture(2, 1, Fraction(1, 1000))
    assert len(cap.gaps) == 0 and len(cap["GP2"]) > 100
    assert set(np.diff(cap["GP2"].edges).tolist()) == {200}


def test_fine_mode_8ns_exact(tmp_path: Path) -> None:
    """8 ns mode: two state machines per pin, one clock apart, sample every clock, so
    every edge comes back at exactly the driven clock, 1-clock pulses included."""
    from rtlab.instruments.rp2040.wire import START_FINE

    rng = random.Random(88)
    toggles = {
        2: random_toggles(rng, 2000, 50, 1, 300),  # spacing down to 1 clock
        3: [101, 102, 1001, 1003, 2000, 2001, 2002, 2003] + [3000 + i for i in range(40)],
    }  # a clk/2 pulse train: every clock an edge
    cap, _ = capture(tmp_path, 2, 2, Fraction(2, 1000), toggles=toggles, flags=START_FINE)
    assert cap.tick_s == Fraction(8, 10**9) and cap.metadata["phases"] == 2
    assert len(cap.gaps) == 0
    for pin, cyc in toggles.items():
        assert cap[f"GP{pin}"].edges.tolist() == cyc


@pytest.mark.parametrize(
    ("channels", "first", "burst", "tail", "ring_words"),
    [(4, lambda pin: 1000 + (pin - 2), 40_000, (50, 1000), 14336),
     (5, lambda pin: 500 + (pin % 2), 20_000, (30, 700), 8192)],
    ids=["4-channels-lap-their-rings", "5-channels-ring-wrap"],
)  # fmt: skip
def test_channels_bursting_together_overflow_exactly(
    tmp_path: Path,
    channels: int,
    first: Callable[[int], int],
    burst: int,
    tail: tuple[int, int],
    ring_words: int,
) -> None:
    """Every channel bursts at full rate at once (an edge every 2 cycles), several passes
    of its ring each while the CPU is busy with the others: four channels, 14 336-record
    rings; five, 32 KB DMA ring-wrap buffers (8 192 records). Whatever survives must be
    exact, and the slow tail afterwards (`tail`: edges, cycles apart) must all come
    through."""
    pins = range(2, 2 + channels)
    toggles = {pin: [first(pin) + 2 * i for i in range(burst)] for pin in pins}
    for pin in toggles:
        toggles[pin] += [toggles[pin][-1] + tail[1] * (i + 1) for i in range(tail[0])]
    cap, _ = capture(tmp_path, 2, channels, Fraction(2, 1000), toggles=toggles)
    assert cap.metadata["ring_words"] == ring_words and len(cap.gaps) >= 1
    for pin, cyc in toggles.items():
        check_channel(cap, f"GP{pin}", cyc)
        assert cap[f"GP{pin}"].edges[-1] == expected_ticks([cyc[-1]])[0]


def test_pio_fifo_stall_ends_trusted_data_with_a_gap(tmp_path: Path) -> None:
    """The DMA stops serving GP2's state machine for a while (as when several channels at
    tens of M edges/s saturate it): the FIFO fills, the state machine stalls and its
    clock is lost. The firmware must notice, keep only what came before, and the host
    must mark everything after as a gap: no edge with a wrong time."""
    toggles = {2: [100 + 50 * i for i in range(2000)], 3: [130 + 70 * i for i in range(1000)]}
    cap, _ = capture(
        tmp_path, 2, 2, Fraction(2, 1000), toggles=toggles, dma_pause=(0, 20_000, 30_000)
    )
    assert cap.metadata["stalled"] == ["GP2"]
    assert len(cap.gaps) == 1 and cap.gaps[0][1] == cap.t_end + 1
    assert cap.t_end is not None
    for pin, cyc in toggles.items():  # the capture ends at the stall
        check_channel(cap, f"GP{pin}", [c for c in cyc if (c + 1) // 2 <= cap.t_end])
    # kept: what was written before the last poll that saw no stall (conservative)
    assert 50 < len(cap["GP2"]) < 20_000 // 50


def test_fine_mode_overflow_is_exact(tmp_path: Path) -> None:
    """8 ns mode, a burst beyond both state machines' rings, then a slow tail."""
    from rtlab.instruments.rp2040.wire import START_FINE

    burst = [300 + 2 * i for i in range(40_000)]
    tail = [burst[-1] + 333 * (i + 1) for i in range(100)]
    cap, _ = capture(tmp_path, 2, 1, Fraction(2, 1000), toggles={2: burst + tail}, flags=START_FINE)
    assert len(cap.gaps) >= 1 and cap.metadata["records_lost"]["GP2"] > 0
    got = cap["GP2"].edges
    want = np.asarray(burst + tail)
    keep = ~in_gaps(want, cap.gaps)
    assert got.tolist() == want[keep].tolist()
    assert got[-100:].tolist() == tail
