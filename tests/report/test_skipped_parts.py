"""`rtlab report --skipped`: a part `make run` could not run is named first in the report
(HTML, Markdown, JSON), so its absence is never read as a result."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.results.test_store_v0_fixture import store_v0  # noqa: F401 - fixture

RTLAB = Path(sys.executable).with_name("rtlab")
SKIP = "GPIO study (emulated): skipped — no arm64 kernel — run `make setup`"


def rtlab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(RTLAB), *args], capture_output=True, text=True, timeout=120)


def test_skipped_part_heads_every_report_format(store_v0: Path, tmp_path: Path) -> None:  # noqa: F811
    base = ("report", "--store", str(store_v0), "fixture-v0", "--skipped", SKIP)
    out = tmp_path / "r.html"
    html = rtlab(*base, "-o", str(out))
    assert html.returncode == 0, html.stderr
    text = out.read_text()
    box = text.index('id="skipped"')
    assert box < text.index('id="environment"')  # before any figure
    assert "no arm64 kernel — run `make setup`" in text[box:]
    md = rtlab(*base, "--md")
    assert md.stdout.splitlines()[0] == f"- **skipped:** {SKIP}"
    doc = json.loads(rtlab(*base, "--json").stdout)
    assert doc["skipped"] == [SKIP]


def test_no_skipped_part_no_box(store_v0: Path, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "r.html"
    assert rtlab("report", "--store", str(store_v0), "fixture-v0", "-o", str(out)).returncode == 0
    assert 'id="skipped"' not in out.read_text()
    doc = json.loads(rtlab("report", "--store", str(store_v0), "fixture-v0", "--json").stdout)
    assert "skipped" not in doc
