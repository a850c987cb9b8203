"""`[instrument]` in a spec: the runner drives the real sigrok-cli around each run.

sigrok's demo driver with pattern=incremental counts up one per sample over the enabled
channels, so with D0..D2 enabled D2 is high for 4 samples and low for 4: its period is
exactly 8 ticks of 1/200 kHz (the demo's default rate; sigrok-cli 0.7 applies every
--config to the channel group, so the rate cannot be set beside the pattern). D1 rises
2 samples after each D2 rise: the latency D2 -> D1 is exactly 2 ticks.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from rtlab import formats
from rtlab.instruments.sigrok.capture import version
from rtlab.lab.runner import run_spec
from rtlab.lab.spec import load_spec, parse_spec
from rtlab.lab.specfile import SpecError
from rtlab.lab.workloads.base import KINDS
from rtlab.results import Store
from tests.conftest import rtlab, rtlab_run
from tests.needs import tool
from tests.paths import REPO_ROOT


@pytest.fixture(autouse=True)
def _sigrok_cli() -> None:
    tool("sigrok-cli", "deps/apt.txt")


# The demo driver's logic group, 3 channels, in one of its patterns
INSTRUMENT = """\
[instrument]
kind = "sigrok"
driver = "{driver}"
channel_group = "Logic"
config = ["pattern={pattern}"]
channels = ["D0", "D1", "D2"]
"""
DEMO = 'name = "{name}"\n' + INSTRUMENT + """\
pin = "D2"
response = "D1"
margin_s = 0.4

[[workload]]
kind = "rtlab-latency"
name = "wake"
interval_us = 1000
duration = "{duration}"
"""


def _spec(
    tmp: Path,
    name: str = "inst",
    driver: str = "demo",
    pattern: str = "incremental",
    duration: str = "300ms",
) -> Path:
    p = tmp / f"{name}.toml"
    p.write_text(DEMO.format(name=name, driver=driver, pattern=pattern, duration=duration))
    return p


def _procs_with(text: str) -> list[int]:
    """Processes whose command line contains `text` (our own sigrok-cli)."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if text.encode() in (d / "cmdline").read_bytes():
                    pids.append(int(d.name))
            except OSError:
                continue
    return pids


def _leftovers(store: Path) -> list[str]:
    return sorted(p.name for p in (store.parent / "captures").glob(".*"))


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory, built: Path) -> tuple[Path, str]:
    d = tmp_path_factory.mktemp("inst")
    store = d / "s" / "rtlab.duckdb"
    with Store(store) as st:
        out = run_spec(load_spec(_spec(d)), st)
    assert [r.status for r in out.runs] == ["ok"], out.runs[0].message
    return store, out.runs[0].run_id


def test_demo_period_is_exact_and_stored_with_its_tick(demo_run: tuple[Path, str]) -> None:
    store, run_id = demo_run
    with Store(store) as st:
        run = st.run_info(run_id)
        meta = run["meta"]
        period = st.samples(run_id, "instrument.period")
        high = st.samples(run_id, "instrument.high")
        low = st.samples(run_id, "instrument.low")
        lat = st.samples(run_id, "instrument.latency")
        ticks = st.sql(
            "SELECT name, unit, tick_num, tick_den FROM series WHERE run_id=? "
            "AND name LIKE 'instrument.%' ORDER BY name",
            [run_id],
        )
        counters = dict(
            st.sql(
                "SELECT name, value FROM counters WHERE run_id=? AND name LIKE 'instr%'", [run_id]
            )
        )
        assert st.samples(run_id, "latency").size > 100  # the workload's own series too
    # the capture: (expected run time + 0.4 s margin) x 200 kHz samples, D2 rising at 4 + 8k
    expected_ms = math.ceil((KINDS["rtlab-latency"].seconds({"duration": "300ms"}) + 0.4) * 1000)
    window = expected_ms * 200
    assert meta["instrument.window_s"] == f"{window / 200_000:.6f}"
    rises = len(range(4, window, 8))
    assert set(period.tolist()) == {8} and period.size == rises - 1
    assert set(high.tolist()) == {4} and set(low.tolist()) == {4}
    assert set(lat.tolist()) == {2} and lat.size == rises
    assert all(r[1:] == ("ticks", 1, 200_000) for r in ticks), ticks
    assert [r[0] for r in ticks] == [
        "instrument.high",
        "instrument.latency",
        "instrument.low",
        "instrument.period",
    ]
    assert counters["instrument.edges"] == rises + len(range(8, window, 8))
    assert counters["instrument.gaps"] == 0 and counters["instrument.latency_unpaired"] == 0
    assert meta["instrument.kind"] == "sigrok" and meta["instrument.driver"] == "demo"
    assert meta["instrument.pin"] == "D2" and meta["instrument.samplerate_hz"] == "200000"
    assert Fraction(meta["instrument.tick_s"]) == Fraction(1, 200_000)
    sigrok = version()
    assert meta["instrument.sigrok_cli"] == sigrok["sigrok_cli"]
    fp = run["fingerprint"]["instrument"]
    assert fp["kind"] == "sigrok" and fp["driver"] == "demo"
    assert fp["sigrok_cli"] == sigrok["sigrok_cli"] and fp["libsigrok"] == sigrok["libsigrok"]
    assert run["params"]["instrument"]["pin"] == "D2"

    # the capture beside the samples re-analyzes to the same series
    path = store.parent / meta["instrument.capture_file"]
    assert path.parent.name == "captures" and path.name == f"{run_id}.parquet"
    cap = formats.load(path)
    assert cap.tick_s == Fraction(1, 200_000) and list(cap.channels) == ["D0", "D1", "D2"]
    assert np.array_equal(cap["D2"].periods("rising").values, period)
    assert np.array_equal(cap["D2"].widths("high").values, high)
    assert _leftovers(store) == []  # no raw .sr left


