"""Errors the runner and the studies share: raised by a workload's checks and by a
study's tables alike."""

from __future__ import annotations

from rtlab.errors import ConfigError


class RtbenchError(ConfigError):
    """Bad parameters (`key` names the one of the spec's [[workload]] table), or runs
    that do not hold what a study's table needs (rtlab.studies.rtbench)."""

    def __init__(self, message: str, key: str = "kind") -> None:
        super().__init__(key, message)
