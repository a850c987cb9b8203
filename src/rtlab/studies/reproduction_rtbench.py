"""What rtlab measured for the RTOS studies (STM32, RP2040, K4perf), keyed by the
`measure` names of their data files (rtlab/studies/published/*.toml).

    cols = columns(store, cells)                  # one per rtbench cell with figures
    stm32(cols)["rank.sum.M3"].value              # {"Zephyr": 1234.0, ...}

A column is one rtbench invocation: its RTOS, core (rtos_compare.CORES: microbit is
"M0"), configuration, and figures per primitive — under QEMU icount the mean
instruction count (unit "instructions": no cycles, no cache), on a board with a clock
the median in cycles, else µs. Where several configurations of one RTOS ran on one
core, the "default" one speaks for it. The multi-core figures are
rtlab.studies.multicore's, one set per RTOS (parallel TCG preferred: icount withholds
the cross-core runs). Nothing is filled in: a figure a column lacks is absent, and the
verdict says "not measured".
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from rtlab.analysis.stats import median
from rtlab.catalog.emulation import QEMU_CYCLES as LABEL
from rtlab.catalog.machines import model_of
from rtlab.catalog.rtoses import title as rtos_title
from rtlab.protocol import Run
from rtlab.results import Store, multirun
from rtlab.results import query as results
from rtlab.studies import multicore, rtbench, rtos_compare
from rtlab.studies.reproduction import Measured
from rtlab.words import plural

ICOUNT = "QEMU icount (instruction-count model, not silicon)"
STM32_PRIMS = ("sem_give", "sem_take", "queue_send", "queue_recv", "preempt_sem", "return_sem",
               "preempt_queue", "return_queue")  # fmt: skip
SWI_THREAD = "swi_is_thread"
# The STM32 study's cores by rtlab's core labels: the cycles plugin's M0+ table (on QEMU's
# Cortex-M0 machine) and QEMU's M0 both stand for its Cortex-M0(+) board (STM32L073).
STM32_CORES = {"M0+": "M0"}
# Table 1's "GPIO set" is the study's baseline, what each pulse holds besides the call it
# brackets (subtracted from its preemption figures): under the cycles plugin, which times
# marker pulses and not the timestamps around one pin write, rtbench's empty bracket is
# its counterpart (its pin stores and the bracket's own code between them), taken off
# every one-pin pulse (rtlab.lab.qemu.cycles_output) and shown here, not judged.
BRACKET_HOW = "the empty marker bracket's pulse (taken off every figure here)"


@dataclass
class Column:
    cell: str
    rtos: str  # the study's name: FreeRTOS, NuttX, Zephyr, µC/OS-III
    core: str
    machine: str
    config: str
    unit: str
    env: str
    warm: dict[str, float]
    cold: dict[str, float]
    codes: frozenset[str]
    tick: float | None = None  # icount: the counter's tick in instructions
    tm1: dict[str, float] = field(default_factory=dict)  # one core, per second
    heap: dict[str, int] = field(default_factory=dict)
    # the cycles plugin: the empty marker bracket's pulse (a pin set, then cleared with
    # nothing between), median warm, in cycles
    bracket: float | None = None

    @property
    def name(self) -> str:
        return f"{self.rtos} on {self.machine} ({self.core}, {self.config})"


def column(label: str, runs: Sequence[Run]) -> Column:
    """One rtbench invocation's runs (rtlab.results.multirun.split) as a column."""
    meta = runs[0].meta
    warm, cold, icount, tick = rtos_compare.path_figures(runs)
    # a model is a machine of its own (its runs name the board whose images it runs)
    on_model = model_of(meta)
    machine = on_model.name if on_model else str(meta.get("qemu_machine") or meta.get("board", ""))
    hz = meta.get("cpu_hz")
    core = rtos_compare.CORES.get(machine, machine)
    if meta.get("timebase") == rtos_compare.QEMU_CYCLES and hz:
        # the plugin's core table names the core the figures are cycles of (M0+ timing
        # on QEMU's Cortex-M0 machine)
        unit, env = "cycles", LABEL
        core = str(meta.get("cycles_core", core)).removeprefix("Cortex-")
        warm = {k: v * float(hz) / 1e6 for k, v in warm.items()}
        cold = {k: v * float(hz) / 1e6 for k, v in cold.items()}
    elif icount:
        unit, env = "instructions", ICOUNT
    elif hz and not meta.get("emulated") and meta.get("board"):
        unit, env = "cycles", ""
        warm = {k: v * float(hz) / 1e6 for k, v in warm.items()}
        cold = {k: v * float(hz) / 1e6 for k, v in cold.items()}
    else:
        unit, env = "µs", str(meta.get("emulated") or "")
    col = Column(
        cell=label,
        rtos=rtos_title(meta.get("rtos", "")),
        core=core,
        machine=machine,
        config=str(meta.get("rtos_config", "default")),
        unit=unit,
        env=env,
        warm=warm,
        cold=cold,
        codes=frozenset(code for r in runs for code, _ in r.warnings),
        tick=tick,
    )
    if rtbench.scenario_runs(runs, "threadmetric"):
        col.tm1 = {t: v.per_second for t, v in rtbench.threadmetric_counts(runs).get(1, {}).items()}
    col.heap = rtbench.heap_peaks(runs)
    if unit == "cycles" and env == LABEL:  # the empty bracket's marker pulse, in cycles
        prims = rtbench.scenario_runs(runs, "primitives")
        cost = prims[-1].series.get("marker_cost") if prims else None
        if cost is not None and cost.values.size:
            col.bracket = float(median(cost.values))
    return col


