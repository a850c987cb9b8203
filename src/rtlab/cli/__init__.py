"""`rtlab …`: the command line. The typer application is rtlab.cli.commands (`app` here
too, imported on first use); `main` runs a well-formed `rtlab analyze FILE …` without it
(cli/fast.py), as start-up is most of a small file's analysis."""

from __future__ import annotations

import os
import sys
from typing import Any


def main() -> None:
    """The `rtlab` command: analyze by the fast path when its argv is plain, else typer."""
    # OpenBLAS starts a thread per core when numpy loads (half of numpy's 0.1-0.2 s
    # import on 2 cores); rtlab does no linear algebra big enough to gain from them.
    # A user's own setting wins.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    if sys.argv[1:2] == ["analyze"]:
        from rtlab.cli.fast import parse_analyze, run_fast

        kwargs = parse_analyze(sys.argv[2:], os.environ)
        if kwargs is not None:
            run_fast(kwargs)
            return
    from rtlab.cli.commands import run

    run()


def __getattr__(name: str) -> Any:
    """`rtlab.cli.app` and the commands module's other names, imported on first use."""
    if name.startswith("__"):
        raise AttributeError(name)
    from importlib import import_module

    for module in ("rtlab.cli.commands", "rtlab.cli.analyze_run"):
        found = import_module(module).__dict__
        if name in found:
            return found[name]
    raise AttributeError(f"module 'rtlab.cli' has no attribute {name!r}")
