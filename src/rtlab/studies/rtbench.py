"""rtbench results as the studies tabulated them (docs/rtbench.md).

Input: the runs `rtlab.protocol.parse` returns for one rtbench invocation (one
run per scenario and core count). Output: plain dataclasses a report renders:

- `primitive_table(run)`: each primitive of the STM32 study's Table 1 (and the interrupt
  latencies of the kernel-v4 study) in microseconds and in cycles at a given clock;
- `threadmetric_counts(runs)`: T1..T8 iterations per window, per core count;
- `scalability(runs)`: patterns p1..p6 normalized to the single-core run = 100 %;
- `contention(run)`: target throughput per stress level normalized to 0 % = 100 %;
- `heap_peaks(runs)`: peak heap per scenario (and per Thread-Metric test).

Running it (`params_from_mapping`, `posix_argv`, `run_posix`) is the `rtbench` workload
kind's part: rtlab.lab.workloads.rtbench.

Rates are counts divided by the measured window (`NAME.elapsed_us`), so a window the
timer task closed late does not inflate a count.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rtlab.analysis.stats import quantiles
from rtlab.catalog.study_errors import RtbenchError
from rtlab.protocol import Run
from rtlab.words import plural

# series name -> label, in the order of the STM32 study's Table 1
PRIMITIVES: dict[str, str] = {
    "gpio_set": "GPIO set high",
    "gpio_clear": "GPIO set low",
    "sem_give": "Semaphore give",
    "sem_take": "Semaphore take",
    "queue_send": "Queue send",
    "queue_recv": "Queue receive",
    "preempt_sem": "Preemption via semaphore",
    "return_sem": "Return from preemption (semaphore)",
    "preempt_queue": "Preemption via queue",
    "return_queue": "Return from preemption (queue)",
}
IRQ: dict[str, str] = {
    "isr_handler": "Interrupt handler latency",
    "isr_task": "Task activation latency",
    "isr_handler_tm": "Interrupt handler latency, troublemaker",
    "isr_task_tm": "Task activation latency, troublemaker",
    "isr_handler_ext": "Interrupt handler latency, GPIO edge",
    "isr_task_ext": "Task activation latency, GPIO edge",
}
TM_TESTS: tuple[str, ...] = tuple(f"t{i}" for i in range(1, 9))
TM_LABELS: dict[str, str] = {
    "t1": "T1 basic processing",
    "t2": "T2 cooperative scheduling",
    "t3": "T3 preemptive scheduling",
    "t4": "T4 interrupt processing",
    "t5": "T5 interrupt preemption",
    "t6": "T6 message passing",
    "t7": "T7 semaphore",
    "t8": "T8 memory allocation",
}
PATTERNS: dict[str, str] = {
    "p1": "P1 get count",
    "p23": "P2-3 take + give",
    "p4": "P4 queue send + receive",
    "p5": "P5 event set + clear",
    "p6": "P6 priority get",
}


@dataclass(frozen=True)
class PrimitiveRow:
    name: str
    label: str
    n: int
    median_us: float
    mean_us: float  # under icount the finer figure: a path's start drifts over the tick grid
    min_us: float
    p99_us: float
    max_us: float
    cold_us: float | None
    median_cycles: float | None  # at the clock given to primitive_table, None without
    min_cycles: float | None


@dataclass(frozen=True)
class Throughput:
    name: str
    label: str
    cores: int
    count: int
    elapsed_us: int
    per_second: float
    per_thread: tuple[int, ...]


def scenario_runs(runs: Iterable[Run], scenario: str) -> list[Run]:
    return [r for r in runs if r.meta.get("scenario") == scenario]


def _one(runs: Iterable[Run], scenario: str) -> Run:
    """The scenario's last run, one with figures before a withheld one."""
    found = scenario_runs(runs, scenario)
    if not found:
        raise RtbenchError(f"no {scenario!r} run in the input")
    given = [r for r in found if not r.meta.get("withheld")]
    return (given or found)[-1]