def test_bad_driver_is_a_clear_run_error_and_the_store_stays_whole(
    demo_run: tuple[Path, str], tmp_path: Path
) -> None:
    store, good_id = demo_run
    spec = _spec(tmp_path, name="bad", driver="nosuchdriver")
    r = rtlab("run", str(spec), "--store", str(store))
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    text = " ".join(r.stderr.split())
    assert "instrument sigrok (nosuchdriver) failed to start" in text, text
    assert "Driver nosuchdriver not found" in text, text
    with Store(store) as st:
        (bad,) = st.runs(spec_name="bad")
        assert bad["status"] == "error" and bad["samples_file"] is None
        assert "Driver nosuchdriver not found" in bad["message"]
        good = st.run_info(good_id)
        assert good["status"] == "ok"
        assert st.samples(good_id, "instrument.period").size > 1000
    assert sorted(p.name for p in (store.parent / "captures").iterdir()) == [f"{good_id}.parquet"]


def test_no_edge_on_the_pin_makes_the_run_incomplete(tmp_path: Path, built: Path) -> None:
    store = tmp_path / "s" / "rtlab.duckdb"
    with Store(store) as st:
        out = run_spec(load_spec(_spec(tmp_path, pattern="all-low", duration="100ms")), st)
        (res,) = out.runs
        assert res.status == "incomplete"  # the workload itself was fine
        assert res.message and "sigrok (demo): captured no edge on pin D2" in res.message
        run = st.run_info(res.run_id)
        assert run["problems"] == [res.message]
        names = {r[0] for r in st.sql("SELECT name FROM series WHERE run_id=?", [res.run_id])}
        assert "latency" in names and not any(n.startswith("instrument.") for n in names)
        assert run["meta"]["instrument.capture_file"]  # what the pin did is kept
    assert _leftovers(store) == []


def test_instrument_killed_mid_run(tmp_path: Path, built: Path) -> None:
    store = tmp_path / "s" / "rtlab.duckdb"
    spec = load_spec(_spec(tmp_path, duration="1s"))
    marker = str(store.parent / "captures")

    def kill_it() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            pids = _procs_with(marker)
            # mid-run: once sigrok-cli acquires (its output exists), not a fixed delay
            # after it starts, which a loaded machine can outlast before the first sample
            if pids and any(Path(marker).glob("*.sr.part")):
                time.sleep(0.2)
                for pid in pids:
                    os.kill(pid, signal.SIGKILL)
                return
            time.sleep(0.01)

    killer = threading.Thread(target=kill_it)
    killer.start()
    with Store(store) as st:
        (res,) = run_spec(spec, st).runs
    killer.join()
    assert res.status == "incomplete"
    assert res.message and "sigrok (demo): sigrok-cli was killed by signal 9" in res.message
    assert _leftovers(store) == []


