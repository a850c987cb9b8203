"""`rtlab capture rp2040`: capture edges from the RP2040 module into a capture file."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from rtlab.cli.common import err, guarded
from rtlab.errors import RtlabError

capture_app = typer.Typer(
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False
)


@capture_app.callback()
def _group() -> None:
    """Capture edges from an instrument."""


def parse_channels(text: str) -> list[int]:
    """'2-5' or '2,3,4' → consecutive GPIO numbers."""
    try:
        if "-" in text:
            lo, hi = (int(x) for x in text.split("-", 1))
            pins = list(range(lo, hi + 1))
        else:
            pins = [int(x) for x in text.split(",")]
    except ValueError:
        raise RtlabError(f"--channels must look like 2-5 or 2,3,4, not {text!r}") from None
    if not pins or pins != list(range(pins[0], pins[0] + len(pins))):
        raise RtlabError(f"--channels must be consecutive GPIOs, not {text!r}")
    if pins[0] < 2 or pins[-1] > 28 or len(pins) > 8:
        raise RtlabError("--channels: at most 8 GPIOs within 2..28 (0/1 are the UART)")
    return pins


def _status_table(st, dec, rate: float, elapsed_s: float) -> Any:
    from rich.table import Table

    t = Table(show_header=False, box=None)
    t.add_row("device time", f"{elapsed_s:.3f} s")
    t.add_row("edges", f"{st.edges}  ({rate:,.0f} /s)")
    t.add_row("ring fill (max)", f"{st.ring_fill_pct} %")
    t.add_row("output buffer", f"{st.out_fill_pct} %")
    lost = sum(b - a for c in dec.chans for a, b in c.lost)
    t.add_row("lost records", f"[red]{st.lost}[/]" if st.lost else "0")
    t.add_row("gaps so far", str(sum(len(c.lost) for c in dec.chans) if lost else 0))
    return t


@contextlib.contextmanager
def live_status(live: bool) -> Iterator[Callable[[Any, Any, Any], None]]:
    """The on_status callback for rtlab.instruments.rp2040.capture.capture: a live
    status table on stderr while inside when `live` (a terminal), else nothing."""
    from rich.live import Live

    last = {"k": 0, "edges": 0}
    display = Live(console=err.get(), transient=True, auto_refresh=False) if live else None

    def on_status(st, dec, info) -> None:
        dk = st.k - last["k"]
        rate = (st.edges - last["edges"]) / float(dk * info.tick_s) if dk > 0 else 0.0
        last.update(k=st.k, edges=st.edges)
        if display is not None:
            display.update(_status_table(st, dec, rate, float(st.k * info.tick_s)), refresh=True)

    with display if display is not None else contextlib.nullcontext():
        yield on_status


@capture_app.command("rp2040")
def rp2040(
    port: Annotated[str, typer.Option(help="serial port of the module")] = "/dev/ttyACM0",
    channels: Annotated[str, typer.Option(help="consecutive GPIOs, e.g. 2-5")] = "2",
    duration: Annotated[str, typer.Option(help="device time to capture, e.g. 10s")] = "1s",
    output: Annotated[Path, typer.Option("-o", "--output", help="capture file to write")] = (
        Path("run.parquet")
    ),
    baud: Annotated[int, typer.Option(help="UART baud rate")] = 921600,
    names: Annotated[str | None, typer.Option(help="channel names, comma separated")] = None,
    selftest_pin: Annotated[
        int | None, typer.Option(help="drive a square wave on this GPIO (loop it to a channel)")
    ] = None,
    selftest_period: Annotated[str, typer.Option(help="self-test period")] = "100us",
    timeout: Annotated[float, typer.Option(help="seconds of silence that end in error")] = 5.0,
    resolution: Annotated[
        str, typer.Option(help="16ns, or 8ns (at most 4 channels; half the buffer and link rate)")
    ] = "16ns",
) -> None:
    """Capture edges on up to 8 consecutive GPIOs with the rtlab RP2040 module."""

    def body() -> None:
        from rtlab import formats
        from rtlab.instruments.rp2040.capture import capture
        from rtlab.model import format_tick, parse_duration

        pins = parse_channels(channels)
        if resolution.replace(" ", "") not in ("16ns", "8ns"):
            raise RtlabError(f"--resolution must be 16ns or 8ns, not {resolution!r}")
        fine = resolution.replace(" ", "") == "8ns"
        if fine and len(pins) > 4:
            raise RtlabError("--resolution 8ns uses two state machines per pin: 4 channels at most")
        dur = parse_duration(duration)
        name_list = [n.strip() for n in names.split(",")] if names else None
        if name_list is not None and len(name_list) != len(pins):
            raise RtlabError(f"--names gives {len(name_list)} names for {len(pins)} channels")
        period = parse_duration(selftest_period) if selftest_pin is not None else None
        with live_status(sys.stderr.isatty()) as on_status:
            cap = capture(
                port,
                pins,
                dur,
                baud=baud,
                selftest_pin=selftest_pin,
                selftest_period=period,
                names=name_list,
                timeout_s=timeout,
                fine=fine,
                on_status=on_status,
            )
        formats.save(cap, output)
        lost = sum(cap.metadata["records_lost"].values())
        err.print(
            f"{output}: {cap.n_edges} edges on {len(cap)} channels, "
            f"resolution {format_tick(cap.resolution)}, {len(cap.gaps)} gaps"
            + (f", [red]{lost} records lost[/]" if lost else ""),
            highlight=False,
        )

    guarded(body)