def last_given(runs: Iterable[Run], scenario: str) -> Run | None:
    """As _one, or None when the scenario did not run."""
    return _one(runs, scenario) if scenario_runs(runs, scenario) else None


def _tick_s(run: Run, name: str) -> Fraction:
    tick = run.series[name].tick_s
    if tick is None:
        raise RtbenchError(f"series {name!r} has no tick length: cannot convert to time")
    return tick


ICOUNT_NOTE = "instruction-count model (QEMU -icount: 1 instruction = 1 ns), not time"


def timebase_note(run: Run) -> str | None:
    """What the run's µs figures really are, when they are not wall-clock time."""
    if run.meta.get("timebase") == "icount":
        return ICOUNT_NOTE
    return None


# What the board did before each series' first sample (rtbench's meta cold): K4perf's
# cold run from flash vs the warm steady state.
COLD_MEANINGS = {
    "first_call": "the first call of each path; no cache was emptied before it",
    "art_reset": "the first call after the flash accelerator (ART) caches were reset",
    "icache_invalidated": "the first call after the instruction cache was invalidated",
    "icache_dcache_invalidated": (
        "the first call after the instruction cache was invalidated and the data cache "
        "written back and invalidated"
    ),
    "xip_cache_flushed": "the first call after the XIP flash cache was flushed",
    "xip_cache_invalidated": "the first call after the XIP flash cache was invalidated",
}


def cold_note(run: Run) -> str | None:
    """What the run's cold column is (None for runs from before rtbench said so)."""
    how = run.meta.get("cold")
    if how is None:
        return None
    return f"cold µs: {COLD_MEANINGS.get(how, how)}"


def primitive_table(
    run: Run, cpu_hz: float | None = None, names: dict[str, str] | None = None
) -> list[PrimitiveRow]:
    """One row per primitive present in `run` (a primitives or irq run).

    Cycles are time x `cpu_hz`; without it the run's `cpu_hz` metadata is used, and
    without that cycles are None (a nanosecond clock says nothing about the CPU clock).
    """
    if names is None:
        names = PRIMITIVES if run.meta.get("scenario") == "primitives" else IRQ
    hz = cpu_hz if cpu_hz is not None else float(run.meta.get("cpu_hz", 0)) or None
    rows = []
    for name, label in names.items():
        if name not in run.series or len(run.series[name].values) == 0:
            continue
        v = run.series[name].values
        us = float(_tick_s(run, name)) * 1e6
        cold = run.counters.get(f"{name}.cold")
        med_ticks, p99_ticks = quantiles(v, (0.5, 0.99))
        med = med_ticks * us
        lo = float(v.min()) * us
        rows.append(
            PrimitiveRow(
                name=name,
                label=label,
                n=int(v.size),
                median_us=med,
                mean_us=float(v.mean()) * us,
                min_us=lo,
                p99_us=p99_ticks * us,
                max_us=float(v.max()) * us,
                cold_us=cold[0] * us if cold else None,
                median_cycles=med * hz / 1e6 if hz else None,
                min_cycles=lo * hz / 1e6 if hz else None,
            )
        )
    return rows


def _throughputs(run: Run, names: dict[str, str]) -> dict[str, Throughput]:
    cores = int(run.meta.get("cores", 1))
    out = {}
    for name, label in names.items():
        if name not in run.counters:
            continue
        count = run.counters[name][0]
        elapsed = run.counters.get(f"{name}.elapsed_us", (0, None))[0]
        per = run.series.get(f"{name}.per_thread")
        out[name] = Throughput(
            name=name,
            label=label,
            cores=cores,
            count=count,
            elapsed_us=elapsed,
            per_second=count * 1e6 / elapsed if elapsed > 0 else float("nan"),
            per_thread=tuple(int(x) for x in per.values) if per is not None else (),
        )
    return out


def threadmetric_counts(runs: Sequence[Run]) -> dict[int, dict[str, Throughput]]:
    """{cores: {"t1": Throughput, ...}} for every threadmetric run."""
    found = scenario_runs(runs, "threadmetric")
    if not found:
        raise RtbenchError("no 'threadmetric' run in the input")
    return {int(r.meta.get("cores", 1)): _throughputs(r, TM_LABELS) for r in found}


