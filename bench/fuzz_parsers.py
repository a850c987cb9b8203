"""Fuzz every capture reader and the @rtl1 parser with atheris (coverage-guided,
libFuzzer underneath).

Each reader gets bytes written to a file and must either return a valid Capture or
raise FormatError; the @rtl1 parser gets the bytes as text and must return runs whose
series decode, or raise ProtocolError (a FormatError). Any other exception is a crash,
an input that runs longer than the per-input timeout is a hang, and more than --rss-mb
of memory fails too. Each parser runs in its own process, seeded with a small valid
file of its format (FST from Icarus Verilog, @rtl1 from the project's encoder).

    .venv/bin/python bench/fuzz_parsers.py --seconds 300            # every parser
    .venv/bin/python bench/fuzz_parsers.py --seconds 30 sigrok vcd  # some

The summary prints executions and executions/s per parser, and how many inputs were
accepted (a valid Capture) or refused (FormatError); crashing inputs are kept
under build/fuzz/<parser>/ (libFuzzer's crash-*/timeout-* files).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.format_samples import FORMATS, seed_files  # noqa: E402

PARSERS = (*FORMATS, "rtl1")

# Both harnesses count their outcomes: written every 256 inputs (libFuzzer exits
# without atexit), read back for the summary.
TALLY = r"""
COUNTS = {"accepted": 0, "refused": 0}
COUNT_FILE = os.path.join(os.getcwd(), "outcomes.txt")

def tally(outcome: str) -> None:
    COUNTS[outcome] += 1
    if (COUNTS["accepted"] + COUNTS["refused"]) % 256 == 0:
        with open(COUNT_FILE, "w") as fh:
            fh.write(f"{COUNTS['accepted']} {COUNTS['refused']}\n")
