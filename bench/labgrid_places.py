"""How long one matrix takes on 1 and on 3 labgrid places (docs/labgrid.md).

Starts a labgrid-coordinator on a throwaway local port with three emulated places
(tag board=mps2-an385), then runs examples/labgrid-mps2.toml with `repetitions` raised
(default 10: 60 runs) with `place = "mps2-1"` and with the tag, twice each, into
throwaway stores. Emulated boards share this machine's cores: see the doc for what the
figures say and do not say.

    python bench/labgrid_places.py [REPETITIONS]
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    from rtlab.lab.boards.cmake_layer import build_mps2
    from rtlab.lab.runner import run_spec
    from rtlab.lab.spec import parse_spec
    from rtlab.lab.targets.labgrid import places
    from rtlab.results import Store

    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    os.chdir(REPO)
    build_mps2()
    root = Path(tempfile.mkdtemp(prefix="rtlab-lg-bench-"))
    port = _free_port()
    coord = subprocess.Popen(
        [str(BIN / "labgrid-coordinator"), "-l", f"127.0.0.1:{port}"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    address = f"127.0.0.1:{port}"
    os.environ["LG_COORDINATOR"] = address
    try:
        time.sleep(3)
        for p in ("mps2-1", "mps2-2", "mps2-3"):
            for args in (("create",), ("set-tags", "board=mps2-an385")):
                subprocess.run(places.client_argv(address, "-p", p, *args), check=True)
        text = (REPO / "examples" / "labgrid-mps2.toml").read_text()
        text = re.sub(r"^repetitions = \d+", f"repetitions = {reps}", text, flags=re.M)
        one = re.sub(r"^tags = .*$", 'place = "mps2-1"', text, flags=re.M)
        for label, spec_text in (("1 place", one), ("3 places", text)) * 2:
            spec = parse_spec(spec_text, "examples/labgrid-mps2.toml")
            marks: list[float] = []
            with Store(root / f"{time.time()}" / "rtlab.duckdb") as st:
                t0 = time.monotonic()
                out = run_spec(spec, st, on_run=lambda r, m=marks: m.append(time.monotonic()))
                total = time.monotonic() - t0
            ok = sum(r.status == "ok" for r in out.runs)
            opened = marks[0] - out.runs[0].seconds - t0
            print(
                f"{label}: {ok}/{len(out.runs)} runs ok, total {total:.1f} s, "
                f"acquire+open {opened:.1f} s, runs {total - opened:.1f} s "
                f"(load average {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    finally:
        os.killpg(coord.pid, signal.SIGTERM)
        coord.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
