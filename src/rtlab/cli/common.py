"""What every command group of the CLI shares: the consoles and `guarded`, which turns
a user mistake into one clear line and exit status 2."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from rtlab.errors import RtlabError

T = TypeVar("T")

err = Console(stderr=True)


def fail(message: str) -> None:
    # escape: a message quotes user input and cell labels, whose [brackets] are not markup
    err.print(f"[bold red]rtlab: error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def guarded(fn: Callable[[], T]) -> T:
    """Run a command body; a user mistake becomes one clear line and exit status 2."""
    try:
        return fn()
    except RtlabError as exc:
        fail(str(exc))
    except KeyError as exc:  # an unknown channel name
        fail(str(exc.args[0]) if exc.args else str(exc))
    except ValueError as exc:
        fail(str(exc))
    except MemoryError:
        fail("out of memory")
    raise AssertionError("unreachable")
