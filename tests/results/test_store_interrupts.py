"""Ctrl-C or SIGTERM held back while the store writes (rtlab.procgroup.interrupts_deferred)
comes right after the write: a run whose commit it waited for is complete and stays so;
a run still in progress is marked `interrupted`. Real signals, the real DuckDB store."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest

from rtlab.procgroup import sigterm_as_interrupt
from rtlab.results import Store
from rtlab.results.run_writer import RunWriter


class _SignalledWhileWriting(Store):
    """A store that receives `sig` while it writes a run's samples file (inside the
    commit of Store.finish_run)."""

    sig = signal.SIGINT

    def _write_samples(self, path: Path, w: RunWriter) -> None:
        os.kill(os.getpid(), self.sig)
        super()._write_samples(path, w)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_the_commit_keeps_the_committed_run(
    tmp_path: Path, sig: signal.Signals
) -> None:
    values = np.arange(1000, dtype=np.int64)
    st = _SignalledWhileWriting(tmp_path / "rtlab.duckdb")
    st.sig = sig
    with st:
        with (
            pytest.raises(KeyboardInterrupt),
            sigterm_as_interrupt(),
            st.run(workload="w", spec_name="s", cell_key="c") as w,
        ):
            w.add_series("lat", values)
            run_id = w.run_id
        # the session stops, and the run it waited for is stored whole
        (info,) = st.runs()
        assert info["status"] == "ok", info["message"]
        assert np.array_equal(st.samples(run_id, "lat"), values)
        assert st.completed_cells("s") == {"c": 1}  # a resumed spec does not run it again
    with Store(tmp_path / "rtlab.duckdb", read_only=True) as again:
        assert again.runs()[0]["status"] == "ok"


def test_a_signal_during_the_run_marks_it_interrupted(tmp_path: Path) -> None:
    with Store(tmp_path / "rtlab.duckdb") as st:
        with (
            pytest.raises(KeyboardInterrupt),
            sigterm_as_interrupt(),
            st.run(workload="w", spec_name="s", cell_key="c") as w,
        ):
            w.add_series("lat", [1, 2, 3])
            os.kill(os.getpid(), signal.SIGTERM)
        (info,) = st.runs()
        assert info["status"] == "interrupted" and info["samples_file"] is None
        assert not list(st.samples_dir.iterdir())
        assert st.sql("SELECT count(*) FROM series") == [(0,)]
