"""Run an experiment spec: every missing (cell, repetition) on the target, into the store.

    with Store(path) as st:
        outcome = run_spec(load_spec("examples/host.toml"), st)

Each run: start the condition's load, arm the spec's instrument (if any), run the
workload, stop the instrument and the load, parse the protocol output, analyze the
instrument's capture of the pin, commit the run (samples, summaries, counters, warnings,
fingerprint, spec, parameters, tool versions, capture file) in one go. Resume: (cell
key, repetition) pairs the store already holds as `ok` are skipped unless force=True.
Ctrl-C (or SIGTERM) stops the workload, the instrument and the load, marks the run in
progress `interrupted` and re-raises, leaving every finished run committed. A workload
whose output is cut short (no `end` record, records missing), or whose instrument
failed or saw no edge on the pin, is stored `incomplete` with the problems listed.
"""

from __future__ import annotations

import contextlib
import functools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

import rtlab
from rtlab.errors import RtlabError
from rtlab.lab import scheduler
from rtlab.lab.fingerprint import LoadMonitor, loadavg, pitfalls
from rtlab.lab.instrument_arming import Armed, Instrument, InstrumentFailure, make_instrument
from rtlab.lab.instrument_results import record as record_capture
from rtlab.lab.spec import Cell, Spec
from rtlab.lab.targets.base import Completed, Target, make_target
from rtlab.lab.workloads.base import KINDS, stderr_reason
from rtlab.model import Capture
from rtlab.procgroup import recording, sigterm_as_interrupt
from rtlab.protocol import ProtocolError
from rtlab.results import RunWriter, Store, multirun

OVERHEAD_S = 0.3  # per run beyond the workload: process start, parse, commit


@dataclass
class RunOutcome:
    cell: Cell
    repetition: int
    run_id: str
    status: str
    seconds: float
    message: str | None = None
    place: str | None = None  # the labgrid place it ran on, when there were several


@dataclass
class SpecOutcome:
    spec: str
    planned: int
    skipped: int
    runs: list[RunOutcome] = field(default_factory=list)
    interrupted_run: str | None = None

    @property
    def interrupted(self) -> bool:
        return self.interrupted_run is not None  # "" when stopped between two runs


def plan(spec: Spec, store: Store, force: bool = False) -> tuple[list[tuple[Cell, int]], int]:
    """The (cell, repetition) pairs to run, repetition-major so that drift over a long
    session spreads over every cell; and how many are already done."""
    done = {(r["cell_key"], r["repetition"]) for r in store.runs(spec_name=spec.name, status="ok")}
    todo, skipped = [], 0
    for rep in range(spec.repetitions):
        for cell in spec.cells():
            if not force and (cell.key, rep) in done:
                skipped += 1
            else:
                todo.append((cell, rep))
    return todo, skipped


def _expected_s(cell: Cell, spec: Spec | None = None) -> float:
    instrument = spec.instrument if spec is not None else None
    margin = instrument.margin_s if instrument is not None else 0.0
    return (
        KINDS[cell.kind].seconds(cell.params)
        + cell.condition.settle_s * (cell.condition.kind != "idle")
        + margin  # a sigrok capture outlasts the workload by its margin
    )


