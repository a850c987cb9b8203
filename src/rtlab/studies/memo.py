"""Studies computed once per report: inside `once()` (the report's build of its
sections), a study function marked `@per_report` computes its result for a store and a
set of cells once and gives that same result to every later caller (the reproduction of
the published studies reads the GPIO study, the multi-core figures and the
user-vs-kernel study that their own sections show). The cells are the same when they
are the same CellRuns objects under the same keys (a section may get a dict of its own
holding them). Outside `once()` every call computes, as before.

    with memo.once() as m:
        sections = build(store, cells)
    m.computed            # Counter: study function -> times it computed
    memo.last().computed  # the same, of the last report built (what a test reads)
"""

from __future__ import annotations

import contextlib
import functools
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@dataclass
class Memo:
    results: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    computed: Counter[str] = field(default_factory=Counter)


_current: ContextVar[Memo | None] = ContextVar("rtlab_study_memo", default=None)
_last: list[Memo] = []  # the last outermost once()'s


def last() -> Memo | None:
    """The memo of the last report built (the last outermost once() that ended)."""
    return _last[-1] if _last else None


@contextlib.contextmanager
def once() -> Iterator[Memo]:
    """The memo of one report's build (nested: the outer one's)."""
    outer = _current.get()
    if outer is not None:
        yield outer
        return
    memo = Memo()
    token = _current.set(memo)
    try:
        yield memo
    finally:
        _current.reset(token)
        _last[:] = [memo]


def per_report(fn: Callable[P, R]) -> Callable[P, R]:
    """`fn(store, cells, *more)` computed once per (store, cells, more) inside once()."""
    name = f"{fn.__module__}.{fn.__qualname__}"

    @functools.wraps(fn)
    def cached(*args: P.args, **kwargs: P.kwargs) -> R:
        memo = _current.get()
        if memo is None:
            return fn(*args, **kwargs)
        store, cells, *more = args
        assert isinstance(cells, Mapping)
        key = (name, id(store), tuple((k, id(v)) for k, v in cells.items()), *more,
               *sorted(kwargs.items()))  # fmt: skip
        if key not in memo.results:
            memo.computed[name] += 1
            memo.results[key] = (fn(*args, **kwargs), store, cells)  # held: ids stay theirs
        result: R = memo.results[key][0]
        return result

    return cached