def columns(store: Store, cells: dict[str, results.CellRuns]) -> list[Column]:
    """One column per rtbench cell that ran an RTOS, the default configuration first."""
    out = []
    for cr in cells.values():
        if cr.workload != "rtbench" or not cr.ok_ids:
            continue
        runs = multirun.split(store, cr.ok_ids[-1])
        if runs and runs[0].meta.get("rtos"):
            out.append(column(cr.label, runs))
    return sorted(out, key=lambda c: (c.config != "default", c.cell))


def _pick(cols: Sequence[Column], rtos: str, core: str) -> Column | None:
    return next((c for c in cols if c.rtos == rtos and c.core == core), None)


def _by_core(
    cols: Sequence[Column], same: Mapping[str, str] | None = None
) -> dict[str, dict[str, Column]]:
    """Per core (`same` names the labels that stand for another: "M0+" for "M0"), per
    RTOS, its first column (the default configuration first)."""
    out: dict[str, dict[str, Column]] = {}
    for c in cols:
        core = (same or {}).get(c.core, c.core)
        out.setdefault(core, {}).setdefault(c.rtos, c)
    return out


# ------------------------------------------------------------------ STM32 study


def stm32(cols: Sequence[Column]) -> dict[str, Measured]:
    out: dict[str, Measured] = {}
    labels = {**rtbench.PRIMITIVES}
    # Table 1's board is a Cortex-M0+: the nearest core first, and what differs from it
    near = ("M0+ model", "M0+", "M0", "M3", "M4F", "M7")
    unlike = {
        "M0+ model": "",
        "M0+": ": the M0+ timing table on QEMU's Cortex-M0 machine (cycle-approximate)",
        "M0": ": a Cortex-M0, not Table 1's M0+",
    }
    fr = sorted(
        (c for c in cols if c.rtos == "FreeRTOS" and c.warm),
        key=lambda c: near.index(c.core) if c.core in near else 9,
    )
    if fr:
        col = fr[0]
        how = col.name + unlike.get(col.core, ": no FreeRTOS on a Cortex-M0(+) here")
        warm = dict(col.warm)
        if "gpio_set" not in warm and col.bracket is not None:
            # shown, never judged against a pin write alone, nor ranked with the calls it
            # was taken off
            out["table1.gpio_set"] = Measured(
                col.bracket, col.unit, f"{how}; {BRACKET_HOW}", col.env, lacks=("pin",)
            )
        for prim, v in col.warm.items():
            out[f"table1.{prim}"] = Measured(v, col.unit, how, col.env, lacks=_lacks(col))
        table1 = {labels[p]: warm[p] for p in labels if p in warm}
        if table1:
            out["table1.order"] = Measured(table1, col.unit, how, col.env)
    for core, by in _by_core(cols, STM32_CORES).items():
        common = [p for p in STM32_PRIMS if all(p in c.warm for c in by.values())]
        if len(by) >= 2 and common:
            sums = {r: sum(c.warm[p] for p in common) for r, c in by.items()}
            unit = next(iter(by.values())).unit
            how = f"sum of {len(common)} primitives ({', '.join(common)}), default configurations"
            out[f"rank.sum.{core}"] = Measured(sums, unit, how, _env(by.values()))
        rows = {
            rtbench.PRIMITIVES[p]: {r: c.warm[p] for r, c in by.items() if p in c.warm}
            for p in STM32_PRIMS
        }
        if len(by) >= 2:
            out[f"rank.rows.{core}"] = Measured(rows, "", "per primitive", _env(by.values()))
    zephyr = {STM32_CORES.get(c.core, c.core): c for c in reversed(cols) if c.rtos == "Zephyr"}
    give_take = {
        core: c.warm["sem_give"] + c.warm["sem_take"]
        for core, c in zephyr.items()
        if "sem_give" in c.warm and "sem_take" in c.warm
    }
    if give_take:
        z = next(iter(zephyr.values()))
        out["zephyr.platforms"] = Measured(
            give_take, z.unit, f"Zephyr ran on {', '.join(sorted(zephyr))}", z.env, lacks=_lacks(z)
        )
    return out


