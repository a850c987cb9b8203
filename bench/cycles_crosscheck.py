"""The cycles study's page (docs/results/rtos-cycles.md): the study's report, then external
vs internal per run (rtlab.studies.cycles_check) and the cross-check of rtlab's two cycle
models (rtlab.studies.cycles_crosscheck) from the same store, which must already hold
examples/rtos-cycles-crosscheck.toml's runs:

    rtlab study rtos examples/rtos-cycles-crosscheck.toml --rtos freertos --config arm-cm0-as-mps2 \
        --store S
    python bench/cycles_crosscheck.py --store S [--md]

The study (examples/rtos-cycles.toml, FreeRTOS and µC/OS-III) runs what the store lacks.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RTLAB = Path(sys.executable).parent / "rtlab"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--md", action="store_true", help="print the study's Markdown first")
    a = ap.parse_args()
    argv = [str(RTLAB), "study", "rtos", "examples/rtos-cycles.toml", "--rtos", "freertos,ucos3",
            "-o", "out/rtos-cycles.html", "--store", str(a.store)]  # fmt: skip
    if a.md:
        argv.append("--md")
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"rtlab study rtos failed ({done.returncode}):\n{done.stderr[-3000:]}")
    print(done.stdout, end="")

    from rtlab.results import Store
    from rtlab.studies import cycles_check, cycles_crosscheck

    with Store(a.store, read_only=True) as st:
        rows = cycles_crosscheck.compare(st)
        agreement = cycles_check.stored_agreement(st)
    if rows is None:
        sys.exit("the store lacks one model's FreeRTOS primitives (see this script's doc)")
    print()
    print(cycles_check.agreement_markdown(agreement), end="")
    print()
    print(cycles_crosscheck.markdown(rows), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