def test_ctrl_c_stops_the_instrument_and_marks_the_run(tmp_path: Path, built: Path) -> None:
    store = tmp_path / "s" / "rtlab.duckdb"
    spec = _spec(tmp_path, duration="2s")
    captures = store.parent / "captures"
    proc = rtlab_run(spec, store)
    deadline = time.monotonic() + 30
    while not _procs_with(str(captures)):  # armed: sigrok-cli is running
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.01)
    time.sleep(0.3)
    os.kill(proc.pid, signal.SIGINT)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert _procs_with(str(captures)) == []  # sigrok-cli stopped with the run
    with Store(store) as st:
        (run,) = st.runs()
        assert run["status"] == "interrupted"
    assert list(captures.iterdir()) == []


def _spec_error(tmp_path: Path, table: str) -> str:
    p = tmp_path / "bad.toml"
    p.write_text(
        'name = "e"\n[[workload]]\nkind = "rtlab-latency"\nduration = "1s"\n\n'
        f"[instrument]\n{table}"
    )
    with pytest.raises(SpecError) as e:
        load_spec(p)
    return str(e.value)


SIGROK = 'kind = "sigrok"\ndriver = "demo"\nchannels = ["D0", "D1"]\n'


@pytest.mark.parametrize(
    ("table", "line", "key", "words"),
    [
        ('kind = "saleae"\n', 7, "instrument.kind", "expected one of sigrok, rp2040"),
        (SIGROK + "drver = 1\n", 10, "instrument.drver", "unknown key for a sigrok"),
        (SIGROK + 'pin = "D7"\n', 10, "instrument.pin", "not a capture channel (D0, D1)"),
        (SIGROK + 'response = "D0"\n', 10, "instrument.response", "another capture channel"),
        (SIGROK + 'samplerate = "fast"\n', 10, "instrument.samplerate", '"24m"'),
        (SIGROK + 'config = ["limit_samples=5"]\n', 10, "instrument.config", "set by the runner"),
        (SIGROK + 'config = ["a=b:c=d"]\n', 10, "instrument.config", 'no ":"'),
        (SIGROK.replace('"demo"', '"-d evil"'), 8, "instrument.driver", "sigrok driver name"),
        (SIGROK.replace('"D1"]', '"D1,D2"]'), 9, "instrument.channels", "list of channel names"),
        ('kind = "sigrok"\nchannels = ["D0"]\n', 6, "instrument.driver", "needs driver"),
        (
            'kind = "rp2040"\nport = "/dev/ttyACM0"\nchannels = "2,4"\n',
            9,
            "instrument.channels",
            "consecutive GPIOs",
        ),
        (
            'kind = "rp2040"\nport = "/dev/ttyACM0"\nchannels = "2-7"\nresolution = "8ns"\n',
            10,
            "instrument.resolution",
            "4 channels at most",
        ),
        ('kind = "rp2040"\nchannels = 2\n', 6, "instrument.port", "needs port"),
    ],
)
def test_spec_errors_name_line_and_key(
    tmp_path: Path, table: str, line: int, key: str, words: str
) -> None:
    msg = _spec_error(tmp_path, table)
    assert msg.startswith(f"{tmp_path / 'bad.toml'}:{line}: {key}:"), msg
    assert words in msg, msg


def test_instrument_spec_parses_and_changes_cell_keys() -> None:
    base = 'name = "k"\n[[workload]]\nkind = "rtlab-latency"\nduration = "1s"\n'
    plain = parse_spec(base)
    assert plain.instrument is None
    s = parse_spec(
        base + '[instrument]\nkind = "sigrok"\ndriver = "fx2lafw"\n'
        'samplerate = "24 MHz"\nchannels = ["D0", "D1"]\n'
    )
    assert s.instrument is not None and s.instrument.kind == "sigrok"
    assert s.instrument.samplerate_hz == 24_000_000 and s.instrument.pin == "D0"
    assert s.cells()[0].label == plain.cells()[0].label
    assert s.cells()[0].key != plain.cells()[0].key  # timed by an instrument: new cells
    r = parse_spec(
        base + '[instrument]\nkind = "rp2040"\nport = "/dev/ttyACM0"\n'
        'channels = "2-3"\nnames = ["pin", "ack"]\nresponse = "ack"\n'
    )
    assert r.instrument is not None and r.instrument.kind == "rp2040"
    assert r.instrument.pin == "pin" and r.instrument.gpios == (2, 3)


