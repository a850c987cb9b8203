"""`rtlab …`: a thin shell over the library; every command is a library call."""

from __future__ import annotations

import json
import math
import os
import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

# Only what `rtlab --help` needs is imported here: numpy, the readers, DuckDB and
# matplotlib load inside the command that uses them (tests/cli/test_startup.py).
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


def _check_tick(tick: str, label: str = "--tick") -> None:
    """--tick as the readers take it (rtlab.ticks: units, 1 fs .. 1000 s), checked once
    here so that a bad value is refused before any file is opened."""
    from rtlab.ticks import check_tick_range, parse_duration

    try:
        check_tick_range(parse_duration(tick), f"{label} {tick!r}")
    except (ValueError, ZeroDivisionError, OverflowError) as exc:
        msg = str(exc)
        raise RtlabError(msg if label in msg else f"bad tick ({label} {tick!r}): {msg}") from None


def _nominal_hz(nominal: str) -> float:
    """--nominal (a frequency or a period) as Hz, in the range of a tick (1 mHz .. 1 PHz
    as periods 1000 s .. 1 fs): a value beyond it is an error, not an overflow."""
    from rtlab.ticks import check_tick_range, parse_duration

    try:
        period = check_tick_range(
            parse_duration(nominal), f"--nominal {nominal!r}", "1 mHz to 1 PHz, or 1 fs to 1000 s"
        )
    except (ValueError, ZeroDivisionError, OverflowError) as exc:
        msg = str(exc)
        raise RtlabError(msg if "--nominal" in msg else f"--nominal {nominal!r}: {msg}") from None
    return float(1 / period)


def _reader_options(tick: str | None, first_level: int | None, options: list[str]) -> dict:
    """--tick, --first-level and -O KEY=VALUE as one dict of reader options: a key given
    twice (--tick 10ns -O tick=5ns, or -O tick=… twice) is an error, never a silent pick."""
    out: dict[str, Any] = {}
    given: dict[str, str] = {}
    if tick is not None:
        _check_tick(tick)
        out["tick"], given["tick"] = tick, "--tick"
    if first_level is not None:
        out["first_level"], given["first_level"] = first_level, "--first-level"
    for item in options:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise RtlabError(f"reader option must be KEY=VALUE, not {item!r}")
        key = key.replace("-", "_")
        if key in given:
            raise RtlabError(f"reader option {key} given twice ({given[key]} and -O {item})")
        if key == "tick":
            _check_tick(value, "-O tick=")
        out[key], given[key] = value, f"-O {item}"  # typed and checked by the FormatSpec
    return out


