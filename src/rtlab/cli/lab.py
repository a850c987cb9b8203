"""The lab commands: `rtlab run`, `runs`, `report`, `compare` (mounted by rtlab.cli).

Thin: each command is a call into rtlab.lab / results / studies / report. Exit status: 0 ok,
1 some run failed or a compare gate failed, 2 a user mistake (one line), 130 Ctrl-C.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from rtlab.cli.common import LazyConsole, guarded

DEFAULT_STORE = "out/store/rtlab.duckdb"
# Piped (make run, CI logs): wide enough for the summary table instead of rich's 80.
out: Any = LazyConsole(highlight=False, width=None if sys.stdout.isatty() else 160)
err: Any = LazyConsole(stderr=True, highlight=False, width=None if sys.stderr.isatty() else 160)

StoreOpt = Annotated[
    Path | None,
    typer.Option(
        "--store", help=f"results store (default: the spec's, $RTLAB_STORE or {DEFAULT_STORE})"
    ),
]


def store_path(opt: Path | None, spec_store: str | None = None) -> Path:
    if opt is not None:
        return opt
    return Path(spec_store or os.environ.get("RTLAB_STORE") or DEFAULT_STORE)


def open_store(path: Path, read_only: bool = False) -> Any:
    """The store, with a bad path (a file where a directory should be) as one line."""
    from rtlab.results import Store, StoreError

    try:
        st = Store(path, read_only=read_only)
    except OSError as e:
        raise StoreError(f"{path}: cannot open the store ({e.strerror}: {e.filename})") from None
    if st.snapshot_of is not None:  # a run is writing: say how fresh the view is
        err.print(
            f"rtlab: note: process {st.snapshot_of} is writing {path}: this is the store as of "
            "its last run start or end",
            markup=False,
            soft_wrap=True,
        )
    return st


def _us(x: float | None) -> str:
    return "–" if x is None else f"{x / 1000:,.1f}"


def summary_table(rows: list[dict[str, Any]], title: str) -> Any:
    from rich.markup import escape
    from rich.table import Table

    from rtlab.results.roles import PARTS_NOTE

    t = Table(title=title, title_justify="left")
    for col in ("cell", "series", "runs", "n", "min", "p50", "p99", "p99.9", "max"):
        t.add_column(col, justify="left" if col in ("cell", "series", "runs") else "right")
    for r in rows:
        runs = " ".join(f"{k}:{v}" for k, v in r["runs"].items())
        if r["n"] is None:  # no timing series: why, instead of an n = 0 row
            note = r["note"]
            if note == PARTS_NOTE:  # no tables below here: `rtlab report` has them
                note = "several parts (scenarios): `rtlab report` shows each"
            t.add_row(escape(r["cell"]), f"({escape(note)})", runs, "–", *[""] * 5)
            continue
        t.add_row(
            escape(r["cell"]),
            escape(r["series"]),
            runs,
            f"{r['n']:,}",
            *(_us(r.get(k)) for k in ("min", "p50", "p99", "p999", "max")),
        )
    t.caption = "times in µs, pooled over the cell's ok runs; quantiles are sample values"
    from rtlab.results.query import overrun_lines

    t.caption += "".join(f"\n{escape(o)}" for o in overrun_lines(rows))
    return t


def run_cmd(
    spec: Annotated[Path, typer.Argument(help="experiment spec (TOML)")],
    store: StoreOpt = None,
    force: Annotated[bool, typer.Option(help="run every cell again, even completed ones")] = False,
    report: Annotated[
        Path | None, typer.Option("--report", "-o", help="write the HTML report here after")
    ] = None,
    wait: Annotated[
        bool,
        typer.Option(help="a labgrid place held by someone else: wait for it (else exit 2)"),
    ] = False,
) -> None:
    """Run an experiment spec; resumes what a previous run of it left missing."""
    from rtlab.lab.runner import run_spec
    from rtlab.lab.spec import load_spec
    from rtlab.results import query as results

    def body() -> int:
        sp = load_spec(spec)
        path = store_path(store, sp.store)
        with open_store(path) as st:
            outcome = run_spec(sp, st, force=force, console=err.get(), wait=wait)
            if outcome.skipped:
                err.print(
                    f"{outcome.skipped} run(s) already in the store (--force runs them again)"
                )
            if outcome.interrupted:
                err.print(
                    f"interrupted: {len(outcome.runs)} run(s) finished and kept"
                    + (
                        f", run {outcome.interrupted_run} marked interrupted"
                        if outcome.interrupted_run
                        else ""
                    )
                    + "; run the spec again to resume"
                )
                return 130
            # the spec as it is now: cells of an earlier version of it are in `report`
            keys = {c.key for c in sp.cells()}
            cells = {
                k: cr for k, cr in results.select_many(st, (), sp.name).items() if cr.key in keys
            }
            out.print(summary_table(results.summary_rows(st, cells), f"{sp.name}  ({path})"))
            if report is not None:
                from rtlab.report.html import write_report

                write_report(st, cells, report, title=sp.name)
                out.print(f"report: {report}")
        bad = [r for r in outcome.runs if r.status != "ok"]
        return 1 if bad else 0

    code = guarded(body)
    raise typer.Exit(code)


def runs_cmd(
    store: StoreOpt = None,
    spec: Annotated[str | None, typer.Option("--spec", help="only this spec's runs")] = None,
) -> None:
    """List the runs in the store."""
    from rtlab.results.query import run_labels

    def body() -> None:
        from rich.markup import escape
        from rich.table import Table

        with open_store(store_path(store), read_only=True) as st:
            t = Table()
            for col in ("run id", "spec", "cell", "rep", "status", "started", "s", "note"):
                t.add_column(col)
            import time as _t

            runs = st.runs(spec_name=spec)
            labels = run_labels(runs)  # cells that share a label say what differs
            for r in runs:
                dur = (r["finished_at"] or 0) - (r["started_at"] or 0)
                t.add_row(
                    r["run_id"],
                    r["spec_name"] or "",
                    escape(labels[r["run_id"]]),
                    str(r["repetition"]),
                    r["status"],
                    _t.strftime("%Y-%m-%d %H:%M:%S", _t.localtime(r["started_at"] or 0)),
                    f"{dur:.1f}" if r["finished_at"] else "",
                    escape((r["message"] or "")[:60]),
                )
            out.print(t)

    guarded(body)


def report_cmd(
    runs: Annotated[list[str] | None, typer.Argument(help="run ids, spec names or cells")] = None,
    spec: Annotated[str | None, typer.Option("--spec", help="every run of this spec")] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="the report file")] = None,
    md: Annotated[bool, typer.Option("--md", help="Markdown tables instead of HTML")] = False,
    csv: Annotated[bool, typer.Option("--csv", help="CSV summary instead of HTML")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="JSON summary instead of HTML")] = False,
    skipped: Annotated[
        list[str] | None,
        typer.Option(
            "--skipped",
            help="a part not run, 'PART: reason — how to fix', shown first (repeatable)",
        ),
    ] = None,
    store: StoreOpt = None,
) -> None:
    """A report of stored runs: one self-contained HTML file, or --md/--csv/--json."""
    from rtlab.report import html
    from rtlab.results import query as results

    def body() -> None:
        if sum((md, csv, as_json)) > 1:
            raise ValueError("choose one of --md, --csv, --json")
        if not (md or csv or as_json) and output is None:
            raise ValueError("the HTML report needs -o FILE.html")
        with open_store(store_path(store), read_only=True) as st:
            cells = results.select_many(st, runs or (), spec)
            if md or csv or as_json:
                fmt = "md" if md else "csv" if csv else "json"
                text = html.text_report(st, cells, fmt, skipped or ())
                if output is None:
                    typer.echo(text, nl=False)
                else:
                    output.parent.mkdir(parents=True, exist_ok=True)
                    output.write_text(text)
                    err.print(f"report: {output}")
                return
            assert output is not None
            html.write_report(
                st,
                cells,
                output,
                title=spec or " ".join(runs or ()) or "rtlab",
                skipped=skipped or (),
            )
            out.print(f"report: {output}")

    guarded(body)


def compare_cmd(
    base: Annotated[str, typer.Argument(help="run id, spec name or cell")],
    new: Annotated[str, typer.Argument(help="run id, spec name or cell")],
    fail_if: Annotated[
        list[str] | None,
        typer.Option("--fail-if", help="gate, e.g. 'p99 > +10%' or 'max > 500us' (repeatable)"),
    ] = None,
    series: Annotated[str | None, typer.Option(help="only this series")] = None,
    gate_on: Annotated[
        str,
        typer.Option(
            help="gates test the point 'estimate', or 'ci': fail only when the whole "
            "95 % interval over runs is past the bound (needs ≥ 2 ok runs a side)"
        ),
    ] = "estimate",
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a table")] = False,
    store: StoreOpt = None,
) -> None:
    """Change of median, p99, p99.9, max from BASE to NEW (runs pooled) with 95 %
    intervals over repeated runs; --fail-if gates exit 1 when violated."""
    from rtlab.report import compare

    def body() -> int:

        gates = [compare.parse_gate(g) for g in fail_if or []]
        if gate_on not in ("estimate", "ci"):
            raise ValueError(f"--gate-on must be 'estimate' or 'ci', not {gate_on!r}")
        with open_store(store_path(store), read_only=True) as st:
            result = compare.compare(st, base, new, series=series)
        failures = compare.check_gates(result, gates, gate_on)
        from rich.markup import escape

        if as_json:
            import json

            typer.echo(json.dumps(compare.to_json(result, failures), indent=1))
        else:
            out.print(compare.rich_table(result))
            for f in failures:
                err.print(f"[bold red]gate failed:[/] {escape(f)}")
            if gates and not failures:
                err.print(f"[green]{len(gates)} gate(s) passed[/]")
        return 1 if failures else 0

    raise typer.Exit(guarded(body))


def register(app: typer.Typer) -> None:
    app.command("run")(run_cmd)
    app.command("runs")(runs_cmd)
    app.command("report")(report_cmd)
    app.command("compare")(compare_cmd)