def scalability(runs: Sequence[Run], basis: str = "per_core") -> dict[str, dict[int, float]]:
    """{pattern: {cores: percent of the single-core run}}.

    basis "per_core": throughput per active core (total / cores) against the one-core
    run, so 100 % means perfect scaling and less shows serialization in the kernel (the
    study's reading); "total": total throughput, perfect scaling reads cores x 100 %.
    """
    if basis not in ("per_core", "total"):
        raise RtbenchError(f"basis must be 'per_core' or 'total', got {basis!r}")
    by_cores = {
        int(r.meta.get("cores", 1)): _throughputs(r, PATTERNS)
        for r in scenario_runs(runs, "scalability")
    }
    if 1 not in by_cores:
        raise RtbenchError("scalability needs the single-core run (cores=1) as reference")
    out: dict[str, dict[int, float]] = {}
    for p in PATTERNS:
        ref = by_cores[1].get(p)
        if ref is None or not ref.per_second > 0:
            continue
        out[p] = {}
        for cores, tps in sorted(by_cores.items()):
            if p in tps:
                rate = tps[p].per_second / (cores if basis == "per_core" else 1)
                # ratio first: x / x is exactly 1.0, so the reference reads exactly 100 %
                out[p][cores] = 100.0 * (rate / ref.per_second)
    return out


def contention(run: Run) -> dict[int, float]:
    """{stress level %: target throughput as percent of level 0}."""
    if run.meta.get("scenario") != "contention":
        raise RtbenchError(f"not a contention run: scenario={run.meta.get('scenario')!r}")
    if run.meta.get("withheld"):  # the target kept no figure (rtlab.lab.qemu.timing)
        code = run.meta["withheld"]
        raise RtbenchError(
            f"contention on {run.meta.get('cores', '?')} cores: {code}: {withheld_why(run)}"
        )
    levels = [int(x) for x in run.meta.get("levels", "").split(",") if x]
    tps = _throughputs(run, {f"contention_{lv}": "" for lv in levels})
    base = tps.get("contention_0")
    if base is None:
        raise RtbenchError("contention needs level 0 as the reference")
    if not base.per_second > 0:
        raise RtbenchError(
            "contention not measured: the target task ran 0 times at stress level 0 "
            f"({_starved_why(run)})"
        )
    return {
        lv: 100.0 * (tps[f"contention_{lv}"].per_second / base.per_second)
        for lv in levels
        if f"contention_{lv}" in tps
    }


def _starved_why(run: Run) -> str:
    """Why a target ran 0 times at level 0, where the stress task leaves it its own core."""
    cores = int(run.meta.get("cores", 1))
    if cores < 2:
        # equal priorities, no time slicing: the stress task never yields, so the target
        # never runs and there is no contention to measure (Zephyr's default)
        return "one core, equal priorities and no time slicing: the stress task never yields"
    # its own core, and still no turn: something held that core for the whole window. On
    # Linux as root, the kernel keeps ~50 ms of each second from SCHED_FIFO for starved
    # SCHED_OTHER work (RT throttling; since 6.12 the fair server, in one piece): a
    # loaded host's 30 ms window fits inside it. Or another process's higher thread.
    return (
        f"on {cores} cores, where the stress task runs on another core: something held "
        "the target's core for the whole window"
        + (", e.g. RT throttling (rt_throttling warning)" if _warned(run, "rt_throttling") else "")
    )


def _warned(run: Run, code: str) -> bool:
    return any(c == code for c, _ in run.warnings)


def withheld_why(run: Run) -> str:
    """Why a withheld part has no figure: its warning (a stored invocation keeps the
    warnings of all its parts together, so the one naming this scenario)."""
    code = run.meta.get("withheld", "")
    msgs = [msg for c, msg in run.warnings if c == code]
    scenario = run.meta.get("scenario", "")
    own = [m for m in msgs if f" {scenario} " in f" {m} "]
    return (own or msgs or [code])[0]


