"""VCD and FST through pywellen (wellen.py, the one adapter), and a fast VCD writer.

Reading: every 1-bit variable becomes a channel named by its full hierarchical name
(`tb.u.clk`); `metadata["aliases"]` maps each unambiguous short name (`clk`) to it and
`channels=` selects by either. One tick is one timescale unit (exact). Values x/z (and
the other unknown states of 9-valued logic) are not levels: a channel's initial level is
its first known level, an x/z in the middle holds the previous level (the next known
level makes an edge only if it differs); `metadata["xz_changes"]` counts them. Repeated
equal values are not edges. Multi-bit, real and string variables are skipped.

reader.py reads (the numpy scanner in scanner.py first); wellen.py holds everything that
touches pywellen, which runs in a forked child (a corrupt file can abort it); writer.py
writes; roundtrip.py is what the writer adds for the reader.
"""

from __future__ import annotations

from typing import Any

from rtlab.formats import FormatSpec, choice, name_list, number
from rtlab.formats.vcd.reader import read, read_stream, sniff, sniff_fst


def write(cap: Any, path: Any, **options: Any) -> None:
    """writer.write, imported when a VCD is written (reading never needs it)."""
    from rtlab.formats.vcd.writer import write as write_vcd

    write_vcd(cap, path, **options)


__all__ = ["FORMATS", "read", "read_stream", "sniff", "write"]

_OPTIONS = {"channels": name_list, "timeout": number, "engine": choice("auto", "wellen", "scan")}
FORMATS = [
    FormatSpec.of(
        globals(), "vcd", (".vcd",), "Value Change Dump (simulators, PulseView, GTKWave)",
        _OPTIONS,
    ),
    FormatSpec.of(
        globals(), "fst", (".fst",), "FST waveform (GTKWave, Verilator, Icarus -fst)",
        _OPTIONS, sniff=sniff_fst, write=None,
    ),
]  # fmt: skip
