"""What rtlab measured for each published study, keyed by the `measure` names of the
data files, and the reproductions the report shows.

    reps = reproductions(store, cells)    # one Reproduction per study the runs speak to

The GPIO study's figures come from rtlab.studies.gpio (per implementation the
SCHED_OTHER cell, the study's default; the instrument's figures where a capture exists,
else the workload's own timestamps); the user-vs-kernel study's from
rtlab.studies.user_vs_kernel, the minimum stable period once per repetition (its
run-to-run range); the RTOS studies' from rtlab.studies.reproduction_rtbench.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import gpio as gpio_study
from rtlab.studies import multicore
from rtlab.studies import reproduction_rtbench as rtb
from rtlab.studies import user_vs_kernel as uvk
from rtlab.studies.multicore import MulticoreFigures
from rtlab.studies.reproduction import STUDIES, Measured, Reproduction, load, reproduce
from rtlab.studies.reproduction_robust import Variant, robust
from rtlab.words import plural

# rtlab's implementation names -> the study's
GPIO_NAMES = {"C": "C/C++", "Kotlin/Native": "Kotlin/Native"}
ICOUNT_SPREAD = (
    "an instruction-count model (QEMU icount): its spread is where the guest's timer "
    "interrupts land, no board's jitter"
)


# ------------------------------------------------------------------ GPIO study


def _env(environment: str) -> str:
    """'emulated (qemu-tcg)' -> 'qemu-tcg': what a row's "emulated vs silicon" names."""
    return environment.removeprefix("emulated ").strip("()")


def gpio(st: gpio_study.Study | None) -> dict[str, Measured]:
    if st is None:
        return {}
    picked: dict[str, tuple[gpio_study.CellStudy, gpio_study.SourceStats]] = {}
    for c in sorted(st.cells, key=lambda c: c.policy != "other"):
        name = GPIO_NAMES.get(c.implementation)
        if name is None or name in picked or not c.sources:
            continue
        src = next((s for s in c.sources if s.source == gpio_study.INSTRUMENT), c.sources[0])
        picked[name] = (c, src)
    out: dict[str, Measured] = {}
    for name, (c, s) in picked.items():
        how = f"{c.label}, {s.source}, {plural(s.runs, 'run')}"
        env = _env(c.environment)
        p = s.period
        out[f"mean_ns.{name}"] = Measured(p.mean, "ns", how, env)
        out[f"n.{name}"] = Measured(float(p.n), "periods", how)
    if len(picked) == 2:
        (cc, cs), (kc, ks) = picked["C/C++"], picked["Kotlin/Native"]
        how = f"{kc.label} ÷ {cc.label} ({ks.source})"
        env = "; ".join(sorted({_env(x.environment) for x in (cc, kc) if x.environment}))
        cp, kp = cs.period, ks.period
        clocks = {cc.clock, kc.clock}
        noisy = ("timing",) if "host" in clocks else ()
        # an instruction count's spread is where the guest's timer interrupts land
        model = "" if noisy or "icount" not in clocks else ICOUNT_SPREAD
        out["ratio.mean_ns"] = Measured(kp.mean / cp.mean, "", how, env)
        out["ratio.p50_ns"] = Measured(kp.quantiles[0.5] / cp.quantiles[0.5], "", how, env)
        out["order.rms_ns"] = Measured(
            {"C/C++": cp.rms, "Kotlin/Native": kp.rms}, "ns", how, env, model, lacks=noisy
        )
        out["order.max_dev_ns"] = Measured(
            {"C/C++": cp.max_dev, "Kotlin/Native": kp.max_dev}, "ns", how, env, model,
            lacks=noisy,
        )  # fmt: skip
        if cs.levels is not None and ks.levels is not None:
            med = ks.levels.abs_dev_quantiles[0.5] / cs.levels.abs_dev_quantiles[0.5]
            out["ratio.fig2_median_ns"] = Measured(med, "", how, env, model, lacks=noisy)
    return out


# ------------------------------------------------------------------ user vs kernel


def _by_repetition(cells: dict[str, results.CellRuns]) -> dict[int, dict[str, results.CellRuns]]:
    reps = sorted({int(r.get("repetition") or 0) for cr in cells.values() for r in cr.runs})
    out = {}
    for rep in reps:
        out[rep] = {
            k: dataclasses.replace(
                cr, runs=[r for r in cr.runs if int(r.get("repetition") or 0) == rep]
            )
            for k, cr in cells.items()
        }
    return out


