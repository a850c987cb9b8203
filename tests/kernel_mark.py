"""The `kernel` mark kept honest (a pytest plugin, loaded by tests/conftest.py): a test
that skips for something the user brings must carry it, because `make test-kernels`
runs exactly the marked tests (-m kernel); an unmarked one would run nowhere once the
kernels are set. `make test`, which brings none, fails such a test."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

# A skip for something the user brings: needs.brought's "set VAR to …", a port's own
# missing() line, test_rtos_study's "bring an RTOS".
_BRING = re.compile(r"^set [A-Za-z_]+ |bring an RTOS|bring your own kernels")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Iterator[None]:
    """A test that skips for a kernel the user brings must carry the `kernel` mark:
    `make test-kernels` runs exactly the marked ones (-m kernel), so an unmarked one would
    run nowhere once the kernels are set. `make test`, which brings none, fails it."""
    outcome = yield
    rep = outcome.get_result()
    if not rep.skipped or item.get_closest_marker("kernel") is not None:
        return
    longrepr = rep.longrepr
    reason = str(longrepr[2] if isinstance(longrepr, tuple) else longrepr)
    if _BRING.search(reason.removeprefix("Skipped: ")):
        rep.outcome = "failed"
        rep.longrepr = (
            f"{item.nodeid} skips for a kernel the user brings ({reason.strip()}) but is "
            "not marked `kernel`: make test-kernels (-m kernel) would never run it; add "
            "pytestmark = pytest.mark.kernel to its module"
        )
