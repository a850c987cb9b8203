"""`make bench`: every benchmark under bench/, one after the other, with its output.

Fuzzing is not a benchmark: `make fuzz` runs bench/fuzz_parsers.py (5 minutes per reader).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SKIP = {"run_all.py", "fuzz_parsers.py"}


def main() -> int:
    failed = []
    for script in sorted(HERE.glob("*.py")):
        if script.name in SKIP or script.name.startswith("_"):
            continue
        print(f"\n######## {script.name} ########", flush=True)
        if subprocess.run([sys.executable, str(script)]).returncode != 0:
            failed.append(script.name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
