"""Where the repository's data lies (the machine files and port folders the catalog reads)."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
RTBENCH_DIR = REPO_ROOT / "workloads" / "rtbench"
