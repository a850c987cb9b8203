"""One serial board run: flash the image, open the port, reset, read the protocol until
the output is done, stop what the flasher started. Shared by the `serial` target and
the labgrid target's serial board (which opens the port through labgrid's SerialDriver).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from rtlab.catalog.machines import Machine
from rtlab.lab.serialboard.board_output import OutputReader, Reading
from rtlab.lab.serialboard.errors import BoardSilent, SerialBoardError
from rtlab.lab.serialboard.flashers.base import Flasher
from rtlab.lab.serialboard.link import SerialLink
from rtlab.protocol import Labels


class SerialBoard:
    """`open_link(url)` opens the port (url: the flasher's, else `port`); `expect`: the
    meta the image must say (board=…, rtos=…); `labels`: meta every run gets."""

    def __init__(
        self,
        board: Machine,
        flasher: Flasher,
        port: str | None,
        open_link: Callable[[str], SerialLink],
        expect: Mapping[str, str],
        labels: Mapping[str, object] = {},
        answer_s: float = 10.0,
        quiet_s: float | None = None,
        builtin_args: bool = False,
    ) -> None:
        self.board = board
        self.flasher = flasher
        self.port_url = port
        self.open_link = open_link
        self.expect = dict(expect)
        self.labels = dict(labels)
        self.answer_s = answer_s
        self.quiet_s = quiet_s
        self.builtin_args = builtin_args
        self._aborted = False

    def run(self, argv: Sequence[str], timeout: float) -> tuple[Reading, int | None, Labels]:
        """The reading (its text as the board sent it, its runs labelled), the exit
        status (the image's done line, else an emulator's) and the labels."""
        if not argv:
            raise SerialBoardError("nothing to run")
        image = Path(argv[0])
        if not image.is_file():
            raise SerialBoardError(f"no such image: {argv[0]}")
        words = list(argv[1:])
        if words and not self.flasher.passes_args and not self.builtin_args:
            raise SerialBoardError(
                f"the {self.flasher.name} flasher cannot give {image.name} a command line "
                f"({' '.join(words)}): the image runs the options built into it; set "
                "builtin_args = true in [target] to run it as built (its meta says what ran)"
            )
        self._aborted = False
        labels = Labels.of(under=self.flasher.labels(self.labels))
        self.flasher.flash(image.resolve(), words if self.flasher.passes_args else [])
        link: SerialLink | None = None
        reading: Reading | None = None
        silent: BoardSilent | None = None
        try:
            url = self.flasher.port() or self.port_url
            assert url is not None, "checked at spec load: a port or a flasher that gives one"
            link = self.open_link(url)
            self.flasher.reset()
            where = f"board {self.board.board} on {url}"
            reader = OutputReader(link, self.expect, where, labels)
            reading = reader.read(timeout, self.answer_s, self.quiet_s, lambda: self._aborted)
        except BoardSilent as e:
            silent = e
        finally:
            if link is not None:
                link.close()
            if reading is None or reading.ended_by != "eof":
                self.flasher.abort()  # an emulator still running: stop it
            status = self.flasher.finish()
        if silent is not None:  # its notes read after finish(): the emulator's last line is in
            notes = self.flasher.notes()
            raise BoardSilent(f"{silent}; {self.flasher.name}: {notes}" if notes else str(silent))
        assert reading is not None  # any other error has propagated
        if self._aborted:
            status = None
        exit_status = reading.exit_status if reading.exit_status is not None else status
        return reading, exit_status, labels

    def abort(self) -> None:
        """Stop the run in progress (another thread asks: Ctrl-C in a parallel run)."""
        self._aborted = True
        self.flasher.abort()