def _lacks(col: Column) -> tuple[str, ...]:
    """What a column's environment does not model: QEMU icount neither cycles nor a cache;
    the cycles plugin no cache (every access a hit at the machine's wait states)."""
    if col.unit == "instructions":
        return ("cycles", "cache")
    return ("cache",) if col.env == LABEL else ()


def _env(cols: Iterable[Column]) -> str:
    envs = sorted({c.env for c in cols if c.env})
    return "; ".join(envs)


# ------------------------------------------------------------------ K4perf


# K4perf's clock (its conditions): its scope's ns are its DWT cycles at 125 MHz
K4PERF_HZ = 125e6
# rtbench's GPIO edge pass (--irq-ext): K4perf's own trigger, preferred where it ran
EXT = {"isr_handler": "isr_handler_ext", "isr_task": "isr_task_ext"}


def k4perf(cols: Sequence[Column]) -> dict[str, Measured]:
    """From one column with interrupt figures: FreeRTOS's (an NVIC interrupt on every
    machine) on the core nearest K4perf's M33; its GPIO edge pass where it has one."""
    near = ("M33", "M3", "M4F", "M7")  # K4perf's core first, then its kin
    have = [c for c in cols if "isr_handler" in c.warm and "isr_task" in c.warm]
    have.sort(key=lambda c: (c.rtos != "FreeRTOS", near.index(c.core) if c.core in near else 9))
    col = have[0] if have else None
    if col is None:
        return {}
    w, how = dict(col.warm), col.name
    cold = dict(col.cold)
    if all(e in col.warm for e in EXT.values()):
        how += ", GPIO edge interrupt (--irq-ext)"
        for name, ext in EXT.items():
            w[name] = col.warm[ext]
            if ext in col.cold:
                cold[name] = col.cold[ext]
    why = (
        f"{col.rtos}'s software interrupt is a signal-woken thread (swi_is_thread)"
        if SWI_THREAD in col.codes
        else ""
    )
    to_ns = {"instructions": 1.0, "µs": 1000.0}.get(col.unit)  # icount: 1 instruction = 1 ns
    ns_how = how
    if col.unit == "cycles" and col.env == LABEL:  # modelled cycles: at K4perf's clock
        to_ns, ns_how = 1e9 / K4PERF_HZ, f"{how}, cycles at K4perf's {K4PERF_HZ / 1e6:g} MHz"
    out = {
        "isr_handler.count": Measured(w["isr_handler"], col.unit, how, col.env, why),
        "isr_task.count": Measured(w["isr_task"], col.unit, how, col.env, why),
        "ratio.task_handler": Measured(
            w["isr_task"] / w["isr_handler"], "", how, col.env, why or _unresolved(col)
        ),
    }
    if to_ns is not None:
        out["isr_handler.ns"] = Measured(w["isr_handler"] * to_ns, "ns", ns_how, col.env, why)
        out["isr_task.ns"] = Measured(w["isr_task"] * to_ns, "ns", ns_how, col.env, why)
    if "isr_task_tm" in w:  # the busy loop's pass takes the software interrupt: against its own
        out["ratio.troublemaker"] = Measured(
            w["isr_task_tm"] / col.warm["isr_task"], "", col.name, col.env, why
        )
    for name, key in (("isr_handler", "ratio.cold_handler"), ("isr_task", "ratio.cold_task")):
        if name in cold:
            out[key] = Measured(
                cold[name] / w[name], "", how + ", first call ÷ mean", col.env, why,
                lacks=_lacks(col),
            )  # fmt: skip
    return out


