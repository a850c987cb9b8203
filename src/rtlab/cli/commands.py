"""The typer application of `rtlab …` (rtlab.cli.app): a thin shell over the library;
every command is a library call. `rtlab analyze FILE …` usually runs without it
(cli/fast.py); its help, its errors of usage and every other command come here."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

# Only what `rtlab --help` needs is imported here: numpy, the readers, DuckDB and
# matplotlib load inside the command that uses them (tests/cli/test_startup.py).
from rtlab.cli.analyze_run import (
    run_analyze,
    say_glitches,
    split_list,
)
from rtlab.cli.common import err, guarded
from rtlab.errors import RtlabError

app = typer.Typer(
    name="rtlab",
    help="rtlab: a timing lab for real-time systems.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # click's plain help: typer's rich help imports 0.1 s of modules
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from rtlab import __version__

        typer.echo(f"rtlab {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="print rtlab's version"
        ),
    ] = False,
) -> None:
    """rtlab: a timing lab for real-time systems."""


def run() -> None:
    """The `rtlab` command line (typer's app, with named placeholders)."""
    from rtlab.cli.placeholders import named_placeholders

    named_placeholders(typer.main.get_command(app))()


from rtlab.cli.capture_options import (  # noqa: E402 - after app: the options of every reading command
    EdgeOpt,
    FirstLevelOpt,
    FormatOpt,
    FromOpt,
    MinWidthOpt,
    Reader,
    ReaderOpt,
    TickOpt,
    ToOpt,
    reading,
)


def _many(spellings: str, metavar: str, help: str) -> Any:
    """A repeatable option (a list[str] parameter, whose default typer wants as the
    literal `[]`): its spellings as one string, e.g. "--latency -l"."""
    return typer.Option(*spellings.split(), metavar=metavar, help=help)


_LATENCY_HELP = (
    "channel pair A:B, or SRC->DST of edges (D2:rising->D3:falling) or a decoded event "
    "(uart:rx-data=0x55->D3:rising) (repeatable)"
)
_DECODER_HELP = (
    "a sigrok decoder as sigrok-cli -P takes it (uart:rx=D0:baudrate=115200), for a "
    "latency from a decoded event: -l 'uart:rx-data=0x55->D3:rising'"
)
_METRIC_HELP = "period, high, low, interval, c2c (repeatable or comma list; default period)"


@app.command()
def analyze(
    file: Annotated[Path, typer.Argument(help="capture file")],
    format: FormatOpt = None,
    tick: TickOpt = None,
    first_level: FirstLevelOpt = None,
    channel: Annotated[
        list[str], _many("--channel -c", "CHANNEL", "channel(s) to analyze (default: all)")
    ] = [],  # noqa: B006 - typer needs a literal default
    latency: Annotated[list[str], _many("--latency -l", "A:B|SRC->DST", _LATENCY_HELP)] = [],  # noqa: B006
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
    start: FromOpt = None,
    end: ToOpt = None,
    min_width: MinWidthOpt = None,
    decoder: Annotated[list[str], _many("--decoder -D", "PD", _DECODER_HELP)] = [],  # noqa: B006
    extremes: Annotated[
        int,
        typer.Option(
            metavar="N",
            help="add the N largest and smallest values of each metric, with when they start",
        ),
    ] = 0,
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
        from rtlab.analysis.summary import channel_metric
        from rtlab.report import plots

        series = []
        for f in files:
            cap = reader.load(f)
            say_glitches(cap)
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
    dst: Annotated[Path, typer.Argument(help="file to write: .parquet, .vcd or .sr")],
    *,
    reader: Reader,
) -> None:
    """Convert a capture to rtlab's Parquet format, VCD (GTKWave, PulseView, Surfer) or a
    sigrok session (.sr: PulseView, sigrok-cli)."""

    def body() -> None:
        from rtlab import formats
        from rtlab.cli.progress import DelayedProgress

        # like every rtlab writer: an existing file is replaced and missing folders are
        # made (removed again on failure); the message says which
        replaced = dst.is_file()
        made = [d for d in (dst.parent, *dst.parent.parents) if not d.exists()]
        with DelayedProgress(f"converting {src.name}", path=src) as bar:
            stream = reader.open_stream(src)
            total, done = stream.total_edges, 0

            def counted(chunks: Any) -> Any:
                nonlocal done
                for name, edges in chunks:
                    yield name, edges
                    done += len(edges)
                    bar(done, total)

            stream.chunks = counted(stream.chunks)
            formats.save_stream(stream, dst)
        say_glitches(stream.header)
        how = " (replaced the file that was there)" if replaced else ""
        how += f" (made folder {made[-1]})" if made else ""
        err.print(f"wrote {dst}: {len(stream.header)} channels, {done} edges{how}")

    guarded(body)


@app.command()
@reading
def events(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="capture file")],
    output: Annotated[
        Path, typer.Option("--output", "-o", metavar="FILE", help="events.csv or events.parquet")
    ],
    metric: Annotated[list[str], _many("--metric -m", "METRIC", _METRIC_HELP)] = [],  # noqa: B006
    channel: Annotated[
        list[str], _many("--channel -c", "CHANNEL", "channel(s) (default: all)")
    ] = [],  # noqa: B006
    edge: EdgeOpt = "rising",
    *,
    reader: Reader,
) -> None:
    """Every period, width or interval with its start time, as CSV or Parquet (streamed)."""

    def body() -> None:
        from rtlab.cli.progress import DelayedProgress
        from rtlab.report.events_file import check_metrics, check_output, stream_rows, write_events

        check_output(output)
        metrics = check_metrics(split_list(metric) or ["period"])
        names = split_list(channel)
        if edge not in ("rising", "falling", "both"):
            raise RtlabError(f"--edge must be rising, falling or both, not {edge!r}")
        options = reader.options()
        if names and "channels" not in options:
            options["channels"] = names
        with DelayedProgress(f"events of {file.name}", path=file) as bar:
            stream = reader.open_stream(file, options)
            # edge: typer's str, checked above to be one of the three the Literal Edge names
            blocks = stream_rows(stream, names or None, metrics, edge, bar)  # type: ignore[arg-type]
            n = write_events(blocks, stream.header, output)
        say_glitches(stream.header)
        err.print(f"wrote {output}: {n} events")

    guarded(body)


@app.command("formats")
def list_formats() -> None:
    """The capture formats rtlab reads and writes."""
    from rtlab import formats

    typer.echo(f"{'FORMAT':15} {'MODE':11} {'EXTENSIONS':22} DESCRIPTION")
    for name in formats.names():
        spec = formats.get(name)
        rw = "read/write" if spec.write else "read"
        ext = " ".join(spec.extensions) or "(by content)"
        typer.echo(f"{name:15} {rw:11} {ext:22} {spec.description}")


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
# analysis). Anything else (help, a lab command, the library's tests that drive
# `app`) mounts them. (While `python -m rtlab.cli` imports this, argv[0] is "-m".)
_CORE = {"analyze", "convert", "plot", "formats", "events"}
if not (
    (sys.argv[0] == "-m" or sys.argv[0].endswith(("rtlab", "__main__.py")))
    and sys.argv[1:2]
    and sys.argv[1] in _CORE
):
    _mount_optional()
