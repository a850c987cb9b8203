"""The `rp2040_model` flasher: rtlab's RP2040 board model (models/rp2040: rp2040js 1.4.1
extended with the project's boot ROM, SysTick, cycle corrections and XIP cache) runs the
image a real Pico takes (UF2 or ELF). "Flashing" it is starting the model with the image;
its UART0 comes out on a pseudo-terminal that the serial target opens like a USB-serial
adapter, and the model starts at `reset()`, once the port is open, so no byte is lost.

The figures are a cycle model, not silicon: deterministic (the same image gives the same
samples, run after run) and checked against the Cortex-M0+ TRM (docs/rp2040-model.md);
every run's meta says so (`timebase = rp2040_model`, `timing`, `model_leaves_out`).

    [target]
    kind = "serial"
    board = "pico"               # its description says model = "rp2040"
    flasher = "rp2040_model"
    builtin_args = true          # as on a Pico: the image runs the options built into it
    # xip_cache = "two-way"      # the RP2040's 16 KiB two-way cache (true says the same);
                                 # "compulsory": only a line's first miss after a flush
                                 # (warm figures independent of the code's layout);
                                 # "fully-associative": 16 KiB, LRU, one set (its
                                 # capacity misses too, still no conflict misses);
                                 # "off" (false): flash reads cost SRAM reads (rp2040js)
    # layout_shift_kib = 3       # the XIP cache sees the image's second half 3 KiB later,
                                 # as if that much dead code were linked mid-image: one
                                 # of the layouts the link might have given (0: none)
    # arbitration_ties = "core0-first"  # which core a bus arbiter grants first when
                                 # both cores (equal BUS_PRIORITY) ask in one cycle:
                                 # round-robin from core 0 ("core0-first") or core 1
                                 # ("core1-first"); "core0-always" / "core1-always":
                                 # a fixed order (a bound, not silicon)
    # max_cycles = 20000000000   # the cycle budget of one run (160 s at 125 MHz)
    # capture_module = true      # the rtlab capture module wired to it, on a second
                                 # RP2040 model, one clock: [instrument]
                                 # kind = "rp2040", port = "place" times its pins
                                 # (docs/instrument-pair.md); or the module image's path
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import threading
import tty
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rtlab.catalog.machines import Machine
from rtlab.errors import ConfigError
from rtlab.lab.c_targets import REPO_ROOT
from rtlab.lab.serialboard.errors import SerialBoardError
from rtlab.lab.serialboard.model_bench import CAPTURE_IMAGE, BenchRuns, close_when_read
from rtlab.procgroup import kill_group, spawn_held

MODEL_DIR = REPO_ROOT / "models" / "rp2040"
TIMING = "cycle model (rp2040js), not silicon"
# The multi-core timing mode the model's runs are taken in, as stored runs say it (the
# model's machine file names it too, with what it is: rtlab.studies.multicore.MODES):
# both cores stepped in one clock by a fixed rule, deterministic, so the 2-core figures
# that QEMU icount withholds (its vCPUs run in turns) stand here.
TIMING_MODE = "rp2040-model"
LEAVES_OUT = (
    "wait states beyond APB (+3 read, +4 write); DMA bus cycles; "
    "the M0+ prefetch; tail-chaining and late arrival (a full exit and entry instead); "
    "flash erase/program times; PIO timing unless stepped; clock and PLL start-up times"
)
# The XIP cache's modes (models/rp2040/src/xip.js) and what a run's meta says of each.
XIP_MODES = {
    "two-way": "modelled",
    "compulsory": "compulsory misses only (no conflict misses)",
    "fully-associative": "16 KiB fully associative, LRU (compulsory and capacity misses, "
    "no conflict misses)",
    "off": "off",
}
# Who wins a bus tie between the cores first (models/rp2040/src/bus.js TIES) and what a
# run's meta says of it.
ARBITRATION_TIES = {
    "core0-first": "round-robin per arbiter, the first tie to core 0",
    "core1-first": "round-robin per arbiter, the first tie to core 1",
    "core0-always": "every tie to core 0 (a bound, not silicon)",
    "core1-always": "every tie to core 1 (a bound, not silicon)",
}
# How long the port outlives the model for its reader to read what the model wrote last
# (its done line): the model exits at once, and a hang-up would drop unread bytes.
PORT_DRAIN_S = 30.0
BENCH = (
    "the rtlab capture module's firmware on a second RP2040 model, one clock, its PIO "
    "stepped every cycle; wires instantaneous (no input synchronizer)"
)


def _rp2040js_version() -> str:
    import json

    pkg = MODEL_DIR / "node_modules" / "rp2040js" / "package.json"
    try:
        return str(json.loads(pkg.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return "missing"


def _xip_mode(value: object) -> str:
    """The XIP cache's mode from a spec's `xip_cache` (true and false name the two ends)."""
    if value is True:
        return "two-way"
    if value is False:
        return "off"
    if isinstance(value, str) and value in XIP_MODES:
        return value
    raise ConfigError(
        "xip_cache", f"xip_cache: expected true, false or one of {', '.join(XIP_MODES)}"
    )


def _ties(value: object) -> str:
    """A spec's `arbitration_ties` (default: round-robin from core 0)."""
    if isinstance(value, str) and value in ARBITRATION_TIES:
        return value
    raise ConfigError(
        "arbitration_ties",
        f"arbitration_ties: expected one of {', '.join(ARBITRATION_TIES)}",
    )


