"""Print the largest Python modules of src/rtlab, a figure for `make lint`: a module that
grows past a few hundred lines is a place to look for a second job, split along its
seams when it has one (docs/architecture.md), never cut at a line count."""

from __future__ import annotations

import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "rtlab"
SHOWN = 10


def main() -> int:
    sizes = sorted(
        ((len(p.read_text().splitlines()), p.relative_to(SRC)) for p in SRC.rglob("*.py")),
        reverse=True,
    )
    total = sum(n for n, _ in sizes)
    print(f"module sizes: {len(sizes)} modules, {total} lines; the largest:")
    for n, p in sizes[:SHOWN]:
        print(f"  {n:5d}  {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
