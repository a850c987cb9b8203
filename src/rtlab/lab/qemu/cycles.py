"""QEMU with rtlab's cycle-approximate timing plugin (plugins/qemu-cycles, built by
`make setup`): which timing table and memory map a machine runs under, the plugin's
board file for an image, a run, and the plugin's capture (the cycle of every marker
store, channel by channel, and the run's totals).

Every figure from here is cycle-approximate: QEMU + rtlab's timing tables, not silicon
(`LABEL`); the approximations each table makes are in its comments and `APPROXIMATIONS`.

    cyc = run_image(elf, "mps2-an385", workdir)    # a bare-metal image to its exit
    cyc.cycles, cyc.edges[0]                       # totals, channel 0's edge cycles
"""

from __future__ import annotations

import functools
import os
import struct
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlab.catalog.emulation import QEMU_CYCLES
from rtlab.errors import RtlabError
from rtlab.lab.boards.cmake_layer import configure_and_build, layer_build
from rtlab.lab.c_targets import REPO_ROOT
from rtlab.lab.qemu.invocation import icount_args
from rtlab.lab.uf2_format import elf_segments

PLUGIN_DIR = REPO_ROOT / "plugins" / "qemu-cycles"
CORES_DIR = PLUGIN_DIR / "cores"
MARKER_SYMBOL = "rtb_marker_words"  # rtbench's marker words (and the calibration's)
MARKER_FUNCTION = "rtb_board_marker"  # the function that stores to them (rtbench's)
MARKER_CALLERS = ("rtb_marker_set", "rtb_marker_clear")  # where a build inlined it
COUNTER_FUNCTION = "rtb_board_ts"  # the function whose loads are rtbench's timestamps
PLUGIN_FILE = "librtlab_qemu_cycles.so"
READ = -1  # Cycles.order's channel for a read of the guest's counter register
LABEL = QEMU_CYCLES  # the label of its figures
APPROXIMATIONS = (
    "operand-dependent multiply and divide charged at the TRM's worst case (QEMU 7.2's "
    "plugin API gives no register values)",
    "exception return: 10 cycles beyond the returning BX/POP (no TRM figure; the RP2040 model's)",
    "Cortex-M33: the M4's table (DDI 0553 publishes none); Security Extension transitions "
    "not charged",
    "Cortex-M7: single issue, every memory access a TCM/cache hit, taken branches 1 refill "
    "cycle (dual issue, branch prediction misses, caches and TCM left out)",
    "SysTick and the boards' timers count QEMU's icount clock (one tick per instruction), "
    "not modelled cycles",
    "Cortex-M4F: lazy FP stacking on exception entry not charged",
)


class CyclesError(RtlabError):
    """The plugin is missing, a machine has no timing data, or a capture is malformed."""


def plugin_path() -> Path:
    """The built plugin: $RTLAB_QEMU_CYCLES, else the one `make setup` put in the venv."""
    env = os.environ.get("RTLAB_QEMU_CYCLES")
    return Path(env) if env else Path(sys.prefix) / "lib" / "rtlab" / PLUGIN_FILE


def plugin_missing() -> str | None:
    """Why no run can use the plugin (one line), or None."""
    p = plugin_path()
    if not p.is_file():
        return f"no QEMU cycles plugin at {p} (make setup builds it with cargo)"
    return None


@dataclass(frozen=True)
class CyclesMachine:
    name: str
    core: str
    code_base: int
    vector_words: int
    clock_hz: int
    stands_for: str
    shares: str
    differs: str
    regions: tuple[tuple[int, int, int, int, int], ...]
    counter_read: int | None = None  # the register the guest's timestamps load

    @property
    def table(self) -> Path:
        return CORES_DIR / f"{self.core}.toml"

    @property
    def core_name(self) -> str:
        return str(core_table(self.core).get("name", self.core))

    @property
    def cycle_ns(self) -> float:
        return 1e9 / self.clock_hz


@functools.cache
def machines() -> dict[str, CyclesMachine]:
    path = PLUGIN_DIR / "machines.toml"
    data = tomllib.loads(path.read_text())
    out = {}
    for name, d in data.items():
        regions = tuple(tuple(int(v) for v in r) for r in d.get("regions", ()))
        if any(len(r) != 5 for r in regions):
            raise CyclesError(f"{path}: [{name}] regions: each is [start, end, read, write, fetch]")
        out[name] = CyclesMachine(
            name,
            d["core"],
            int(d["code_base"]),
            int(d["vector_words"]),
            int(d["clock_hz"]),
            d["stands_for"],
            d["shares"],
            d["differs"],
            # 5-tuples of int, each row's length checked above (mypy sees tuple[int, ...])
            regions,  # type: ignore[arg-type]
            d.get("counter_read"),
        )
    return out


