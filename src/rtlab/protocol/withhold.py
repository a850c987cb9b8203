"""Runs whose figures the method cannot give: their figures are withheld and a `warn`
says why, so a stored run holds the reason, never a number that looks valid.

    runs = withhold(parse(text, labels=labels),
                    lambda meta: "why" if meta.get("cores") == "2" else None,
                    code="unsupported_on_icount")

It works on parsed runs (the reader's), never on the protocol text: the output is read
once and stays as the workload sent it. `decide` sees a run's meta (the target's labels
included) and returns a reason or None. A withheld run keeps its meta and warnings; its
series, counters and histograms are dropped; meta `withheld=CODE` and the warning CODE
with the reason are added. A run cut short (no `end`) is left as it is, for the runner
to store as truncated.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping

from rtlab.protocol.records import Run

Decide = Callable[[Mapping[str, str]], "str | None"]


def without_figures(
    run: Run, meta: Mapping[str, str] | None = None, warnings: list[tuple[str, str]] | None = None
) -> Run:
    """A copy of `run` with no series, counters or histograms; its meta and warnings
    those given (else its own, copied)."""
    return dataclasses.replace(
        run,
        meta=dict(run.meta if meta is None else meta),
        warnings=list(run.warnings if warnings is None else warnings),
        series={},
        counters={},
        histograms={},
        histogram_units={},
    )


def withheld(run: Run, reason: str, code: str) -> Run:
    """`run` without its figures, saying why: meta `withheld=CODE` (a store keeps
    warnings per invocation, meta per part: the meta marks the part itself) and a
    warning CODE with the reason."""
    return without_figures(
        run, meta={**run.meta, "withheld": code}, warnings=[*run.warnings, (code, reason)]
    )


def withhold(runs: Iterable[Run], decide: Decide, code: str) -> list[Run]:
    """`runs` with every ended run that `decide` gives a reason for withheld (see above);
    the others as they were."""
    out: list[Run] = []
    for run in runs:
        reason = decide(run.meta) if run.status != "truncated" else None
        out.append(withheld(run, reason, code) if reason else run)
    return out
