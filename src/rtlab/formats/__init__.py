"""File formats: one module per format, each defining a FormatSpec (FORMAT) found here.

`load(path)` picks the reader from `format=` or by sniffing the file's first bytes and
its extension; every reader raises FormatError (file, line or byte offset, what was
expected) on bad input and never returns a partial capture.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError, RtlabError
from rtlab.model import Capture, EdgeStream
from rtlab.registry import Registry

# Reader options: each format names its keys and how a text value (`-O key=value`)
# becomes a typed one; values that are not text are checked by the reader itself.
Converter = Callable[[str], Any]
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


def boolean(text: str) -> bool:
    low = text.strip().lower()
    if low in _TRUE or low in _FALSE:
        return low in _TRUE
    raise ValueError(f"expected true/false (also 1/0, yes/no), got {text!r}")


def integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"expected an integer, got {text!r}") from None


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"expected a number, got {text!r}") from None


def text(value: str) -> str:
    return value


def name_list(value: str) -> list[str]:
    return [n for n in (s.strip() for s in value.split(",")) if n]


def choice(*allowed: str) -> Converter:
    def convert(value: str) -> str:
        if value not in allowed:
            raise ValueError(f"expected one of {', '.join(allowed)}, got {value!r}")
        return value

    return convert


# Keys every format accepts: `channels` is a selection the caller applies itself when the
# reader cannot (rtlab analyze names the channels it will read).
COMMON_OPTIONS = ("channels",)


@dataclass(frozen=True)
class FormatSpec:
    name: str
    extensions: tuple[str, ...]
    read: Callable[..., Capture]
    # sniff(head_bytes, path) -> True when the content is surely this format
    sniff: Callable[[bytes, Path], bool] | None = None
    write: Callable[..., None] | None = None
    # stream(path, **options) -> EdgeStream: the capture chunk by chunk (bounded memory)
    stream: Callable[..., EdgeStream] | None = None
    # write_stream(stream, path): write from an EdgeStream without holding the edges
    write_stream: Callable[..., None] | None = None
    description: str = ""
    # option key -> converter of its text value (`rtlab analyze -O key=value`)
    options: Mapping[str, Converter] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        namespace: Mapping[str, Any],
        name: str,
        extensions: tuple[str, ...],
        description: str,
        options: Mapping[str, Converter],
        **overrides: Any,
    ) -> FormatSpec:
        """The spec of a format module from its functions by their conventional names
        (`read`, `read_stream`, `sniff` or `_sniff`, `write`, `write_stream`, those the
        module has, found in `namespace`: its globals()); `overrides` replace them."""
        found = {
            "read": namespace["read"],
            "stream": namespace.get("read_stream"),
            "sniff": namespace.get("sniff", namespace.get("_sniff")),
            "write": namespace.get("write"),
            "write_stream": namespace.get("write_stream"),
        }
        found.update(overrides)
        return cls(name, extensions, description=description, options=options, **found)

    def reader_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options typed and checked: an unknown key or a bad value is an error."""
        out: dict[str, Any] = {}
        for key, value in options.items():
            convert = self.options.get(key)
            if convert is None:
                if key in COMMON_OPTIONS:
                    continue  # this reader reads every channel
                known = ", ".join(sorted(self.options)) or "none"
                raise RtlabError(
                    f"format {self.name!r} has no reader option {key!r}; its options: {known}"
                )
            if isinstance(value, str):
                try:
                    value = convert(value)
                except ValueError as exc:
                    raise RtlabError(f"reader option {key}: {exc}") from None
            out[key] = value
        return out


# Format name → the module that defines it (FORMAT, or FORMATS for several), imported
# when the format is first needed. The order is the sniffing order: most specific
# content checks first; parquet last (its fallback reader imports DuckDB, a slow import
# that a command reading a .sr file should not pay).
FORMATS: Registry[FormatSpec] = Registry(
    "format",
    {
        "sigrok": "rtlab.formats.sigrok",
        "saleae-bin": "rtlab.formats.saleae_bin",
        "vcd": "rtlab.formats.vcd",
        "fst": "rtlab.formats.vcd",
        "saleae-csv": "rtlab.formats.saleae_csv",
        "edges-csv": "rtlab.formats.edges_csv",
        "pio-durations": "rtlab.formats.pio_durations",
        "parquet": "rtlab.formats.parquet",
    },
    attr=("FORMATS", "FORMAT"),
    unknown=lambda name, known: RtlabError(
        f"unknown format {name!r}; known formats: {', '.join(known)}"
    ),
)