def machine(name: str) -> CyclesMachine:
    known = machines()
    if name not in known:
        raise CyclesError(f"no timing data for QEMU machine {name!r} (known: {', '.join(known)})")
    return known[name]


@functools.cache
def core_table(core: str) -> dict[str, Any]:
    """A core's timing table (cores/<core>.toml) as TOML."""
    return tomllib.loads((CORES_DIR / f"{core}.toml").read_text())


def elf_symbol(elf: Path, name: str) -> tuple[int, int] | None:
    """A symbol's (value, size) from a 32-bit little-endian ELF's .symtab, or None."""
    data = elf.read_bytes()
    shoff = struct.unpack_from("<I", data, 32)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 46)
    sections = [struct.unpack_from("<10I", data, shoff + i * shentsize) for i in range(shnum)]
    for sh in sections:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sh[6]]
        names = data[strtab[4] : strtab[4] + strtab[5]]
        for off in range(sh[4], sh[4] + sh[5], 16):
            st_name, st_value, st_size = struct.unpack_from("<III", data, off)
            end = names.index(b"\0", st_name)
            if names[st_name:end] == name.encode():
                return int(st_value), int(st_size)
    return None


def vector_handlers(elf: Path, m: CyclesMachine) -> list[int]:
    """The handler addresses of the vector table at the machine's code base (entries
    1.., Thumb pointers): the plugin's exception entries. The table's length is its
    symbol's size where the image names it (`vector_table`, rtbench's and the
    calibration's), else the machine's vector_words."""
    table = elf_symbol(elf, "vector_table")
    count = table[1] // 4 if table and table[0] == m.code_base and table[1] else m.vector_words
    words: list[int] = []
    for addr, data in elf_segments(elf):
        if addr <= m.code_base < addr + len(data):
            off = m.code_base - addr
            n = min(count, (len(data) - off) // 4)
            words = list(struct.unpack_from(f"<{n}I", data, off))
    if not words:
        raise CyclesError(f"{elf}: no vector table at {m.code_base:#x}")
    return sorted({w & ~1 for w in words[1:] if w & 1})


def board_config(elf: Path, m: CyclesMachine) -> str:
    """The plugin's board file for an image: regions, handlers, marker words."""
    lines = [f"# {m.name}: {elf.name}"]
    lines += [f"region = {s:#x} {e:#x} {r} {w} {f}" for s, e, r, w, f in m.regions]
    lines += [f"handler = {h:#x}" for h in vector_handlers(elf, m)]
    marker = elf_symbol(elf, MARKER_SYMBOL)
    if marker is not None:
        lines.append(f"marker = {marker[0]:#x}")
    # only the marker function's stores are edges (not the start-up's .bss zeroing); a
    # port whose build inlined it into its set and clear (NuttX's, Zephyr's lean) names those
    for name in (MARKER_FUNCTION,) if elf_symbol(elf, MARKER_FUNCTION) else MARKER_CALLERS:
        code = elf_symbol(elf, name)
        if code is not None and code[1]:
            lines.append(f"marker_code = {code[0] & ~1:#x} {(code[0] & ~1) + code[1]:#x}")
    if m.counter_read is not None:
        lines.append(f"counter = {m.counter_read:#x}")
        ts = elf_symbol(elf, COUNTER_FUNCTION)
        if ts is not None and ts[1]:
            # the fast mode's memory callbacks on the timestamp loads alone
            lines.append(f"counter_code = {ts[0] & ~1:#x} {(ts[0] & ~1) + ts[1]:#x}")
    return "\n".join(lines) + "\n"


@dataclass
class Cycles:
    """The plugin's capture of one run (vCPU 0)."""

    core: str
    cycles: int = 0
    insns: int = 0
    entries: int = 0
    returns: int = 0
    tail_chains: int = 0
    edges: dict[int, list[int]] = field(default_factory=dict)  # channel -> cycle of each edge
    # (channel, cycle) in execution order; channel READ: a read of the guest's counter
    order: list[tuple[int, int]] = field(default_factory=list)


def read_capture(path: Path) -> Cycles:
    """The plugin's output file; a malformed line is one error naming file and line."""
    cyc = Cycles(core="")
    vcpu = -1
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        key, _, rest = line.partition(" ")
        try:
            if key == "core":
                cyc.core = rest
            elif key == "vcpu":
                vcpu = int(rest)
            elif vcpu != 0:
                continue
            elif key == "read":
                cyc.order.append((READ, int(rest)))
            elif key == "edge":
                ch, at = (int(v) for v in rest.split())
                cyc.edges.setdefault(ch, []).append(at)
                cyc.order.append((ch, at))
            elif key in ("cycles", "insns", "entries", "returns", "tail_chains"):
                setattr(cyc, key, int(rest))
            else:
                raise ValueError(key)
        except ValueError:
            raise CyclesError(f"{path}:{n}: malformed line {line!r}") from None
    return cyc


def plugin_args(
    elf: Path,
    m: CyclesMachine,
    workdir: Path,
    trace: Path | None = None,
    trace_from: int = -1,
    exact: bool = False,
) -> tuple[list[str], Path]:
    """QEMU's -plugin option for an image (its board file written to workdir) and the
    capture file the plugin will write; with `trace`, every instruction's address and
    cycle into that file too (read_trace), from the first at `trace_from` if given.
    `exact`: the plugin's per-instruction mode (the same counts as its default per-block
    mode, at twice the cost: tests hold the two equal)."""
    missing = plugin_missing()
    if missing:
        raise CyclesError(missing)
    workdir.mkdir(parents=True, exist_ok=True)
    board = workdir / f"{elf.stem}.board"
    board.write_text(board_config(elf, m))
    out = workdir / f"{elf.stem}.cycles"
    out.unlink(missing_ok=True)
    opt = f"{plugin_path()},core={m.table},board={board},out={out}"
    if trace is not None:
        opt += f",trace={trace}" + (f",trace_from={trace_from:#x}" if trace_from >= 0 else "")
    if exact:
        opt += ",mode=exact"
    return ["-plugin", opt], out


TRACE_RECORD = struct.Struct("<IQ")  # the plugin's trace: address, cycle it starts at


def read_trace(path: Path) -> tuple[list[int], list[int]]:
    """The plugin's instruction trace (`trace=`): addresses and the cycle each starts at."""
    data = path.read_bytes()
    if len(data) % TRACE_RECORD.size:
        raise CyclesError(f"{path}: {len(data)} bytes, not whole {TRACE_RECORD.size}-byte records")
    pcs, cycles = [], []
    for pc, cyc in TRACE_RECORD.iter_unpack(data):
        pcs.append(pc)
        cycles.append(cyc)
    return pcs, cycles


def run_image(
    elf: Path,
    machine_name: str,
    workdir: Path,
    timeout: float = 120,
    trace: Path | None = None,
    exact: bool = False,
) -> Cycles:
    """Runs a bare-metal image to its semihosting exit under the plugin (with `trace`,
    its instruction trace into that file too; `exact`: the per-instruction mode)."""
    m = machine(machine_name)
    plugin, out = plugin_args(elf, m, workdir, trace, exact=exact)
    argv = ["qemu-system-arm", "-M", m.name, "-kernel", str(elf), "-nographic",
            "-monitor", "none", "-serial", "null", *icount_args(0),
            "-semihosting-config", "enable=on,target=native", *plugin]  # fmt: skip
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0 or not out.is_file():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise CyclesError(
            f"{elf.name} on {m.name}: QEMU exited {proc.returncode}: {' | '.join(tail)}"
        )
    return read_capture(out)


CALIBRATION_DIR = PLUGIN_DIR / "calibration"


def build_calibration(out: Path | None = None) -> Path:
    """Builds the calibration images (calib-<machine>.elf) into out (default
    build/qemu-cycles-calibration), the way the mps2 board layer is built."""
    out = out or REPO_ROOT / "build" / "qemu-cycles-calibration"
    with layer_build(CALIBRATION_DIR, out, ["-DCMAKE_BUILD_TYPE=Release"]) as cfg:
        configure_and_build(cfg, out, "qemu-cycles calibration", "-j2")
    return out


def bracket_cycles(cyc: Cycles, channel: int = 0) -> list[int]:
    """Each bracket's cycles: edge 2i to edge 2i + 1 of the channel."""
    e = cyc.edges.get(channel, [])
    if len(e) % 2:
        raise CyclesError(f"channel {channel}: {len(e)} edges, not pairs of brackets")
    return [e[i + 1] - e[i] for i in range(0, len(e), 2)]
