"""sigrok session files: real demo-driver captures, cross-checked against sigrok's own
`timing` decoder edge for edge, plus synthetic files for the corners."""

from __future__ import annotations

import zipfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import rtlab
from rtlab.errors import FormatError
from rtlab.formats import sigrok, sigrok_zip
from tests.formats.conftest import need, run


def decoder_edges(path: Path, channel: str, edge: str) -> np.ndarray:
    """Sample numbers of the chosen edges, as sigrok's timing decoder sees them."""
    out = run(
        [
            need("sigrok-cli"),
            "-i",
            str(path),
            "-P",
            f"timing:data={channel}:edge={edge}",
            "-A",
            "timing=time",
            "--protocol-decoder-samplenum",
        ]
    )
    spans = [ln.split()[0].split("-") for ln in out.splitlines() if "timing" in ln]
    assert spans, out
    starts = [int(a) for a, _ in spans]
    return np.array([*starts, int(spans[-1][1])], dtype=np.int64)


def chosen(ch: rtlab.model.Channel, edge: str) -> np.ndarray:
    rising_first = ch.initial_level == 0
    k = np.arange(len(ch.edges))
    is_rising = (k % 2 == 0) == rising_first
    return ch.edges[is_rising if edge == "rising" else ~is_rising]


@pytest.mark.parametrize("channel", ["D0", "D1", "D2", "D3"])
@pytest.mark.parametrize("edge", ["rising", "falling"])
def test_demo_capture_matches_sigrok_timing_decoder(demo_sr: Path, channel: str, edge: str) -> None:
    cap = sigrok.read(demo_sr)
    ours = chosen(cap[channel], edge)
    theirs = decoder_edges(demo_sr, channel, edge)
    # the decoder needs one edge before it reports a period, so it starts at ours[0]
    np.testing.assert_array_equal(ours, theirs)


def test_demo_default_pattern_has_its_known_periods(demo_sr: Path) -> None:
    cap = rtlab.load(demo_sr)
    assert cap.metadata["format"] == "sigrok"
    assert cap.tick_s == Fraction(1, 10**6)
    assert (cap.t_start, cap.t_end) == (0, 20000)
    assert list(cap.channels) == ["D0", "D1", "D2", "D3"]
    # libsigrok 0.5.2's 'sigrok' pattern repeats every 64 samples with these edge counts
    per_period = {"D0": 16, "D1": 24, "D2": 20, "D3": 18}
    for name, n in per_period.items():
        e = cap[name].edges
        np.testing.assert_array_equal(e[n:], e[:-n] + 64)
        assert np.count_nonzero((e >= 64) & (e < 128)) == n
    assert [cap[c].initial_level for c in per_period] == [1, 0, 0, 1]


def test_incremental_pattern_gives_exact_binary_periods(incremental_sr: Path) -> None:
    cap = sigrok.read(incremental_sr)
    assert cap.tick_s == Fraction(1, 200_000)  # the demo's default 200 kHz
    n = cap.t_end
    for bit in range(4):
        ch = cap[f"D{bit}"]
        step = 1 << bit  # bit k of a counter flips every 2^k samples
        np.testing.assert_array_equal(ch.edges, np.arange(step, n, step))
        assert ch.initial_level == 0
        assert set(np.diff(chosen(ch, "rising")).tolist()) == {2 * step}


