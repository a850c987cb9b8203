"""Where workloads run: a registry of target kinds (`local`, `ssh`; more plug in).

A target runs an argv to completion (`run`), starts a background argv (`start`, for
load generators), names the path of a workload program (`program`) and describes its
environment (`fingerprint`). Another kind registers itself with `register_target` from a
module `rtlab.bench.targets_<kind>`, imported the first time a spec names that kind
(e.g. `targets_qemu`): nothing here needs to change for it.

No shell strings are built from spec values: local argvs go to exec as lists; over ssh
each argument is quoted with shlex.quote, because ssh hands the remote side one command
line that its login shell splits again.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import shlex
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rtlab.errors import RtlabError
from rtlab.lab import hostview
from rtlab.lab.fingerprint import fingerprint
from rtlab.procgroup import kill_group, stop_group


class TargetError(ValueError):
    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


@dataclass
class Completed:
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool = False


class Background(Protocol):
    def stop(self) -> None: ...


class Target(Protocol):
    kind: str

    def describe(self) -> dict[str, Any]: ...
    def program(self, name: str) -> str: ...
    def run(self, argv: Sequence[str], timeout: float) -> Completed: ...
    def start(self, argv: Sequence[str]) -> Background: ...
    def fingerprint(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class TargetKind:
    name: str
    keys: tuple[str, ...]
    check: Callable[[Mapping[str, Any]], None]
    make: Callable[[Mapping[str, Any]], Target]
    # A kind that cannot apply every load condition refuses one at spec load: it gets
    # the condition's definition() and raises TargetError(condition key, message).
    check_condition: Callable[[Mapping[str, Any]], None] | None = None


TARGET_KINDS: dict[str, TargetKind] = {}
_MODULES = {"qemu": "qemu_mps2"}


def register_target(kind: TargetKind) -> None:
    TARGET_KINDS[kind.name] = kind


def target_kind(name: str) -> TargetKind:
    if name not in TARGET_KINDS and re.fullmatch(r"[a-z][a-z0-9_]*", name):
        with contextlib.suppress(ModuleNotFoundError):
            # registers itself; a kind's module is named after the kind or its machine
            importlib.import_module(f"rtlab.lab.targets.{_MODULES.get(name, name)}")
    if name not in TARGET_KINDS:
        raise TargetError("kind", f"unknown target kind {name!r}; one of {', '.join(TARGET_KINDS)}")
    return TARGET_KINDS[name]


def check_target(t: Mapping[str, Any]) -> None:
    kind = target_kind(str(t.get("kind", "local")))
    for key in t:
        if key not in ("kind", *kind.keys):
            raise TargetError(
                key,
                f"unknown key for a {kind.name} target; known: {', '.join(('kind', *kind.keys))}",
            )
    kind.check(t)


def make_target(t: Mapping[str, Any]) -> Target:
    check_target(t)
    return target_kind(str(t.get("kind", "local"))).make(t)


# ------------------------------------------------------------------ processes


def run_process(argv: Sequence[str], timeout: float) -> Completed:
    """Run to completion in its own process group. Ctrl-C (KeyboardInterrupt) or a
    timeout stop the whole group; the interrupt is re-raised once it is gone."""
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,  # our Ctrl-C handling decides, not the terminal's
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        return Completed(proc.returncode, out, err)
    except subprocess.TimeoutExpired:
        kill_group(proc, signal.SIGKILL)
        out, err = proc.communicate()
        return Completed(proc.returncode, out, err, timed_out=True)
    except BaseException:
        kill_group(proc, signal.SIGKILL)
        with contextlib.suppress(Exception):
            proc.communicate(timeout=5)
        raise


class _Group:
    """A background process group: SIGTERM on stop, SIGKILL if it lingers."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def stop(self) -> None:
        stop_group(self.proc)


# ------------------------------------------------------------------ local

# program name → (C program under workloads/ built by build_c_target, executable in it;
# "" = the target's main program). Workload modules add theirs with local_program().
_LOCAL_BUILDS = {
    "rtlab-latency": ("rtlab-latency", ""),
    "rtbench-posix": ("rtbench", "rtbench-posix"),
}


def local_program(name: str, c_target: str, executable: str = "") -> None:
    """Tell the local target which C build provides program `name`."""
    _LOCAL_BUILDS.setdefault(name, (c_target, executable))


