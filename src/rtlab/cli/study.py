"""`rtlab study rtos`: the RTOS comparison in one command (rtlab.lab.rtos_matrix)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rtlab.cli.common import guarded
from rtlab.cli.lab import StoreOpt, err, open_store, store_path

study_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None)
DEFAULT_SPEC = Path("examples/rtos-compare.toml")


def _names(values: list[str] | None) -> list[str]:
    return [v for item in values or () for v in item.split(",") if v]


@study_app.command("rtos")
def rtos_cmd(
    spec: Annotated[
        Path, typer.Argument(help="the study spec (its [target] is replaced per column)")
    ] = DEFAULT_SPEC,
    rtos: Annotated[
        list[str] | None, typer.Option("--rtos", help="only these RTOSes (comma-separated)")
    ] = None,
    machine: Annotated[
        list[str] | None, typer.Option("--machine", help="only these QEMU machines")
    ] = None,
    config: Annotated[
        list[str] | None, typer.Option("--config", help="only these configurations")
    ] = None,
    report: Annotated[Path, typer.Option("--report", "-o", help="the HTML report")] = Path(
        "out/rtos-compare.html"
    ),
    md: Annotated[bool, typer.Option("--md", help="also print the Markdown tables")] = False,
    store: StoreOpt = None,
) -> None:
    """Every RTOS you brought × every QEMU machine × configuration it builds for: run what
    the store lacks, then one report with the RTOSes side by side."""
    from rtlab.lab.rtos_matrix import expand
    from rtlab.lab.runner import run_spec
    from rtlab.report import document
    from rtlab.report.html import write_html
    from rtlab.results import query as results

    def body() -> int:
        specs, skipped = expand(spec, _names(rtos), _names(machine), _names(config))
        for line in skipped:
            err.print(f"skipped: {line}", markup=False)
        if not specs:
            raise ValueError("no RTOS to run: bring one (README: bring your own kernels)")
        path = store_path(store, specs[0].store)
        bad = 0
        with open_store(path) as st:
            keys: set[str] = set()
            for sp in specs:
                outcome = run_spec(sp, st, console=err.get())
                if outcome.interrupted:
                    err.print("interrupted: finished runs are kept; run again to resume")
                    return 130
                bad += sum(r.status != "ok" for r in outcome.runs)
                keys |= {c.key for c in sp.cells()}
            cells = {
                k: cr
                for k, cr in results.select_many(st, (), specs[0].name).items()
                if cr.key in keys
            }
            rep = document.build(st, cells, specs[0].name, skipped)  # built once, shown twice
            write_html(rep, report)
            if md:  # as is: a console would wrap Markdown's long table rows
                typer.echo(rep.markdown(), nl=False)
                if specs[0].target.get("cycles"):  # in cycles: external vs internal, cross-check
                    from rtlab.studies import cycles_page

                    typer.echo(cycles_page.tables(st, specs[0].name), nl=False)
        err.print(f"report: {report}")
        return 1 if bad else 0

    raise typer.Exit(guarded(body))
