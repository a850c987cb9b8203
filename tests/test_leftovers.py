"""The session's leftover check finds a QEMU that a test started (by the session's token
in its environment) and only that one: a QEMU of another job on this host, without the
token, is none of its business."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests import leftovers


def test_a_qemu_the_session_started_is_found_and_another_jobs_is_not(tmp_path: Path) -> None:
    fake = tmp_path / "qemu-system-arm"  # its comm is the name it was started by
    fake.symlink_to(shutil.which("sleep") or "/bin/sleep")
    # a token of its own: the session's leftovers (a lab fixture's) are not this test's
    entry = f"{leftovers.TOKEN_VAR}=this-test-{os.getpid()}".encode()
    env = {k: v for k, v in os.environ.items() if k != leftovers.TOKEN_VAR}
    ours = subprocess.Popen(
        [str(fake), "60"], env={**env, leftovers.TOKEN_VAR: entry.decode().split("=", 1)[1]}
    )
    theirs = subprocess.Popen([str(fake), "60"], env=env)
    try:
        found = leftovers.leftovers(entry)
        assert list(found) == [ours.pid]
        assert leftovers.wait_for_none(entry, grace_s=0.5).keys() == {ours.pid}
        assert ours.wait(timeout=10) != 0  # killed by it, by pid
        assert theirs.poll() is None
    finally:
        for p in (ours, theirs):
            p.kill()
            p.wait()