def _load_condition(st: uvk.Study) -> str | None:
    conds = {r.condition for r in st.rows}
    return "load" if "load" in conds else ("kload" if "kload" in conds else None)


def user_vs_kernel(store: Store, cells: dict[str, results.CellRuns]) -> dict[str, Measured]:
    st = uvk.study(store, cells)
    if st is None:
        return {}
    env = "; ".join(st.emulated)
    # the minimum stable period is a tail figure (p99.9), the spreads are RMS jitter
    noisy = ("timing",) if any(e.endswith(uvk.HOST_TIME) for e in st.emulated) else ()
    out: dict[str, Measured] = {}
    per_rep = [s for s in (uvk.study(store, c) for c in _by_repetition(cells).values()) if s]
    pooled: dict[tuple[str, str], float] = {}
    for m in st.minimum:
        if m.condition != "idle":
            continue
        vals = [
            math.inf if x.period_us is None else x.period_us
            for s in per_rep
            for x in s.minimum
            if (x.method, x.kernel, x.condition) == (m.method, m.kernel, m.condition)
        ]
        tried = ", ".join(uvk.fmt(t) for t in m.tried_us)
        how = f"{m.method}, {m.kernel}, idle; periods tried {tried} µs"
        out[f"min.{m.method}.{m.kernel}"] = Measured(
            tuple(vals), "µs", how, env, grid=tuple(m.tried_us), lacks=noisy
        )
        pooled[(m.method, m.kernel)] = math.inf if m.period_us is None else m.period_us
    user, kernel = "user usleep", "kernel hrtimer (hard)"
    if (user, "stock") in pooled and (kernel, "stock") in pooled:
        by_method = {"kernel": pooled[(kernel, "stock")], "user": pooled[(user, "stock")]}
        out["order.stock"] = Measured(
            by_method, "µs", "pooled runs, idle, stock", env, lacks=noisy
        )
    if (kernel, "stock") in pooled and (kernel, "PREEMPT_RT") in pooled:
        by_kernel = {k: pooled[(kernel, k)] for k in ("stock", "PREEMPT_RT")}
        how = "pooled runs, idle, kernel hrtimer"
        out["order.rt"] = Measured(by_kernel, "µs", how, env, lacks=noisy)
    rows = {(r.method, r.kernel, r.condition, r.period_us): r for r in st.rows}
    if (r := rows.get((user, "stock", "idle", 100.0))) is not None:
        out["overshoot.usleep100"] = Measured(r.mean_us - 100.0, "µs", "mean − 100 µs", env)
    for kernel_name, t in (("stock", 20.0), ("PREEMPT_RT", 40.0)):
        if (r := rows.get((kernel, kernel_name, "idle", t))) is not None:
            key = f"mean.{kernel}.{kernel_name}.{t:g}"
            out[key] = Measured(r.mean_us, "µs", f"mean actual period, {r.n} periods", env)
    load = _load_condition(st)
    for method, kernel_name, t in ((user, "stock", 100.0), (kernel, "PREEMPT_RT", 40.0)):
        idle, busy = (
            rows.get((method, kernel_name, "idle", t)),
            rows.get((method, kernel_name, load or "", t)),
        )
        if idle is not None and busy is not None:
            out[f"spread.{method}.{kernel_name}.{t:g}"] = Measured(
                {"load": busy.rms_jitter_us, "idle": idle.rms_jitter_us}, "µs RMS",
                f"RMS jitter; load = rtlab's {load!r} condition", env, lacks=noisy,
            )  # fmt: skip
    return out


# ------------------------------------------------------------------ all studies


def measures(
    store: Store,
    cells: dict[str, results.CellRuns],
    gpio_st: gpio_study.Study | None = None,
    multi: list[tuple[str, MulticoreFigures]] | None = None,
) -> dict[str, dict[str, Measured]]:
    """Per study key, the measured figures (empty when its runs are not selected)."""
    cols = rtb.columns(store, cells)
    return {
        "stm32": rtb.stm32(cols),
        "rp2040": rtb.rp2040(
            cols, multicore.cell_figures(store, cells) if multi is None else multi
        ),
        "k4perf": rtb.k4perf(cols),
        "gpio": gpio(gpio_st if gpio_st is not None else gpio_study.study(store, cells)),
        "user_vs_kernel": user_vs_kernel(store, cells),
    }


