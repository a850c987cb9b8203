"""How long every brought RTOS takes on the RP2040 cycle model, against the goal
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
    from rtlab.catalog.machines import models
    from rtlab.lab.rtos_matrix import columns

    cols, skipped = columns(machines=list(models()))
    if not cols:
        print("skipped: no RTOS brought (README: bring your own kernels): " + "; ".join(skipped))
        return 0
    print(f"columns: {len(cols)} ({', '.join(f'{c.rtos} {c.config}' for c in cols)})")
    with tempfile.TemporaryDirectory(prefix="rp2040-model-") as tmp:
        return base.time_study(Path(tmp), extra, own)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