class LocalTarget:
    kind = "local"

    def __init__(self, t: Mapping[str, Any]) -> None:
        self.programs = dict(t.get("programs", {}))

    def describe(self) -> dict[str, Any]:
        return {"kind": "local", "host": os.uname().nodename}

    def program(self, name: str) -> str:
        if name in self.programs:
            return str(self.programs[name])
        from rtlab.lab.build import build_c_target

        target, exe = _LOCAL_BUILDS.get(name, (name, ""))
        built = build_c_target(target)
        return str(built / exe if exe else built)

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        return run_process(argv, timeout)

    def start(self, argv: Sequence[str]) -> Background:
        return _Group(argv)

    def fingerprint(self) -> dict[str, Any]:
        return fingerprint()


def _check_programs(t: Mapping[str, Any]) -> None:
    progs = t.get("programs", {})
    if not isinstance(progs, dict) or not all(isinstance(v, str) for v in progs.values()):
        raise TargetError("programs", 'expected a table: program name = "path"')


# ------------------------------------------------------------------ ssh

_SAFE_NAME = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.:@%-]*")
# ssh -o Key=Value: a keyword, then a value without a leading '-' or a newline
_SSH_OPTION = re.compile(r"[A-Za-z]+=[^\s-][^\n]*")


def _check_ssh(t: Mapping[str, Any]) -> None:
    _check_programs(t)
    for key in ("host", "user"):
        v = t.get(key)
        if key == "host" and v is None:
            raise TargetError("host", 'an ssh target needs host = "name or address"')
        # a leading '-' would be read by ssh as an option
        if v is not None and (not isinstance(v, str) or not _SAFE_NAME.fullmatch(v)):
            raise TargetError(key, f"{key} = {v!r}: not a host or user name")
    port = t.get("port", 22)
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise TargetError("port", "expected a port number 1..65535")
    if "identity" in t and not isinstance(t["identity"], str):
        raise TargetError("identity", "expected the path of a private key")
    opts = t.get("ssh_options", [])
    if not isinstance(opts, list) or not all(
        isinstance(o, str) and _SSH_OPTION.fullmatch(o) for o in opts
    ):
        raise TargetError(
            "ssh_options", 'expected a list of ssh -o options, e.g. ["ConnectTimeout=5"]'
        )


class SshTarget:
    kind = "ssh"

    def __init__(self, t: Mapping[str, Any]) -> None:
        self.host = str(t["host"])
        self.user = t.get("user")
        self.port = int(t.get("port", 22))
        self.identity = t.get("identity")
        self.options = list(t.get("ssh_options", []))
        self.programs = dict(t.get("programs", {}))

    def ssh_argv(self, remote: Sequence[str], tty: bool = False) -> list[str]:
        argv = ["ssh", "-o", "BatchMode=yes", "-p", str(self.port)]
        if self.identity:
            argv += ["-i", os.path.expanduser(self.identity)]
        if self.user:
            argv += ["-l", str(self.user)]
        for opt in self.options:
            argv += ["-o", opt]
        if tty:
            argv.append("-tt")  # closing the connection hangs up the remote process
        return [*argv, "--", self.host, " ".join(shlex.quote(a) for a in remote)]

    def describe(self) -> dict[str, Any]:
        return {"kind": "ssh", "host": self.host, "user": self.user, "port": self.port}

    def program(self, name: str) -> str:
        return str(self.programs.get(name, name))  # else found on the remote PATH

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        return run_process(self.ssh_argv(argv), timeout)

    def start(self, argv: Sequence[str]) -> Background:
        return _Group(self.ssh_argv(argv, tty=True))

    def fingerprint(self) -> dict[str, Any]:
        """The same fingerprint as a local run's, from one dump of the target's /proc
        and /sys taken over this connection (the board needs only a POSIX shell)."""
        r = self.run(["sh", "-c", hostview.SCRIPT], timeout=60)
        if r.returncode != 0 or hostview.SEP not in r.stdout:
            tail = " ".join(r.stderr.strip().splitlines()[-2:])[:300]
            raise RtlabError(f"cannot reach {self.host} over ssh (exit {r.returncode}): {tail}")
        fp = fingerprint(view=hostview.SnapshotView(r.stdout))
        fp["ssh_host"] = self.host
        return fp


register_target(TargetKind("local", ("programs",), _check_programs, LocalTarget))
register_target(
    TargetKind(
        "ssh",
        ("host", "user", "port", "identity", "ssh_options", "programs"),
        _check_ssh,
        SshTarget,
    )
)
