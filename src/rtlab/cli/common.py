"""What every command group of the CLI shares: the consoles and `guarded`, which turns
a user mistake into one clear line and exit status 2."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from rtlab.errors import RtlabError

T = TypeVar("T")


def os_error_message(exc: OSError) -> str:
    """'PATH: reason' from an OSError, as the shell tools say it."""
    reason = exc.strerror or str(exc)
    names = [str(f) for f in (exc.filename, exc.filename2) if f is not None]
    return f"{' → '.join(names)}: {reason}" if names else reason


class LazyConsole:
    """A rich Console made on first use: importing rich.console costs more than the rest
    of `rtlab --help`, which never prints through one."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs
        self._console: Any = None

    def get(self) -> Any:
        """The Console itself, for rich objects that take one (Live, Progress)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._kwargs)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)


err: Any = LazyConsole(stderr=True)


def exit_status(code: int) -> NoReturn:
    """End the command with `code`: typer's Exit inside a typer command (typer is loaded
    then), SystemExit on the fast path of analyze (cli/fast.py), which never loads it."""
    if "typer" in sys.modules:
        import typer

        raise typer.Exit(code)
    raise SystemExit(code)


def fail(message: str) -> NoReturn:
    """Say a user mistake in one line on stderr; exit status 2."""
    from rich.markup import escape

    # escape: a message quotes user input and cell labels, whose [brackets] are not markup
    err.print(f"[bold red]rtlab: error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    exit_status(2)


# Modules of the extras (pyproject.toml) → the extra: an analysis-only install has none
# of them (the lab's transports; matplotlib, which PNG/PDF figures need: SVG ones, the
# HTML report's included, are drawn by rtlab.chart without it).
EXTRA_OF_MODULE = {
    "serial": "lab",
    "labgrid": "lab",
    "grpc": "lab",
    "matplotlib": "plot",
    "PIL": "plot",
}
LAB_EXTRA_MODULES = tuple(m for m, extra in EXTRA_OF_MODULE.items() if extra == "lab")


def guarded(fn: Callable[[], T]) -> T:
    """Run a command body; a user mistake becomes one clear line and exit status 2, and
    so does a command run without the extra it needs (lab, plot)."""
    try:
        return fn()
    except ModuleNotFoundError as exc:
        extra = EXTRA_OF_MODULE.get((exc.name or "").split(".")[0])
        if extra is None:
            raise
        fail(
            f"this needs the {extra} extra ({exc.name} is not installed): "
            f"pip install 'rtlab[{extra}]' (make setup installs it)"
        )
    except RtlabError as exc:
        fail(str(exc))
    except KeyError as exc:  # an unknown channel name
        fail(str(exc.args[0]) if exc.args else str(exc))
    except ValueError as exc:
        fail(str(exc))
    except MemoryError:
        fail("out of memory")
    except BrokenPipeError:  # `rtlab … | head`: the reader left; not a user mistake
        raise
    except OSError as exc:  # an output path that cannot be written: no traceback
        fail(os_error_message(exc))
    raise AssertionError("unreachable")
