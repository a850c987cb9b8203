"""`rtlab analyze` itself, and the option helpers the commands share: nothing here
imports typer, so that `rtlab analyze FILE …` (cli/fast.py parses its argv) starts
without the CLI framework (start-up is most of a small file's analysis)."""

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


def options_of_flags(tick: str | None, first_level: int | None, options: list[str]) -> dict:
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


def split_list(values: Sequence[str]) -> list[str]:
    """Repeated options and comma lists as one list: -c D0,D1 -c D2 → D0, D1, D2."""
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


def parse_window(start: str | None, end: str | None) -> Any:
    """--from/--to as a Window (None when neither is given)."""
    if start is None and end is None:
        return None
    from rtlab.analysis.window import Window

    return Window.parse(start, end)


def _trigger_hint(options: dict, window: Any) -> dict:
    """A reader told to decode only some channels decodes the trigger's channel too."""
    if window is None or "channels" not in options:
        return options
    names = list(dict.fromkeys([*options["channels"], *window.channels()]))
    return {**options, "channels": names}


def open_capture_stream(
    file: Path, format: str | None, options: dict, window: Any = None, min_width: str | None = None
) -> Any:
    """formats.open_stream, cut to the --from/--to window when one is given, and without
    pulses narrower than --min-width (counted in the header's metadata)."""
    from rtlab import formats

    if window is None:
        stream = formats.open_stream(file, format, **options)
    else:
        from rtlab.analysis.window import window_stream

        opts = _trigger_hint(options, window)
        stream = window_stream(lambda: formats.open_stream(file, format, **opts), window)
    return _glitch_filtered(stream, min_width)


def load_capture(
    file: Path, format: str | None, options: dict, window: Any = None, min_width: str | None = None
) -> Any:
    """formats.load, cut to the --from/--to window when one is given, and without pulses
    narrower than --min-width."""
    from rtlab import formats

    cap = formats.load(file, format, **_trigger_hint(options, window))
    if window is not None:
        from rtlab.analysis.window import window_capture

        cap = window_capture(cap, window)
    if min_width is None:
        return cap
    from rtlab.model import EdgeStream

    return _glitch_filtered(EdgeStream.from_capture(cap), min_width).gather()


def _glitch_filtered(stream: Any, min_width: str | None) -> Any:
    if min_width is None:
        return stream
    import math

    from rtlab.analysis.glitch import min_width_stream
    from rtlab.ticks import parse_duration

    try:
        width = parse_duration(min_width)
    except (ValueError, ZeroDivisionError) as exc:
        raise RtlabError(f"--min-width {min_width!r}: {exc}") from None
    ticks = math.ceil(width / stream.header.tick_s)
    out, removed = min_width_stream(stream, ticks)
    out.header.metadata["min_width"] = {"width": min_width, "removed": removed}
    return out