"""

HARNESS = r"""
import os, sys, tempfile
import atheris
import rtlab.formats as F
from rtlab.errors import FormatError
spec = F.get(sys.argv[1])  # imports the reader's module
import rtlab.intervals, rtlab.model
# rtlab is an editable install, whose import hook atheris.instrument_imports() misses:
# instrument the loaded code instead, so that the fuzzer is guided by rtlab's branches.
atheris.instrument_all()
SUFFIX = sys.argv[2]
fd, PATH = tempfile.mkstemp(suffix=SUFFIX, dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
os.close(fd)

""" + TALLY + r"""
def one(data: bytes) -> None:
    with open(PATH, "wb") as fh:
        fh.write(data)
    try:
        cap = spec.read(__import__("pathlib").Path(PATH))
    except FormatError:
        tally("refused")
        return
    cap.validate()  # whatever a reader accepts must satisfy the model's invariants
    tally("accepted")

atheris.Setup([sys.argv[0], *sys.argv[3:]], one)
atheris.Fuzz()
"""

# The @rtl1 parser reads text (a file, a serial line): bytes in, runs or ProtocolError out.
PROTOCOL_HARNESS = r"""
import os, sys
import atheris
import rtlab.protocol as P
import rtlab.protocol.decoder, rtlab.protocol.parser, rtlab.protocol.records
from rtlab.errors import FormatError
atheris.instrument_all()
""" + TALLY + r"""
def one(data: bytes) -> None:
    try:
        runs = P.parse(data, source="fuzz")
    except FormatError:
        tally("refused")
        return
    tally("accepted")
    for run in runs:
        for s in run.series.values():
            assert s.values.dtype.kind == "i", s.values.dtype
            try:
                s.samples()
            except ValueError as e:  # documented: ticks without a declared length
                assert "no tick length" in str(e), e

atheris.Setup([sys.argv[0], *sys.argv[3:]], one)
atheris.Fuzz()
"""

SUFFIXES = {
    "pio-durations": ".csv",
    "edges-csv": ".csv",
    "parquet": ".parquet",
    "sigrok": ".sr",
    "saleae-bin": ".bin",
    "saleae-csv": ".csv",
    "vcd": ".vcd",
    "fst": ".fst",
    "rtl1": ".txt",
}


def protocol_seeds(out: Path) -> None:
    """Runs written by the project's encoder: every record type, plain and with CRCs."""
    from rtlab.protocol import Writer

    out.mkdir(parents=True, exist_ok=True)
    for i, (crc, enc) in enumerate(((False, "sd"), (True, "s"), (False, "sb"))):
        w = Writer(crc=crc)
        w.hello("fuzz", "1.0", cpu=3)
        w.meta(kernel="6.1 rt")
        w.series("latency", [1200, 1350, -5, 1800, 99000], encoding=enc, chunk=3)
        w.series("cyc", [10, 20, 30], unit="cycles", tick_hz=150_000_000, encoding=enc)
        w.counter("overruns", 2)
        w.histogram("lat", [(0, 1000, 4), (1000, 2000, 7)])
        w.warn("busy_host", "load 3.2")
        w.end()
        (out / f"run{i}.txt").write_text("boot log line\n" + w.text())


def fuzz(name: str, seconds: int, rss_mb: int, workdir: Path) -> dict[str, object]:
    corpus = workdir / "corpus"
    if name == "rtl1":
        protocol_seeds(corpus)
    else:
        seed_files(name, corpus)
    args = [
        sys.executable,
        "-c",
        PROTOCOL_HARNESS if name == "rtl1" else HARNESS,
        name,
        SUFFIXES[name],
        str(corpus),
        f"-max_total_time={seconds}",
        "-timeout=10",
        f"-rss_limit_mb={rss_mb}",
        "-print_final_stats=1",
        "-max_len=65536",
        f"-artifact_prefix={workdir}/",
    ]
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.run(args, stdout=log, stderr=subprocess.STDOUT, cwd=workdir)
        log.seek(0)
        text = log.read()
    (workdir / "fuzz.log").write_text(text)
    execs = re.search(r"stat::number_of_executed_units:\s*(\d+)", text)
    per_s = re.search(r"stat::average_exec_per_sec:\s*(\d+)", text)
    crashed = proc.returncode != 0
    counts = workdir / "outcomes.txt"
    accepted, refused = (int(x) for x in counts.read_text().split()) if counts.exists() else (0, 0)
    return {
        "accepted": accepted,
        "refused": refused,
        "parser": name,
        "ok": not crashed,
        "execs": int(execs.group(1)) if execs else 0,
        "per_s": int(per_s.group(1)) if per_s else 0,
        "detail": "" if not crashed else _first_error(text),
    }


def _first_error(text: str) -> str:
    for line in text.splitlines():
        if "ERROR" in line or "Error" in line or "Traceback" in line or "timeout" in line:
            return line.strip()[:200]
    return text.strip().splitlines()[-1][:200] if text.strip() else "no output"


def main() -> None:
    ap = argparse.ArgumentParser(description="fuzz rtlab's capture readers with atheris")
    ap.add_argument("parsers", nargs="*", default=list(PARSERS))
    ap.add_argument("--seconds", type=int, default=300, help="per parser (default 300)")
    ap.add_argument("--rss-mb", type=int, default=2048)
    ap.add_argument("--jobs", type=int, default=1, help="parsers fuzzed at once")
    args = ap.parse_args()
    unknown = set(args.parsers) - set(PARSERS)
    if unknown:
        ap.error(f"unknown parser(s): {', '.join(sorted(unknown))}")
    base = ROOT / "build" / "fuzz"
    from concurrent.futures import ThreadPoolExecutor

    def run_one(name: str) -> dict[str, object]:
        wd = base / name
        shutil.rmtree(wd, ignore_errors=True)
        wd.mkdir(parents=True)
        return fuzz(name, args.seconds, args.rss_mb, wd)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(run_one, args.parsers))
    print(
        f"{'parser':15} {'result':8} {'executions':>12} {'exec/s':>8} {'accepted':>10} "
        f"{'refused':>10}  ({args.seconds} s each; accepted/refused sampled every 256)"
    )
    for r in results:
        print(
            f"{r['parser']:15} {'ok' if r['ok'] else 'FAILED':8} {r['execs']:>12} "
            f"{r['per_s']:>8} {r['accepted']:>10} {r['refused']:>10}  {r['detail']}"
        )
    if not all(r["ok"] for r in results):
        print(f"crash inputs and logs: {base}/<parser>/", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
