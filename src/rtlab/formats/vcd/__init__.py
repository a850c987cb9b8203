"""VCD and FST through pywellen (wellen.py, the one adapter), and a fast VCD writer.

Reading: every 1-bit variable becomes a channel named by its full hierarchical name
(`tb.u.clk`); `metadata["aliases"]` maps each unambiguous short name (`clk`) to it and
`channels=` selects by either. One tick is one timescale unit (exact). Values x/z (and
the other unknown states of 9-valued logic) are not levels: a channel's initial level is
its first known level, an x/z in the middle holds the previous level (the next known
level makes an edge only if it differs); `metadata["xz_changes"]` counts them. Repeated
equal values are not edges. Multi-bit, real and string variables are skipped.

to_capture.py reads (the numpy scanner in scanner.py first); wellen.py holds everything
that touches pywellen, which runs in a forked child (a corrupt file can abort it);
writer.py writes; roundtrip.py is what the writer adds for the reader.
"""

from __future__ import annotations

from typing import Any

from rtlab.formats import FormatSpec, choice, name_list, number
from rtlab.formats.vcd.to_capture import read as _read
from rtlab.formats.vcd.to_capture import read_stream as _read_stream
from rtlab.formats.vcd.to_capture import sniff, sniff_fst


def read(path: Any, *, vectors: str = "skip", **options: Any) -> Any:
    """reader.read; with vectors="bits" each multi-bit variable as one channel per bit
    (vector_bits.py: `bus[3]` … `bus[0]`)."""
    if vectors != "bits":
        return _read(path, **options)
    from pathlib import Path

    from rtlab.formats.vcd.vector_bits import split_vectors

    copy = split_vectors(Path(path))
    try:
        return _read(copy, **options)
    finally:
        copy.unlink(missing_ok=True)


def read_stream(path: Any, *, vectors: str = "skip", **options: Any) -> Any:
    """reader.read_stream; vectors="bits" as read()."""
    if vectors != "bits":
        return _read_stream(path, **options)
    from pathlib import Path

    from rtlab.formats.vcd.vector_bits import split_vectors

    copy = split_vectors(Path(path))
    stream = _read_stream(copy, **options)
    inner = stream.chunks

    def chunks() -> Any:
        try:
            yield from inner
        finally:
            copy.unlink(missing_ok=True)

    stream.chunks = chunks()
    return stream


def write(cap: Any, path: Any, **options: Any) -> None:
    """writer.write, imported when a VCD is written (reading never needs it)."""
    from rtlab.formats.vcd.writer import write as write_vcd

    write_vcd(cap, path, **options)


__all__ = ["FORMATS", "read", "read_stream", "sniff", "write"]

_OPTIONS = {
    "channels": name_list,
    "timeout": number,
    "engine": choice("auto", "wellen", "scan"),
    "vectors": choice("skip", "bits"),  # -O vectors=bits: one channel per bit, bus[3]
}
FORMATS = [
    FormatSpec.of(
        globals(), "vcd", (".vcd",),
        "Value Change Dump (simulators, PulseView, GTKWave); vectors: -O vectors=bits",
        _OPTIONS,
    ),
    FormatSpec.of(
        globals(), "fst", (".fst",), "FST waveform (GTKWave, Verilator, Icarus -fst)",
        _OPTIONS, sniff=sniff_fst, write=None,
    ),
]  # fmt: skip
