"""The house rules of docs/architecture.md that import-linter does not check: small
modules (no Python module of src/ over 400 lines)."""

from __future__ import annotations

from tests.paths import REPO_ROOT

SRC = REPO_ROOT / "src" / "rtlab"
MAX_LINES = 400


def test_no_module_over_400_lines() -> None:
    sizes = {p.relative_to(SRC): len(p.read_text().splitlines()) for p in SRC.rglob("*.py")}
    big = {str(p): n for p, n in sizes.items() if n > MAX_LINES}
    assert not big, f"split these along their seams (one job per module): {big}"


def test_no_import_cycle_between_modules() -> None:
    """import-linter's acyclic_siblings contract checks packages; this checks modules,
    lazy imports inside functions included (grimp, import-linter's graph)."""
    import grimp

    graph = grimp.build_graph("rtlab")
    cycles = sorted(
        (a, b)
        for a in graph.modules
        for b in graph.find_modules_directly_imported_by(a)
        if graph.chain_exists(importer=b, imported=a)
    )
    assert not cycles, f"modules importing each other (directly or through others): {cycles}"