def say_glitches(cap: Any) -> None:
    """One line on stderr: how many pulses --min-width removed, per channel."""
    mw = cap.metadata.get("min_width")
    if not mw:
        return
    removed = {k: v for k, v in mw["removed"].items() if v}
    total = sum(removed.values())
    per = ", ".join(f"{k} {v}" for k, v in removed.items())
    pulses = "pulse" if total == 1 else "pulses"
    err.print(
        f"--min-width {mw['width']} removed {total} {pulses}" + (f" ({per})" if per else ""),
        highlight=False,
        markup=False,
    )


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
    extremes: int = 0,
    start: str | None = None,
    end: str | None = None,
    decoder: Sequence[str] = (),
    min_width: str | None = None,
) -> None:
    """`rtlab analyze`: the parameters are the command's options by their names in
    cli/commands.py (typer) and cli/fast.py; errors raise (the caller's `guarded` says
    them in one line)."""
    from rtlab.analysis.stats import DEFAULT_QUANTILES, parse_quantiles

    channel, opt, latency = split_list(channel), list(opt), split_list(latency)
    if sum((as_json, as_csv, as_md)) > 1:
        raise RtlabError("choose one of --json, --csv, --md")
    if edge not in ("rising", "falling", "both"):
        raise RtlabError(f"--edge must be rising, falling or both, not {edge!r}")
    qs = parse_quantiles(quantiles) if quantiles else DEFAULT_QUANTILES
    if not 0 <= extremes <= 1000:
        raise RtlabError(f"--extremes must be 0 to 1000, not {extremes}")
    if plot is not None:
        _check_plot_dir(plot)
    pairs = []
    arrows = []
    if latency:
        from rtlab.analysis.arrow import is_arrow, parse_arrow
        from rtlab.analysis.summary import parse_latency_pair

        pairs = [parse_latency_pair(p) for p in latency if not is_arrow(p)]
        arrows = [(p, *parse_arrow(p)) for p in latency if is_arrow(p)]
    options = options_of_flags(tick, first_level, opt)
    window = parse_window(start, end)
    decoding = any(src.is_decoder for _, src, _ in arrows)
    if channel and "channels" not in options and not decoding:
        # readers that can skip unnamed channels never decode them (sigrok, VCD,
        # Parquet); the others ignore the hint and the analysis selects
        ends = [e.channel for _, *both in arrows for e in both if e.channel]
        options["channels"] = list(dict.fromkeys([*channel, *(n for p in pairs for n in p), *ends]))
    nominal_hz = _nominal_hz(nominal) if nominal else None
    with_tie = tie or nominal_hz is not None
    if not pairs and not arrows and not with_tie and plot is None:
        # every figure from exact histograms, chunk by chunk: memory bounded by them
        an = _analyze_streaming(
            file, format, options, channel, qs, edge, extremes, window, min_width
        )
        cap = an.capture
    else:  # latency, tie and plots need whole sequences (rtlab.analysis.stream)
        from rtlab.analysis.summary import analyze as run_analysis

        cap = load_capture(file, format, options, window, min_width)
        # edge: one of the CLI's choices, str to typer, the Literal it names
        an = run_analysis(
            cap, channel or None, pairs, qs, edge, with_tie, nominal_hz, extremes  # type: ignore[arg-type]
        )
        if arrows:
            from rtlab.cli.decoded import add_arrow_latencies

            add_arrow_latencies(an, file, arrows, list(decoder), qs, extremes, window)
    if plot is not None:
        _analysis_plots(cap, an, plot, edge)
    say_glitches(cap)
    if as_json:
        d = an.to_dict()
        if "min_width" in cap.metadata:
            d["min_width"] = cap.metadata["min_width"]
        doc = json.dumps(_finite(d), indent=2, allow_nan=False)
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
        kinds = "SVG and PNG" if _with_png() else "SVG (PNG too with: pip install 'rtlab[plot]')"
        err.print(f"plots written to {plot}/: {kinds}", markup=False, highlight=False)


def _analyze_streaming(
    file: Path,
    format: str | None,
    options: dict,
    channel: list[str],
    qs: Any,
    edge: str,
    extremes: int = 0,
    window: Any = None,
    min_width: str | None = None,
) -> Any:
    from rtlab.analysis.stream import analyze_stream
    from rtlab.cli.progress import DelayedProgress

    with DelayedProgress(f"analyzing {file.name}", path=file) as bar:
        stream = open_capture_stream(file, format, options, window, min_width)
        # edge: one of the CLI's choices, str to typer, the Literal it names
        return analyze_stream(
            stream, channel or None, qs, edge, progress=bar, extremes=extremes  # type: ignore[arg-type]
        )


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
    or not exist."""
    if out.exists() and not out.is_dir():
        raise RtlabError(f"--plot {out}: exists and is not a directory")


def _with_png() -> bool:
    """PNGs beside the SVGs when matplotlib (the `plot` extra) is installed; SVG alone,
    drawn by rtlab.chart, otherwise."""
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def _analysis_plots(cap: Any, an: Any, out: Path, edge: str) -> None:
    # edge: one of the CLI's choices, a str to typer, the Literal channel_metric names
    from rtlab.analysis.summary import channel_metric
    from rtlab.report import plots

    out.mkdir(parents=True, exist_ok=True)
    exts = (".svg", ".png") if _with_png() else (".svg",)
    for name in an.channels:
        s = channel_metric(cap, name, "period", edge)  # type: ignore[arg-type]  # see edge above
        safe = plot_stem(name)
        for kind, log_y in (("hist", True), ("cdf", True), ("trend", False)):
            fig = plots.plot(kind, [(name, s)], f"{name} period ({edge} edges)", log_y)
            base = out / f"{safe}-period-{kind}"
            plots.save(fig, *(base.with_suffix(e) for e in exts))
    for pair in an.latencies:
        s = channel_metric(cap, pair, "latency", edge)  # type: ignore[arg-type]  # see edge above
        safe = plot_stem(pair.replace(":", "-to-"))
        fig = plots.histogram([(pair, s)], f"latency {pair}", log_y=True)
        base = out / f"{safe}-latency-hist"
        plots.save(fig, *(base.with_suffix(e) for e in exts))
