"""CPU cost of the RP2040 capture module, measured in the lockstep emulator.

    .venv/bin/python bench/rp2040_cycles.py [--json]

Drives one channel with an edge every P system clocks (P = 2 is the PIO program's full
rate: an edge on every sample; in 8 ns mode each edge is recorded by both state
machines, twice the records) and reads back the firmware's own SysTick counts:
`encode` = clocks spent reading the ring, delta-encoding and framing, per edge;
`poll` = all clocks inside the capture poll (ring checks included), per edge.
Runs longer than the 57 344-word ring show whether the CPU keeps up (no lost records).
UART TX is instantaneous in the emulator, so these are CPU limits only; the link
limits are computed on paper from the measured bytes per edge.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from rtlab.instruments.rp2040.driver import RP2040Module  # noqa: E402
from rtlab.instruments.rp2040.wire import START_FINE  # noqa: E402
from tests.instruments.rp2040 import harness as h  # noqa: E402

CLK = 125_000_000
UART_BPS = 921_600 / 10  # 8N1: 10 bits per byte
USB_FS_BPS = 19 * 64 * 1000  # bulk: at most 19 x 64-byte packets per 1 ms frame


def run(spacing: int, n_edges: int, tmp: Path, fine: bool = False) -> dict:
    toggles = {2: [1000 + spacing * i for i in range(n_edges)]}
    span = 1000 + spacing * n_edges
    proc = h.start(tmp, toggles=toggles, max_cycles=3 * span + 20_000_000)
    try:
        mod = RP2040Module(h.PipePort(proc), timeout_s=60)
        mod.hello()
        cap = mod.capture(2, 1, Fraction(span + 20_000, CLK), flags=START_FINE if fine else 0)
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    s = h.summary(tmp)
    m = cap.metadata
    got = len(cap["GP2"])
    return {
        "resolution_ns": 8 if fine else 16,
        "spacing_cycles": spacing,
        "offered_edges_per_s": CLK / spacing,
        "edges_driven": n_edges,
        "edges_decoded": got,
        "records_lost": m["records_lost"]["GP2"],
        "encode_cycles_per_edge": m["encode_cycles"] / max(got, 1),
        "poll_cycles_per_edge": m["cpu_cycles"] / max(got, 1),
        "tx_bytes_per_edge": s["txBytes"] / max(got, 1),
        "emulated_mhz": s["emulated_mhz"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    args = ap.parse_args()
    if h.missing_reason():
        sys.exit(f"rp2040 bench: {h.missing_reason()}")
    h.build_firmware()
    cases = [
        (2, 50_000, False),
        (2, 70_000, False),
        (24, 150_000, False),
        (32, 150_000, False),
        (40, 150_000, False),
        (64, 100_000, False),
        (125, 40_000, False),
        (1250, 3_000, False),
        (2, 28_000, True),
        (2, 40_000, True),
        (100, 150_000, True),
        (125, 150_000, True),
    ]
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for spacing, n, fine in cases:
            rows.append(run(spacing, n, Path(d), fine))
    steady = [
        r
        for r in rows
        if r["spacing_cycles"] >= 24 and r["records_lost"] == 0 and r["resolution_ns"] == 16
    ]
    best = min(steady, key=lambda r: r["spacing_cycles"]) if steady else None
    bpe = min(
        r["tx_bytes_per_edge"]
        for r in rows
        if r["spacing_cycles"] >= 24 and r["resolution_ns"] == 16
    )
    paper = {
        "uart_921600_edges_per_s": UART_BPS / bpe,
        "usb_fs_bulk_edges_per_s": USB_FS_BPS / bpe,
        "bytes_per_edge_dense": bpe,
    }
    if args.json:
        print(json.dumps({"runs": rows, "sustained_lossless": best, "paper": paper}, indent=2))
        return
    print(
        f"{'res':>4} {'P':>5} {'offered/s':>11} {'driven':>7} {'decoded':>8} {'lost':>6} "
        f"{'enc cyc/e':>9} {'poll cyc/e':>10} {'B/edge':>6}"
    )
    for r in rows:
        print(
            f"{r['resolution_ns']:>2}ns {r['spacing_cycles']:>5} "
            f"{r['offered_edges_per_s']:>11,.0f} "
            f"{r['edges_driven']:>7} {r['edges_decoded']:>8} {r['records_lost']:>6} "
            f"{r['encode_cycles_per_edge']:>9.1f} {r['poll_cycles_per_edge']:>10.1f} "
            f"{r['tx_bytes_per_edge']:>6.2f}"
        )
    if best:
        print(
            f"\nfastest lossless sustained rate measured: {best['offered_edges_per_s']:,.0f} "
            f"edges/s (one edge every {best['spacing_cycles']} clocks)"
        )
    print(
        f"link limits at {bpe:.2f} bytes/edge: UART 921600 baud "
        f"{paper['uart_921600_edges_per_s']:,.0f} edges/s, USB full speed bulk "
        f"{paper['usb_fs_bulk_edges_per_s']:,.0f} edges/s (on paper)"
    )


if __name__ == "__main__":
    main()
