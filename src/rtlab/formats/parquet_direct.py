"""Reading rtlab's native Parquet files without Arrow: the compiled decoder.

The native writer (parquet.py) stores edge times as uncompressed DELTA_BINARY_PACKED
pages. `rtlab_native.decode_delta_chunk` (Rust, bounds-checked: a corrupt page is a
ValueError naming its byte offset, never a crash, so no forked child is needed) decodes
such a column chunk straight from the memory-mapped file, row group by row group, at
about twice Arrow's speed on this machine. Any other layout (a file written by another
tool: compressed, dictionary-encoded) goes through DuckDB in a forked child instead
(parquet.py); parquet_footer.py finds the column chunks.
"""

from __future__ import annotations

import contextlib
import mmap
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError

try:
    from rtlab_native import decode_delta_chunk
except ImportError:  # pragma: no cover - depends on the install
    decode_delta_chunk = None


def usable(locations: list[tuple[int, int, int] | None], rgs: list[int]) -> bool:
    return decode_delta_chunk is not None and all(locations[rg] is not None for rg in rgs)


def iter_direct(
    path: Path,
    jobs: list[tuple[int, list[int]]],
    locations: list[Any],
    names: dict[int, str],
    nullable: bool,
) -> Iterator[tuple[str, np.ndarray, bool]]:
    """(channel name, edge times, may two be equal?) per row group of each job (channel
    index, its row groups); order and counts checked on the way (FormatError naming the
    row group).
    A thread decodes the next row group while the caller works on this one (the
    decoder releases the GIL, and so does the analysis kernel): two cores busy."""
    assert decode_delta_chunk is not None
    order = [(i, rg) for i, rgs in jobs for rg in rgs]
    rows_max = max((locations[rg][2] for _, rg in order), default=0)
    buffers = [np.empty(max(rows_max, 1), dtype=np.int64) for _ in range(2)]
    with (
        open(path, "rb") as fh,
        mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm,
        ThreadPoolExecutor(1) as pool,
    ):
        view = memoryview(mm)

        def decode(k: int) -> tuple[int, bool, bool]:
            rg = order[k][1]
            off, size, rows = locations[rg]
            if off < 0 or size < 0 or off + size > len(mm):
                raise FormatError(path, f"row group {rg}: column chunk past the end")
            try:
                out: tuple[int, bool, bool] = decode_delta_chunk(
                    view[off : off + size], nullable, buffers[k % 2][:rows]
                )
            except ValueError as exc:
                raise FormatError(path, f"row group {rg}: {exc}") from None
            # the file's pages read are page cache, not this process's: drop them from
            # its resident set (a 10^9-edge file would otherwise count 0.5 GB)
            start = off - off % mmap.PAGESIZE
            with contextlib.suppress(OSError, ValueError, AttributeError):
                mm.madvise(mmap.MADV_DONTNEED, start, off + size - start)
            return out

        try:
            pending = pool.submit(decode, 0) if order else None
            last: dict[int, int] = {}
            for k, (i, rg) in enumerate(order):
                assert pending is not None
                n, unsorted, dup = pending.result()
                pending = pool.submit(decode, k + 1) if k + 1 < len(order) else None
                rows = locations[rg][2]
                if n != rows:
                    raise FormatError(path, f"row group {rg}: {n} values for {rows} rows")
                part = buffers[k % 2][:n]
                if n and (unsorted or (i in last and part[0] < last[i])):
                    raise FormatError(path, f"channel {names[i]!r}: edge times are not sorted")
                if n:
                    last[i] = int(part[-1])
                    yield names[i], part, dup
        finally:
            if pending is not None:
                pending.cancel()
                with contextlib.suppress(Exception):
                    pending.result()
            view.release()
