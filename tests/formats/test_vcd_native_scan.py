"""The compiled one-pass VCD body scanner (native/src/vcd.rs) reads exactly what the
numpy scanner reads, on random plain bodies (aliases, vectors, x/z, $dumpvars, equal
times), and declines (None: the numpy scanner and pywellen decide) anything else."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtlab.formats.vcd import scanner

pytestmark = pytest.mark.skipif(scanner._vcd_changes is None, reason="rtlab_native not installed")

HEAD = (
    "$timescale 1ns $end\n$scope module top $end\n$var wire 1 ! a $end\n"
    "$var wire 1 ! alias $end\n$var reg 1 # b $end\n$var wire 4 % bus $end\n"
    "$var wire 1 & unused $end\n$upscope $end\n$enddefinitions $end\n"
)

tokens = st.lists(
    st.one_of(
        st.tuples(st.just("t"), st.integers(0, 50)),
        st.tuples(st.just("s"), st.sampled_from("01xzXZhHlL"), st.sampled_from("!#&")),
        st.tuples(st.just("v"), st.text("01xz", min_size=1, max_size=4)),
        st.tuples(st.just("c"), st.sampled_from(["$dumpvars", "$end", "$dumpall"])),
    ),
    max_size=80,
)


def _body(items: list[tuple[Any, ...]]) -> str:
    out, t = ["#0\n"], 0
    for item in items:
        if item[0] == "t":
            t += item[1]
            out.append(f"#{t}\n")
        elif item[0] == "s":
            out.append(f"{item[1]}{item[2]}\n")
        elif item[0] == "v":
            out.append(f"b{item[1]} %\n")
        else:
            out.append(item[1] + "\n")
    return "".join(out)


def _both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    fast = scanner.scan(text.encode())
    with monkeypatch.context() as m:
        m.setattr(scanner, "_vcd_changes", None)
        slow = scanner.scan(text.encode())
    return fast, slow


def _plain(res: dict[str, Any]) -> Any:
    sigs = [(f, s, t.tolist(), lv.tolist()) for f, s, t, lv in res["signals"]]
    return res["timescale"], res["skipped"], sigs


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(items=tokens)
def test_native_scan_equals_numpy_scan(items: list[tuple[Any, ...]], monkeypatch) -> None:
    fast, slow = _both(HEAD + _body(items), monkeypatch)
    assert fast is not None and fast.get("plain")
    assert slow is not None
    assert _plain(fast) == _plain(slow)


@pytest.mark.parametrize(
    "body",
    [
        "#0\n1!\n#5\n$comment hi $end\n0!\n",  # a comment in the body
        "#0\n1!\n#5\n$dumpoff\nx!\n$end\n#9\n$dumpon\n1!\n$end\n",  # a pause
        "#5\n1!\n#3\n0!\n",  # time going backwards
        "1!\n#3\n0!\n",  # a change before any time
        "#0\n1?\n",  # an undeclared id
        "#0\nr1.5 %\n",  # a real value
        "#-1\n1!\n",  # a negative time
        "#0\nb01\n",  # a vector without its id
    ],
)
def test_native_scan_declines_what_it_does_not_read(body: str, monkeypatch) -> None:
    fast, slow = _both(HEAD + body, monkeypatch)
    assert fast is None or not fast.get("plain")
    if fast is not None:
        assert _plain(fast) == _plain(slow)


def test_levels_and_times_of_a_plain_body() -> None:
    res = scanner.scan((HEAD + "#0\n$dumpvars\n0!\nx#\n$end\n#7\n1!\nb1010 %\n#7\nz#\n").encode())
    assert res is not None and res["plain"]
    sigs = {s[1]: (s[2].tolist(), s[3].tolist()) for s in res["signals"]}
    assert sigs["a"] == sigs["alias"] == ([0, 7], [0, 1])
    assert sigs["b"] == ([0, 7], [-1, -1])
    assert np.asarray(res["signals"][0][2]).dtype == np.int64
