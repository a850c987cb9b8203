"""rtlab reaches labgrid through its public surface only: the `labgrid-client` command,
an Environment, and the drivers and resources of its targets. labgrid's internals (the
one client session a process keeps, its event loop, a driver's private attributes)
change between releases without notice, so none is named here."""

from __future__ import annotations

import re

from tests.paths import REPO_ROOT

SRC = REPO_ROOT / "src" / "rtlab"
INTERNALS = {
    "labgrid's per-process place manager": re.compile(r"\bRemotePlaceManager\b"),
    "labgrid's client event loop": re.compile(r"\.loop\.run_until_complete\b"),
    # another object's _name (self's own are rtlab's): a labgrid driver's private state
    "a private attribute of another object": re.compile(
        r"\b(?!self\b|cls\b)[A-Za-z_]\w*\._[a-z]\w*"
    ),
}


def internals(text: str) -> list[str]:
    return [what for what, pattern in INTERNALS.items() if pattern.search(text)]


def test_labgrid_is_reached_through_its_public_api_only() -> None:
    found = {
        f"{path.relative_to(REPO_ROOT)}: {what}"
        for path in SRC.rglob("*.py")
        if re.search(r"^\s*(from|import) labgrid\b", text := path.read_text(), re.M)
        or "labgrid" in path.parts
        for what in internals(text)
    }
    assert sorted(found) == []


def test_the_check_finds_each_internal_and_passes_rtlabs_own() -> None:
    assert internals("mgr: Any = RemotePlaceManager.get()") == [
        "labgrid's per-process place manager"
    ]
    assert internals("mgr.loop.run_until_complete(asyncio.sleep(0.05))") == [
        "labgrid's client event loop"
    ]
    assert internals('argv = [d._ssh, "-x"]') == ["a private attribute of another object"]
    assert internals("self._reaper = None; self.driver.ssh_prefix") == []
