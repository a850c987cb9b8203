"""Writing files so that a crash or an error never leaves a partial one behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


def umask_mode(mode: int = 0o666) -> int:
    """`mode` as open(2) would create a file under the process umask."""
    mask = os.umask(0)  # the only portable way to read it
    os.umask(mask)
    return mode & ~mask


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside `path`; rename it over `path` only on success.

    The file ends with the mode a plain open() would give it (0666 less the umask), not
    mkstemp's 0600; errors name `path`, not the temporary file."""
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(21, "is a directory, not a file", str(target))
    # the missing folders are made, and removed again when the file is not written
    created = [d for d in target.parent.absolute().parents if not d.exists()][::-1]
    if not target.parent.exists():
        created.append(target.parent.absolute())
    done = False
    try:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(
                prefix=f".{target.name}.", suffix=".part", dir=target.parent
            )
        except OSError as exc:
            raise type(exc)(
                exc.errno, f"cannot write there ({exc.strerror})", str(target)
            ) from None
        os.close(fd)
        tmp_path = Path(tmp)
        try:
            yield tmp_path
            tmp_path.chmod(umask_mode())
            os.replace(tmp_path, target)
            done = True
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp_path.unlink()
    finally:
        if not done:
            for d in reversed(created):
                with contextlib.suppress(OSError):
                    d.rmdir()  # only if empty: never anything else's
