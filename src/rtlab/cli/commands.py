"""The typer application of `rtlab …` (rtlab.cli.app): a thin shell over the library;
every command is a library call. `rtlab analyze FILE …` usually runs without it
(cli/fast.py); its help, its errors of usage and every other command come here."""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

# Only what `rtlab --help` needs is imported here: numpy, the readers, DuckDB and
# matplotlib load inside the command that uses them (tests/cli/test_startup.py).
from rtlab.cli.analyze_run import _reader_options, run_analyze
from rtlab.cli.common import err, guarded
from rtlab.errors import RtlabError

app = typer.Typer(
    name="rtlab",
    help="rtlab: a timing lab for real-time systems.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # click's plain help: typer's rich help imports 0.1 s of modules
)


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


@dataclass(frozen=True)
class Reader:
    """How a command reads its captures: --format and the reader options (--tick,
    --first-level, -O KEY=VALUE), given to a `reading` command as its `reader`."""

    format: str | None
    tick: str | None
    first_level: int | None
    opt: list[str]

    def options(self) -> dict[str, Any]:
        """The reader options as formats.load/open_stream take them (one error when a
        key is given twice)."""
        return _reader_options(self.tick, self.first_level, self.opt)


_READER = [
    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=ann)
    for name, ann, default in (
        ("format", FormatOpt, None),
        ("tick", TickOpt, None),
        ("first_level", FirstLevelOpt, None),
        ("opt", ReaderOpt, []),
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

    # typer reads the signature it is given; a function type does not declare the attribute
    with_reader.__signature__ = sig.replace(parameters=[*params, *_READER])  # type: ignore[attr-defined]
    with_reader.__annotations__ = {p.name: p.annotation for p in [*params, *_READER]}
    return with_reader


@app.command()
def analyze(
    file: Annotated[Path, typer.Argument(help="capture file")],
    format: FormatOpt = None,
    tick: TickOpt = None,
    first_level: FirstLevelOpt = None,
    channel: Annotated[
        list[str], typer.Option("--channel", "-c", help="channel(s) to analyze (default: all)")
    ] = [],  # noqa: B006 - typer needs a literal default
    latency: Annotated[
        list[str], typer.Option("--latency", "-l", help="channel pair A:B (repeatable)")
    ] = [],  # noqa: B006
    quantiles: Annotated[
        str | None, typer.Option(help="quantiles, e.g. '0.5 0.99 0.999' or 'p50,p99.9'")
    ] = None,
    edge: EdgeOpt = "rising",
    tie: Annotated[
        bool, typer.Option("--tie", help="add the time interval error against a fitted clock")
    ] = False,
    nominal: Annotated[
        str | None, typer.Option(help="nominal frequency for the TIE offset, e.g. 1kHz")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON document")] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="CSV, one row per metric")] = False,
    as_md: Annotated[bool, typer.Option("--md", help="Markdown table")] = False,
    plot: Annotated[
        Path | None, typer.Option(help="write histogram, CDF and trend plots (PNG, SVG) here")
    ] = None,
    opt: ReaderOpt = [],  # noqa: B006
) -> None:
    """Timing statistics of a capture: periods, widths, intervals, c2c, latency."""

    kwargs = dict(locals())  # the parameters, by the names run_analyze and fast.py use
    guarded(lambda: run_analyze(**kwargs))


@app.command()
@reading
def plot(
    files: Annotated[list[Path], typer.Argument(help="one capture, or several to compare")],
    output: Annotated[Path, typer.Option("--output", "-o", help="PNG, SVG or PDF file")],
    metric: Annotated[
        str, typer.Option(help="period, high, low, interval, c2c, tie, or latency")
    ] = "period",
    channel: Annotated[
        str | None, typer.Option("--channel", "-c", help="channel, or A:B for latency")
    ] = None,
    kind: Annotated[str, typer.Option(help="hist, cdf or trend")] = "hist",
    log_y: Annotated[bool, typer.Option("--log-y", help="log y axis (CDF: 1-CDF tail)")] = False,
    edge: EdgeOpt = "rising",
    *,
    reader: Reader,
) -> None:
    """Plot one metric: histogram, CDF or trend; several files share one axis."""

    def body() -> None:
        from rtlab import formats
        from rtlab.analysis.summary import channel_metric
        from rtlab.report import plots

        series = []
        for f in files:
            cap = formats.load(f, reader.format, **reader.options())
            ch = channel or next(iter(cap.channels), None)
            if ch is None:
                raise RtlabError(f"{f}: the capture has no channels")
            label = f"{f.name}:{ch}" if len(files) > 1 else ch
            # metric and edge: the CLI's choices, str to typer, the Literals they name
            series.append((label, channel_metric(cap, ch, metric, edge)))  # type: ignore[arg-type]
        fig = plots.plot(kind, series, f"{metric} ({edge} edges)", log_y)
        plots.save(fig, output)
        err.print(f"wrote {output}")

    guarded(body)


@app.command()
@reading
def convert(
    src: Annotated[Path, typer.Argument(help="capture to read")],
    dst: Annotated[Path, typer.Argument(help="file to write: .parquet or .vcd")],
    *,
    reader: Reader,
) -> None:
    """Convert a capture to rtlab's Parquet format or to VCD (GTKWave, PulseView, Surfer)."""

    def body() -> None:
        from rtlab import formats
        from rtlab.cli.progress import DelayedProgress

        with DelayedProgress(f"converting {src.name}") as bar:
            stream = formats.open_stream(src, reader.format, **reader.options())
            total, done = stream.total_edges, 0

            def counted(chunks: Any) -> Any:
                nonlocal done
                for name, edges in chunks:
                    yield name, edges
                    done += len(edges)
                    bar(done, total)

            stream.chunks = counted(stream.chunks)
            formats.save_stream(stream, dst)
        err.print(f"wrote {dst}: {len(stream.header)} channels, {done} edges")

    guarded(body)


@app.command("formats")
def list_formats() -> None:
    """The capture formats rtlab reads and writes."""
    from rtlab import formats

    for name in formats.names():
        spec = formats.get(name)
        rw = "read/write" if spec.write else "read"
        typer.echo(f"{name:15} {rw:11} {' '.join(spec.extensions):22} {spec.description}")


def _mount_lab() -> None:
    from rtlab.cli.lab import register

    register(app)


def _mount_capture() -> None:
    from rtlab.cli.capture import capture_app

    app.add_typer(capture_app, name="capture", help="Capture edges from an instrument.")


def _mount_study() -> None:
    from rtlab.cli.study import study_app

    app.add_typer(study_app, name="study", help="Studies made of many specs (rtos).")


# module -> what mounts its commands
_OPTIONAL = {
    "rtlab.cli.lab": _mount_lab,
    "rtlab.cli.capture": _mount_capture,
    "rtlab.cli.study": _mount_study,
}


def _mount_optional() -> None:
    """Command groups that live in their own modules: the lab (run, runs, report,
    compare), the instruments (capture) and the studies. A module the install lacks
    is left out; any other missing module is an error."""
    for module, mount in _OPTIONAL.items():
        try:
            mount()
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


# The commands of this module alone: `rtlab analyze x.sr` skips importing the lab's,
# the instruments' and the studies' command modules (start-up is most of a small file's
# analysis, issue 36). Anything else (help, a lab command, the library's tests that drive
# `app`) mounts them. (While `python -m rtlab.cli` imports this, argv[0] is "-m".)
_CORE = {"analyze", "convert", "plot", "formats"}
if not (
    (sys.argv[0] == "-m" or sys.argv[0].endswith(("rtlab", "__main__.py")))
    and sys.argv[1:2]
    and sys.argv[1] in _CORE
):
    _mount_optional()
