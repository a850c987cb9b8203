"""rtbench's timed regions with what each function cost in them, on both cycle models: a
`--markers` primitives run traced instruction by instruction with each instruction's
cycle, on the RP2040 model (run.js --pc-trace --pc-trace-cycles, XIP cache compulsory)
and on QEMU through rtlab's cycles plugin (`trace=`). A region runs from the first
instruction after rtb_mark_ts_set's own (its callees included: the bracket's opening
half) to the call of rtb_mark_clear_ts, and is labelled by the primitive it called
("empty": rtb_mark_cost's empty bracket; "(switch)": the high task ran in it, e.g.
"sem_give then sem_take (switch)": preemption via semaphore, "sem_take then sem_give
(switch)": the return from it)."""

from __future__ import annotations

import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rtlab.lab.qemu import cycles as qc
from rtlab.lab.qemu.machine import qemu_argv
from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import merged_paths
from tests.lab.conformance.symbols import Image
from tests.lab.conformance.traces import IPSR_WORD
from tests.models.rp2040 import model

OPEN, CLOSE = "rtb_mark_ts_set", "rtb_mark_clear_ts"
TRACE_FROM = "rtb_mark_cost"  # the empty brackets (marker_cost), then the scenario
# the pico-sdk's vector-table names of FreeRTOS's handlers (its FreeRTOSConfig.h)
ALIASES = {"isr_pendsv": "PendSV_Handler", "isr_svcall": "SVC_Handler",
           "isr_systick": "SysTick_Handler"}  # fmt: skip
# the row a function's call names: the port's entry points, and the kernel's own calls
# where the port gives the primitive inline (FreeRTOS's give and take)
PRIMS = {"rtb_sem_give": "sem_give", "rtb_sem_take": "sem_take", "rtb_queue_send": "queue_send",
         "rtb_queue_recv": "queue_recv", "xQueueGenericSend": "sem_give",
         "xQueueSemaphoreTake": "sem_take"}  # fmt: skip


@dataclass
class Region:
    label: str
    insns: Counter[str] = field(default_factory=Counter)
    cycles: Counter[str] = field(default_factory=Counter)
    total_cycles: int = 0


def regions(img: Image, pcs: np.ndarray, cyc: np.ndarray) -> list[Region]:
    """Each timed region: from the instruction after rtb_mark_ts_set's last to the first
    of rtb_mark_clear_ts, labelled by the primitive it called (and whether a task switch
    ran in it: the high task's code)."""
    fi = img.lookup(pcs)
    names = np.array([ALIASES.get(img.name(i), img.name(i)) for i in range(len(img.functions))]
                     + ["?"])  # fmt: skip
    fn = names[fi]
    o, c = img.start_of(OPEN), img.start_of(CLOSE)
    opens = np.flatnonzero(pcs == o)
    closes = np.flatnonzero(pcs == c)
    out: list[Region] = []
    for a in opens:
        after = closes[closes > a]
        if not len(after):
            break
        b = int(after[0])
        k = a
        while k < b and fn[k] == OPEN:
            k += 1  # the bracket itself
        seg = fn[k:b]
        ran = list(dict.fromkeys(seg.tolist()))  # the functions, in order of first run
        called = list(dict.fromkeys(PRIMS[f] for f in ran if f in PRIMS))
        if "queue_send" in called and "sem_give" in called:
            called.remove("sem_give")  # the queue send's own kernel call
        switched = "high_task" in ran
        r = Region((" then ".join(called) or "empty") + (" (switch)" if switched else ""))
        r.insns.update(seg.tolist())
        d = np.diff(cyc[k : b + 1])
        for name, dc in zip(seg.tolist(), d.tolist(), strict=True):
            r.cycles[name] += int(dc)
        r.total_cycles = int(cyc[b] - cyc[k])
        out.append(r)
    return out


def words(iterations: int) -> list[str]:
    return ["--scenarios", "primitives", "--iterations", str(iterations), "--markers"]


def on_model(config: str, iterations: int, tmp: Path) -> tuple[Image, list[Region]]:
    paths = merged_paths()
    model.build()
    uf2 = RTOSES.get("freertos").build_baked("pico", config, paths, words(iterations))
    elf = tmp / "pico.elf"
    elf.write_bytes(uf2.with_suffix(".elf").read_bytes())
    img = Image(elf)
    trace = tmp / "pico.trace"
    res = model.run(elf, tmp, "--xip-cache", "compulsory", "--pc-trace", str(trace),
                    "--pc-trace-from", str(img.start_of(TRACE_FROM)),
                    "--pc-trace-cycles")  # fmt: skip
    if res.returncode != 0:
        raise RuntimeError(f"model: {res.stderr[-2000:]}")
    pairs = np.fromfile(trace, dtype="<u4").reshape(-1, 2).astype(np.int64)
    w = pairs[:, 0]
    keep = ((w & 0xF0000000) != IPSR_WORD) & ((w & 1) == 0)  # core 0's instructions
    cyc = np.unwrap(pairs[keep, 1], period=1 << 32)  # the count's low 32 bits
    return img, regions(img, w[keep] & ~1, cyc.astype(np.int64))


def on_plugin(machine: str, iterations: int, tmp: Path) -> tuple[Image, list[Region]]:
    paths = merged_paths()
    elf = RTOSES.get("freertos").build(machine, "default", paths)
    img = Image(elf)
    m = qc.machine(machine)
    trace = tmp / "qemu.trace"
    plugin, _out = qc.plugin_args(elf, m, tmp, trace, img.start_of(TRACE_FROM))
    argv = qemu_argv(elf, machine, 0, plugin, " ".join(words(iterations)))
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"qemu: {proc.stdout[-1000:]} {proc.stderr[-1000:]}")
    raw = np.fromfile(trace, dtype=np.dtype([("pc", "<u4"), ("cyc", "<u8")]))  # qc.TRACE_RECORD
    pcs = raw["pc"].astype(np.int64)
    return img, regions(img, pcs, raw["cyc"].astype(np.int64))
