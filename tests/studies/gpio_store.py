"""Stores of GPIO toggle runs written through the real path: protocol text as the
toggle programs print it (docs/gpio-workloads.md) → protocol.parse → RunWriter; the
instrument's series added the way the runner stores a capture (int64 ticks of 16 ns).

Every generated value is kept in `Truth` so that tests compute the expected figures
with numpy, independently of rtlab's statistics.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from rtlab.protocol import Writer, parse
from rtlab.results import Store

TICK = Fraction(16, 10**9)  # the study's 16 ns RP2040 samples


@dataclass
class Truth:
    """Per cell label: the values each source produced, pooled over ok runs (ns)."""

    self_period: dict[str, list[np.ndarray]] = field(default_factory=dict)
    self_intervals: dict[str, list[np.ndarray]] = field(default_factory=dict)
    inst_period: dict[str, list[np.ndarray]] = field(default_factory=dict)
    inst_levels: dict[str, list[np.ndarray]] = field(default_factory=dict)

    def pooled(self, which: str, label: str) -> np.ndarray:
        return np.concatenate(getattr(self, which)[label])


def toggle_output(
    kind: str, write_ts: np.ndarray, policy: str, meta: dict[str, str], language: str | None
) -> str:
    """What rtlab-toggle -t prints: header, write_ts and period series, counters, end."""
    w = Writer()
    w.hello(kind, "0.1.0")
    w.meta(kernel="6.12.47-current-sunxi64")
    w.meta(api="gpio-cdev-v2", **({"language": language} if language else {}))
    w.meta(chip="gpiochip0", chip_label="300b000.pinctrl", lines="73", mode="fast")
    w.meta(clock="monotonic", policy=policy)
    for k, v in meta.items():
        w.meta(**{k: v})
    n = write_ts.size
    period = write_ts[2::2] - write_ts[: n - 2 : 2]  # toggle.c: ts[i + 2] - ts[i], i += 2
    w.series("write_ts", write_ts, unit="ns", encoding="sb")
    w.series("period", period, unit="ns", encoding="sb")
    w.counter("writes", n, "count")
    w.counter("elapsed_ns", int(write_ts[-1] - write_ts[0]), "ns")
    w.end("ok")
    return w.text()


def _levels(rng: np.random.Generator, n: int, high: int, low: int) -> np.ndarray:
    """Alternating high/low level durations (ns) with noise and rare long outliers."""
    d = np.empty(n, np.int64)
    d[0::2] = high
    d[1::2] = low
    d += rng.integers(-20, 21, n)
    spikes = rng.random(n) < 0.001  # about the study: RMS ≈ 200 ns from rare spikes
    d[spikes] += rng.integers(500, 20_000, int(spikes.sum()))
    return d


def add_toggle_run(
    st: Store,
    truth: Truth,
    rng: np.random.Generator,
    *,
    name: str,
    kind: str,
    policy: str = "other",
    condition: str = "idle",
    writes: int = 4001,
    high: int = 1030,
    low: int = 1170,
    instrument: bool = True,
    meta: dict[str, str] | None = None,
    language: str | None = None,
    status_ok: bool = True,
) -> str:
    label = f"{name}[policy={policy}]@{condition}"
    # The pin's edges as the instrument sees them (16 ns samples), and the writes'
    # timestamps a constant clock-read cost later (plus noise) as the program sees them.
    edges_ns = 5_000 + np.concatenate(([0], np.cumsum(_levels(rng, writes - 1, high, low))))
    write_ts = 10**9 + edges_ns + 150 + rng.integers(0, 40, writes)
    text = toggle_output(kind, write_ts, policy, meta or {}, language)
    run = parse(text, source=label)[0]
    assert run.complete, run.problems
    params = {
        "workload": name,
        "label": label,
        "params": {"mode": "fast", "timestamps": True, "policy": policy},
        "condition": {"name": condition},
    }
    with st.run(
        workload=kind,
        spec_name="gpio",
        cell_key=f"{label}#0",
        params=params,
        target={"kind": "ssh", "host": "board"},
    ) as w:
        w.add_protocol_run(run)
        if instrument:
            e = edges_ns // 16  # sample index of each edge
            lv = np.diff(e)
            w.add_series("instrument.period", e[2::2] - e[:-2:2], unit="ticks", tick_s=TICK)
            w.add_series("instrument.high", lv[0::2], unit="ticks", tick_s=TICK)
            w.add_series("instrument.low", lv[1::2], unit="ticks", tick_s=TICK)
        if not status_ok:
            w.status = "error"
    if status_ok:
        truth.self_period.setdefault(label, []).append(run.series["period"].values)
        truth.self_intervals.setdefault(label, []).append(np.diff(write_ts))
        if instrument:
            e = edges_ns // 16
            truth.inst_period.setdefault(label, []).append((e[2::2] - e[:-2:2]) * 16)
            truth.inst_levels.setdefault(label, []).append(np.diff(e) * 16)
    return label


def add_latency_run(st: Store) -> str:
    """A run of another kind (no GPIO): the study's section must ignore it."""
    w = Writer()
    w.hello("rtlab-latency", "0.1.0")
    w.series("latency", np.arange(1000, 1100), unit="ns")
    w.end("ok")
    run = parse(w.text())[0]
    label = "wake@idle"
    with st.run(
        workload="rtlab-latency",
        spec_name="other",
        cell_key=f"{label}#0",
        params={"workload": "wake", "label": label, "condition": {"name": "idle"}},
    ) as rw:
        rw.add_protocol_run(run)
    return label


def c_and_kotlin_store(path: Path) -> Store:
    """C and Kotlin/Native cells; Kotlin's levels 8.8 % longer, as in the study."""
    st = Store(path)
    rng, truth = np.random.default_rng(3), Truth()
    add_toggle_run(st, truth, rng, name="c", kind="rtlab-toggle", language="c")
    add_toggle_run(
        st, truth, rng, name="kotlin", kind="rtlab-toggle-kt", language="kotlin",
        high=1121, low=1273,
    )  # fmt: skip
    return st


def make_gpio_store(path: Path, *, emulated: bool = False) -> tuple[Path, Truth]:
    """C with instrument (2 ok runs + 1 failed), Rust with instrument (2 runs), a C cell
    under SCHED_FIFO without instrument, and one latency run."""
    rng = np.random.default_rng(7)
    truth = Truth()
    meta = {"emulated": "qemu-tcg"} if emulated else {}
    with Store(path) as st:
        for _ in range(2):
            add_toggle_run(st, truth, rng, name="c", kind="rtlab-toggle", meta=meta)
        add_toggle_run(st, truth, rng, name="c", kind="rtlab-toggle", meta=meta, status_ok=False)
        for _ in range(2):
            add_toggle_run(
                st,
                truth,
                rng,
                name="rust",
                kind="rtlab-toggle-rs",
                high=1120,
                low=1270,
                meta=meta,
                language="rust",
            )
        add_toggle_run(
            st,
            truth,
            rng,
            name="c",
            kind="rtlab-toggle",
            policy="fifo",
            instrument=False,
            meta=meta,
        )
        add_latency_run(st)
    return path, truth
