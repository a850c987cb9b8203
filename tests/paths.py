"""Where the tests find the repository, whatever folder a test sits in."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
