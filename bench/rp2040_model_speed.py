"""Speed of rtlab's RP2040 model (models/rp2040): emulated MHz per image.

    .venv/bin/python bench/rp2040_model_speed.py [IMAGE.uf2|.elf ...] [--json]

Without arguments: the bare-metal smoke and calibration images (built first). Each image
runs once to its `rtbench: done` line; the figure is the model's cycles over the wall
time of the whole process (Node.js start-up included, so short runs read low). A core
asleep in WFI costs nothing to skip, so an idle-heavy RTOS image runs faster than a
busy one.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from tests.models.rp2040 import model  # noqa: E402


def measure(image: Path, tmp: Path) -> dict:
    res = model.run(image, tmp, max_cycles=20_000_000_000)
    s = res.summary
    return {
        "image": str(image),
        "status": res.returncode,
        "cycles": s.get("cycles"),
        "instructions": s.get("instructions"),
        "wall_s": round(s.get("wall_s", 0.0), 3),
        "emulated_mhz": round(s.get("emulated_mhz", 0.0), 1),
        "xip_misses": s.get("xip_misses"),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("images", nargs="*", type=Path)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    model.build()
    images = args.images or [model.bare_image("smoke"), model.bare_image("calib")]
    with tempfile.TemporaryDirectory() as tmp:
        rows = [measure(i, Path(tmp)) for i in images]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(f"{'image':<50} {'cycles':>12} {'wall s':>8} {'MHz':>7}")
    for r in rows:
        print(
            f"{Path(r['image']).name:<50} {r['cycles']:>12} {r['wall_s']:>8} {r['emulated_mhz']:>7}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
