"""The options of every command that reads captures (--format, --tick, --first-level,
-O, --from, --to, --min-width) and `reading`, which gives a command all of them as one
`Reader`."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from rtlab.cli.analyze_run import load_capture, open_capture_stream, options_of_flags, parse_window

FormatOpt = Annotated[
    str | None,
    typer.Option("--format", "-f", help="input format (guessed when omitted); see `rtlab formats`"),
]
TickOpt = Annotated[
    str | None, typer.Option(help="tick length for formats that need one, e.g. 16ns, 125MHz")
]
FirstLevelOpt = Annotated[
    int | None, typer.Option(help="pio-durations: level of the first duration (1 = high)")
]
ReaderOpt = Annotated[
    list[str], typer.Option("--opt", "-O", help="reader option KEY=VALUE (repeatable)")
]
EdgeOpt = Annotated[str, typer.Option(help="edge for periods: rising, falling or both")]
FromOpt = Annotated[
    str | None,
    typer.Option(
        "--from",
        metavar="TIME|EDGE",
        help="start of the window: a time (1.5ms) or an edge (D2:rising, D2:rising+10us)",
    ),
]
MinWidthOpt = Annotated[
    str | None,
    typer.Option(
        "--min-width",
        metavar="DURATION",
        help="glitch filter: remove pulses narrower than this (e.g. 20ns) and say how many",
    ),
]
ToOpt = Annotated[
    str | None,
    typer.Option(
        "--to",
        metavar="TIME|EDGE",
        help="end of the window (excluded): a time, an edge, or +DURATION after --from",
    ),
]


@dataclass(frozen=True)
class Reader:
    """How a command reads its captures: --format and the reader options (--tick,
    --first-level, -O KEY=VALUE), given to a `reading` command as its `reader`."""

    format: str | None
    tick: str | None
    first_level: int | None
    opt: list[str]
    start: str | None = None
    end: str | None = None
    min_width: str | None = None

    def options(self) -> dict[str, Any]:
        """The reader options as formats.load/open_stream take them (one error when a
        key is given twice)."""
        return options_of_flags(self.tick, self.first_level, self.opt)

    def window(self) -> Any:
        return parse_window(self.start, self.end)

    def open_stream(self, file: Path, options: dict[str, Any] | None = None) -> Any:
        """The capture as a stream, cut to --from/--to."""
        opts = self.options() if options is None else options
        return open_capture_stream(file, self.format, opts, self.window(), self.min_width)

    def load(self, file: Path) -> Any:
        """The whole capture, cut to --from/--to."""
        return load_capture(file, self.format, self.options(), self.window(), self.min_width)


_READER = [
    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=ann)
    for name, ann, default in (
        ("format", FormatOpt, None),
        ("tick", TickOpt, None),
        ("first_level", FirstLevelOpt, None),
        ("opt", ReaderOpt, []),
        ("start", FromOpt, None),
        ("end", ToOpt, None),
        ("min_width", MinWidthOpt, None),
    )
]


def reading(command: Callable[..., None]) -> Callable[..., None]:
    """`command`, whose last parameter is `reader: Reader`, as typer sees a command with
    the options --format, --tick, --first-level and --opt in its place: the one list of
    them for every command that reads captures."""
    sig = inspect.signature(command, eval_str=True)
    params = [p for p in sig.parameters.values() if p.name != "reader"]

    @functools.wraps(command)
    def with_reader(**kw: Any) -> None:
        reader = Reader(*(kw.pop(p.name) for p in _READER))
        command(**kw, reader=reader)

    # typer reads a function's __signature__, which mypy does not know functions to have
    with_reader.__signature__ = sig.replace(parameters=[*params, *_READER])  # type: ignore[attr-defined]
    with_reader.__annotations__ = {p.name: p.annotation for p in [*params, *_READER]}
    return with_reader