def _finite(obj: Any) -> Any:
    """NaN and ±inf (a figure the data cannot give) as null: JSON has no NaN."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj


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

    def body() -> None:
        from rtlab import formats
        from rtlab.analysis.stats import DEFAULT_QUANTILES, parse_quantiles
        from rtlab.analysis.summary import analyze as run_analysis
        from rtlab.analysis.summary import parse_latency_pair

        if sum((as_json, as_csv, as_md)) > 1:
            raise RtlabError("choose one of --json, --csv, --md")
        if edge not in ("rising", "falling", "both"):
            raise RtlabError(f"--edge must be rising, falling or both, not {edge!r}")
        qs = parse_quantiles(quantiles) if quantiles else DEFAULT_QUANTILES
        pairs = [parse_latency_pair(p) for p in latency]
        options = _reader_options(tick, first_level, opt)
        if channel and "channels" not in options:
            # readers that can skip unnamed channels never decode them (sigrok, VCD,
            # Parquet); the others ignore the hint and the analysis selects
            options["channels"] = list(dict.fromkeys([*channel, *(n for p in pairs for n in p)]))
        nominal_hz = _nominal_hz(nominal) if nominal else None
        with_tie = tie or nominal_hz is not None
        if not pairs and not with_tie and plot is None:
            # every figure from exact histograms, chunk by chunk: memory bounded by them
            an = _analyze_streaming(file, format, options, channel, qs, edge)
            cap = an.capture
        else:  # latency, tie and plots need whole sequences (rtlab.analysis.stream)
            cap = formats.load(file, format, **options)
            an = run_analysis(
                cap, channel or None, pairs, qs, edge, with_tie, nominal_hz
            )  # type: ignore[arg-type]
        if plot is not None:
            _analysis_plots(cap, an, plot, edge)
        if as_json:
            doc = json.dumps(_finite(an.to_dict()), indent=2, allow_nan=False)
            sys.stdout.write(doc + "\n")
        elif as_csv:
            from rtlab.report.tables import csv_text

            sys.stdout.write(csv_text(an))
        elif as_md:
            from rtlab.report.tables import markdown

            sys.stdout.write(markdown(an))
        else:
            from rtlab.report.tables import print_table

            print_table(an)
        if plot is not None:
            err.print(f"plots written to {plot}/")

    guarded(body)


def _analyze_streaming(
    file: Path, format: str | None, options: dict, channel: list[str], qs: Any, edge: str
) -> Any:
    from rtlab import formats
    from rtlab.analysis.stream import analyze_stream
    from rtlab.cli.progress import DelayedProgress

    with DelayedProgress(f"analyzing {file.name}") as bar:
        stream = formats.open_stream(file, format, **options)
        return analyze_stream(stream, channel or None, qs, edge, progress=bar)  # type: ignore[arg-type]


def plot_stem(name: str) -> str:
    """A file-name stem for a channel or pair: itself when it is a short plain name, else
    its plain characters (at most 48) and a hash of the whole name, so that `a/b` and `a.b`
    never share a file and a 300-character name still makes a valid file name."""
    plain = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:48]
    if plain == name:
        return name
    import hashlib  # OpenSSL's loader: 10-20 ms that analyze of a capture never needs

    return f"{plain}-{hashlib.blake2s(name.encode(), digest_size=4).hexdigest()}"


def _analysis_plots(cap: Any, an: Any, out: Path, edge: str) -> None:
    from rtlab.analysis.summary import channel_metric
    from rtlab.report import plots

    if out.exists() and not out.is_dir():
        raise RtlabError(f"--plot {out}: exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    for name in an.channels:
        s = channel_metric(cap, name, "period", edge)  # type: ignore[arg-type]
        safe = plot_stem(name)
        for kind, log_y in (("hist", True), ("cdf", True), ("trend", False)):
            fig = plots.plot(kind, [(name, s)], f"{name} period ({edge} edges)", log_y)
            base = out / f"{safe}-period-{kind}"
            plots.save(fig, base.with_suffix(".png"), base.with_suffix(".svg"))
    for pair in an.latencies:
        s = channel_metric(cap, pair, "latency", edge)  # type: ignore[arg-type]
        safe = plot_stem(pair.replace(":", "-to-"))
        fig = plots.histogram([(pair, s)], f"latency {pair}", log_y=True)
        base = out / f"{safe}-latency-hist"
        plots.save(fig, base.with_suffix(".png"), base.with_suffix(".svg"))


@app.command()
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
    format: FormatOpt = None,
    tick: TickOpt = None,
    first_level: FirstLevelOpt = None,
    opt: ReaderOpt = [],  # noqa: B006
) -> None:
    """Plot one metric: histogram, CDF or trend; several files share one axis."""

    def body() -> None:
        from rtlab import formats
        from rtlab.analysis.summary import channel_metric
        from rtlab.report import plots

        series = []
        for f in files:
            cap = formats.load(f, format, **_reader_options(tick, first_level, opt))
            ch = channel or next(iter(cap.channels), None)
            if ch is None:
                raise RtlabError(f"{f}: the capture has no channels")
            label = f"{f.name}:{ch}" if len(files) > 1 else ch
            series.append((label, channel_metric(cap, ch, metric, edge)))  # type: ignore[arg-type]
        fig = plots.plot(kind, series, f"{metric} ({edge} edges)", log_y)
        plots.save(fig, output)
        err.print(f"wrote {output}")

    guarded(body)


@app.command()
def convert(
    src: Annotated[Path, typer.Argument(help="capture to read")],
    dst: Annotated[Path, typer.Argument(help="file to write: .parquet or .vcd")],
    format: FormatOpt = None,
    tick: TickOpt = None,
    first_level: FirstLevelOpt = None,
    opt: ReaderOpt = [],  # noqa: B006
) -> None:
    """Convert a capture to rtlab's Parquet format or to VCD (GTKWave, PulseView, Surfer)."""

    def body() -> None:
        from rtlab import formats
        from rtlab.cli.progress import DelayedProgress

        with DelayedProgress(f"converting {src.name}") as bar:
            stream = formats.open_stream(src, format, **_reader_options(tick, first_level, opt))
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


def _mount_optional() -> None:
    """Command groups that live in their own modules: the lab (run, runs, report,
    compare) and the instruments (capture)."""
    try:
        from rtlab.cli.lab import register
    except ModuleNotFoundError as exc:
        if exc.name != "rtlab.cli.lab":
            raise
    else:
        register(app)
    try:
        from rtlab.cli.capture import capture_app
    except ModuleNotFoundError as exc:
        if exc.name != "rtlab.cli.capture":
            raise
    else:
        app.add_typer(capture_app, name="capture", help="Capture edges from an instrument.")
    try:
        from rtlab.cli.study import study_app
    except ModuleNotFoundError as exc:
        if exc.name != "rtlab.cli.study":
            raise
    else:
        app.add_typer(study_app, name="study", help="Studies made of many specs (rtos).")


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


def main() -> None:
    # OpenBLAS starts a thread per core when numpy loads (half of numpy's 0.1-0.2 s
    # import on 2 cores); rtlab does no linear algebra big enough to gain from them.
    # A user's own setting wins.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    app()


if __name__ == "__main__":
    main()
