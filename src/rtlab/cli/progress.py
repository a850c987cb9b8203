"""A progress bar on stderr for work on one file, shown only when it is worth it.

Nothing appears when stderr is not a terminal (piped, redirected, in a test) nor for
work that ends within DELAY_S: the bar (rich) is made by a timer after that delay, so a
quick command never imports rich.progress.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import Any

from rtlab.cli.common import err

DELAY_S = 1.0


class DelayedProgress:
    """Call it with (done, total) edges as work goes; use it as a context manager."""

    def __init__(self, label: str, delay_s: float = DELAY_S, enabled: bool | None = None) -> None:
        self.label = label
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
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        with self._lock:
            if self._closed:
                return
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("edges"),
                TimeRemainingColumn(),
                console=err.get(),
                transient=True,
            )
            self._task = self._bar.add_task(self.label, total=self._total, completed=self._done)
            self._bar.start()

    def __call__(self, done: int, total: int) -> None:
        self._done, self._total = done, total
        if self._bar is None:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and done < total:
            return
        self._last = now
        with self._lock:
            if self._bar is not None and not self._closed:
                self._bar.update(self._task, completed=done, total=total)