# Formats whose sniff accepts only a head that starts with these bytes: guess() asks
# their module (sigrok's imports zipfile) only for such a head (tests/formats check it).
SNIFF_PREFIX = {"sigrok": b"PK\x03\x04", "saleae-bin": b"<SALEAE>"}


def names() -> list[str]:
    return FORMATS.names()


def get(name: str) -> FormatSpec:
    return FORMATS.get(name)


def guess(path: Path) -> FormatSpec:
    """The format of `path` from its content, then its extension."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError as exc:
        raise FormatError(path, f"cannot open: {exc.strerror or exc}") from None
    if not head:
        raise FormatError(path, "file is empty", offset=0)
    for name in FORMATS.names():
        if not head.startswith(SNIFF_PREFIX.get(name, b"")):
            continue  # not this format, said without importing its module
        spec = FORMATS.get(name)
        if spec.sniff is not None and spec.sniff(head, path):
            return spec
    reg = dict(FORMATS.items())
    suffix = "".join(path.suffixes[-2:]).lower()
    # the longest matching extension names the format: `.pio.csv` is pio-durations,
    # not the edges CSV that every other `.csv` falls back to
    matches = [
        (len(ext), -k, spec)
        for k, spec in enumerate(reg.values())
        for ext in spec.extensions
        if suffix.endswith(ext)
    ]
    if matches:
        return max(matches, key=lambda m: m[:2])[2]
    raise FormatError(
        path,
        "cannot tell the format from the content or the extension; "
        f"name it with --format ({', '.join(reg)})",
    )


def _spec_for(p: Path, format: str | None) -> FormatSpec:
    if str(p) == "-":  # readers seek and map their files: a pipe cannot be read so
        raise FormatError(p, "standard input is not read: give the capture's file path")
    if not p.exists():
        raise FormatError(p, "no such file")
    if p.is_dir():
        return _directory_format(p, format)
    return get(format) if format else guess(p)


def load(path: str | Path, format: str | None = None, **options: Any) -> Capture:
    """Read a capture. Options are passed to the reader (e.g. tick='16ns')."""
    p = Path(path)
    spec = _spec_for(p, format)
    cap = spec.read(p, **spec.reader_options(options))
    if options.get("channels") and "channels" not in spec.options:
        _select(p, cap, options["channels"])
    check_span(p, cap)
    _provenance(p, spec, cap.metadata)
    return cap


def _provenance(p: Path, spec: FormatSpec, metadata: dict[str, Any]) -> None:
    """The file read now (a converted file's own metadata names the file it came from)."""
    before = (metadata.get("source"), metadata.get("format"))
    if before[0] is not None and before != (str(p), spec.name):
        metadata.setdefault("converted_from", {"source": before[0], "format": before[1]})
    metadata["source"], metadata["format"] = str(p), spec.name


def open_stream(
    path: str | Path, format: str | None = None, chunk: int = 1 << 22, **options: Any
) -> EdgeStream:
    """A capture chunk by chunk: the format's streaming reader when it has one, else the
    whole capture loaded and handed out in chunks of `chunk` edges."""
    p = Path(path)
    spec = _spec_for(p, format)
    if spec.stream is None:
        return EdgeStream.from_capture(load(p, spec.name, **options), chunk)
    stream = spec.stream(p, **spec.reader_options(options))
    if options.get("channels") and "channels" not in spec.options:
        _select(p, stream.header, options["channels"])  # as load() does
        kept = set(stream.header.channels)
        stream.edge_counts = {n: k for n, k in stream.edge_counts.items() if n in kept}
        stream.chunks = ((n, e) for n, e in stream.chunks if n in kept)
    _provenance(p, spec, stream.header.metadata)
    return _span_checked(p, stream)


def _span_checked(path: Path, stream: EdgeStream) -> EdgeStream:
    """`stream` whose chunks raise check_span's FormatError as soon as the times seen so
    far (window, gaps, edges) lie 2^63 ticks or more apart: the rule of load(), kept
    while streaming, where the edges are not known up front."""
    check_span(path, stream.header)
    cap = stream.header
    seen = [t for t in (cap.t_start, cap.t_end) if t is not None]
    if len(cap.gaps):
        seen += [int(cap.gaps.min()), int(cap.gaps.max())]
    bounds = [min(seen), max(seen)] if seen else []

    def chunks() -> Iterator[tuple[str, np.ndarray]]:
        for name, edges in stream.chunks:
            if edges.size:
                first, last = int(edges[0]), int(edges[-1])
                lo, hi = (min(bounds[0], first), max(bounds[1], last)) if bounds else (first, last)
                bounds[:] = [lo, hi]
                if hi - lo > _I64_MAX:
                    raise FormatError(
                        path,
                        f"times span {hi - lo} ticks, more than 2^63 - 1: "
                        "a difference of two of them does not fit in 64 bits",
                    )
            yield name, edges

    return EdgeStream(stream.header, stream.edge_counts, chunks())


def _select(path: Path, cap: Capture, channels: Any) -> None:
    """`channels=` for a reader that reads every channel: the same meaning as where the
    reader selects (only these channels; a name the capture lacks is an error)."""
    wanted = name_list(channels) if isinstance(channels, str) else list(channels)
    for name in wanted:
        if name not in cap.channels:
            known = ", ".join(cap.channels) or "none"
            raise FormatError(path, f"no channel {name!r} (channels: {known})")
    cap.channels = {n: ch for n, ch in cap.channels.items() if n in set(wanted)}


# Tick times are int64 and figures are differences of them: every time of a capture
# (edges, window, gaps) must lie within 2^63 - 1 ticks of every other.
_I64_MAX = 2**63 - 1


def check_span(path: Path, cap: Capture) -> None:
    """FormatError when two times of `cap` are 2^63 ticks or more apart (a difference
    would wrap around), or a time is not a 64-bit integer."""
    times: list[int] = []
    for ch in cap:
        if len(ch):
            times += [int(ch.edges[0]), int(ch.edges[-1])]
    if len(cap.gaps):
        times += [int(cap.gaps.min()), int(cap.gaps.max())]
    times += [t for t in (cap.t_start, cap.t_end) if t is not None]
    if times and (max(times) > _I64_MAX or min(times) < -_I64_MAX - 1):
        raise FormatError(path, f"a time of {max(times, key=abs)} ticks does not fit in 64 bits")
    if times and max(times) - min(times) > _I64_MAX:
        raise FormatError(
            path,
            f"times span {max(times) - min(times)} ticks, more than 2^63 - 1: "
            "a difference of two of them does not fit in 64 bits",
        )


def _directory_format(path: Path, format: str | None) -> FormatSpec:
    """A directory is a capture only as a Saleae Logic 2 binary export: one
    digital_N.bin per channel, merged into one capture."""
    if format not in (None, "saleae-bin"):
        raise FormatError(path, f"is a directory; format {format!r} reads one file")
    if not any(path.glob("digital_*.bin")):
        raise FormatError(
            path,
            "is a directory without digital_*.bin files; rtlab reads a directory only "
            "as a Saleae Logic 2 binary export",
        )
    return get("saleae-bin")


def save(cap: Capture, path: str | Path, format: str | None = None, **options: Any) -> None:
    p = Path(path)
    spec = get(format or _write_format(p))
    if spec.write is None:
        raise RtlabError(f"format {spec.name!r} can be read, not written")
    spec.write(cap, p, **options)


def save_stream(stream: EdgeStream, path: str | Path, format: str | None = None) -> None:
    """Write a streamed capture: chunk by chunk when the format can (Parquet), else
    gathered into a Capture first (VCD interleaves every channel in time order)."""
    p = Path(path)
    spec = get(format or _write_format(p))
    if spec.write_stream is not None:
        spec.write_stream(stream, p)
        return
    cap = stream.gather()
    save(cap, p, spec.name)


def _write_format(p: Path) -> str:
    name = {".parquet": "parquet", ".vcd": "vcd", ".sr": "sigrok"}.get(p.suffix.lower())
    if name is None:
        raise RtlabError(f"{p}: cannot tell the format to write from the extension")
    return name