def reproductions(
    store: Store, cells: dict[str, results.CellRuns], **given: Any
) -> list[Reproduction]:
    """One Reproduction per published study rtlab has any figure for, in STUDIES order.
    Cells that ran a model under several of its declared settings (a target axis of
    VARIANT_KEYS) are judged per setting and each verdict held to all of them
    (reproduction_robust); the page's own setting is its first cell's."""
    groups: dict[tuple[tuple[str, str], ...], dict[str, results.CellRuns]] = {}
    for k, cr in cells.items():
        groups.setdefault(variant_of(cr), {})[k] = cr
    if len(groups) <= 1:
        return _with_assumptions(_reproductions(store, cells, **given), cells)
    judged = []
    for settings, group in groups.items():
        if not settings:  # the page's own: its target names the settings it kept
            target = next(iter(group.values())).ok_target
            settings = tuple((k, str(target[k])) for k in VARIANT_KEYS if target.get(k))
        sub = dict(given)
        if "multi" in sub and sub["multi"] is not None:
            labels = {c.label for c in group.values()}
            sub["multi"] = [(lb, f) for lb, f in sub["multi"] if lb in labels]
        sub.pop("gpio_st", None)  # the group's own, from its cells
        reps = {r.study.key: r for r in _reproductions(store, group, **sub)}
        judged.append((Variant(_variant_label(settings), settings), reps))
    out = []
    for key in STUDIES:
        each = [(v, reps[key]) for v, reps in judged if key in reps]
        if each and each[0][0] == judged[0][0]:  # the page's own setting speaks first
            out.append(robust(each))
    return _with_assumptions(out, cells)


# A model's declared uncertainties, as target axes: the key and how a row names a value
VARIANT_KEYS = {
    "xip_cache": "{} XIP cache",
    "arbitration_ties": "arbitration ties {}",
    "layout_shift_kib": "layout shifted {} KiB",
}


def own_setting(cells: dict[str, results.CellRuns]) -> dict[str, results.CellRuns]:
    """The cells of the page's own model setting: those of its first cell's (all of
    them when no cell names a setting of VARIANT_KEYS)."""
    if not cells:
        return cells
    first = variant_of(next(iter(cells.values())))
    return {k: cr for k, cr in cells.items() if variant_of(cr) == first}


def variant_of(cr: results.CellRuns) -> tuple[tuple[str, str], ...]:
    """The settings of VARIANT_KEYS a cell's label carries: `smp[rtos=nuttx,xip_cache=two-way]`."""
    label = cr.stored_label or cr.label
    inner = label.split("[", 1)[1].split("]", 1)[0] if "[" in label else ""
    pairs = dict(kv.split("=", 1) for kv in inner.split(",") if "=" in kv)
    return tuple((k, pairs[k]) for k in VARIANT_KEYS if k in pairs)


def _variant_label(settings: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(VARIANT_KEYS[k].format(v) for k, v in settings) or "the page's model"


# the model's XIP cache modes (the rp2040_model flasher's `xip_cache`), as a reader reads them
_XIP_READS = {
    "two-way": "two-way, the RP2040's own",
    "fully-associative": "fully associative: its size, not its conflict misses",
    "compulsory": "compulsory misses only",
    "off": "",
}


def _with_assumptions(
    reps: list[Reproduction], cells: dict[str, results.CellRuns]
) -> list[Reproduction]:
    """Where the page's model assumes what a study's conditions deny (a flash cache on a
    board the study calls cacheless), the environment line says so."""
    modes = sorted(
        {
            _XIP_READS.get(str(m), str(m))
            for cr in own_setting(cells).values()
            if (m := cr.ok_target.get("xip_cache"))
        }
        - {""}
    )
    if not modes:
        return reps
    for rep in reps:
        if any("no cache" in v for v in rep.study.conditions.values()):
            rep.environment.append(
                "the model runs the Pico's 16 KiB XIP flash cache ("
                + "; ".join(modes)
                + ") where the study's conditions say no cache"
            )
    return reps


def _reproductions(
    store: Store, cells: dict[str, results.CellRuns], **given: Any
) -> list[Reproduction]:
    found = measures(store, cells, **given)
    out = []
    for key in STUDIES:
        rep = reproduce(load(key), found[key])
        if rep is not None:
            out.append(rep)
    return out
