"""The spec keys of how a serial board's output is read, shared by the `serial` target
and the labgrid target's serial board: checked once, turned into SerialBoard's options."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rtlab.errors import ConfigError

KEYS = ("answer_s", "quiet_s", "builtin_args")


def check_reading(t: Mapping[str, Any]) -> None:
    for key in ("answer_s", "quiet_s"):
        v = t.get(key, 1)
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v <= 3600:
            raise ConfigError(key, f"{key}: expected seconds, 0 < s <= 3600")
    if not isinstance(t.get("builtin_args", False), bool):
        raise ConfigError("builtin_args", "builtin_args: expected true or false")


def reading_options(t: Mapping[str, Any]) -> dict[str, Any]:
    """SerialBoard's answer_s, quiet_s and builtin_args from a checked table."""
    return {
        "answer_s": float(t.get("answer_s", 10)),
        "quiet_s": float(t["quiet_s"]) if "quiet_s" in t else None,
        "builtin_args": bool(t.get("builtin_args", False)),
    }
