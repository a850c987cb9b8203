"""Why rtlab's two cycle models' FreeRTOS figures differ, cause by cause, from instruction
traces with each instruction's cycle (cycle_regions.py): the Pico image built as the QEMU
mps2 layer builds (`arm-cm0-as-mps2`) on the RP2040 model, XIP cache compulsory, and the
microbit image through the cycles plugin's M0+ table. Each test names one cause of the
cross-check's rows (rtlab.studies.cycles_crosscheck) and fails when it is not the cause:

- the kernel's code in each timed region runs the same instructions for the same cycles
  on both (what is left are the boards' own bracket and the memcpy call);
- the empty bracket (marker_cost) costs on each board what a primitive's bracket costs
  (so subtracting it cancels the boards' pins and timestamps);
- the queue rows differ by the long-branch veneer to memcpy alone (the pico-sdk's memory
  map runs the C library's memcpy from SRAM; the kernel runs from flash).
"""

from __future__ import annotations

from collections import Counter

import pytest

from rtlab.lab.qemu import cycles as qc
from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import merged_paths
from tests.lab.conformance.cycle_regions import Region, on_model, on_plugin
from tests.lab.conformance.symbols import Image
from tests.needs import brought, tool

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

# The boards' own bracket code: pins, timestamps, critical sections, the veneers between
# the Pico's RAM bracket functions and its flash code (named as their targets)
BRACKET = frozenset({"rtb_board_marker", "rtb_board_ts", "rtb_ts", "rtb_critical_enter",
                     "rtb_critical_exit", "rtb_mark_clear_ts", "rtb_mark_ts_set",
                     "rtb_marker_set", "rtb_marker_clear"})  # fmt: skip
COPY = "memcpy"
ROWS = ("sem_give", "sem_take", "queue_send", "queue_recv", "sem_give then sem_take (switch)",
        "sem_take then sem_give (switch)", "queue_send then queue_recv (switch)",
        "queue_recv then queue_send (switch)")  # fmt: skip
ITERATIONS = 6
# The linker's ARMv6-M long-branch veneer: push {r0}; ldr r0, [pc, #8]; mov ip, r0;
# pop {r0}; bx ip: 2 + 2 + 1 + 2 + 2 cycles (DDI 0484C Table 3.1: PUSH and POP 1 + N,
# LDR 2, MOV 1, BX 2)
VENEER_INSNS, VENEER_CYCLES = 5, 9
# The item copies in each row: the send's into the queue, the receive's out of it; the
# preemption via queue runs both, its return neither (the send had copied already)
COPIES = {"queue_send": 1, "queue_recv": 1, "queue_send then queue_recv (switch)": 2}


Traced = tuple[Image, dict[str, Region], Image, dict[str, Region]]


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Traced:
    paths = merged_paths()
    why = RTOSES.get("freertos").missing(paths)
    if why:
        pytest.skip(why)
    brought("PICO_SDK_PATH", "a pico-sdk checkout", "tested: 2.1.1; README")
    tool("qemu-system-arm", "deps/apt.txt: qemu-system-arm")
    missing = qc.plugin_missing()
    if missing:
        pytest.fail(f"{missing}; run `make setup`", pytrace=False)
    tmp = tmp_path_factory.mktemp("crosscheck")
    m_img, m_regions = on_model("arm-cm0-as-mps2", ITERATIONS, tmp)
    q_img, q_regions = on_plugin("microbit", ITERATIONS, tmp)
    return m_img, warm(m_regions), q_img, warm(q_regions)


def warm(regions: list[Region]) -> dict[str, Region]:
    """Each row's warm region: the commonest cost of its regions after the first (the
    first call runs cold; on the model, a later one may still take a first XIP miss)."""
    out: dict[str, Region] = {}
    for label in dict.fromkeys(r.label for r in regions):
        rs = [r for r in regions if r.label == label][1:]
        if rs:
            common = Counter(r.total_cycles for r in rs).most_common(1)[0][0]
            out[label] = next(r for r in rs if r.total_cycles == common)
    return out


def _kernel(r: Region) -> dict[str, tuple[int, int]]:
    return {f: (r.insns[f], r.cycles[f]) for f in r.insns if f not in BRACKET | {COPY}}


def test_every_row_is_traced_on_both_models(traced: Traced) -> None:
    _, model, _, plugin = traced
    assert set(ROWS) | {"empty"} <= set(model) & set(plugin)


@pytest.mark.parametrize("row", ROWS)
def test_the_kernel_runs_the_same_instructions_for_the_same_cycles(
    traced: Traced, row: str
) -> None:
    _, model, _, plugin = traced
    assert _kernel(model[row]) == _kernel(plugin[row])
    assert sum(n for n, _ in _kernel(model[row]).values()) > 20  # the kernel call ran


@pytest.mark.parametrize("row", ROWS)
def test_the_empty_bracket_costs_what_a_primitives_bracket_costs(traced: Traced, row: str) -> None:
    """Each board's bracket code costs the same cycles around the primitive as in
    rtb_mark_cost (it is not inlined there): subtracting marker_cost cancels it."""
    _, model, _, plugin = traced
    for regions in (model, plugin):
        bracket = {f: regions[row].cycles[f] for f in BRACKET if regions[row].insns[f]}
        empty = {f: regions["empty"].cycles[f] for f in BRACKET if regions["empty"].insns[f]}
        assert bracket == empty


def test_the_queue_rows_differ_by_the_veneer_to_memcpy_alone(traced: Traced) -> None:
    """The pico-sdk's memory map puts the C library's memcpy in SRAM; the kernel's call
    from flash goes through a long-branch veneer, which the microbit image has not. With
    the boards' brackets (the empty bracket's difference) it is every cycle of difference
    between the two models' regions."""
    m_img, model, q_img, plugin = traced
    assert m_img.start_of(COPY) >= 0x2000_0000 > q_img.start_of(COPY)
    veneer = next(f for f in m_img.functions if f.name == f"__{COPY}_veneer")
    assert veneer.start < 0x2000_0000  # in flash, beside its callers
    for row in ROWS:
        copies = COPIES.get(row, 0)
        extra = model[row].cycles[COPY] - plugin[row].cycles[COPY]
        insns = model[row].insns[COPY] - plugin[row].insns[COPY]
        assert (insns, extra) == (copies * VENEER_INSNS, copies * VENEER_CYCLES), row
        # every other cycle of difference is the boards' brackets, which marker_cost holds
        boards = model["empty"].total_cycles - plugin["empty"].total_cycles
        assert model[row].total_cycles - plugin[row].total_cycles == boards + extra, row
