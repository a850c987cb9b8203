"""Verdicts that hold under a model's own uncertainties, or say what decides them.

    rep = robust([(page, rep_page), (two_way, rep_two_way), (ties1, rep_ties1)])
    rep.rows[2].verdict        # "fragile"
    rep.rows[2].why            # "fully-associative: T3 0.66 not; two-way: T3 1.21 reproduced"

A cycle model declares what it cannot know (the XIP cache's associativity, which core an
arbitration tie goes to, where the linker puts code). The page's own model is one
setting of each; a variant changes one setting (or several). A claim is **reproduced**
only when it is reproduced under the page's model and under every variant, **not
reproduced** when it is reproduced under none, **not comparable** when no variant can
judge it; otherwise it is **fragile**, and the row names each setting with its figure
and its verdict, so a reader sees what decides it. Each variant's verdicts already hold
the claims' preconditions (reproduction.reproduce), so a precondition that fails under
one setting only makes its claim fragile, not reproduced.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from rtlab.studies.reproduction import (
    FRAGILE,
    NOT_COMPARABLE,
    NOT_REPRODUCED,
    REPRODUCED,
    Reproduction,
    Row,
)

_SHORT = {REPRODUCED: "reproduced", NOT_REPRODUCED: "not", NOT_COMPARABLE: "not comparable"}


@dataclass(frozen=True)
class Variant:
    """One setting of the model's uncertain choices, as a reader names it."""

    label: str  # "two-way XIP cache", "ties to core 1", "+3 KiB dead code"
    settings: tuple[tuple[str, str], ...] = ()  # (choice, value): ("xip_cache", "two-way")


def robust(reps: Sequence[tuple[Variant, Reproduction]]) -> Reproduction:
    """The first reproduction's rows (the page's model), each verdict held to every
    reproduction's row of the same claim (see the module docstring)."""
    if not reps:
        raise ValueError("robust: no reproduction")
    base, others = reps[0][1], reps[1:]
    if not others:
        return base
    by_id = [(v, {r.id: r for r in rep.rows}) for v, rep in reps]
    rows = [_row(row, [(v, rows.get(row.id)) for v, rows in by_id]) for row in base.rows]
    labels = ", ".join(v.label for v, _ in others)
    envs = [*base.environment, f"verdicts held to the model's variants: {labels}"]
    return dataclasses.replace(base, rows=rows, environment=envs)


def _row(base: Row, each: list[tuple[Variant, Row | None]]) -> Row:
    verdicts = {r.verdict if r is not None else NOT_COMPARABLE for _, r in each}
    if len(verdicts) == 1:
        return base
    deciding = "; ".join(
        f"{v.label}: {r.rtlab} {_SHORT.get(r.verdict, r.verdict)}"
        if r is not None
        else f"{v.label}: not measured"
        for v, r in each
    )
    # reproduced somewhere but not everywhere: fragile; reproduced nowhere: not
    verdict = FRAGILE if REPRODUCED in verdicts else NOT_REPRODUCED
    return dataclasses.replace(base, verdict=verdict, why=deciding)