def test_gpio_study_example_uses_the_module_with_a_sigrok_alternative() -> None:
    path = REPO_ROOT / "examples" / "gpio-study.toml"
    spec = load_spec(path)
    assert spec.instrument is not None and spec.instrument.kind == "rp2040"
    # the commented sigrok table, uncommented in place of the module's
    text = path.read_text()
    start = text.index("\n[instrument]") + 1
    alt = text.index("# [instrument]")
    lines, rest = [], text[alt:].splitlines()
    for i, line in enumerate(rest):
        if not line.startswith("# "):
            lines += rest[i:]
            break
        lines.append(line[2:])
    sig = parse_spec(text[:start] + "\n".join(lines), path)
    assert sig.instrument is not None and sig.instrument.kind == "sigrok"
    assert sig.instrument.samplerate_hz == 24_000_000 and sig.instrument.pin == "D0"


def test_samplerate_reaches_sigrok_and_becomes_the_tick(tmp_path: Path, built: Path) -> None:
    text = """\
name = "rate"
[instrument]
kind = "sigrok"
driver = "demo"
samplerate = "1 MHz"
channels = ["D0"]
margin_s = 0.2
[[workload]]
kind = "rtlab-latency"
duration = "100ms"
"""
    with Store(tmp_path / "s" / "rtlab.duckdb") as st:
        (res,) = run_spec(parse_spec(text, tmp_path / "rate.toml"), st).runs
        assert res.status == "ok", res.message
        ticks = st.sql(
            "SELECT DISTINCT tick_num, tick_den FROM series WHERE run_id=? "
            "AND name LIKE 'instrument.%'",
            [res.run_id],
        )
        meta = st.run_info(res.run_id)["meta"]
        assert st.samples(res.run_id, "instrument.period").size > 1000
    assert ticks == [(1, 1_000_000)]
    assert meta["instrument.samplerate_hz"] == "1000000" and meta["instrument.pin"] == "D0"


def test_capture_shorter_than_the_run_is_a_warning(tmp_path: Path, built: Path) -> None:
    # the workload says it takes 0.1 s and takes 1 s: --time ends first
    text = 'name = "short"\n' + INSTRUMENT.format(driver="demo", pattern="incremental")
    text += f"""\
margin_s = 0.1
[[workload]]
kind = "command"
argv = ["{built}", "-D", "1", "-i", "1000"]
seconds = 0.1
"""
    with Store(tmp_path / "s" / "rtlab.duckdb") as st:
        (res,) = run_spec(parse_spec(text, tmp_path / "short.toml"), st).runs
        assert res.status == "ok", res.message
        warnings = st.sql("SELECT code, msg FROM warnings WHERE run_id=?", [res.run_id])
        meta = st.run_info(res.run_id)["meta"]
    assert (
        "instrument",
        "instrument sigrok (demo): the capture (0.2 s) ended before the "
        "workload did; raise margin_s",
    ) in warnings, warnings
    assert meta["instrument.window_s"] == "0.200000"


def test_store_recovery_drops_the_capture_of_a_crashed_run(tmp_path: Path) -> None:
    path = tmp_path / "rtlab.duckdb"
    with Store(path) as st:
        rid = st.begin_run(workload="x")
        st.db.execute("UPDATE runs SET owner_pid = -1 WHERE run_id = ?", [rid])  # "dead"
        cap = st.capture_path(rid)
        cap.parent.mkdir()
        raw = [cap.parent / f".{rid}.sr.part", cap.parent / f".{rid}.sr.part.a1B2c3"]
        for f in (cap, *raw):
            f.write_bytes(b"x")
        keep = cap.parent / "other.parquet"
        keep.write_bytes(b"x")
    with Store(path) as st:
        assert st.recovered == [rid]
        assert st.run_info(rid)["status"] == "interrupted"
    assert sorted(p.name for p in cap.parent.iterdir()) == ["other.parquet"]


def test_samplerate_units_mean_what_they_mean_everywhere() -> None:
    """A frequency "16mHz" is millihertz (not a whole Hz: refused) and "16mhz"
    ambiguous, as in every rtlab option; sigrok-cli's bare "16m" stays 16 MHz."""
    from rtlab.errors import ConfigError
    from rtlab.instruments.sigrok.kind import parse_samplerate

    assert parse_samplerate("16m") == parse_samplerate("16MHz") == 16_000_000
    with pytest.raises(ConfigError, match="whole positive Hz"):
        parse_samplerate("16mHz")
    with pytest.raises(ConfigError, match="ambiguous"):
        parse_samplerate("16mhz")
