"""VCD/FST through pywellen: a real simulator's dumps (Icarus Verilog, VCD and FST), a
pyvcd-written VCD with known edges, and the writer's exact round trip."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from vcd import VCDWriter

import rtlab
from rtlab.errors import FormatError
from rtlab.formats import vcd
from rtlab.model import Capture, Channel


@pytest.mark.parametrize("kind", ["vcd", "fst"])
def test_icarus_simulation_dump(sim_dumps: dict[str, Path], kind: str) -> None:
    cap = rtlab.load(sim_dumps[kind])
    assert cap.metadata["format"] == kind
    assert cap.tick_s == Fraction(1, 10**12)  # `timescale 1ns/1ps: the dump is in ps
    # 1-bit regs only; the 4-bit counter and the 512-bit file name are skipped
    assert sorted(cap.channels) == ["tb.clk", "tb.t", "tb.u.clk"]
    assert cap.metadata["skipped_vars"] == 2
    assert cap.metadata["aliases"] == {"t": "tb.t"}  # `clk` is ambiguous
    assert (cap.t_start, cap.t_end) == (0, 200_000)
    clk = cap["tb.clk"]  # always #5 clk = ~clk, from 0
    assert clk.initial_level == 0
    np.testing.assert_array_equal(clk.edges, np.arange(5000, 200_001, 5000))
    sub = cap["tb.u.clk"]  # always #7 clk = ~clk, from 1
    assert sub.initial_level == 1
    np.testing.assert_array_equal(sub.edges, np.arange(7000, 200_001, 7000))
    # t <= cnt[1] at each rising clk: x until the first one, then a period of 40 ns
    t = cap["tb.t"]
    assert cap.metadata["xz_changes"] == {"tb.t": 1}
    assert t.initial_level == 0
    np.testing.assert_array_equal(t.edges, np.arange(25_000, 200_001, 20_000))


def test_channels_option_takes_full_or_short_names(sim_dumps: dict[str, Path]) -> None:
    cap = vcd.read(sim_dumps["vcd"], channels=["t", "tb.u.clk"])
    assert sorted(cap.channels) == ["tb.t", "tb.u.clk"]
    with pytest.raises(FormatError, match="no 1-bit signal named 'nope'"):
        vcd.read(sim_dumps["vcd"], channels=["nope"])


def test_pyvcd_file_with_known_edges(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    path = tmp_path / "py.vcd"
    expected: dict[str, list[int]] = {"a": [], "b": []}
    with path.open("w") as fh, VCDWriter(fh, timescale="10 ns", date="today") as w:
        a = w.register_var("top", "a", "wire", size=1, init=0)
        b = w.register_var("top.sub", "b", "reg", size=1, init="x")
        bus = w.register_var("top", "bus", "wire", size=8, init=0)
        level = {"a": 0, "b": None}
        t = 0
        for _ in range(2000):
            t += int(rng.integers(1, 50))
            name = "a" if rng.random() < 0.5 else "b"
            new = 1 - (level[name] or 0)
            if name == "b" and level["b"] is None:
                new = 1  # the first known level of b: not an edge
            elif rng.random() < 0.1:  # a repeated value is not an edge
                new = level[name]
            if level[name] is not None and new != level[name]:
                expected[name].append(t)
            level[name] = new
            w.change(a if name == "a" else b, t, new)
            w.change(bus, t, t % 256)
        t_last = t + 3
        w.change(bus, t_last, (t + 1) % 256)
    cap = vcd.read(path)
    assert cap.tick_s == Fraction(10, 10**9)
    assert sorted(cap.channels) == ["top.a", "top.sub.b"]
    assert cap["top.a"].edges.tolist() == expected["a"]
    assert cap["top.sub.b"].edges.tolist() == expected["b"]
    assert cap["top.a"].initial_level == 0
    assert cap["top.sub.b"].initial_level == 1
    assert cap.t_end == t_last


def random_capture(tick: Fraction, seed: int = 0) -> Capture:
    rng = np.random.default_rng(seed)
    cap = Capture(tick_s=tick, t_start=-50, t_end=10**10)
    for k, name in enumerate(["D0", "board.irq", "board.task", "x y"]):
        edges = np.unique(rng.integers(-50, 10**10, 3000))
        cap.add(Channel(name, edges, initial_level=k % 2))
    cap.add(Channel("silent", [], initial_level=1))
    return cap


@pytest.mark.parametrize(
    "tick", [Fraction(16, 10**9), Fraction(1, 24 * 10**6), Fraction(1, 10**12), Fraction(3)]
)
def test_writer_round_trips_exactly(tmp_path: Path, tick: Fraction) -> None:
    cap = random_capture(tick)
    rtlab.save(cap, tmp_path / "out.vcd")
    back = rtlab.load(tmp_path / "out.vcd")
    assert back.tick_s == tick
    assert (back.t_start, back.t_end) == (cap.t_start, cap.t_end)
    assert list(back.channels) == ["D0", "board.irq", "board.task", "x y", "silent"]
    for a, b in zip(cap, back, strict=True):
        np.testing.assert_array_equal(a.edges, b.edges)
        assert a.initial_level == b.initial_level


def test_written_vcd_is_plain_vcd_for_other_tools(tmp_path: Path) -> None:
    """vcdvcd (an independent pure-Python parser) sees the same changes."""
    from vcdvcd import VCDVCD

    cap = random_capture(Fraction(16, 10**9), seed=9)
    vcd.write(cap, tmp_path / "o.vcd")
    text = (tmp_path / "o.vcd").read_text()
    assert "$timescale 1ns $end" in text
    ref = VCDVCD(str(tmp_path / "o.vcd"))
    tv = ref["rtlab.board.irq"].tv
    irq = cap["board.irq"]
    levels = [int(v) for _, v in tv]
    times = [t for t, _ in tv]
    assert levels[0] == irq.initial_level
    # `#0` is one tick before the window when an edge lies at its start
    zero = cap.t_start - any(len(c) and c.edges[0] == cap.t_start for c in cap)
    assert times[1:] == ((irq.edges - zero) * 16).tolist()


def test_writer_refuses_edges_outside_the_window(tmp_path: Path) -> None:
    cap = Capture(tick_s=Fraction(1, 10**9), t_start=10, t_end=20)
    cap.add(Channel("a", [5, 15]))
    with pytest.raises(FormatError, match="outside the capture window"):
        vcd.write(cap, tmp_path / "w.vcd")
    assert not (tmp_path / "w.vcd").exists()


def test_parser_abort_is_contained(sim_dumps: dict[str, Path], tmp_path: Path) -> None:
    """An FST whose geometry block claims 2^46 signals makes the Rust parser abort the
    process on a failed allocation; the forked child takes the blow instead."""
    data = bytearray(sim_dumps["fst"].read_bytes())
    pos = geo = 0
    while pos < len(data):  # walk the FST blocks: type byte, big-endian u64 length
        if data[pos] == 3:
            geo = pos
        pos += 1 + int.from_bytes(data[pos + 1 : pos + 9], "big")
    assert geo
    data[geo + 17 : geo + 25] = (2**46).to_bytes(8, "big")  # max handle
    bad = tmp_path / "huge.fst"
    bad.write_bytes(bytes(data))
    with pytest.raises(FormatError, match=r"crashed|not a readable") as exc:
        vcd.read(bad)
    assert str(exc.value).startswith(str(bad))


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            "$timescale 1ns $end\n$scope module t $end\n$var wire 1 ! a $end\n$upscope $end\n"
            "$enddefinitions $end\n#0\n0!\n#10\n1?\n",
            9,
            "unknown signal id",
        ),
        (
            "$timescale 1ns $end\n$scope module t $end\n$var wire 1 ! a $end\n$upscope $end\n"
            "$enddefinitions $end\n#0\n0!\n#1x0\n1!\n",
            8,
            "expected a time",
        ),
        ("$timescale 1ns $end\n$scope module t $end\n$vra wire 1 ! a $end\n", 3, "unknown command"),
        (
            "$timescale 1ns $end\n$scope module t $end\n$var wire 1 ! a $end\n$upscope $end\n"
            "$enddefinitions $end\n#0\n0!\n#10\n1!",
            9,
            "truncated",
        ),
    ],
)
def test_bad_vcd_names_the_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = tmp_path / "bad.vcd"
    path.write_text(text)
    with pytest.raises(FormatError, match=message) as exc:
        vcd.read(path)
    assert exc.value.line == line


def test_read_after_the_parent_used_pywellen(sim_dumps: dict[str, Path]) -> None:
    """A rayon pool started in this process must not deadlock the forked parser."""
    import pywellen

    wave = pywellen.Waveform(str(sim_dumps["vcd"]))  # multi-threaded, in-process
    assert len(list(next(iter(wave.all_vars())).signal)) > 0
    cap = vcd.read(sim_dumps["vcd"], timeout=30)
    assert len(cap["tb.clk"]) == 40


def same_capture(a: Capture, b: Capture) -> None:
    assert (a.tick_s, a.t_start, a.t_end) == (b.tick_s, b.t_start, b.t_end)
    assert list(a.channels) == list(b.channels)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x.edges, y.edges)
        assert x.initial_level == y.initial_level
    assert a.metadata == b.metadata


def test_numpy_scanner_agrees_with_pywellen(sim_dumps: dict[str, Path], tmp_path: Path) -> None:
    cap = random_capture(Fraction(1, 24 * 10**6), seed=4)
    vcd.write(cap, tmp_path / "w.vcd")
    for path in (sim_dumps["vcd"], tmp_path / "w.vcd"):
        same_capture(vcd.read(path, engine="scan"), vcd.read(path, engine="wellen"))


def test_scanner_hands_unusual_files_to_pywellen(tmp_path: Path) -> None:
    text = (
        "$timescale 10ps $end\n$scope module m $end\n$var wire 1 ! data [0] $end\n"
        '$var wire 1 " b $end\n$upscope $end\n$enddefinitions $end\n'
        '#0\n0!\n1"\n$comment hello $end\n#30\n1!\n0"\n'
    )
    path = tmp_path / "odd.vcd"
    path.write_text(text)
    with pytest.raises(FormatError, match="numpy scanner"):
        vcd.read(path, engine="scan")
    cap = vcd.read(path)  # auto: pywellen reads it
    assert cap.tick_s == Fraction(10, 10**12)
    assert cap["m.b"].edges.tolist() == [30]


def test_scanner_matches_pywellen_on_mutated_files(
    sim_dumps: dict[str, Path], tmp_path: Path
) -> None:
    """The scanner never accepts what pywellen refuses, and where both accept a damaged
    file they read the same capture."""
    import random

    rng = random.Random(11)
    data = sim_dumps["vcd"].read_bytes()
    path = tmp_path / "m.vcd"
    compared = 0
    for _ in range(100):
        b = bytearray(data)
        for _ in range(rng.randrange(1, 3)):
            b[rng.randrange(len(b))] = rng.choice(b'01xz#$b \n!"%&')
        path.write_bytes(bytes(b))
        try:
            fast = vcd.read(path, engine="scan")
        except FormatError:
            continue
        same_capture(fast, vcd.read(path, engine="wellen"))  # raises if pywellen refuses
        compared += 1
    assert compared >= 5


@pytest.mark.parametrize(
    "comment",
    [
        "tick_s=99999999999999999999/1 t_start=0 t_end=10",
        "tick_s=1/1000000000 t_start=-99999999999999999999 t_end=10",
        "tick_s=1/3 t_start=0 t_end=10",
    ],
)
def test_forged_rtlab_comment_is_an_error(tmp_path: Path, comment: str) -> None:
    path = tmp_path / "c.vcd"
    path.write_text(
        f"$comment rtlab {comment} $end\n$timescale 1ns $end\n"
        "$scope module rtlab $end\n$var wire 1 ! a $end\n$upscope $end\n"
        "$enddefinitions $end\n#0\n0!\n#10\n1!\n"
    )
    with pytest.raises(FormatError, match=r"rtlab header comment|not on the rtlab tick grid"):
        vcd.read(path)


def test_reads_libsigrok_vcd_export(demo_sr: Path, tmp_path: Path) -> None:
    """sigrok-cli's own VCD output (several changes per line) gives the .sr's edges."""
    from rtlab.formats import sigrok
    from tests.formats.conftest import need, run

    out = tmp_path / "demo.vcd"
    run([need("sigrok-cli"), "-i", str(demo_sr), "-O", "vcd", "-o", str(out)])
    ref = sigrok.read(demo_sr)
    for engine in ("scan", "wellen"):
        cap = vcd.read(out, engine=engine)
        assert cap.tick_s == ref.tick_s
        assert (cap.t_start, cap.t_end) == (ref.t_start, ref.t_end)
        for ch in ref:
            got = cap[f"libsigrok.{ch.name}"]
            np.testing.assert_array_equal(got.edges, ch.edges)
            assert got.initial_level == ch.initial_level


def test_libsigrok_reads_our_vcd(demo_sr: Path, tmp_path: Path) -> None:
    """PulseView's VCD input (libsigrok) opens the writer's file: same samples, and the
    timing decoder finds the same edges as on the original session."""
    from rtlab.formats import sigrok
    from tests.formats.conftest import need, run

    sigrok_cli = need("sigrok-cli")
    out = tmp_path / "ours.vcd"
    vcd.write(sigrok.read(demo_sr), out)
    show = run([sigrok_cli, "-i", str(out), "-I", "vcd", "--show"])
    assert "Logic sample count: 20000" in show
    for src, fmt in ((demo_sr, []), (out, ["-I", "vcd"])):
        text = run(
            [
                sigrok_cli,
                "-i",
                str(src),
                *fmt,
                "-P",
                "timing:data=D2:edge=falling",
                "-A",
                "timing=time",
                "--protocol-decoder-samplenum",
            ]
        )
        if src == demo_sr:
            expected = text
    assert text == expected and text.count("timing-1") > 1000
