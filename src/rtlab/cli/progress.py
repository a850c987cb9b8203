"""A progress bar on stderr for work on one file, shown only when it is worth it.

Nothing appears when stderr is not a terminal (piped, redirected, in a test) nor for
work that ends within DELAY_S: the bar (rich) is made by a timer after that delay, so a
quick command never imports rich.progress.

The bar counts edges against the total when the reader knows it before the end; when it
does not (a sigrok session counts its edges as it decodes them), it counts the bytes of
the file read so far against the file's size (the reader's own file position, seen in
/proc/self/fdinfo), so that there is always a total and an ETA.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from rtlab.cli.common import err

DELAY_S = 1.0


class DelayedProgress:
    """Call it with (done, total) edges as work goes; use it as a context manager."""

    def __init__(
        self,
        label: str,
        delay_s: float = DELAY_S,
        enabled: bool | None = None,
        path: Path | None = None,
    ) -> None:
        self.label = label
        self.path = path
        self._unit = "edges"
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._lock = threading.Lock()
        self._bar: Any = None
        self._task: Any = None
        self._done, self._total = 0, None  # type: int, int | None
        self._closed = False
        self._timer = threading.Timer(delay_s, self._start) if self.enabled else None
        self._last = 0.0

    def __enter__(self) -> DelayedProgress:
        if self._timer is not None:
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self._bar is not None:
                self._bar.stop()

    def _start(self) -> None:
        from rich.progress import (
            BarColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        class TimeColumn(TimeRemainingColumn):
            """The ETA when there is a total and a rate to reach it by, else the time
            spent (never -:--:--)."""

            elapsed = TimeElapsedColumn()

            def render(self, task: Any) -> Any:
                known = task.total and task.time_remaining is not None
                return super().render(task) if known else self.elapsed.render(task)

        with self._lock:
            if self._closed:
                return
            if self._total is None:  # no edge count yet: open on the file's bytes
                at = self._file_position()
                if at is not None:
                    (self._done, self._total), self._unit = at, "bytes"
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[count]}"),
                TimeColumn(),
                console=err.get(),
                transient=True,
            )
            self._task = self._bar.add_task(
                self.label, total=self._total, completed=self._done, count=self._count()
            )
            self._bar.start()

    def _count(self) -> str:
        """'1,049,116/6,530,591 edges', or '1,049,116 edges' without a total."""
        if self._total:
            return f"{self._done:,}/{self._total:,} {self._unit}"
        return f"{self._done:,} {self._unit}"

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None and self._timer is None:
            return  # disabled: not even a look at the file position
        now = time.monotonic()
        if now - self._last < 0.1 and (total <= 0 or done < total):
            return
        self._last = now
        if total <= 0 or done > total:  # the reader does not know its edges: bytes
            at = self._file_position()
            if at is not None:
                done, total, self._unit = at[0], at[1], "bytes"
        self._done, self._total = done, total if total > 0 else None
        with self._lock:
            if self._bar is not None and not self._closed:
                self._bar.update(
                    self._task, completed=done, total=self._total, count=self._count()
                )

    def _file_position(self) -> tuple[int, int] | None:
        """(bytes read, file size) of this process's open file on `path`, if any."""
        if self.path is None:
            return None
        try:
            st = os.stat(self.path)
            best = None
            for fd in os.listdir("/proc/self/fd"):
                try:
                    f = os.stat(f"/proc/self/fd/{fd}")
                except OSError:
                    continue
                if (f.st_dev, f.st_ino) != (st.st_dev, st.st_ino):
                    continue
                with open(f"/proc/self/fdinfo/{fd}") as info:
                    pos = int(info.readline().split()[1])
                best = pos if best is None else max(best, pos)
        except (OSError, ValueError, IndexError):
            return None
        return None if best is None else (min(best, st.st_size), st.st_size)
