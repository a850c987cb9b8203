"""File formats: one module per format, each registering a FormatSpec here.

`load(path)` picks the reader from `format=` or by sniffing the file's first bytes and
its extension; every reader raises FormatError (file, line or byte offset, what was
expected) on bad input and never returns a partial capture.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtlab.errors import FormatError, RtlabError
from rtlab.model import Capture


@dataclass(frozen=True)
class FormatSpec:
    name: str
    extensions: tuple[str, ...]
    read: Callable[..., Capture]
    # sniff(head_bytes, path) -> True when the content is surely this format
    sniff: Callable[[bytes, Path], bool] | None = None
    write: Callable[..., None] | None = None
    description: str = ""


# Modules that define FORMAT (or FORMATS), in sniffing order: most specific content
# checks first; parquet last because only it needs pyarrow, a slow import that a
# command reading a .sr file should not pay.
_MODULES = (
    "sigrok",
    "saleae_bin",
    "vcd",
    "saleae_csv",
    "edges_csv",
    "pio_durations",
    "parquet",
)
# Format name → module, so that naming a format imports only its module.
_MODULE_OF = {
    "sigrok": "sigrok",
    "saleae-bin": "saleae_bin",
    "vcd": "vcd",
    "fst": "vcd",
    "saleae-csv": "saleae_csv",
    "edges-csv": "edges_csv",
    "pio-durations": "pio_durations",
    "parquet": "parquet",
}

_LOADED: dict[str, list[FormatSpec]] = {}


def _specs_of(mod_name: str) -> list[FormatSpec]:
    if mod_name not in _LOADED:
        mod = importlib.import_module(f"rtlab.formats.{mod_name}")
        _LOADED[mod_name] = list(getattr(mod, "FORMATS", None) or [mod.FORMAT])
    return _LOADED[mod_name]


def _registry() -> dict[str, FormatSpec]:
    return {spec.name: spec for mod in _MODULES for spec in _specs_of(mod)}


def names() -> list[str]:
    return list(_registry())


def get(name: str) -> FormatSpec:
    mod = _MODULE_OF.get(name)
    if mod is not None:
        for spec in _specs_of(mod):
            if spec.name == name:
                return spec
    raise RtlabError(f"unknown format {name!r}; known formats: {', '.join(_MODULE_OF)}")


def guess(path: Path) -> FormatSpec:
    """The format of `path` from its content, then its extension."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError as exc:
        raise FormatError(path, f"cannot open: {exc.strerror or exc}") from None
    if not head:
        raise FormatError(path, "file is empty", offset=0)
    for mod in _MODULES:
        for spec in _specs_of(mod):
            if spec.sniff is not None and spec.sniff(head, path):
                return spec
    reg = _registry()
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
