"""The spec's `[instrument]` around each run: arm before the workload, stop after it.

    inst = make_instrument(spec.instrument)
    armed = inst.arm(expected_s, scratch=store.captures_dir, run_id=run_id)
    ...                                   # the workload
    cap, notes = armed.stop()             # a Capture, and warnings about it
    armed.abort()                         # Ctrl-C or an error: stop it, leave nothing

Every failure is an InstrumentFailure whose message names the instrument (and carries
sigrok-cli's last stderr lines), so the run's message says which instrument failed.
Each kind's run-time glue lies beside its driver (rtlab.instruments.sigrok.kind: the real
sigrok-cli; rtlab.instruments.rp2040.kind: the rtlab capture module;
rtlab.instruments.pl061: QEMU's trace of the emulated guest's GPIO).
"""

from __future__ import annotations

from rtlab.errors import RtlabError
from rtlab.instruments.kinds import (
    INSTRUMENTS,
    Armed,
    Instrument,
    InstrumentFailure,
    InstrumentSpec,
)
from rtlab.lab.targets.base import Target

__all__ = ["Armed", "Instrument", "InstrumentFailure", "make_instrument"]


def make_instrument(spec: InstrumentSpec, target: Target | None = None) -> Instrument:
    """The instrument of the spec; a target that holds instruments of its own (a labgrid
    place's analyzer or capture module: `driver`/`port = "labgrid"`) fills in its device."""
    if target is not None:
        spec = target.place_instrument(spec)
    elif spec.from_target == "labgrid":
        raise RtlabError(
            f'[instrument] {spec.kind}: "labgrid" names the device of a labgrid place; '
            "no target holds it"
        )
    elif spec.from_target == "place":
        raise RtlabError(
            f'[instrument] {spec.kind}: port = "place" names the capture module wired to '
            "the target's board (a labgrid place's, or the RP2040 model's capture_module); "
            "no target holds it"
        )
    inst = INSTRUMENTS.get(spec.kind).make(spec)
    inst.bind(target)  # an instrument the target itself provides (pl061-trace) binds to it
    return inst
