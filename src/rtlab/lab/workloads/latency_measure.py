"""The `latency_measure` workload kind: Zephyr's own benchmark
(tests/benchmarks/latency_measure of the tree the user brings), run unchanged on the
qemu target beside rtbench, its text turned into protocol counters so the store and
rtlab.studies.latency_measure can set its figures beside rtbench's (the cross-check).

    [target]  kind = "qemu", rtos = "zephyr", machine = "mps2-an385", rtos_config = …
    [[workload]]  kind = "latency_measure"

Each result line `<what> : N cycles , M ns :` becomes the counters `<slug>.ns` (unit ns)
and `<slug>.cycles` (Zephyr's timing clock, unit cycles); `FAILED` lines and notes
(`Error: Tick Occurred`) become warnings; `PROJECT EXECUTION FAILED` ends the run with
status=error. The firmware has no options (the benchmark has none).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rtlab.errors import ConfigError
from rtlab.lab.workloads.base import WorkloadKind

PROGRAM = "zephyr-latency-measure"  # built by rtlab.lab.rtos.zephyr (build_program)
# Zephyr's own harness regex for this test (testcase.yaml), with the notes after it.
_LINE = re.compile(r"^(?P<what>[^:]*?)\s*:\s*(?P<cycles>\S+)(?: cycles)?\s*,\s*(?P<ns>\S+)"
                   r"(?: ns)?\s*:\s*(?P<notes>.*)$")  # fmt: skip
_CLOCK = re.compile(r"Clock frequency:\s*(\d+)\s*MHz")


def slug(what: str) -> str:
    """A result line's description as a counter name: "Average semaphore signal time"
    -> "average_semaphore_signal_time"."""
    return re.sub(r"[^a-z0-9]+", "_", what.lower()).strip("_")


def to_protocol(text: str) -> str:
    """latency_measure's console text as one protocol run ("" when it never started)."""
    from rtlab.protocol.encoder import encode_line, encode_value

    if "START - Time Measurement" not in text:
        return ""
    lines = [encode_line("hello", "workload=latency_measure", "version=1")]
    lines.append(encode_line("meta", "source=zephyr_tests_benchmarks_latency_measure"))
    warns, status = [], "error"
    msg = "no PROJECT EXECUTION line: the benchmark did not finish"
    for raw in text.splitlines():
        line = raw.strip()
        if m := _CLOCK.search(line):
            lines.append(encode_line("meta", f"timing_clock_hz={int(m.group(1)) * 1_000_000}"))
            continue
        if line.startswith("PROJECT EXECUTION"):
            status, msg = ("ok", "") if line.endswith("SUCCESSFUL") else ("error", line)
            continue
        m = _LINE.match(line)
        if not m or "Clock frequency" in line:
            continue
        name, notes = slug(m.group("what")), m.group("notes").strip()
        if m.group("cycles") == "FAILED" or not m.group("ns").isdigit():
            warns.append((f"{name}_failed", f"{m.group('what')}: FAILED {notes}".strip()))
            continue
        lines.append(encode_line("c", f"{name}.cycles", m.group("cycles"), "unit=cycles"))
        lines.append(encode_line("c", f"{name}.ns", m.group("ns"), "unit=ns"))
        if notes:
            warns.append((f"{name}_note", notes))
    for code, why in warns:
        lines.append(encode_line("warn", f"code={encode_value(code)}", f"msg={encode_value(why)}"))
    end = [f"records={len(lines)}", f"status={status}"]
    if msg:
        end.append(f"msg={encode_value(msg)}")
    lines.append(encode_line("end", *end))
    return "\n".join(lines) + "\n"


def _check(p: Mapping[str, Any]) -> None:
    for key in p:
        if key != "seconds":
            raise ConfigError(key, f"latency_measure has no parameter {key!r} (only seconds)")


WORKLOAD_KIND = WorkloadKind(
    "latency_measure",
    PROGRAM,
    frozenset(),
    _check,
    lambda exe, p: [exe],
    lambda p: float(p.get("seconds", 10)),
    output=to_protocol,
)
