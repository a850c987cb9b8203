"""Zephyr's own benchmark beside rtbench's Zephyr rows on the RP2040 cycle model: the
tree's tests/benchmarks/latency_measure, built unchanged for rpi_pico in each of rtbench's
Zephyr configurations (its prj.conf, lean.conf on top for "lean", and a tick rate the
Pico's 24-bit SysTick can count: ports/zephyr/latency_measure/rpi_pico.conf), and rtbench's
primitives and irq scenarios in the same configuration, both on the model with the same
XIP cache mode as docs/results/rp2040-model.md (compulsory misses only). Prints the
cross-check in core cycles, each row's difference, and the Kconfig that matters of both
builds (docs/results/rp2040-model-zephyr.md).

    .venv/bin/python bench/rp2040_model_zephyr.py [--configs default,lean]

Needs ZEPHYR_BASE and ZEPHYR_MODULES (cmsis, hal_rpi_pico). CYCLE MODEL, NOT SILICON.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from rtlab.lab.c_targets import REPO_ROOT
from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import merged_paths
from rtlab.lab.rtos.zephyr import LATENCY_MEASURE, LATENCY_MEASURE_UNVALIDATED, program_kconfig
from rtlab.lab.workloads.latency_measure import to_protocol
from rtlab.protocol import Run
from rtlab.protocol.parser import parse
from rtlab.studies.latency_measure import config_difference

MODEL = REPO_ROOT / "models" / "rp2040" / "run.js"
XIP = "compulsory"  # as examples/rp2040-model.toml
WORDS = ["--scenarios", "primitives,irq", "--iterations", "100", "--start-delay-ms", "0"]
LIKE_FOR_LIKE = 0.10  # give and take must agree this closely with spin validation off
# the rows compared like for like, and the kernel function latency_measure's loop calls
LIKE_ROWS = {"semaphore give, no waiter": "z_impl_k_sem_give",
             "semaphore take, available": "z_impl_k_sem_take"}  # fmt: skip

_CALL = (
    "rtbench times k_sem_{op} inline (the port's rtb_port_inline.h: the kernel's call and "
    "nothing of the port's{extra}); latency_measure's mean also holds its loop's increment, "
    "compare and branch. latency_measure: the mean of 1000 calls between two timestamps; "
    "rtbench: one call between two timestamps whose back-to-back cost (overhead_floor) it "
    "takes off."
)
_FIRST = (
    "latency_measure's figure is ONE sample of a path part of which never ran before: it "
    "takes the XIP cache's misses of those lines (its cache-off column has none), where "
    "rtbench's mean is warm (its cold sample follows a flush of the whole cache). "
    "latency_measure does not take its timestamps' cost (k_cycle_get_32: SysTick under a "
    "spin lock) off; rtbench does. "
)
# (row, latency_measure's line, rtbench scenario/series, what differs between the two)
ROWS: tuple[tuple[str, str, str, str], ...] = (
    ("semaphore give, no waiter", "average_semaphore_signal_time", "primitives/sem_give",
     _CALL.format(op="give", extra="")),
    ("semaphore take, available", "average_semaphore_test_time", "primitives/sem_take",
     _CALL.format(op="take", extra="; K_NO_WAIT is a constant there, as in "
                  "latency_measure")),
    ("give with context switch", "semaphore_give_time_context_switch",
     "primitives/preempt_sem",
     _FIRST + "Both from before k_sem_give in the lower thread to the higher thread's "
     "first timestamp."),
    ("take with context switch (back)", "semaphore_take_time_context_switch",
     "primitives/return_sem",
     _FIRST + "From the higher thread's last timestamp to the lower thread running again."),
    ("ISR → thread", "time_from_isr_to_executing_a_different_thread", "irq/isr_task",
     _FIRST + "Different paths: latency_measure enters the ISR by irq_offload (SVC), "
     "timestamps at the END of the ISR and stops in the system work queue's thread; "
     "rtbench timestamps BEFORE pending an NVIC line, so its figure also holds the "
     "exception entry and the handler's own work (a queue send)."),
)  # fmt: skip


# latency_measure's loop around each call: the counter's decrement, its compare and the
# taken branch back, on the Cortex-M0+ (TRM, Table 3-1: data processing 1 cycle, a taken
# conditional branch 2). rtbench's figure has no loop: its call's own argument set-up and
# BL are in both figures, and so not counted here.
_M0P_CYCLES = {"subs": 1, "adds": 1, "cmp": 1, "bne": 2, "bne.n": 2}
_INSN = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")


def loop_control_cycles(elf: Path, callee: str) -> int:
    """Cycles per iteration of latency_measure's counting loop around `bl <callee>`, read
    from its disassembly: the loop is `bl <callee>; cmp rN, #0; bne <back>`, its control
    the `subs rN` in it, that compare and that branch."""
    text = subprocess.run(
        ["arm-none-eabi-objdump", "-d", "--no-show-raw-insn", str(elf)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    insns = [(int(m[1], 16), m[2], m[3]) for line in text.splitlines() if (m := _INSN.match(line))]
    found: list[int] = []
    for i, (addr, op, args) in enumerate(insns[:-2]):
        if op != "bl" or f"<{callee}>" not in args:
            continue
        (_, cmp, cmp_args), (_, br, br_args) = insns[i + 1], insns[i + 2]
        counter = cmp_args.split(",")[0]
        back = int(br_args.split()[0], 16) if br.startswith("bne") else addr
        if cmp != "cmp" or not cmp_args.endswith("#0") or back >= addr:
            continue
        body = [(o, a) for (x, o, a) in insns if back <= x < addr]
        steps = [o for o, a in body if o in ("subs", "adds") and a.split(",")[0] == counter]
        if len(steps) != 1:
            continue
        found.append(_M0P_CYCLES[steps[0]] + _M0P_CYCLES[cmp] + _M0P_CYCLES[br])
    if len(found) != 1:
        sys.exit(f"rp2040_model_zephyr: {elf}: {len(found)} counting loops call {callee}, not 1")
    return found[0]


def run_model(image: Path, xip: str = XIP) -> str:
    """The image's UART text on the model, to its done line."""
    with tempfile.TemporaryDirectory(prefix="rtlab-lm-") as tmp:
        proc = subprocess.run(
            ["node", str(MODEL), "--image", str(image), "--xip-cache", xip,
             "--max-cycles", "4000000000", "--summary", str(Path(tmp) / "s.json")],
            capture_output=True, timeout=1800,
        )  # fmt: skip
    if proc.returncode != 0:
        sys.exit(f"rp2040_model_zephyr: {image.name} on the model: {proc.stderr.decode()[-500:]}")
    return proc.stdout.decode(errors="replace")


