"""The functions of a firmware image (its ELF symbol table) and whose code each is:
rtbench's own (the scenarios, the port, the board layer), the compiler's runtime
library (libgcc's helpers, and the pico-sdk's wrappers of them), or the system's
(the kernel, the C library, an SDK, the boot ROM): everything else."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from tests.paths import REPO_ROOT

RTBENCH_SOURCES = (REPO_ROOT / "workloads" / "rtbench", REPO_ROOT / "workloads" / "common")
RTBENCH, RUNTIME, SYSTEM = "rtbench", "runtime", "system"
UNKNOWN = "?"  # an address no symbol covers (the boot ROM's code)
# The pico-sdk's own division helpers (pico_divider), which its __aeabi wrappers alias
_SDK_DIVIDER = re.compile(r"^(div|divmod)_[su](32|64)[su](32|64)(_rem)?$")

# A function's definition at the start of a line: its name, its parameters, then `{`.
_DEFINITION = re.compile(
    r"^(?!static\b|typedef\b|extern\b|#|return\b|else\b)[A-Za-z_][\w \t*()]*?\b([A-Za-z_]\w*)"
    r"\s*\(([^()]|\([^()]*\))*\)\s*\{",
    re.M,
)


@dataclass(frozen=True)
class Function:
    name: str
    start: int
    end: int
    file: str  # a local symbol's source file (the STT_FILE before it); "" for a global


@cache
def rtbench_files() -> frozenset[str]:
    """The base names of rtbench's C and assembly sources (a local symbol's file)."""
    return frozenset(
        p.name for d in RTBENCH_SOURCES for ext in ("*.c", "*.S", "*.s") for p in d.rglob(ext)
    )


@cache
def rtbench_globals() -> frozenset[str]:
    """The names of the non-static functions rtbench's C sources define, but the bare
    layer's (no kernel image links it: its memcpy is not the C library's)."""
    names: set[str] = set()
    for d in RTBENCH_SOURCES:
        for p in d.rglob("*.c"):
            if "bare" in p.relative_to(d).parts:
                continue
            names.update(m.group(1) for m in _DEFINITION.finditer(p.read_text(errors="replace")))
    return frozenset(names)


@cache
def runtime_names() -> frozenset[str]:
    """The functions libgcc defines (the multilib gcc links by default: the names are
    every multilib's)."""
    lib = subprocess.run(
        ["arm-none-eabi-gcc", "-print-libgcc-file-name"], capture_output=True, text=True, check=True
    ).stdout.strip()
    out = subprocess.run(
        ["arm-none-eabi-nm", "--defined-only", lib], capture_output=True, text=True, check=True
    ).stdout
    return frozenset(line.split()[2] for line in out.splitlines() if line.count(" ") == 2)


class Image:
    """The functions of one ELF, looked up by address."""

    def __init__(self, elf: Path) -> None:
        by_start: dict[int, Function] = {}
        with open(elf, "rb") as f:
            tab = ELFFile(f).get_section_by_name(".symtab")
            if not isinstance(tab, SymbolTableSection):
                raise ValueError(f"{elf}: no symbol table")
            source = ""
            for sym in tab.iter_symbols():
                kind, bind = sym["st_info"]["type"], sym["st_info"]["bind"]
                if kind == "STT_FILE":
                    source = sym.name
                if kind != "STT_FUNC" or sym["st_shndx"] == "SHN_UNDEF":
                    continue
                start = sym["st_value"] & ~1
                local = source if bind == "STB_LOCAL" else ""
                fn = Function(sym.name, start, start + sym["st_size"], local)
                old = by_start.get(start)
                if old is None or (old.end == old.start and fn.end > fn.start):
                    by_start[start] = fn  # an alias keeps the first name that has a size
        funcs = sorted(by_start.values(), key=lambda f: f.start)
        # A function without a size (an assembly label) runs to the next one.
        for i, fn in enumerate(funcs):
            if fn.end == fn.start:
                nxt = funcs[i + 1].start if i + 1 < len(funcs) else fn.start + 2
                funcs[i] = Function(fn.name, fn.start, nxt, fn.file)
        self.functions = funcs
        self._starts = np.array([f.start for f in funcs], dtype=np.int64)
        self._ends = np.array([f.end for f in funcs], dtype=np.int64)
        self._index = {f.name: i for i, f in reversed(list(enumerate(funcs)))}

    def lookup(self, pcs: np.ndarray) -> np.ndarray:
        """The index of the function holding each address, -1 where none does."""
        i = np.searchsorted(self._starts, pcs, side="right") - 1
        ok = (i >= 0) & (pcs < self._ends[np.maximum(i, 0)])
        return np.where(ok, i, -1)

    def start_of(self, name: str) -> int:
        """The first address of the function `name` (KeyError when the image has none)."""
        return self.functions[self._index[name]].start

    def is_entry(self, index: int, pc: int) -> bool:
        return index >= 0 and self.functions[index].start == pc

    def name(self, index: int) -> str:
        """Its name; a linker's veneer (a long branch to it) goes by the function's."""
        if index < 0:
            return UNKNOWN
        name = self.functions[index].name
        if name.startswith("__") and name.endswith("_veneer"):
            return name[2 : -len("_veneer")]
        return name

    def whose(self, index: int) -> str:
        """RTBENCH, RUNTIME or SYSTEM."""
        if index < 0:
            return SYSTEM
        fn = self.functions[index]
        if self.name(index) != fn.name:  # a veneer: whose its function is
            return self.whose(self._index.get(self.name(index), -1))
        if fn.file:
            if fn.file in rtbench_files():
                return RTBENCH
        elif fn.name in rtbench_globals():
            return RTBENCH
        if fn.name.removeprefix("__wrap_") in runtime_names() or _SDK_DIVIDER.match(fn.name):
            return RUNTIME
        return SYSTEM

    def file_of(self, index: int) -> str:
        return self.functions[index].file if index >= 0 else ""
