"""What runs in rtbench's timed regions, read from a PC trace of a `--markers` run of the
primitives scenario: each region runs from the return of the bracket that takes its first
timestamp (rtb_mark_ts_set) to the call of the one that takes its last
(rtb_mark_clear_ts). Its rule: the scenario calls one port entry point (the primitive),
or, where the port gives that primitive inline (rtb_port_inline.h: every port's
semaphore give and take), system code directly; an entry point calls system code only
(the kernel, the C library's item copy), never rtbench code of its own (a conversion
helper) nor the compiler's runtime (a 64-bit multiply or divide). What the kernel calls
is the kernel's business. Exception handlers
(a context switch, a tick) are the kernel's or the board's and are not calls.

A call is a move, in Thread mode, to the first address of another function; a return is
a move to any other address of one (so a tail call counts as the caller's call)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tests.lab.conformance.symbols import RTBENCH, SYSTEM, Image
from tests.lab.conformance.traces import Trace

OPEN, CLOSE = "rtb_mark_ts_set", "rtb_mark_clear_ts"
PRIMITIVES = frozenset({"rtb_sem_give", "rtb_sem_take", "rtb_queue_send", "rtb_queue_recv"})
SCENARIO_FILE, SCENARIO_ENTRY = "sc_primitives.c", "rtb_sc_primitives"


@dataclass
class Region:
    primitives: list[str] = field(default_factory=list)  # the entry points it called
    inline: list[str] = field(default_factory=list)  # system code the scenario called
    calls: list[str] = field(default_factory=list)  # "caller -> callee", rtbench's calls
    violations: list[str] = field(default_factory=list)  # "caller -> callee"


def _is_scenario(img: Image, i: int) -> bool:
    return img.file_of(i) == SCENARIO_FILE or img.name(i) == SCENARIO_ENTRY


def timed_regions(img: Image, trace: Trace) -> list[Region]:
    """Every bracketed region of the trace, in order, with what it called."""
    fi = img.lookup(trace.pcs)
    # only where the function or the mode changes
    change = np.flatnonzero((fi[1:] != fi[:-1]) | (trace.handler[1:] != trace.handler[:-1])) + 1
    regions: list[Region] = []
    current: Region | None = None
    in_bracket = False  # in the opening bracket (or what it calls, tail calls included)
    for k in change.tolist():
        prev, cur = int(fi[k - 1]), int(fi[k])
        if trace.handler[k] or trace.handler[k - 1]:
            continue  # an exception's entry, its code, its return or a switch to a thread
        call = img.is_entry(cur, int(trace.pcs[k]))
        if current is None:
            if call:
                in_bracket = img.name(cur) == OPEN or (in_bracket and img.name(cur) != CLOSE)
            elif in_bracket and _is_scenario(img, cur):  # the bracket returned
                in_bracket = False
                current = Region()
            continue
        if call and img.name(cur) == CLOSE:
            regions.append(current)
            current = None
            continue
        if not call or img.whose(prev) != RTBENCH:
            continue  # a return, or a call the kernel (or the runtime) made
        current.calls.append(f"{img.name(prev)} -> {img.name(cur)}")
        if _is_scenario(img, prev) and img.name(cur) in PRIMITIVES:
            current.primitives.append(img.name(cur))
        elif _is_scenario(img, prev) and img.whose(cur) == SYSTEM:
            current.inline.append(img.name(cur))
        elif img.name(prev) in PRIMITIVES and img.whose(cur) == SYSTEM:
            pass
        else:
            current.violations.append(f"{img.name(prev)} -> {img.name(cur)}")
    return regions


def violations(regions: list[Region]) -> dict[str, int]:
    """Each distinct violation and how many regions had it."""
    seen: dict[str, int] = {}
    for r in regions:
        for v in set(r.violations):
            seen[v] = seen.get(v, 0) + 1
    return seen
