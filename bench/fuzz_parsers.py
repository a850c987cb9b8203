"""Fuzz every capture reader with atheris (coverage-guided, libFuzzer underneath).

Each reader gets bytes written to a file and must either return a valid Capture or
raise FormatError: any other exception is a crash, an input that runs longer than the
per-input timeout is a hang, and more than --rss-mb of memory fails too. Each parser
runs in its own process, seeded with a small valid file of its format.

    .venv/bin/python bench/fuzz_parsers.py --seconds 300            # every parser
    .venv/bin/python bench/fuzz_parsers.py --seconds 30 sigrok vcd  # some

The summary prints executions and executions/s per parser; crashing inputs are kept
under build/fuzz/<parser>/ (libFuzzer's crash-*/timeout-* files).
"""

from __future__ import annotations

import argparse
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARSERS = ("pio-durations", "edges-csv", "parquet", "sigrok", "saleae-bin", "saleae-csv", "vcd")


def seed_files(name: str, out: Path) -> None:
    """A few small valid inputs of the format, to start the fuzzer somewhere useful."""
    import numpy as np

    import rtlab
    from rtlab.model import Capture, Channel

    out.mkdir(parents=True, exist_ok=True)
    cap = Capture(tick_s=Fraction(1, 10**9), gaps=[[55, 60]])
    cap.add(Channel("D0", np.array([10, 20, 35, 50, 61, 70]), 0, gap_levels=np.array([1])))
    cap.add(Channel("D1", np.array([12, 40]), 1, gap_levels=np.array([0])))
    if name == "pio-durations":
        (out / "a.csv").write_text("64\n73\n65\n72\n64\n1900\n")
    elif name == "edges-csv":
        (out / "a.csv").write_text("timestamp,channel,level\n10,a,1\n12,b,1\n20,a,0\n30,b,0\n")
        (out / "b.csv").write_text("0.000001,a,1\n0.0000015,a,0\n")
    elif name == "parquet":
        rtlab.save(cap, out / "a.parquet")
    elif name == "sigrok":
        if shutil.which("sigrok-cli"):
            subprocess.run(
                [
                    "sigrok-cli",
                    "-d",
                    "demo:logic_channels=4:analog_channels=0",
                    "--samples",
                    "300",
                    "-o",
                    str(out / "a.sr"),
                ],
                check=True,
            )
    elif name == "saleae-bin":
        times = [1e-6, 2e-6, 3.5e-6]
        v0 = struct.pack("<8siiIddQ", b"<SALEAE>", 0, 0, 0, 0.0, 5e-6, len(times))
        (out / "digital_0.bin").write_bytes(v0 + struct.pack(f"<{len(times)}d", *times))
        chunks = struct.pack("<Q", 2)
        for begin, ts in ((0.0, [1e-6, 2e-6]), (4e-6, [5e-6])):
            chunks += struct.pack("<IdddQ", 0, 1e9, begin, begin + 3e-6, len(ts))
            chunks += struct.pack(f"<{len(ts)}d", *ts)
        (out / "digital_1.bin").write_bytes(struct.pack("<8sii", b"<SALEAE>", 1, 0) + chunks)
    elif name == "saleae-csv":
        (out / "a.csv").write_text(
            "Time [s],Channel 0,Channel 1\n0.000000000,0,1\n0.000001000,1,1\n0.000002500,0,0\n"
        )
    elif name == "vcd":
        rtlab.save(cap, out / "a.vcd")


HARNESS = r"""
import os, sys, tempfile
import atheris
with atheris.instrument_imports():
    import rtlab.formats as F
    from rtlab.errors import FormatError
spec = F.get(sys.argv[1])
SUFFIX = sys.argv[2]
fd, PATH = tempfile.mkstemp(suffix=SUFFIX, dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
os.close(fd)

def one(data: bytes) -> None:
    with open(PATH, "wb") as fh:
        fh.write(data)
    try:
        cap = spec.read(__import__("pathlib").Path(PATH))
    except FormatError:
        return
    cap.validate()  # whatever a reader accepts must satisfy the model's invariants

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
}


def fuzz(name: str, seconds: int, rss_mb: int, workdir: Path) -> dict[str, object]:
    corpus = workdir / "corpus"
    seed_files(name, corpus)
    args = [
        sys.executable,
        "-c",
        HARNESS,
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
    return {
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
    print(f"{'parser':15} {'result':8} {'executions':>12} {'exec/s':>8}  ({args.seconds} s each)")
    for r in results:
        print(
            f"{r['parser']:15} {'ok' if r['ok'] else 'FAILED':8} {r['execs']:>12} "
            f"{r['per_s']:>8}  {r['detail']}"
        )
    if not all(r["ok"] for r in results):
        print(f"crash inputs and logs: {base}/<parser>/", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
