"""Each marked sample's cycles from a QEMU cycles plugin capture (rtlab.lab.qemu.cycles).

rtbench --markers brackets each timed path `t0; pin high; call; pin low; t1`, each end
atomic with its timestamp (the interrupt paths: `t; toggle` at each end, the timestamp
first), and says per series where its samples' edges are (meta
`marker.NAME = A@a+s>B@b+t`: sample i, the cold one first, starts at edge a + s*i of
channel A and ends at edge b + t*i of channel B; rtlab.studies.instrument_check). The
plugin writes every marker edge and every load of the guest's counter register in
execution order, so for sample i:

- external: falling edge - rising edge (the STM32 study's method, a pin around the call);
- internal: the counter read nearest the end edge - the one nearest the start edge
  (each end's timestamp is the read its bracket makes beside the edge: after a
  clear_ts's, before a ts_set's or a ts_toggle's; the guest's own timestamps, timed in
  cycles: the counter itself counts QEMU's icount clock and the plugin cannot write it).
"""

from __future__ import annotations

import re

import numpy as np

from rtlab.errors import RtlabError
from rtlab.lab.qemu.cycles import READ, Cycles
from rtlab.protocol import Run

PLAN = re.compile(r"^([0-3])@(\d+)\+(\d+)>([0-3])@(\d+)\+(\d+)$")


class MarkerPlanError(RtlabError):
    """A plan the capture cannot hold (edges or counter reads missing), or a malformed one."""


class Stream:
    """The capture's events with, per channel, each edge's position in the stream."""

    def __init__(self, cyc: Cycles) -> None:
        self.cycles = np.array([c for _, c in cyc.order], dtype=np.int64)
        chans = np.array([ch for ch, _ in cyc.order], dtype=np.int64)
        self.pos = {ch: np.flatnonzero(chans == ch) for ch in range(4)}
        self.reads = np.flatnonzero(chans == READ)

    def edges(self, ch: int, idx: np.ndarray, what: str) -> np.ndarray:
        pos = self.pos.get(ch, np.array([], dtype=np.int64))
        if idx.size and int(idx.max()) >= pos.size:
            raise MarkerPlanError(
                f"{what}: needs edge {int(idx.max())} of channel {ch}, the capture has {pos.size}"
            )
        return pos[idx]

    def read_before(self, at: np.ndarray, what: str) -> np.ndarray:
        k = np.searchsorted(self.reads, at) - 1
        if (k < 0).any():
            raise MarkerPlanError(f"{what}: a bracket starts before any counter read")
        return self.cycles[self.reads[k]]

    def read_nearest(self, at: np.ndarray, what: str) -> np.ndarray:
        """The cycle of the counter read nearest (in cycles) each stream position."""
        n = self.reads.size
        if not n:
            raise MarkerPlanError(f"{what}: the capture has no counter read")
        k = np.searchsorted(self.reads, at)
        before = self.cycles[self.reads[np.maximum(k - 1, 0)]]
        after = self.cycles[self.reads[np.minimum(k, n - 1)]]
        edge = self.cycles[at]
        far = np.iinfo(np.int64).max
        d_before = np.where(k > 0, edge - before, far)
        d_after = np.where(k < n, after - edge, far)
        return np.where(d_before <= d_after, before, after)

    def read_after(self, at: np.ndarray, what: str) -> np.ndarray:
        k = np.searchsorted(self.reads, at)
        if (k >= self.reads.size).any():
            raise MarkerPlanError(f"{what}: a bracket ends after the last counter read")
        return self.cycles[self.reads[k]]


def sample_count(run: Run, name: str) -> int:
    """Samples of a series with its cold one (rtbench's NAME.cold counter), 0 if absent."""
    s = run.series.get(name)
    return 0 if s is None else len(s.values) + (f"{name}.cold" in run.counters)


def marked(run: Run) -> list[str]:
    """The run's marked series that have samples, in meta order."""
    names = [k[len("marker.") :] for k in run.meta if k.startswith("marker.")]
    return [n for n in names if sample_count(run, n)]


def plan(run: Run, name: str) -> tuple[int, int, int, int, int, int]:
    """Series `name`'s marker plan: (channel, first edge, step) of its start, then its end."""
    text = str(run.meta.get(f"marker.{name}", ""))
    m = PLAN.match(text)
    if m is None:
        raise MarkerPlanError(f"marker.{name}: {text!r} is not A@a+s>B@b+t")
    a_ch, a, a_step, b_ch, b, b_step = (int(g) for g in m.groups())
    return a_ch, a, a_step, b_ch, b, b_step


def one_pin_pulse(run: Run, name: str) -> bool:
    """Series `name` is timed by one pin's high pulse (rtb_mark_ts_set ... rtb_mark_clear_ts):
    the empty bracket's very code around its call."""
    a_ch, a, a_step, b_ch, b, b_step = plan(run, name)
    return a_ch == b_ch and b == a + 1 and a_step == b_step == 2


def figures(run: Run, stream: Stream, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(external, internal) cycles of every sample of series `name`, cold first."""
    a_ch, a, a_step, b_ch, b, b_step = plan(run, name)
    i = np.arange(sample_count(run, name))
    up = stream.edges(a_ch, a + a_step * i, name)
    down = stream.edges(b_ch, b + b_step * i, name)
    external = stream.cycles[down] - stream.cycles[up]
    internal = stream.read_nearest(down, name) - stream.read_nearest(up, name)
    return external, internal
