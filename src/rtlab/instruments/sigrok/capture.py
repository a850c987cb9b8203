"""A live capture with the real `sigrok-cli`: started before a workload, done after it.

    cap = SigrokRun(argv, out_path, start_timeout_s=10)
    cap.start()            # returns once sigrok-cli is acquiring (its output file exists)
    ...                    # the workload
    capture = cap.finish(timeout_s)   # waits for the end of --time, loads the .sr file

Why `--time` and not `--continuous` + SIGINT: sigrok-cli 0.7.2 has no SIGINT handler,
so SIGINT kills it (exit -2) and the .sr file ends at the last chunk it happened to
flush, indistinguishable from a crash; `--continuous` stops cleanly only on a key on
stdin ("Press any key"), and a closed stdin stops it at once. `--time T` ends by itself
with exit status 0 and a complete file of exactly T x samplerate samples, and bounds the
capture even if the runner dies. So the runner asks for the workload's expected duration
plus a margin and waits for sigrok-cli to end.

Acquisition has started when the output file exists: sigrok's srzip output creates it
on the first packet of samples. sigrok-cli's stderr is drained by a thread (the last
lines are kept for error messages), never parsed for the start.
"""

from __future__ import annotations

import collections
import contextlib
import glob
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from rtlab import formats
from rtlab.errors import FormatError, RtlabError
from rtlab.model import Capture
from rtlab.procgroup import spawn, stop_group

PROGRAM = "sigrok-cli"


class SigrokError(RtlabError):
    """sigrok-cli did not start, failed, or wrote no usable capture."""


def version(program: str = PROGRAM) -> dict[str, str | None]:
    """{"sigrok_cli": "0.7.2", "libsigrok": "0.5.2"} (None where unknown)."""
    out: dict[str, str | None] = {"sigrok_cli": None, "libsigrok": None}
    try:
        r = subprocess.run(
            [program, "--version"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return out
    for line in r.stdout.splitlines():
        words = line.replace("-", " ", 1).split() if line.startswith("- ") else line.split()
        if line.startswith("sigrok-cli ") and len(words) > 1:
            out["sigrok_cli"] = words[1]
        elif "libsigrok" in words and words.index("libsigrok") + 1 < len(words):
            out["libsigrok"] = words[words.index("libsigrok") + 1].split("/")[0]
    return out


def capture_argv(
    *,
    driver: str,
    channels: Sequence[str],
    output: Path,
    time_ms: int,
    conn: str | None = None,
    samplerate_hz: int | None = None,
    config: Sequence[str] = (),
    channel_group: str | None = None,
    program: str = PROGRAM,
) -> list[str]:
    """sigrok-cli's argv; every option as one `--name=value` word, so no value can be
    read as another option."""
    argv = [program, f"--driver={driver}" + (f":conn={conn}" if conn else "")]
    if channel_group:
        # sigrok-cli 0.7 applies every --config to this group (a device-wide option
        # such as samplerate is then "not applicable")
        argv.append(f"--channel-group={channel_group}")
    if samplerate_hz is not None:
        argv.append(f"--config=samplerate={samplerate_hz}")
    argv += [f"--config={c}" for c in config]
    argv += [
        f"--channels={','.join(channels)}",
        f"--time={time_ms}ms",
        f"--output-file={output}",
    ]
    return argv


class SigrokRun:
    """One sigrok-cli process writing one .sr file."""

    def __init__(self, argv: Sequence[str], output: Path, *, start_timeout_s: float) -> None:
        self.argv = list(argv)
        self.output = output
        self.start_timeout_s = start_timeout_s
        self.proc: subprocess.Popen[bytes] | None = None
        self.tail: collections.deque[str] = collections.deque(maxlen=20)
        self._drain: threading.Thread | None = None
        self.ended_at: float | None = None  # monotonic time sigrok-cli was seen ended

    # -- life cycle ---------------------------------------------------------------
    def start(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.output.unlink()  # its appearance is the start signal
        try:
            self.proc = spawn(  # Ctrl-C is the runner's to handle, not the tty's
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
        except OSError as e:
            raise SigrokError(f"cannot run {self.argv[0]}: {e.strerror or e}") from None
        self._drain = threading.Thread(target=self._read_stderr, daemon=True)
        self._drain.start()
        try:
            self._wait_acquiring()
        except BaseException:  # Ctrl-C while waiting: no sigrok-cli left behind
            self.abort()
            raise

    def _wait_acquiring(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + self.start_timeout_s
        while not self.output.exists():
            if self.proc.poll() is not None:
                self._join()
                raise SigrokError(
                    f"{self.argv[0]} exited with status {self.proc.returncode} before "
                    f"capturing{self.stderr_tail(': ')}"
                )
            if time.monotonic() > deadline:
                raise SigrokError(
                    f"{self.argv[0]} did not start acquiring within "
                    f"{self.start_timeout_s:g} s{self.stderr_tail(': ')}"
                )
            time.sleep(0.005)

    def running(self) -> bool:
        alive = self.proc is not None and self.proc.poll() is None
        if not alive and self.ended_at is None:
            self.ended_at = time.monotonic()
        return alive

    def finish(self, timeout_s: float) -> Capture:
        """Wait for the end of the capture (--time), then load the file."""
        assert self.proc is not None
        try:
            self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.abort()
            raise SigrokError(
                f"{self.argv[0]} did not end within {timeout_s:.1f} s of the run's end; "
                f"killed{self.stderr_tail(': ')}"
            ) from None
        self.running()
        self._join()
        rc = self.proc.returncode
        if rc != 0:
            how = f"was killed by signal {-rc}" if rc < 0 else f"exited with status {rc}"
            raise SigrokError(f"{self.argv[0]} {how}{self.stderr_tail(': ')}")
        try:
            return formats.load(self.output, format="sigrok")
        except FormatError as e:
            raise SigrokError(f"unreadable capture: {e}{self.stderr_tail('; stderr: ')}") from None

    def abort(self) -> None:
        """Stop sigrok-cli now (Ctrl-C, a failed run); the partial file goes."""
        if self.proc is not None and self.proc.poll() is None:
            stop_group(self.proc)
        self._join()
        # the file, and libzip's temporaries beside it (NAME.XXXXXX) if it was killed
        # while rewriting the archive
        for path in (self.output, *self.output.parent.glob(glob.escape(self.output.name) + ".*")):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    # -- stderr ---------------------------------------------------------------------
    def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace").strip()
            if line:
                self.tail.append(line)

    def _join(self) -> None:
        if self._drain is not None:
            self._drain.join(timeout=5)
        if self.proc is not None and self.proc.stderr is not None:
            self.proc.stderr.close()

    def stderr_tail(self, prefix: str = "") -> str:
        text = " | ".join(list(self.tail)[-5:])[-500:]
        return f"{prefix}{text}" if text else ""
