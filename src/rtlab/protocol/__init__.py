"""Host side of the rtlab output protocol v1 (docs/protocol.md): parser and encoder.

Every workload kind (Linux programs, RTOS firmware over UART, QEMU guests) speaks it:

    runs = parse(text_or_lines, source="uart0")
    for run in runs:
        if not run.complete:
            print(run.problems)          # lost chunks, bad CRC, missing end, ...
        lat = run.series["latency"].samples()

Malformed lines raise ProtocolError (source and line number); loss and truncation are
not exceptions: the run is marked incomplete and `problems` says what is missing, so
the caller decides whether a partial run is still worth keeping.

records.py holds what a run is, reader.py reads output as it comes (the one reader:
parser.py's parse() feeds it a whole output), run_builder.py what each record does to a
run, decoder.py turns sample chunks into numbers in bulk, encoder.py writes lines.
A target's labels (labels.py) travel beside the output as data and the reader merges
them into each run's meta. Nothing outside this package builds `@rtl1` lines.
"""

from rtlab.protocol.encoder import Writer, encode_line, encode_series, encode_value, zigzag_leb128
from rtlab.protocol.labels import NO_LABELS, Labels
from rtlab.protocol.parser import parse, parse_one
from rtlab.protocol.reader import Line, Reader
from rtlab.protocol.records import (
    END_STATUSES,
    LINE_PREFIX,
    MAX_CHUNK,
    MAX_LINE,
    PREFIX,
    UNITS,
    VERSION,
    ProtocolError,
    Run,
    Series,
)

__all__ = [
    "END_STATUSES",
    "LINE_PREFIX",
    "MAX_CHUNK",
    "MAX_LINE",
    "NO_LABELS",
    "PREFIX",
    "UNITS",
    "VERSION",
    "Labels",
    "Line",
    "ProtocolError",
    "Reader",
    "Run",
    "Series",
    "Writer",
    "encode_line",
    "encode_series",
    "encode_value",
    "parse",
    "parse_one",
    "zigzag_leb128",
]
