"""How long every brought RTOS takes on the RP2040 cycle model, against issue 31's goal
of 10 minutes for four RTOSes on 2 cores: `rtlab study rtos examples/rp2040-model.toml`
(each RTOS's one-core Pico images, every scenario, through the serial target's
`rp2040_model` flasher) into a throwaway store, then again (nothing may run: the store's
cell keys carry the kernels' sources), and with --repeat once more into a fresh store,
whose stored samples must equal the first's bit for bit (the model is deterministic).

    python bench/rp2040_model_time.py [--repeat] [-- study options…]

Options after `--` go to `rtlab study rtos` (e.g. `-- --rtos freertos,zephyr`). The
machinery is bench/rtos_study_time.py's, with this study spec.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rtos_study_time as base  # a sibling script, not a package

SPEC = "examples/rp2040-model.toml"


def main(argv: list[str]) -> int:
    extra = [SPEC, *(argv[argv.index("--") + 1 :] if "--" in argv else [])]
    own = argv[: argv.index("--")] if "--" in argv else argv
    from rtlab.lab.rtos_matrix import MODELS, columns

    cols, skipped = columns(machines=list(MODELS))
    if not cols:
        print("skipped: no RTOS brought (README: bring your own kernels): " + "; ".join(skipped))
        return 0
    with tempfile.TemporaryDirectory(prefix="rp2040-model-") as tmp:
        a = Path(tmp) / "a" / "s.duckdb"
        first, log = base._study(a, extra)
        ran = len(base.RUN_LINE.findall(log))
        print(f"columns: {len(cols)} ({', '.join(f'{c.rtos} {c.config}' for c in cols)})")
        for line in (x for x in log.splitlines() if x.startswith("skipped:")):
            print(f"  {line}")
        print(f"runs: {ran}")
        print(f"study, first run : {first:7.1f} s  = {first / base.GOAL_S:.2f} × the 600 s goal")
        second, log2 = base._study(a, extra)
        again = len(base.RUN_LINE.findall(log2))
        print(f"study, second run: {second:7.1f} s  (runs again: {again}, must be 0)")
        if "--repeat" in own:
            b = Path(tmp) / "b" / "s.duckdb"
            third, _ = base._study(b, extra)
            same = base._samples(a) == base._samples(b)
            print(f"study, fresh store: {third:6.1f} s  stored samples identical: {same}")
            if not same:
                return 1
        print(f"(2 cores; 1-min load at the end: {Path('/proc/loadavg').read_text().split()[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