def heap_peaks(runs: Sequence[Run]) -> dict[str, int]:
    """{"scenario[@cores][/test]": peak bytes} wherever the port reported one."""
    out = {}
    for r in runs:
        key = r.meta.get("scenario", "?")
        if r.meta.get("scenario") in ("threadmetric", "scalability"):
            key += f"@{r.meta.get('cores', '1')}"
        if "heap_peak" in r.counters:
            out[key] = r.counters["heap_peak"][0]
        for t in TM_TESTS:
            if f"{t}.heap_peak" in r.counters:
                out[f"{key}/{t}"] = r.counters[f"{t}.heap_peak"][0]
    return out


def _per_core_table(
    title: str, what: str, cores: Sequence[int], rows: dict[str, list[str]]
) -> list[str]:
    """A Markdown table with one column per core count, and the blank line after it."""
    out = [
        f"### {title}",
        "",
        f"| {what} | " + " | ".join(plural(c, "core") for c in cores) + " |",
        "| --- |" + " ---: |" * len(cores),
    ]
    out += [f"| {label} | " + " | ".join(cells) + " |" for label, cells in rows.items()]
    return [*out, ""]


def markdown(runs: Sequence[Run], cpu_hz: float | None = None) -> str:
    """All tables the runs allow, as Markdown (a quick look; the report renders its own)."""
    out: list[str] = []
    for scen in ("primitives", "irq"):
        if not scenario_runs(runs, scen):
            continue
        one = _one(runs, scen)
        rows = primitive_table(one, cpu_hz)
        note = timebase_note(one)
        out += [
            f"### {scen}" + (f" ({note})" if note else ""),
            "",
            "| | median µs | mean µs | min µs | p99 µs | cold µs | cycles |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in rows:
            cyc = f"{row.median_cycles:.0f}" if row.median_cycles is not None else "–"
            cold = f"{row.cold_us:.3f}" if row.cold_us is not None else "–"
            out.append(
                f"| {row.label} | {row.median_us:.3f} | {row.mean_us:.3f} | {row.min_us:.3f} | "
                f"{row.p99_us:.3f} | {cold} | {cyc} |"
            )
        how_cold = cold_note(one)
        out += ["", how_cold + ".", ""] if how_cold else [""]
    if scenario_runs(runs, "threadmetric"):
        tm = threadmetric_counts(runs)
        cores = sorted(tm)
        per_test = {
            label: [f"{tm[c][t].per_second:.0f}" if t in tm[c] else "–" for c in cores]
            for t, label in TM_LABELS.items()
        }
        out += _per_core_table("Thread-Metric (iterations per second)", "test", cores, per_test)
    if scenario_runs(runs, "scalability"):
        sc = scalability(runs)
        cores = sorted({c for v in sc.values() for c in v})
        per_pattern = {PATTERNS[p]: [f"{v[c]:.1f}" for c in cores] for p, v in sc.items()}
        title = "Scalability (per core, single core = 100 %)"
        out += _per_core_table(title, "pattern", cores, per_pattern)
    try:
        ct = contention(_one(runs, "contention")) if scenario_runs(runs, "contention") else {}
    except RtbenchError as exc:
        out += ["### Contention", "", f"{exc}.", ""]
        ct = {}
    if ct:
        out += [
            "### Contention (level 0 % = 100 %)",
            "",
            "| stress % | " + " | ".join(str(lv) for lv in ct) + " |",
            "| --- |" + " ---: |" * len(ct),
            "| throughput % | " + " | ".join(f"{x:.1f}" for x in ct.values()) + " |",
            "",
        ]
    peaks = heap_peaks(runs)
    if peaks:
        out += ["### Heap peak (bytes)", "", "| where | bytes |", "| --- | ---: |"]
        out += [f"| {k} | {v} |" for k, v in peaks.items()]
        out.append("")
    return "\n".join(out)
