"""docs/results/*.md: every page's tables are the output of the command it names
(bench/results_pages.py). The structure, command, provenance and digest of every page
are checked always; the QEMU FreeRTOS page, deterministic under icount, is rerun and
compared figure for figure when a FreeRTOS kernel is brought."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.needs import brought
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

SCRIPT = str(REPO_ROOT / "bench" / "results_pages.py")
PAGES = (
    "rtbench-qemu-freertos",
    "rtbench-qemu-zephyr",
    "rtbench-host",
    "rtbench-qemu-smp",
    "rtbench-qemu-smp-a53-icount",
    "rtbench-qemu-smp-a53",
    "gpio-study-emulated",
    "gpio-study-icount",
    "user-vs-kernel",
    "analyze-speed",
    "rtos-compare",
    "rp2040-model",
    "rtos-cycles",
    "rp2040-model-zephyr",
    "rp2040-model-smp",
)


def pages(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=timeout
    )


def test_every_page_names_its_command_and_is_unedited() -> None:
    r = pages("check")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [w for p in PAGES for w in (f"{p}:", "ok")]
    for p in PAGES:  # every results page is one of the generated ones
        assert (REPO_ROOT / "docs" / "results" / f"{p}.md").is_file()
    assert sorted(f.stem for f in (REPO_ROOT / "docs" / "results").glob("*.md")) == sorted(PAGES)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("| 0.080 |", "| 0.056 |", 1), "edited by hand"),
        (lambda t: t.replace("Command: `rtlab run", "Command: `rtlab  run", 1), "command"),
        (lambda t: t.replace("<!-- end of generated block", "<!-- end", 1), "end-of-generated"),
        (lambda t: t.replace("Generated: 2", "Generated: on 2", 1), "date and a machine"),
    ],
)
def test_check_fails_on_a_page_that_no_longer_matches(tmp_path: Path, edit, message) -> None:
    page = (REPO_ROOT / "docs" / "results" / "rtbench-qemu-freertos.md").read_text()
    bad = tmp_path / "page.md"
    bad.write_text(edit(page))
    assert bad.read_text() != page
    r = pages("check", "rtbench-qemu-freertos", "--file", str(bad))
    assert r.returncode == 1 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_host_timed_pages_cannot_be_compared_exactly() -> None:
    r = pages("check", "--rerun", "rtbench-host")
    assert r.returncode == 1 and "cannot be compared exactly" in r.stderr


@pytest.mark.slow
def test_qemu_freertos_page_is_what_its_command_gives() -> None:
    brought(
        "FREERTOS_KERNEL_PATH",
        "a FreeRTOS-Kernel checkout",
        "V11.3.0 from github.com/FreeRTOS/FreeRTOS-Kernel; README: bring your own kernels",
    )
    r = pages("check", "--rerun", "rtbench-qemu-freertos", timeout=900)
    assert r.returncode == 0, r.stderr


def _redigest(text: str) -> str:
    """The page with its end marker's digest recomputed: a generator that wrote these
    words would have written this digest, so the words themselves must be caught."""
    end = re.compile(
        r"\nFigures: [^\n]*\n\n(.*\n)\n<!-- end of generated block sha256=[0-9a-f]+ -->", re.S
    )
    m = end.search(text)
    assert m is not None
    digest = hashlib.sha256(m.group(1).encode()).hexdigest()
    marker = f"\n<!-- end of generated block sha256={digest} -->"
    return text[: m.end(1)] + marker + text[m.end() :]


def _check_edited(tmp_path: Path, page: str, edit) -> subprocess.CompletedProcess[str]:
    text = (REPO_ROOT / "docs" / "results" / f"{page}.md").read_text()
    bad = tmp_path / "page.md"
    bad.write_text(_redigest(edit(text)))
    assert bad.read_text() != text, "the edit changed nothing: the page moved on"
    return pages("check", page, "--file", str(bad))


@pytest.mark.parametrize(
    ("page", "edit", "message"),
    [
        # the finding said "one run" beside `ok:2`
        (
            "rtbench-qemu-freertos",
            lambda t: t.replace(
                "both the same in each of the 2 runs", "one run: no run-to-run range"
            ),
            "a finding says 'one run' of freertos-cm3@idle, whose runs are ok:2",
        ),
        # a figure under its target shown unmarked (96.8× under ≥ 100×)
        (
            "analyze-speed",
            lambda t: re.sub(r"\(target >= 100x: (met|MISSED)\)", "(target >= 100x)", t, count=1),
            "a target without its verdict",
        ),
        (
            "analyze-speed",
            lambda t: re.sub(
                r"^(target: sigrok D3 in-process ratio [0-9.]+x >= 100x: )(met|MISSED)$",
                lambda m: m.group(1) + ("MISSED" if m.group(2) == "met" else "met"),
                t,
                flags=re.M,
            ),
            "is not",
        ),
        # a headline above the block quoting a figure the block does not hold (a rerun
        # moved it, or it was typed by hand)
        (
            "analyze-speed",
            lambda t: t.replace("| 2.94 s, peak RSS 109 MiB |", "| 2.94 s, peak RSS 108 MiB |"),
            "the headline quotes 108, which the generated block does not hold",
        ),
        (
            "gpio-study-emulated",
            lambda t: t.replace("| 136.21 | 168.70 |", "| 136.21 | 168.71 |"),
            "the headline quotes 168.71",
        ),
        # a module the prose names that no longer exists
        (
            "analyze-speed",
            lambda t: t.replace("`src/rtlab/formats/vcd/scanner.py`", "`vcd_scan.py`"),
            "the prose names `vcd_scan.py`, which is nowhere in the repository",
        ),
    ],
)
def test_check_holds_a_pages_words_to_its_figures(tmp_path: Path, page, edit, message) -> None:
    r = _check_edited(tmp_path, page, edit)
    assert r.returncode == 1 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_analyze_speed_marks_every_target_it_states() -> None:
    text = (REPO_ROOT / "docs" / "results" / "analyze-speed.md").read_text()
    block = text.split("Figures: ", 1)[1]
    stated = re.findall(r"\(target [^)]*\)", block)
    verdicts = re.findall(r"^target: .*: (met|MISSED)$", block, re.M)
    # one verdict line per target stated beside a figure (bench/analyze_speed.py)
    assert len(stated) == len(verdicts) >= 7, block
    assert all(s.endswith((": met)", ": MISSED)")) for s in stated)
    # the prose claims no observation of the figures ("the first run is usually slowest")
    prose = text.split("<!-- generated by", 1)[0]
    assert "usually the slowest" not in prose
