"""`python -m rtlab.lab.targets.labgrid.reaper COORDINATOR PLACE`: release PLACE when the
process that started this one ends without saying `released` on our stdin (see lease.py).
"""

from __future__ import annotations

import sys

from rtlab.lab.targets.labgrid import places


def main() -> int:
    coordinator, place = sys.argv[1], sys.argv[2]
    said = sys.stdin.buffer.read()  # until rtlab closes the pipe, or dies
    if b"released" in said:
        return 0
    try:
        places.release(coordinator, place)
    except places.LabgridError as e:
        print(f"rtlab reaper: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
