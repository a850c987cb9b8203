"""`make test-kernels` runs the tests marked `kernel`: a test that skips for a kernel the
user brings without that mark fails (tests/kernel_mark.py), so none is left out."""

from __future__ import annotations

import pytest

from tests.paths import REPO_ROOT

pytest_plugins = ["pytester"]

MODULE = """
import pytest

def test_unmarked():
    pytest.skip("set FOO_KERNEL_PATH to a FOO checkout (README: bring your own kernels)")

@pytest.mark.kernel
def test_marked():
    pytest.skip("set FOO_KERNEL_PATH to a FOO checkout (README: bring your own kernels)")

def test_other_skip():
    pytest.skip("no gpiochip on this machine")
"""


def test_an_unmarked_kernel_skip_fails_and_a_marked_one_skips(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_kernels=MODULE)
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))  # the plugin, in its own process
    result = pytester.runpytest_subprocess("-p", "tests.kernel_mark", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1, skipped=2)
    result.stdout.fnmatch_lines(["*test_unmarked skips for a kernel the user brings*"])
