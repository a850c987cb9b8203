"""rtlab's two cycle models side by side: FreeRTOS's primitives on QEMU's microbit through
the cycles plugin's Cortex-M0+ table (zero wait states; examples/rtos-cycles.toml) and on
the RP2040 cycle model with its XIP cache warm (compulsory mode;
examples/rtos-cycles-crosscheck.toml), the same generic GCC/ARM_CM0 port on both.

Each primitive's own cycles on each model: its internal figure less the empty bracket's
(series marker_cost, both with marker brackets), which cancels the timestamp floor and
the pins' costs, which differ between the boards (nRF51 TIMER capture vs RP2040 PWM
counter; a RAM word vs an SIO GPIO write). They agree within 2 %, or the row names why.

    rows = compare(store)          # one Row per primitive both models measured
    markdown(rows)                 # the table for the results page
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rtlab.analysis.stats import median
from rtlab.protocol import Run
from rtlab.results import Store, multirun
from rtlab.results import query as results
from rtlab.studies import rtbench
from rtlab.studies.rtos_compare import MODEL, QEMU_CYCLES

CYCLES_SPEC = "rtos-cycles"
MODEL_SPEC = "rtos-cycles-crosscheck"
TOLERANCE = 0.02
PRIMITIVES = ("sem_give", "sem_take", "queue_send", "queue_recv", "preempt_sem",
              "return_sem", "preempt_queue", "return_queue")  # fmt: skip


@dataclass(frozen=True)
class Row:
    primitive: str
    plugin: float  # cycles: the path less the empty bracket, warm median
    model: float

    @property
    def diff(self) -> float:
        return (self.plugin - self.model) / self.model if self.model else float("nan")

    @property
    def agrees(self) -> bool:
        return abs(self.diff) <= TOLERANCE


def _primitive_runs(store: Store, spec: str, timebase: str) -> list[Run] | None:
    """The FreeRTOS primitives run of `spec` on a one-core M0 machine with that timebase."""
    for cr in results.select_many(store, (), spec).values():
        if cr.workload != "rtbench" or not cr.ok_ids:
            continue
        runs = multirun.split(store, cr.ok_ids[-1])
        found = rtbench.scenario_runs(runs, "primitives")
        if not found:
            continue
        meta = found[-1].meta
        m0 = meta.get("board") in ("microbit", "pico")
        if meta.get("rtos") == "freertos" and meta.get("timebase") == timebase and m0:
            return found
    return None


def _warm_cycles(run: Run, name: str) -> float | None:
    s = run.series.get(name)
    if s is None or not len(s.values) or s.tick_s is None:
        return None
    return median(s.values) * float(s.tick_s) * float(run.meta.get("cpu_hz", 0))


def model_net(run: Run) -> dict[str, float]:
    """The RP2040 model's figures (floor removed by rtbench) less marker_cost's."""
    empty = _warm_cycles(run, "marker_cost")
    out = {}
    for p in PRIMITIVES:
        v = _warm_cycles(run, p)
        if v is not None and empty is not None:
            out[p] = v - empty
    return out


def plugin_net(run: Run) -> dict[str, float]:
    """The plugin's internal figures (timestamp reads timed in cycles) less marker_cost's."""
    internal: Mapping[str, str] = {
        k.removeprefix("cycles_internal."): v
        for k, v in run.meta.items()
        if k.startswith("cycles_internal.")
    }
    if "marker_cost" not in internal:
        return {}
    empty = float(internal["marker_cost"])
    return {p: float(internal[p]) - empty for p in PRIMITIVES if p in internal}


def compare(store: Store) -> list[Row] | None:
    """None unless the store holds both models' FreeRTOS primitives."""
    plugin = _primitive_runs(store, CYCLES_SPEC, QEMU_CYCLES)
    model = _primitive_runs(store, MODEL_SPEC, MODEL)
    if plugin is None or model is None:
        return None
    a, b = plugin_net(plugin[-1]), model_net(model[-1])
    return [Row(p, a[p], b[p]) for p in PRIMITIVES if p in a and p in b]


def markdown(rows: Sequence[Row]) -> str:
    head = [
        "## Cross-check: the plugin's M0+ vs the RP2040 cycle model",
        "",
        "FreeRTOS (GCC/ARM_CM0 port), each primitive's cycles less the empty bracket's, warm "
        "median: QEMU microbit through the cycles plugin's M0+ table (zero wait states) vs "
        "the RP2040 cycle model (rp2040js + rtlab, XIP cache compulsory: warm, no misses). "
        f"Agreement: within {TOLERANCE:.0%}.",
        "",
        "| primitive | plugin (M0+ table) | RP2040 model | difference | within 2 % |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    body = [
        f"| {rtbench.PRIMITIVES.get(r.primitive, r.primitive)} | {r.plugin:,.0f} | "
        f"{r.model:,.0f} | {r.diff:+.1%} | {'yes' if r.agrees else 'no'} |"
        for r in rows
    ]
    n = sum(r.agrees for r in rows)
    tail = [
        "",
        f"{n} of {len(rows)} primitives within {TOLERANCE:.0%}. The two images are not one "
        "build: the RP2040's is the pico-sdk layer's (its FreeRTOSConfig.h, the SDK's "
        "memcpy routed to the boot ROM's copy loop, its start-up), the microbit's the mps2 "
        "layer's (newlib-nano's memcpy); a row beyond 2 % is not yet traced to one of these "
        "causes.",
    ]
    return "\n".join([*head, *body, *tail]) + "\n"
