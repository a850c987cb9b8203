"""How long the RP2040 SMP study takes on rtlab's two-core RP2040 cycle model, against
the goal of 15 minutes on 2 cores: `rtlab run examples/rp2040-model-smp.toml`
(FreeRTOS SMP and NuttX SMP, Thread-Metric, scalability and contention on 1 and 2 cores)
into a throwaway store, then `rtlab report` of it; with --repeat, the study once more into
a second store, whose stored samples must equal the first's bit for bit (the model is
deterministic).

    python bench/rp2040_model_smp_time.py [--repeat]

Prints the wall time of each step and of the whole against the goal. Exits 0 when the
study ran (whatever its time), 1 when a run failed or --repeat found a difference (the
stored counters compared), 0 with one line when a kernel is not brought.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RTLAB = Path(sys.executable).parent / "rtlab"
SPEC = "examples/rp2040-model-smp.toml"
GOAL_S = 900.0
NEEDS = ("PICO_SDK_PATH", "FREERTOS_KERNEL_PATH", "NUTTX_PATH", "NUTTX_APPS_PATH")


def _timed(argv: list[str]) -> tuple[float, int, str]:
    t0 = time.monotonic()
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, check=False)
    return time.monotonic() - t0, done.returncode, done.stdout + done.stderr


def _samples(store: Path) -> list[tuple[object, ...]]:
    from rtlab.results import Store

    with Store(store) as st:
        return st.sql(
            "SELECT r.params, s.name, s.value FROM counters s JOIN runs r USING (run_id) "
            "ORDER BY 1, 2"
        )


def main(argv: list[str]) -> int:
    missing = [v for v in NEEDS if not os.environ.get(v)]
    if missing:
        print(f"skipped: set {', '.join(missing)} (README: bring your own kernels)")
        return 0
    stores = []
    with tempfile.TemporaryDirectory(prefix="rp2040-smp-") as tmp:
        total = 0.0
        for i in range(2 if "--repeat" in argv else 1):
            store = Path(tmp) / f"s{i}" / "rtlab.duckdb"
            stores.append(store)
            run_s, rc, out = _timed([str(RTLAB), "run", SPEC, "--store", str(store)])
            print(f"rtlab run ({'again, fresh store' if i else 'the study'}): {run_s:.0f} s")
            if rc != 0:
                print(out[-2000:])
                return 1
            total += run_s if i == 0 else 0.0
        rep_s, rc, out = _timed(
            [str(RTLAB), "report", "--spec", "rp2040-model-smp", "--md", "--store", str(stores[0])]
        )
        print(f"rtlab report: {rep_s:.0f} s")
        total += rep_s
        verdict = "met" if total <= GOAL_S else "MISSED"
        print(f"total {total:.0f} s, goal {GOAL_S:.0f} s on 2 cores: {verdict}")
        if len(stores) == 2 and _samples(stores[0]) != _samples(stores[1]):
            print("the two stores' counters differ: the model is not deterministic")
            return 1
        if len(stores) == 2:
            print("the second store's counters equal the first's")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
