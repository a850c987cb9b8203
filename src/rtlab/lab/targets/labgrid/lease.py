"""Holding a labgrid place for one `rtlab run`: acquire it, release it on every way out.

Success, an error and Ctrl-C release it in `close()`. A `kill -9` of rtlab cannot run
any code of its own, so a small reaper process (rtlab.lab.targets.labgrid.reaper, its own
session so that Ctrl-C in the terminal does not reach it) holds the read end of a pipe
whose write end only rtlab has: when rtlab dies, however it dies, the pipe ends and the
reaper releases the place.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys

from rtlab.lab.targets.labgrid import places


class Lease:
    """The place, acquired (PlaceBusy if someone else holds it)."""

    def __init__(self, coordinator: str, place: str) -> None:
        self.coordinator = coordinator
        self.place = place
        places.acquire(coordinator, place)
        self._reaper: subprocess.Popen[bytes] | None = None
        try:
            self._reaper = subprocess.Popen(
                [sys.executable, "-m", "rtlab.lab.targets.labgrid.reaper", coordinator, place],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except BaseException:
            places.release(coordinator, place)
            raise

    def close(self) -> None:
        """Release the place (once); the reaper is told to leave it alone."""
        reaper, self._reaper = self._reaper, None
        if reaper is None:
            return
        released = False
        try:
            places.release(self.coordinator, self.place)
            released = True
        finally:
            # a release that failed (a slow coordinator) is the reaper's to retry: it
            # releases when our end of the pipe closes without `released`
            with contextlib.suppress(OSError):
                assert reaper.stdin is not None
                if released:
                    reaper.stdin.write(b"released\n")
                reaper.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                reaper.wait(timeout=5)
