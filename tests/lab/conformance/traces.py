"""PC traces of one core, in one shape for both machines: the addresses it ran, in order,
and whether each ran in an exception handler.

- The RP2040 model's (run.js --pc-trace, models/rp2040/src/pctrace.js): every
  instruction, each exception entry and return marked by an IPSR word.
- QEMU's (`-d exec,nochain,int`): the first address of every translation block it ran
  (a block ends at a branch, so every call and return starts one), and between them an
  M-profile exception's entry ("...taking pending ... exception N") and its return
  ("...successful exception return"), as QEMU 7.2 logs them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

IPSR_WORD = 0xF0000000


@dataclass
class Trace:
    pcs: np.ndarray  # int64 addresses, in the order the core ran them
    handler: np.ndarray  # bool: ran in Handler mode (an exception)


def model_trace(path: Path, core: int = 0) -> Trace:
    """One core's part of a model trace."""
    words = np.fromfile(path, dtype="<u4").astype(np.int64)
    ipsr_word = (words & 0xF0000000) == IPSR_WORD
    which = np.where(ipsr_word, (words >> 8) & 1, words & 1)
    words, ipsr_word = words[which == core], ipsr_word[which == core]
    # IPSR in force at each instruction: the last IPSR word before it
    last = np.maximum.accumulate(np.where(ipsr_word, np.arange(len(words)), -1))
    ipsr = np.where(last >= 0, words[np.maximum(last, 0)] & 0xFF, 0)
    keep = ~ipsr_word
    return Trace(words[keep] & ~1, ipsr[keep] != 0)


# QEMU 7.2's CPU_LOG_EXEC line: "Trace 0: 0x7f.. [00000000/00001234/00000000/ff200000] sym"
_EXEC = re.compile(r"^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/")
_TAKEN = "...taking pending"
_RETURN = "...successful exception return"


def qemu_trace(path: Path) -> Trace:
    """A one-core QEMU log's blocks, with Handler mode followed through the exception
    entries and returns it logs (nested: a return ends the latest entry)."""
    pcs: list[int] = []
    handler: list[bool] = []
    depth = 0
    with open(path, errors="replace") as f:
        for line in f:
            m = _EXEC.match(line)
            if m:
                pcs.append(int(m.group(1), 16))
                handler.append(depth > 0)
            elif line.startswith(_TAKEN):
                depth += 1
            elif line.startswith(_RETURN) and depth:
                depth -= 1
    return Trace(np.array(pcs, dtype=np.int64) & ~1, np.array(handler, dtype=bool))
