"""File formats: one module per format, each defining a FormatSpec (FORMAT) found here.

`load(path)` picks the reader from `format=` or by sniffing the file's first bytes and
its extension; every reader raises FormatError (file, line or byte offset, what was
expected) on bad input and never returns a partial capture.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtlab.errors import FormatError, RtlabError
from rtlab.model import Capture
from rtlab.registry import Registry


@dataclass(frozen=True)
class FormatSpec:
    name: str
    extensions: tuple[str, ...]
    read: Callable[..., Capture]
    # sniff(head_bytes, path) -> True when the content is surely this format
    sniff: Callable[[bytes, Path], bool] | None = None
    write: Callable[..., None] | None = None
    description: str = ""


# Format name → the module that defines it (FORMAT, or FORMATS for several), imported
# when the format is first needed. The order is the sniffing order: most specific
# content checks first; parquet last because only it needs pyarrow, a slow import that
# a command reading a .sr file should not pay.
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
        spec = FORMATS.get(name)
        if spec.sniff is not None and spec.sniff(head, path):
            return spec
    reg = dict(FORMATS.items())
    suffix = "".join(path.suffixes[-2:]).lower()
    for spec in reg.values():
        if any(suffix.endswith(ext) for ext in spec.extensions):
            return spec
    raise FormatError(
        path,
        "cannot tell the format from the content or the extension; "
        f"name it with --format ({', '.join(reg)})",
    )


def load(path: str | Path, format: str | None = None, **options: Any) -> Capture:
    """Read a capture. Options are passed to the reader (e.g. tick='16ns')."""
    p = Path(path)
    if not p.exists():
        raise FormatError(p, "no such file")
    if p.is_dir():
        spec = _directory_format(p, format)
    elif format:
        spec = get(format)
    else:
        spec = guess(p)
    cap = spec.read(p, **options)
    cap.metadata.setdefault("source", str(p))
    cap.metadata.setdefault("format", spec.name)
    return cap


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
    if format is None:
        suffix = p.suffix.lower()
        format = {".parquet": "parquet", ".vcd": "vcd"}.get(suffix)
        if format is None:
            raise RtlabError(f"{p}: cannot tell the format to write from the extension")
    spec = get(format)
    if spec.write is None:
        raise RtlabError(f"format {format!r} can be read, not written")
    spec.write(cap, p, **options)