class Rp2040ModelFlasher:
    name = "rp2040_model"
    passes_args = False
    gives_port = True
    keys = ("xip_cache", "layout_shift_kib", "arbitration_ties", "max_cycles", "capture_module")

    def __init__(self, board: Machine, spec: Mapping[str, Any]) -> None:
        if board.model != "rp2040":
            raise ConfigError(
                "flasher",
                f"board {board.board}: its description ({board.source}) names no "
                'model = "rp2040", so the RP2040 model does not run it',
            )
        xip = _xip_mode(spec.get("xip_cache", True))
        shift = spec.get("layout_shift_kib", 0)
        if isinstance(shift, bool) or not isinstance(shift, int) or not 0 <= shift <= 64:
            raise ConfigError("layout_shift_kib", "layout_shift_kib: expected KiB 0..64")
        ties = _ties(spec.get("arbitration_ties", "core0-first"))
        budget = spec.get("max_cycles", 20_000_000_000)
        if isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0:
            raise ConfigError("max_cycles", "max_cycles: expected a positive integer")
        module = spec.get("capture_module", False)
        if not isinstance(module, bool | str) or module == "":
            raise ConfigError(
                "capture_module", "capture_module: expected true, false or the module image"
            )
        if shift and module is not False:
            raise ConfigError(
                "layout_shift_kib", "layout_shift_kib: the capture module's bench runs no shift"
            )
        self.bench: BenchRuns | None = None
        if module is not False:
            image = CAPTURE_IMAGE if module is True else Path(str(module))
            self.bench = BenchRuns(image if image.is_absolute() else REPO_ROOT / image)
        self.board = board
        self.xip_cache = xip
        self.layout_shift_kib = shift
        self.arbitration_ties = ties
        self.max_cycles = budget
        self.image: Path | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self._fds: tuple[int, int] | None = None  # the pty's master, slave
        self._stderr: list[str] = []
        self._drain: threading.Thread | None = None
        self._port: str | None = None
        self._port_end: threading.Thread | None = None
        self._read_over = threading.Event()

    def check(self) -> None:
        if shutil.which("node") is None:
            raise SerialBoardError(
                "node not found: `make setup` installs it (deps/setup.d/rp2040-model.sh)"
            )
        for need in ("node_modules/rp2040js", "rom/build/rp2040-rom.bin"):
            if not (MODEL_DIR / need).exists():
                raise SerialBoardError(
                    f"the RP2040 model is not set up ({MODEL_DIR / need} missing): "
                    "run `make setup` (deps/setup.d/rp2040-model.sh)"
                )
        if self.bench is not None and not self.bench.capture_image.is_file():
            raise SerialBoardError(
                f"capture_module: no image {self.bench.capture_image} (build the capture "
                "firmware: `make -C firmware/rp2040-capture`)"
            )

    def module_port(self) -> str | None:
        """The attached capture module's serial port (the bench starts), None without one."""
        return self.bench.module_port() if self.bench is not None else None

    def flash(self, image: Path, words: Sequence[str]) -> None:
        """Opens the pseudo-terminal the model's UART0 will write to; the model starts at reset."""
        self.finish()
        self.image = image
        if self.bench is not None:
            return self.bench.flash(image)
        master, slave = os.openpty()
        tty.setraw(slave)  # bytes as they are: no echo, no CR/LF translation
        self._fds = (master, slave)
        self._port = os.ttyname(slave)
        self._stderr = []

    def port(self) -> str | None:
        if self.bench is not None:
            return self.bench.port()
        assert self._port is not None, "flash() first"
        return self._port

    def argv(self) -> list[str]:
        assert self.image is not None
        cmd = ["node", str(MODEL_DIR / "run.js"), "--image", str(self.image),
               "--max-cycles", str(self.max_cycles)]  # fmt: skip
        shift = ["--xip-layout-shift", str(self.layout_shift_kib * 1024)]
        return [
            *cmd, "--xip-cache", self.xip_cache, *(shift if self.layout_shift_kib else []),
            "--arbitration-ties", self.arbitration_ties,
        ]  # fmt: skip

    def reset(self) -> None:
        if self.bench is not None:
            return self.bench.reset(self.max_cycles, self.xip_cache)
        assert self._fds is not None, "flash() first"
        self.proc = spawn_held(  # a killed rtlab leaves no model running
            self.argv(), stdin=subprocess.DEVNULL, stdout=self._fds[0], stderr=subprocess.PIPE
        )
        self._drain = threading.Thread(target=self._drain_stderr, args=(self.proc,), daemon=True)
        self._drain.start()
        # The model writes the port's master; ours stays open until the reader has read
        # what it wrote (close_when_read): its exit alone would hang the port up at once.
        fds, self._fds = self._fds, None
        self._read_over = threading.Event()
        self._port_end = threading.Thread(
            target=self._end_port, args=(self.proc, fds, self._read_over), daemon=True
        )
        self._port_end.start()

    @staticmethod
    def _end_port(
        proc: subprocess.Popen[bytes], fds: tuple[int, int], over: threading.Event
    ) -> None:
        proc.wait()
        close_when_read(fds, PORT_DRAIN_S, over)

    def _drain_stderr(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            self._stderr.append(raw.decode("utf-8", "replace").strip())

    def finish(self) -> int | None:
        """The model's exit status (0: the done line; 2: an error of the image or the
        model, in notes(); 3: the cycle budget ran out). It is stopped if it still runs."""
        if self.bench is not None:
            return self.bench.finish()
        proc, self.proc = self.proc, None
        status = None
        if proc is not None:
            try:
                status = proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                kill_group(proc, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=5)
            if self._drain is not None:
                self._drain.join(timeout=5)  # its last line (the model's error) read
            if proc.stderr is not None:
                proc.stderr.close()
        self._read_over.set()  # the reader is done: the port closes now
        if self._port_end is not None:
            self._port_end.join(timeout=5)
            self._port_end = None
        self._close_pty()
        return status

    def _close_pty(self) -> None:
        if self._fds is not None:
            for fd in self._fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._fds = None

    def labels(self, extra: Mapping[str, object]) -> dict[str, object]:
        """What every run's meta says of the model: data merged into each run's meta by the
        reader (protocol.Labels), not protocol text, so not percent-encoded."""
        own = {
            "timebase": "rp2040_model",
            "timing": TIMING,
            "timing_mode": TIMING_MODE,
            "model": f"rp2040js {_rp2040js_version()} + rtlab (models/rp2040)",
            "xip_cache": XIP_MODES[self.xip_cache],
            "arbitration_ties": ARBITRATION_TIES[self.arbitration_ties],
            "model_leaves_out": LEAVES_OUT,
        }
        if self.layout_shift_kib:
            own["xip_layout_shift"] = f"{self.layout_shift_kib} KiB mid-image"
        if self.bench is not None:
            own["instrument_bench"] = BENCH
        return {**own, **extra}

    def notes(self) -> str:
        if self.bench is not None:
            return self.bench.notes()
        return " ".join(self._stderr[-2:])[:300]

    def describe(self) -> dict[str, Any]:
        return {
            "flasher": self.name,
            "model": "rp2040",
            "rp2040js_version": _rp2040js_version(),
            "timebase": "rp2040_model",
            "timing": TIMING,
            "xip_cache": self.xip_cache,
            **({"layout_shift_kib": self.layout_shift_kib} if self.layout_shift_kib else {}),
            "arbitration_ties": self.arbitration_ties,
            "max_cycles": self.max_cycles,
            **({"capture_module": str(self.bench.capture_image)} if self.bench else {}),
        }

    def abort(self) -> None:
        if self.bench is not None:
            return self.bench.abort()
        proc = self.proc
        if proc is not None and proc.poll() is None:
            kill_group(proc, signal.SIGKILL)

    def close(self) -> None:
        """Ends the bench (with its capture module), if one was started."""
        if self.bench is not None:
            self.bench.close()


FLASHER = Rp2040ModelFlasher