def _unresolved(col: Column) -> str:
    """Why task ÷ handler means nothing when the handler fits in one counter tick."""
    h = col.warm["isr_handler"]
    if col.tick is not None and h <= col.tick:
        return (
            f"the handler latency ({h:g} {col.unit}) is within one counter tick "
            f"({col.tick:g} {col.unit}): the ratio is not resolved"
        )
    return ""


# ------------------------------------------------------------------ RP2040 study


def rp2040(
    cols: Sequence[Column], multi: Sequence[tuple[str, multicore.MulticoreFigures]]
) -> dict[str, Measured]:
    out: dict[str, Measured] = {}
    pair = next(
        (by for by in _by_core(cols).values() if "FreeRTOS" in by and "NuttX" in by
         and by["FreeRTOS"].tm1 and by["NuttX"].tm1),
        None,
    )  # fmt: skip
    if pair is not None:
        f, n = pair["FreeRTOS"], pair["NuttX"]
        how = f"one core, FreeRTOS and NuttX on {f.machine} ({f.core})"
        env = _env((f, n))
        for t in rtbench.TM_TESTS:
            if t not in f.tm1 or t not in n.tm1:
                continue
            why = ""
            if t in ("t4", "t5") and SWI_THREAD in n.codes:
                why = "NuttX's software interrupt is a signal-woken thread here (swi_is_thread)"
            vals = {"FreeRTOS": f.tm1[t], "NuttX": n.tm1[t]}
            out[f"tm1.order.{t}"] = Measured(vals, "/s", how, env, why)
            out[f"tm1.ratio.{t}"] = Measured(n.tm1[t] / f.tm1[t], "ratio", how, env, why)
        if all(t in f.tm1 and t in n.tm1 for t in ("t2", "t3")):
            adv = {"T2": f.tm1["t2"] / n.tm1["t2"], "T3": f.tm1["t3"] / n.tm1["t3"], "parity": 1.0}
            out["tm1.advantage.t2_t3"] = Measured(adv, "", how, env)
        peaks = {
            c.rtos: max((v for k, v in c.heap.items() if k.startswith("threadmetric")), default=0)
            for c in (f, n)
        }
        if all(peaks.values()):
            out["heap.order"] = Measured(peaks, "bytes", how, env)
    out.update(_multicore(multi))
    return out


def _multicore(multi: Sequence[tuple[str, multicore.MulticoreFigures]]) -> dict[str, Measured]:
    """Per RTOS one figure set (parallel TCG before icount), then the claims' figures."""
    chosen: dict[str, multicore.MulticoreFigures] = {}
    for _, f in sorted(multi, key=lambda lf: lf[1].setting.mode != "parallel-tcg"):
        name = rtos_title(f.setting.rtos)
        chosen.setdefault(name, f)
    out: dict[str, Measured] = {}
    drops: dict[str, float] = {}
    scaling: dict[str, float] = {}
    at70: dict[str, float] = {}
    for name, f in chosen.items():
        how = f"{name} on {f.setting.board}, {plural(f.repetitions, 'repetition')}"
        env = f.setting.mode_text
        t8 = f.tm.get("t8", {})
        if 1 in t8 and 2 in t8 and t8[1].mean:
            drops[name] = t8[2].mean / t8[1].mean
            out[f"t8.drop.{name}"] = Measured(drops[name], "ratio", how, env)
        two = [v[2].mean for v in f.scaling.values() if 2 in v]
        if two:
            scaling[name] = sum(two) / len(two)
            out[f"scaling.{name}"] = Measured(scaling[name], "%", how, env)
        levels = sorted(f.contention)
        if len(levels) >= 3 and levels[0] == 0:
            ct = [f.contention[lv].mean for lv in levels]
            steps = [a - b for a, b in itertools.pairwise(ct)]
            out[f"contention.steps.{name}"] = Measured(
                {"0→10 %": steps[0], "any later 10 % step": max(steps[1:])}, "% points", how, env
            )
            if 70 in f.contention:
                at70[name] = f.contention[70].mean
    boards = {n: f.setting.board for n, f in chosen.items()}
    for key, vals in (("t8.drop.order", drops), ("scaling.order", scaling),
                      ("contention.order", at70)):  # fmt: skip
        if vals:
            where = {boards[n] for n in vals}
            why = (
                "no machine ran both: " + ", ".join(f"{n} on {boards[n]}" for n in vals)
                if len(where) > 1
                else ""
            )
            envs = "; ".join(sorted({chosen[n].setting.mode_text for n in vals}))
            out[key] = Measured(vals, "", "two cores", envs, why)
    return out
