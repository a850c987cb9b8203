"""What the cycle models' cross-check compares, function by function: FreeRTOS's primitives
scenario (`--markers`) traced instruction by instruction on the RP2040 model (run.js
--pc-trace --pc-trace-cycles, XIP cache compulsory) and on QEMU's microbit through the cycles plugin
(`trace=`), each timed region (from the return of rtb_mark_ts_set to the call of
rtb_mark_clear_ts) as the instructions each function ran in it, both images side by side:

    python bench/cycles_crosscheck_trace.py [--iterations 4] [--pico-config arm-cm0-as-mps2]

A row whose instruction counts differ is a build difference (the two images do not run the
same code); equal counts with different cycles are the models' own difference.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.lab.conformance.cycle_regions import on_model, on_plugin  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=4)
    ap.add_argument("--pico-config", default="arm-cm0-as-mps2")
    ap.add_argument("--machine", default="microbit")
    ap.add_argument("--tmp", type=Path, default=REPO / "out" / "cycles-crosscheck-trace")
    a = ap.parse_args()
    a.tmp.mkdir(parents=True, exist_ok=True)
    _, mr = on_model(a.pico_config, a.iterations, a.tmp)
    _, qr = on_plugin(a.machine, a.iterations, a.tmp)
    seen: set[str] = set()
    # the last region of each label: warm
    mlast = {r.label: r for r in mr}
    qlast = {r.label: r for r in qr}
    for label in [r.label for r in qr]:
        if label in seen or label not in mlast:
            continue
        seen.add(label)
        m, q = mlast[label], qlast[label]
        print(f"## {label}: model {sum(m.insns.values())} insns / {m.total_cycles} cycles, "
              f"plugin {sum(q.insns.values())} insns / {q.total_cycles} cycles")  # fmt: skip
        for name in sorted(set(m.insns) | set(q.insns), key=lambda n: -q.insns.get(n, 0)):
            mi, qi = m.insns.get(name, 0), q.insns.get(name, 0)
            mc, qc_ = m.cycles.get(name, 0), q.cycles.get(name, 0)
            flag = "" if mi == qi and mc == qc_ else "  <-- differs"
            print(f"  {name:40s} insns {mi:5d} {qi:5d}   cycles {mc:5d} {qc_:5d}{flag}")
    missing = sorted({r.label for r in mr} ^ {r.label for r in qr})
    if missing:
        print("labels on one side only:", missing)
    return 0


if __name__ == "__main__":
    sys.exit(main())
