"""Conditions a run is measured under: idle, or background load from stress-ng.

A load is bounded twice: the runner stops it after each run, and stress-ng's own
`--timeout` ends it even if the runner dies (no orphan burning a CPU for hours).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rtlab.errors import ConfigError
from rtlab.registry import Registry

# profile → stress-ng stressors; {n} is the worker count (0 = one per online CPU)
PROFILES: dict[str, list[str]] = {
    "cpu": ["--cpu", "{n}"],
    "vm": ["--vm", "{n}", "--vm-bytes", "64M"],
    "io": ["--hdd", "{n}", "--hdd-bytes", "16M", "--temp-path", "/tmp"],
    "timer": ["--timer", "{n}"],
    "mixed": ["--cpu", "{n}", "--vm", "1", "--vm-bytes", "64M", "--timer", "1"],
}
KEYS = ("kind", "profile", "workers", "args", "settle_s")


@dataclass(frozen=True)
class Condition:
    name: str
    kind: str = "idle"  # idle | stress-ng
    profile: str = "cpu"  # a PROFILES key, or "custom" with args
    workers: int = 0
    args: tuple[str, ...] = field(default_factory=tuple)
    settle_s: float = 0.5  # let the stressors start before measuring

    def definition(self) -> dict[str, Any]:
        if self.kind == "idle":
            return {"kind": "idle"}
        return {
            "kind": self.kind,
            "profile": self.profile,
            "workers": self.workers,
            "args": list(self.args),
        }

    def load_argv(self, seconds: float) -> list[str] | None:
        """stress-ng's argv for a run of about `seconds`, or None when idle."""
        if self.kind == "idle":
            return None
        stressors = (
            list(self.args)
            if self.profile == "custom"
            else [a.format(n=self.workers) for a in PROFILES[self.profile]]
        )
        bound = math.ceil(seconds) + 30
        return ["stress-ng", *stressors, "--timeout", f"{bound}s", "--quiet"]


# Named conditions every spec can list; a spec's [condition.NAME] tables add more.
CONDITIONS: Registry[Condition] = Registry("condition", {}, attr="CONDITIONS")
CONDITIONS.register(Condition("idle"))
CONDITIONS.register(Condition("load", kind="stress-ng", profile="cpu", workers=0))


def condition_from_table(name: str, t: Mapping[str, Any]) -> Condition:
    for key in t:
        if key not in KEYS:
            raise ConfigError(key, f"unknown key; known: {', '.join(KEYS)}")
    kind = t.get("kind", "stress-ng")
    if kind not in ("idle", "stress-ng"):
        raise ConfigError("kind", f"kind {kind!r}: expected idle or stress-ng")
    if kind == "idle":
        return Condition(name)
    profile = t.get("profile", "cpu")
    if profile not in (*PROFILES, "custom"):
        raise ConfigError("profile", f"profile {profile!r}: one of {', '.join(PROFILES)} or custom")
    workers = t.get("workers", 0)
    if isinstance(workers, bool) or not isinstance(workers, int) or not 0 <= workers <= 1024:
        raise ConfigError("workers", "expected an integer 0..1024 (0 = one per CPU)")
    args = t.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError("args", "expected a list of stress-ng arguments (strings)")
    if profile == "custom" and not args:
        raise ConfigError("args", 'profile = "custom" needs args = ["--cpu", "1", ...]')
    if profile != "custom" and args:
        raise ConfigError("args", 'args are for profile = "custom" only')
    if any(a.startswith("--timeout") for a in args):
        raise ConfigError("args", "the runner sets --timeout itself")
    settle = t.get("settle_s", 0.5)
    if not isinstance(settle, int | float) or isinstance(settle, bool) or not 0 <= settle <= 60:
        raise ConfigError("settle_s", "expected seconds 0..60")
    return Condition(name, "stress-ng", profile, workers, tuple(args), float(settle))