def rewrite(
    src: Path, dst: Path, members: dict[str, bytes] | None = None, drop: tuple[str, ...] = ()
) -> Path:
    """A copy of a session file with members replaced, added or dropped."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename in drop or (members and info.filename in members):
                continue
            zout.writestr(info.filename, zin.read(info.filename))
        for name, data in (members or {}).items():
            zout.writestr(name, data)
    return dst


def logic_bytes(path: Path) -> bytes:
    with zipfile.ZipFile(path) as zf:
        names = sorted(
            (n for n in zf.namelist() if n.startswith("logic-1-")),
            key=lambda n: int(n.rsplit("-", 1)[1]),
        )
        return b"".join(zf.read(n) for n in names)


def test_single_logic_member_of_old_files(demo_sr: Path, tmp_path: Path) -> None:
    data = logic_bytes(demo_sr)
    with zipfile.ZipFile(demo_sr) as zf:
        chunks = tuple(n for n in zf.namelist() if n.startswith("logic-1-"))
    old = rewrite(demo_sr, tmp_path / "old.sr", {"logic-1": data}, drop=chunks)
    a, b = sigrok.read(demo_sr), sigrok.read(old)
    for name in a.channels:
        np.testing.assert_array_equal(a[name].edges, b[name].edges)


def write_session(
    path: Path,
    samples: np.ndarray,
    unitsize: int,
    probes: dict[int, str],
    chunk: int,
    rate: str = "24 MHz",
) -> Path:
    if unitsize == 3:  # no numpy type: the low 3 bytes of each 32-bit word
        raw = samples.astype("<u4").view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
    else:
        raw = samples.astype(f"<u{unitsize}").tobytes()
    meta = [
        "[global]",
        "sigrok version=0.5.2",
        "",
        "[device 1]",
        "capturefile=logic-1",
        f"total probes={len(probes)}",
        f"samplerate={rate}",
        "total analog=0",
    ]
    meta += [f"probe{bit + 1}={name}" for bit, name in probes.items()]
    meta.append(f"unitsize={unitsize}")
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("version", "2")
        zf.writestr("metadata", "\n".join(meta) + "\n")
        for k in range(0, len(raw), chunk):
            zf.writestr(f"logic-1-{k // chunk + 1}", raw[k : k + chunk])
    return path


def reference_edges(samples: np.ndarray, bit: int) -> tuple[list[int], int]:
    """Edges by a plain loop over samples: the definition, not the fast path."""
    levels = [(int(s) >> bit) & 1 for s in samples]
    return [i for i in range(1, len(levels)) if levels[i] != levels[i - 1]], levels[0]


@pytest.mark.parametrize(("unitsize", "chunk"), [(1, 7), (2, 3), (3, 5), (4, 4096)])
def test_wide_samples_and_odd_chunk_boundaries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unitsize: int, chunk: int
) -> None:
    monkeypatch.setattr(sigrok_zip, "BATCH_BYTES", 64)  # many batches: exercise the carry
    rng = np.random.default_rng(unitsize)
    nbits = unitsize * 8
    # slow-changing random levels so that edges are neither rare nor on every sample
    flips = rng.random((3000, nbits)) < 0.05
    levels = np.cumsum(flips, axis=0) % 2
    samples = (levels.astype(np.uint64) << np.arange(nbits, dtype=np.uint64)).sum(axis=1)
    probes = {0: "a", nbits - 1: "top", nbits // 2: "mid"}
    path = write_session(tmp_path / "w.sr", samples, unitsize, probes, chunk)
    cap = sigrok.read(path)
    assert cap.tick_s == Fraction(1, 24_000_000)
    assert list(cap.channels) == ["a", "mid", "top"]
    for bit, name in probes.items():
        edges, first = reference_edges(samples, bit)
        assert cap[name].edges.tolist() == edges
        assert cap[name].initial_level == first


def test_samplerate_strings() -> None:
    assert sigrok.parse_samplerate("1 MHz") == 10**6
    assert sigrok.parse_samplerate("200 kHz") == 200_000
    assert sigrok.parse_samplerate("1.5 GHz") == 1_500_000_000
    assert sigrok.parse_samplerate("12345") == 12345
    with pytest.raises(ValueError):
        sigrok.parse_samplerate("fast")


def test_tick_option_overrides_samplerate(demo_sr: Path) -> None:
    assert sigrok.read(demo_sr, tick="2us").tick_s == Fraction(2, 10**6)
    assert sigrok.read(demo_sr, samplerate="4 MHz").tick_s == Fraction(1, 4 * 10**6)


def test_channels_option_decodes_only_those(demo_sr: Path) -> None:
    full = sigrok.read(demo_sr)
    part = sigrok.read(demo_sr, channels=["D2"])
    assert list(part.channels) == ["D2"]
    np.testing.assert_array_equal(part["D2"].edges, full["D2"].edges)
    with pytest.raises(FormatError, match="no logic channel named 'D9'"):
        sigrok.read(demo_sr, channels=["D9"])


def test_analog_only_session_is_refused(analog_sr: Path) -> None:
    with pytest.raises(FormatError, match="analog-only") as exc:
        sigrok.read(analog_sr)
    assert exc.value.member == "metadata"
    assert str(analog_sr) in str(exc.value)


def test_missing_chunk_is_named(demo_sr: Path, tmp_path: Path) -> None:
    bad = rewrite(demo_sr, tmp_path / "hole.sr", drop=("logic-1-2",))
    with pytest.raises(FormatError, match="logic-1-2 is missing"):
        sigrok.read(bad)


def test_partial_last_sample_is_truncation(tmp_path: Path) -> None:
    path = write_session(tmp_path / "p.sr", np.arange(100), 2, {0: "a"}, 64)
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("logic-1-99", b"\x01")
    with pytest.raises(FormatError, match="logic chunk logic-1-5 is missing"):
        sigrok.read(path)
    path = write_session(tmp_path / "q.sr", np.arange(100), 2, {0: "a"}, 100)
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("logic-1-3", b"\x01")
    with pytest.raises(FormatError, match="ends inside a sample") as exc:
        sigrok.read(path)
    assert exc.value.member == "logic-1-3"


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ("[global]\n", "no \\[device N\\] section"),
        ("[device 1]\ncapturefile=logic-1\nsamplerate=1 MHz\nunitsize=1\n", "probeN"),
        ("[device 1]\ncapturefile=logic-1\nsamplerate=1 MHz\nprobe1=A\n", "unitsize"),
        (
            "[device 1]\ncapturefile=logic-1\nsamplerate=1 MHz\nunitsize=999999999\nprobe1=A\n",
            "out of range",
        ),
        (
            "[device 1]\ncapturefile=logic-1\nsamplerate=1 MHz\nunitsize=1\nprobe9=A\n",
            "does not fit",
        ),
        (
            "[device 1]\ncapturefile=logic-1\nsamplerate=soon\nunitsize=1\nprobe1=A\n",
            "not a sample rate",
        ),
        ("[device 1]\ncapturefile=logic-1\nunitsize=1\nprobe1=A\n", "no samplerate"),
        ("no section header\n", "not an INI file"),
    ],
)
def test_bad_metadata_is_named(demo_sr: Path, tmp_path: Path, meta: str, message: str) -> None:
    bad = rewrite(demo_sr, tmp_path / "m.sr", {"metadata": meta.encode()})
    with pytest.raises(FormatError, match=message) as exc:
        sigrok.read(bad)
    assert exc.value.member == "metadata"


def test_only_stored_or_deflated_members(demo_sr: Path, tmp_path: Path) -> None:
    """bzip2 could unpack a tiny file into endless zeros: sigrok never writes it."""
    data = logic_bytes(demo_sr)
    bomb = tmp_path / "bz.sr"
    with zipfile.ZipFile(demo_sr) as zin, zipfile.ZipFile(bomb, "w") as zout:
        zout.writestr("version", zin.read("version"))
        zout.writestr("metadata", zin.read("metadata"))
        zout.writestr("logic-1-1", data, compress_type=zipfile.ZIP_BZIP2)
    with pytest.raises(FormatError, match="compression method 12") as exc:
        sigrok.read(bomb)
    assert exc.value.member == "logic-1-1"