def lm_cycles(run: Run) -> dict[str, int]:
    return {
        name.removesuffix(".cycles"): value
        for name, (value, unit) in run.counters.items()
        if name.endswith(".cycles") and unit == "cycles"
    }


def series(runs: Sequence[Run], path: str) -> tuple[np.ndarray | None, int | None]:
    """The series' samples and its cold (first) sample."""
    scenario, name = path.split("/")
    for r in runs:
        if r.meta.get("scenario") == scenario and name in r.series:
            cold = r.counters.get(f"{name}.cold", (None, None))[0]
            return r.series[name].values.astype(np.float64), cold
    return None, None


def kconfig_lines(what: str, kconfig: Mapping[str, str]) -> str:
    return f"- {what}: " + ", ".join(f"`{k}={v}`" for k, v in sorted(kconfig.items()))


def _fmt(x: float | None, spec: str = ".1f") -> str:
    return "–" if x is None else format(x, spec)


def table(
    config: str,
    lm: Run,
    lm_off: Run,
    lm_unvalidated: Run,
    runs: Sequence[Run],
    described: Mapping[str, object],
    loops: Mapping[str, int],
) -> str:
    cycles, cycles_off = lm_cycles(lm), lm_cycles(lm_off)
    cycles_unvalidated = lm_cycles(lm_unvalidated)
    out = [
        f"### Configuration `{config}`",
        "",
        "| pair | latency_measure cycles | latency_measure, XIP cache off "
        "| latency_measure, no spin validation | its loop's control, per call "
        "| rtbench series | rtbench mean | rtbench median | rtbench cold "
        "| rtbench mean / latency_measure "
        "| rtbench mean / (no spin validation − loop control) | what differs |",
        "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    builds = config_difference(
        described.get("kconfig", {}),  # type: ignore[arg-type]
        described.get("kconfig_latency_measure", {}),  # type: ignore[arg-type]
    )
    like: list[str] = []
    for label, line, path, why in ROWS:
        lm_c, lm_u = cycles.get(line), cycles_unvalidated.get(line)
        s, cold = series(runs, path)
        mean = float(s.mean()) if s is not None and s.size else None
        med = float(np.median(s)) if s is not None and s.size else None
        ratio = mean / lm_c if mean is not None and lm_c else None
        loop = loops.get(label)
        like_lm = lm_u - loop if lm_u is not None and loop is not None else None
        ratio_u = mean / like_lm if mean is not None and like_lm else None
        if ratio_u is not None:
            ok = abs(ratio_u - 1) <= LIKE_FOR_LIKE
            like.append(f"{label.split(',')[0]} {ratio_u:.2f} ({'within' if ok else 'OUTSIDE'})")
        out.append(
            f"| {label} | {_fmt(lm_c, 'd')} | {cycles_off.get(line, '–')} | {_fmt(lm_u, 'd')} "
            f"| {_fmt(loop, 'd')} | `{path}` | {_fmt(mean)} | {_fmt(med)} | {_fmt(cold, 'd')} "
            f"| {_fmt(ratio, '.2f')} | {_fmt(ratio_u, '.2f')} | {f'{why} {builds}'.strip()} |"
        )
    notes = sorted(w[1] for w in lm.warnings) if lm.warnings else []
    out += [
        "",
        f"Like for like (spin validation off on both sides, latency_measure's loop control "
        f"taken off its mean), rtbench ÷ latency_measure, within {LIKE_FOR_LIKE:.0%} "
        "wanted: " + "; ".join(like) + ".",
        "",
        "Kconfig that matters:",
        "",
    ]
    out.append(kconfig_lines("rtbench", described.get("kconfig", {})))  # type: ignore[arg-type]
    out.append(kconfig_lines("latency_measure", described.get("kconfig_latency_measure", {})))  # type: ignore[arg-type]
    out.append(
        kconfig_lines(
            "latency_measure, no spin validation (ports/zephyr/latency_measure/"
            "no_spin_validate.conf)",
            program_kconfig(LATENCY_MEASURE_UNVALIDATED, "pico", config),
        )
    )
    if notes:
        out += ["", "latency_measure's own notes: " + "; ".join(notes)]
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", default="default,lean")
    a = ap.parse_args(argv)
    port, paths = RTOSES.get("zephyr"), merged_paths()
    why = port.missing(paths)
    if why:
        print(f"rp2040_model_zephyr: {why}", file=sys.stderr)
        return 2
    # the tables first (a page's reader sees figures before method); what their columns
    # hold follows them
    parts = ["Cycle model (rp2040js + rtlab), not silicon: core cycles at 125 MHz.", ""]
    for config in a.configs.split(","):
        lm_elf = port.build_program(LATENCY_MEASURE, "pico", config, paths)
        lm = parse(to_protocol(run_model(lm_elf)), source="latency_measure")[0]
        lm_off = parse(to_protocol(run_model(lm_elf, "off")), source="latency_measure")[0]
        lm_u_elf = port.build_program(LATENCY_MEASURE_UNVALIDATED, "pico", config, paths)
        lm_u = parse(to_protocol(run_model(lm_u_elf)), source="latency_measure")[0]
        loops = {row: loop_control_cycles(lm_u_elf, fn) for row, fn in LIKE_ROWS.items()}
        image = port.build_baked("pico", config, paths, WORDS)
        runs = parse(run_model(image), source="rtbench")
        described = port.describe(config, paths, "pico")
        parts.append(table(config, lm, lm_off, lm_u, runs, described, loops))
    parts.append(
        f"The columns: XIP cache `{XIP}`; rtbench `{' '.join(WORDS)}`, its mean and median "
        "over the series' samples (the first of each cold); latency_measure's own figure (a "
        "mean of 1000 calls, or one sample for the context-switch and ISR lines), the same "
        "with the XIP cache off (flash reads cost SRAM reads: no misses), and the same built "
        "with CONFIG_SPIN_VALIDATE=n, rtbench's setting. latency_measure's mean of a give or "
        "take also holds its counting loop's decrement, compare and taken branch (read from "
        "its disassembly, at the M0+'s 1 + 1 + 2 cycles); rtbench's figure is the call "
        "alone, so the like-for-like ratio takes that loop control off.\n"
    )
    print("\n".join(parts), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