class Runner:
    def __init__(self, spec: Spec, store: Store, target: Target | None = None) -> None:
        self.spec = spec
        self.store = store
        self.target = target or make_target(spec.target)
        self._programs: dict[str, str] = {}
        self._fp: dict[str, Any] | None = None
        self._fp_load: list[float] | None = None  # the fingerprint's, for one run
        self.instrument: Instrument | None = (
            make_instrument(spec.instrument, self.target) if spec.instrument is not None else None
        )

    def program(self, name: str) -> str:
        if name not in self._programs:
            self._programs[name] = self.target.program(name)  # builds once when local
        return self._programs[name]

    def fingerprint(self) -> dict[str, Any]:
        if self._fp is None:
            self._fp = self.target.fingerprint()
            self._fp_load = self._fp.get("loadavg")
            # busy_host is a figure of each run (run_cell), not of the session's start
            self._fp["warnings"] = [
                x for x in self._fp.get("warnings", []) if x.get("code") != "busy_host"
            ]
            if self.instrument is not None:
                self._fp["instrument"] = self.instrument.describe()
        return self._fp

    def _host_load(self) -> list[float] | None:
        """The load average around this run: read here when local; elsewhere the
        fingerprint's, for the first run only (taken just before it; later runs have
        no reading rather than a stale copy)."""
        if self.target.kind == "local":
            return loadavg()
        first, self._fp_load = self._fp_load, None
        return first

    def run_cell(self, cell: Cell, rep: int) -> RunOutcome:
        kind = KINDS[cell.kind]
        exe = self.program(kind.program) if kind.program else ""
        argv = kind.argv(exe, cell.params)
        seconds = kind.seconds(cell.params)
        timeout = cell.timeout_s or seconds * 1.5 + 30
        load_argv = cell.condition.load_argv(seconds + cell.condition.settle_s)
        fp = self.fingerprint()
        t0 = time.monotonic()
        params = {
            "workload": cell.workload,
            "label": cell.label,
            "params": cell.params,
            "varying": cell.varying,
            "condition": {"name": cell.condition.name, **cell.condition.definition()},
            "argv": argv,
            "load_argv": load_argv,
            "timeout_s": timeout,
        }
        if self.spec.instrument is not None:
            params["instrument"] = self.spec.instrument.definition()
        with (
            self.store.run(
                workload=cell.kind,
                spec_name=self.spec.name,
                cell_key=cell.key,
                repetition=rep,
                spec={"name": self.spec.name, "path": str(self.spec.path), "text": self.spec.text},
                params=params,
                target=self.target.describe(),
                fingerprint=fp,
            ) as w,
            recording(functools.partial(self.store.note_group, w.run_id)),
        ):
            # every process group started in here is recorded with the run (procgroup.spawn)
            # the host's own load, read before this run's load starts: busy_host
            # says how busy the host was around THIS run (the fingerprint is once)
            host_load = self._host_load()
            bg = self.target.start(load_argv) if load_argv else None
            armed: Armed | None = None
            cap: Capture | None = None
            failure: str | None = None
            try:
                if bg is not None:
                    time.sleep(cell.condition.settle_s)
                if self.instrument is not None:
                    try:
                        armed = self.instrument.arm(
                            seconds, scratch=self.store.captures_dir, run_id=w.run_id
                        )
                    except InstrumentFailure as e:
                        # nothing to time the pin with: the workload is not run
                        w.status, w.message = "error", str(e)
                        return RunOutcome(
                            cell, rep, w.run_id, w.status, time.monotonic() - t0, w.message
                        )
                with LoadMonitor() as lm:
                    done = self.target.run(argv, timeout)
                if armed is not None:
                    try:
                        cap, notes = armed.stop()
                        w.warnings.extend(("instrument", n) for n in notes)
                    except InstrumentFailure as e:
                        failure = str(e)
            finally:
                # Ctrl-C or an error anywhere above: no instrument or load left running
                if armed is not None:
                    armed.abort()
                if bg is not None:
                    bg.stop()
            if self.target.kind == "local":
                w.load = {**lm.result(), "loadavg_before_load": host_load}
            self._store_output(w, cell, done, fp, argv[0] if argv else "", host_load)
            if cap is not None:
                failure = self._store_capture(w, cap)
            if failure is not None:
                w.problems.append(failure)
                w.message = f"{failure}; {w.message}" if w.message else failure
                w.status = "incomplete" if w.status == "ok" else w.status
            run_id = w.run_id
        return RunOutcome(cell, rep, run_id, w.status, time.monotonic() - t0, w.message)

    def _store_capture(self, w: RunWriter, cap: Capture) -> str | None:
        """Keep the capture beside the run's samples (rtlab Parquet, committed with the
        run: an abandoned run drops it) and add the pin's series; or say what is wrong."""
        from rtlab import formats

        assert self.instrument is not None and self.spec.instrument is not None
        path = self.store.capture_path(w.run_id)
        rel, inst = str(path.relative_to(self.store.root)), self.instrument
        try:
            formats.save(cap, path)
            return record_capture(w, cap, self.spec.instrument, inst.describe(), rel, inst.name)
        except RtlabError as e:  # a capture the store cannot hold fails this run only
            path.unlink(missing_ok=True)
            return f"instrument capture not stored: {e}"

    def _store_output(
        self,
        w: RunWriter,
        cell: Cell,
        done: Completed,
        fp: dict[str, Any],
        program: str,
        host_load: list[float] | None,
    ) -> None:
        kind = KINDS[cell.kind]
        w.meta["rtlab_version"] = rtlab.__version__
        w.meta["exit_status"] = str(done.returncode)
        try:
            runs = done.read_runs(cell.label, kind.output)
        except ProtocolError as e:
            w.status, w.message = "error", f"malformed workload output: {e}"
            return
        if not runs:
            w.status = "error"
            why = stderr_reason(done.stderr, program)
            w.message = f"no protocol output (exit status {done.returncode}): {why}"
            return
        if kind.multi_run:
            multirun.merge_into(w, runs)
        else:
            w.add_protocol_run(runs[0])
            if len(runs) > 1:
                w.problems.append(f"{len(runs) - 1} more protocol run(s) ignored")
        w.mark_timestamps(kind.timestamps)
        if any(r.status == "truncated" for r in runs):
            w.message = "workload output truncated (no end record)"
            if done.stderr.strip():  # what the program or emulator said as it stopped
                w.message += f": {stderr_reason(done.stderr, program)}"
            w.status = "incomplete" if w.status == "ok" else w.status
        if done.timed_out:
            w.message = f"timed out, workload killed; {w.message or ''}".rstrip("; ")
            w.status = "error" if not w.series else "incomplete"
        if "kernel" in fp and "virtualization" in fp:
            codes = {c for c, _ in w.warnings}
            w.warnings.extend(
                (p["code"], p["msg"])
                for p in pitfalls(fp, w.meta, host_load)
                if p["code"] not in codes
            )


