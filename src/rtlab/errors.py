"""User-facing errors: printed as one clear line by the CLI, never as a traceback."""

from __future__ import annotations

from pathlib import Path


class RtlabError(Exception):
    """A mistake in the user's input or environment, with a message meant for them."""


class NothingRan(RtlabError):
    """The target could not run the workload at all (a board that does not answer, a
    wrong image, a probe gone): the run being stored is dropped, not marked, so that
    nothing of it is stored; the message says why, and the session stops."""


class FormatError(RtlabError):
    """Bad input in a file: names the file and the line or byte offset, and what was
    expected there."""

    def __init__(
        self,
        path: str | Path,
        message: str,
        *,
        line: int | None = None,
        offset: int | None = None,
        member: str | None = None,
    ) -> None:
        self.path = str(path)
        self.message = message
        self.line = line
        self.offset = offset
        self.member = member  # a file inside an archive (zip member)
        where = self.path
        if member is not None:
            where += f"[{member}]"
        if line is not None:
            where += f":{line}"
        if offset is not None:
            where += f": byte {offset}"
        super().__init__(f"{where}: {message}")


class ConfigError(RtlabError, ValueError):
    """A mistake in one value of an experiment spec's table (target, workload,
    condition, instrument): `key` names it, so the spec error points at its line
    (`file:line: table.key: message`)."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key
