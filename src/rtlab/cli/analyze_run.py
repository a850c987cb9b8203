"""`rtlab analyze` itself, and the option helpers the commands share: nothing here
imports typer, so that `rtlab analyze FILE …` (cli/fast.py parses its argv) starts
without the CLI framework (issue 36: start-up is most of a small file's analysis)."""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rtlab.cli.common import err
from rtlab.errors import RtlabError


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


def run_analyze(
    file: Path,
    format: str | None = None,
    tick: str | None = None,
    first_level: int | None = None,
    channel: Sequence[str] = (),
    latency: Sequence[str] = (),
    quantiles: str | None = None,
    edge: str = "rising",
    tie: bool = False,
    nominal: str | None = None,
    as_json: bool = False,
    as_csv: bool = False,
    as_md: bool = False,
    plot: Path | None = None,
    opt: Sequence[str] = (),
) -> None:
    """`rtlab analyze`: the parameters are the command's options by their names in
    cli/commands.py (typer) and cli/fast.py; errors raise (the caller's `guarded` says
    them in one line)."""
    from rtlab.analysis.stats import DEFAULT_QUANTILES, parse_quantiles

    channel, opt = list(channel), list(opt)
    if sum((as_json, as_csv, as_md)) > 1:
        raise RtlabError("choose one of --json, --csv, --md")
    if edge not in ("rising", "falling", "both"):
        raise RtlabError(f"--edge must be rising, falling or both, not {edge!r}")
    qs = parse_quantiles(quantiles) if quantiles else DEFAULT_QUANTILES
    if plot is not None:
        _check_plot_dir(plot)
    pairs = []
    if latency:
        from rtlab.analysis.summary import parse_latency_pair

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
        from rtlab import formats
        from rtlab.analysis.summary import analyze as run_analysis

        cap = formats.load(file, format, **options)
        # edge: one of the CLI's choices, str to typer, the Literal it names
        an = run_analysis(cap, channel or None, pairs, qs, edge, with_tie, nominal_hz)  # type: ignore[arg-type]
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


def _analyze_streaming(
    file: Path, format: str | None, options: dict, channel: list[str], qs: Any, edge: str
) -> Any:
    from rtlab import formats
    from rtlab.analysis.stream import analyze_stream
    from rtlab.cli.progress import DelayedProgress

    with DelayedProgress(f"analyzing {file.name}") as bar:
        stream = formats.open_stream(file, format, **options)
        # edge: one of the CLI's choices, str to typer, the Literal it names
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


def _check_plot_dir(out: Path) -> None:
    """Refuse `--plot out` before anything is read or written: `out` must be a directory
    or not exist, and the PNGs need matplotlib (the `plot` extra: importing rtlab.chart.mpl
    without it raises the ModuleNotFoundError that `guarded` says in one line)."""
    if out.exists() and not out.is_dir():
        raise RtlabError(f"--plot {out}: exists and is not a directory")
    from rtlab.chart import mpl  # noqa: F401


def _analysis_plots(cap: Any, an: Any, out: Path, edge: str) -> None:
    # edge: one of the CLI's choices, a str to typer, the Literal channel_metric names
    from rtlab.analysis.summary import channel_metric
    from rtlab.report import plots

    out.mkdir(parents=True, exist_ok=True)
    for name in an.channels:
        s = channel_metric(cap, name, "period", edge)  # type: ignore[arg-type]  # see edge above
        safe = plot_stem(name)
        for kind, log_y in (("hist", True), ("cdf", True), ("trend", False)):
            fig = plots.plot(kind, [(name, s)], f"{name} period ({edge} edges)", log_y)
            base = out / f"{safe}-period-{kind}"
            plots.save(fig, base.with_suffix(".png"), base.with_suffix(".svg"))
    for pair in an.latencies:
        s = channel_metric(cap, pair, "latency", edge)  # type: ignore[arg-type]  # see edge above
        safe = plot_stem(pair.replace(":", "-to-"))
        fig = plots.histogram([(pair, s)], f"latency {pair}", log_y=True)
        base = out / f"{safe}-latency-hist"
        plots.save(fig, base.with_suffix(".png"), base.with_suffix(".svg"))