def _run_on(spec: Spec) -> Callable[[Target, Any, Cell, int], RunOutcome]:
    """The scheduler's run_cell: one Runner per board (its own fingerprint, programs)."""
    runners: dict[int, Runner] = {}

    def run_cell(target: Target, store: Any, cell: Cell, rep: int) -> RunOutcome:
        key = id(target)  # one per board: the scheduler's worker keeps its target
        if key not in runners:
            runners[key] = Runner(spec, store, target)
        res = runners[key].run_cell(cell, rep)
        res.place = target.place
        return res

    return run_cell


def _run_variants(
    spec: Spec,
    store: Store,
    todo: list[tuple[Cell, int]],
    done: Callable[[RunOutcome], None],
    now: Callable[[str], None],
) -> None:
    """Cells of a target with axes (a guest kernel per cell): one target and Runner per
    variant, made when its first cell comes, closed on every way out."""
    runners: dict[str, Runner] = {}
    try:
        for cell, rep in todo:
            table = cell.target if cell.target is not None else spec.target
            key = json.dumps(table, sort_keys=True)
            if key not in runners:
                runners[key] = Runner(spec, store, make_target(table))
            now(escape(f"{cell.label} #{rep}"))
            done(runners[key].run_cell(cell, rep))
    finally:
        scheduler.close_targets([r.target for r in runners.values()])


def run_spec(
    spec: Spec,
    store: Store,
    *,
    force: bool = False,
    console: Console | None = None,
    on_run: Callable[[RunOutcome], None] | None = None,
    wait: bool = False,
) -> SpecOutcome:
    """Run what is missing of `spec`. KeyboardInterrupt is caught: the outcome says
    which run was interrupted (the store has it marked)."""
    console = console or Console(stderr=True)
    todo, skipped = plan(spec, store, force)
    out = SpecOutcome(spec.name, len(todo), skipped)
    if not todo:
        return out
    total = sum(_expected_s(c, spec) + OVERHEAD_S for c, _ in todo)
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[done]}/{task.fields[runs]} runs"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    t_start = time.time()
    try:
        with sigterm_as_interrupt(), Progress(*columns, console=console, transient=True) as prog:
            # Progress in expected seconds, not in runs: cells of one spec can differ in
            # length by orders of magnitude, and the ETA should know it.
            task = prog.add_task(spec.name, total=total, done=0, runs=len(todo))

            def done(res: RunOutcome) -> None:
                out.runs.append(res)
                prog.update(
                    task, advance=_expected_s(res.cell, spec) + OVERHEAD_S, done=len(out.runs)
                )
                mark = "[green]ok[/]" if res.status == "ok" else f"[red]{res.status}[/]"
                note = f"  {res.message}" if res.message and res.status != "ok" else ""
                where = f"  on {res.place}" if res.place else ""
                prog.console.print(
                    f"{mark} {escape(res.cell.label)} #{res.repetition}  {res.seconds:.1f} s  "
                    f"{res.run_id}" + escape(note + where),
                    highlight=False,
                )
                if on_run is not None:
                    on_run(res)

            if any(cell.target is not None for cell, _ in todo):
                _run_variants(spec, store, todo, done, lambda c: prog.update(task, description=c))
                return out
            # the boards (several for a labgrid tag): held before the first cell runs,
            # released on every way out
            targets = scheduler.open_targets(spec, wait, lambda m: prog.console.print(escape(m)))
            try:
                if len(targets) > 1:
                    scheduler.run_parallel(targets, todo, _run_on(spec), store, done)
                else:
                    runner = Runner(spec, store, targets[0])
                    for cell, rep in todo:
                        prog.update(task, description=escape(f"{cell.label} #{rep}"))
                        done(runner.run_cell(cell, rep))
            except BaseException:
                # Ctrl-C (or an error) is what the session reports: a board that then
                # fails to close does not replace it (a labgrid lease's reaper retries)
                with contextlib.suppress(Exception):
                    scheduler.close_targets(targets)
                raise
            scheduler.close_targets(targets)
    except KeyboardInterrupt:
        # store.run() has marked the run in progress, if one was (Ctrl-C can also land
        # between two runs).
        rows = [
            r
            for r in store.runs(spec_name=spec.name, status="interrupted")
            if (r["started_at"] or 0) >= t_start
        ]
        out.interrupted_run = rows[-1]["run_id"] if rows else ""
    return out
