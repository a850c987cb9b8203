"""A plain VCD read block by block (formats/vcd/plain.py, the compiled VcdEdges) is the
capture the numpy scanner reads whole: random bodies (aliases, vectors, x/z, $dumpvars,
equal times, zero-width pulses), read in one pass and in two passes with blocks of a few
lines (block ends anywhere between lines, inside a pulse too); streaming analysis of
those blocks gives the figures of the whole capture."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rtlab
import rtlab.formats as F
from rtlab.analysis.stream import analyze_stream
from rtlab.formats.vcd import plain, scanner
from tests.analysis.test_stream import _doc, assert_same_figures
from tests.formats.test_vcd_native_scan import HEAD, _body, tokens

pytestmark = pytest.mark.skipif(plain.VcdEdges is None, reason="rtlab_native not installed")


def _capture(cap: Any) -> Any:
    chans = [(c.name, c.initial_level, c.edges.tolist()) for c in cap]
    meta = {k: v for k, v in cap.metadata.items() if k not in ("source", "format")}
    return cap.tick_s, cap.t_start, cap.t_end, chans, meta, cap.gaps.tolist()


def _reference(path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The numpy scanner and reader.py's _to_edges: no compiled code."""
    with monkeypatch.context() as m:
        m.setattr(plain, "VcdEdges", None)
        m.setattr(scanner, "_vcd_changes", None)
        return F.load(path, "vcd")


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(items=tokens, block=st.integers(1, 40))
def test_plain_stream_reads_what_the_numpy_scanner_reads(
    items: list[tuple[Any, ...]], block: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "w.vcd"
    path.write_text(HEAD + "#0\n$dumpvars\n1!\n0#\n$end\n" + _body(items) + "#999\n")
    ref = _reference(path, monkeypatch)
    assert _capture(F.load(path, "vcd")) == _capture(ref)  # one pass
    with monkeypatch.context() as m:
        m.setattr(plain, "WHOLE_MAX", 0)
        m.setattr(plain, "BLOCK", block)
        stream = F.open_stream(path, "vcd")
        assert stream.chunks.__class__.__name__ == "generator"
        assert _capture(stream.gather()) == _capture(ref)  # two passes, blocks of lines
        for edge in ("rising", "falling", "both"):
            got = _doc(analyze_stream(F.open_stream(path, "vcd"), edge=edge))
            assert_same_figures(_doc(rtlab.analyze(ref, edge=edge)), got)


def test_a_large_body_streams_in_blocks_of_bounded_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two passes, and no chunk larger than a block's edges."""
    path = tmp_path / "w.vcd"
    t = np.arange(1, 20001) * 7
    body = "".join(f"#{x}\n{(k + 1) % 2}!\n" for k, x in enumerate(t.tolist()))
    path.write_text(HEAD + "#0\n0!\n" + body)
    monkeypatch.setattr(plain, "WHOLE_MAX", 1000)
    monkeypatch.setattr(plain, "BLOCK", 4096)
    stream = F.open_stream(path, "vcd")
    assert stream.header.channels["top.a"].initial_level == 0
    assert stream.edge_counts["top.a"] == 20000
    sizes = [len(e) for n, e in stream.chunks if n == "top.a"]
    assert sum(sizes) == 20000 and max(sizes) <= 4096 // 6 + 1
    assert stream.header.t_end == int(t[-1])


def test_a_body_that_is_not_plain_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "w.vcd"
    path.write_text(HEAD + "#0\n1!\n#5\n$comment hi $end\n0!\n#9\n")
    stream = F.open_stream(path, "vcd")
    assert [(n, e.tolist()) for n, e in stream.chunks if n in ("top.a", "top.alias")] == [
        ("top.a", [5]),
        ("top.alias", [5]),
    ]
