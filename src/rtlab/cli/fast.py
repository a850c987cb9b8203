"""`rtlab analyze FILE [options]` parsed without typer, which costs more CPU than the
analysis of a small capture (`rtlab analyze` of a 10^6-change VCD).

The parser reads only the plain forms: known options as `--name value`, `--name=value`,
`-x value` or a flag, and one FILE. Anything else (--help, an unknown or misspelt
option, a missing value, a value that starts with '-', two files, `--`, an int option
that is not digits, shell completion) returns None and typer parses the command line:
its help and its usage errors stay the only ones. tests/cli/test_fast_cli.py checks
the table below against the typer command's parameters and both parsers' results.
"""

from __future__ import annotations

import errno
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# parameter name → (option spellings, kind): kind is str, int, Path, "flag" or "multi"
ANALYZE_OPTIONS: dict[str, tuple[tuple[str, ...], Any]] = {
    "format": (("--format", "-f"), str),
    "tick": (("--tick",), str),
    "first_level": (("--first-level",), int),
    "channel": (("--channel", "-c"), "multi"),
    "latency": (("--latency", "-l"), "multi"),
    "quantiles": (("--quantiles",), str),
    "edge": (("--edge",), str),
    "tie": (("--tie",), "flag"),
    "nominal": (("--nominal",), str),
    "as_json": (("--json",), "flag"),
    "as_csv": (("--csv",), "flag"),
    "as_md": (("--md",), "flag"),
    "plot": (("--plot",), Path),
    "opt": (("--opt", "-O"), "multi"),
    "extremes": (("--extremes",), int),
    "start": (("--from",), str),
    "end": (("--to",), str),
    "decoder": (("--decoder", "-D"), "multi"),
    "min_width": (("--min-width",), str),
}
ANALYZE_DEFAULTS: dict[str, Any] = {
    "format": None,
    "tick": None,
    "first_level": None,
    "channel": [],
    "latency": [],
    "quantiles": None,
    "edge": "rising",
    "tie": False,
    "nominal": None,
    "as_json": False,
    "as_csv": False,
    "as_md": False,
    "plot": None,
    "opt": [],
    "extremes": 0,
    "start": None,
    "end": None,
    "decoder": [],
    "min_width": None,
}
_BY_SPELLING = {s: name for name, (spellings, _) in ANALYZE_OPTIONS.items() for s in spellings}
_DIGITS = re.compile(r"[0-9]{1,18}")


def parse_analyze(args: list[str], environ: Mapping[str, str]) -> dict[str, Any] | None:
    """The keyword arguments of run_analyze for `rtlab analyze ARGS`, or None when
    typer should parse them (see the module doc)."""
    if any(k.startswith("_") and k.endswith("_COMPLETE") for k in environ):
        return None  # click's shell completion
    out: dict[str, Any] = {k: list(v) if isinstance(v, list) else v
                           for k, v in ANALYZE_DEFAULTS.items()}  # fmt: skip
    file: str | None = None
    i = 0
    while i < len(args):
        tok = args[i]
        i += 1
        if not tok.startswith("-") or tok == "-":
            if file is not None or tok == "-":
                return None
            file = tok
            continue
        spelling, eq, value = tok.partition("=") if tok.startswith("--") else (tok, "", "")
        name = _BY_SPELLING.get(spelling)
        if name is None:
            return None
        kind = ANALYZE_OPTIONS[name][1]
        if kind == "flag":
            if eq:
                return None
            out[name] = True
            continue
        if not eq:
            if i >= len(args) or args[i].startswith("-"):
                return None
            value, i = args[i], i + 1
        if kind == "multi":
            out[name].append(value)
        elif kind is int:
            if not _DIGITS.fullmatch(value):
                return None
            out[name] = int(value)
        else:
            out[name] = kind(value)
    if file is None:
        return None
    out["file"] = Path(file)
    return out


def run_fast(kwargs: dict[str, Any]) -> None:
    """run_analyze as typer runs a command: a user mistake is one line and exit status
    2 (guarded), Ctrl-C exit status 130, a closed pipe exit status 1 without a word."""
    from rtlab.cli.analyze_run import run_analyze
    from rtlab.cli.common import guarded

    try:
        guarded(lambda: run_analyze(**kwargs))
    except KeyboardInterrupt:
        sys.exit(130)
    except EOFError:
        print(file=sys.stderr)
        print("Aborted!", file=sys.stderr)
        sys.exit(1)
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        _pacify()
        sys.exit(1)
    sys.exit(0)


def _pacify() -> None:
    """As click does on a closed pipe: later flushes of stdout/stderr say nothing."""

    class _Quiet:
        def __init__(self, stream: Any) -> None:
            self._stream = stream

        def flush(self) -> None:
            try:
                self._stream.flush()
            except OSError as exc:
                if exc.errno != errno.EPIPE:
                    raise

        def __getattr__(self, name: str) -> Any:
            return getattr(self._stream, name)

    sys.stdout = _Quiet(sys.stdout)
    sys.stderr = _Quiet(sys.stderr)
