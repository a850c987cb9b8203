"""The house rules of docs/architecture.md that import-linter does not check: statistics
computed only in rtlab.analysis (one quantile definition, docs/metrics.md), no import
cycle between modules. Module sizes are a figure `make lint` prints
(scripts/module_sizes.py): a module is split along its seams, not at a line count."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.paths import REPO_ROOT

SRC = REPO_ROOT / "src" / "rtlab"


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


# numpy's, the standard library's and pandas/DuckDB's own quantile functions: each has its
# own default definition (numpy and pandas interpolate), so only rtlab.analysis may call
# one (rtlab.analysis.stats: the inverted CDF, named in every output).
STAT_CALLS = {
    "quantile", "median", "percentile", "nanquantile", "nanmedian", "nanpercentile",
    "quantile_cont", "quantile_disc", "approx_quantile",
}  # fmt: skip
STAT_MODULES = {"statistics", "scipy.stats"}


def statistics_outside_analysis(path: Path, root: Path = REPO_ROOT) -> list[str]:
    """`file:line: what` for every call of a quantile function of numpy (or of any
    object: a pandas Series' .quantile) and every import of `statistics`/`scipy.stats`
    in one module; SQL text naming a quantile aggregate counts too. In line order."""
    tree = ast.parse(path.read_text(), str(path))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        what = ""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in STAT_CALLS:
                what = f".{node.func.attr}()"
        elif isinstance(node, ast.Import):
            what = ", ".join(a.name for a in node.names if a.name in STAT_MODULES)
        elif isinstance(node, ast.ImportFrom):
            if node.module in STAT_MODULES:
                what = f"from {node.module} import"
            elif node.module == "numpy":
                what = ", ".join(a.name for a in node.names if a.name in STAT_CALLS)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            low = node.value.lower()
            what = next((f"SQL {f}(" for f in sorted(STAT_CALLS) if f"{f}(" in low), "")
        if what:
            out.append((node.lineno, what))  # type: ignore[attr-defined]
    where = path.relative_to(root)
    return [f"{where}:{line}: {what}" for line, what in sorted(out)]


def test_statistics_only_in_analysis() -> None:
    """Quantiles, medians and percentiles outside src/rtlab/analysis/ would bring a
    second definition (numpy's default interpolates between two samples)."""
    found = [
        hit
        for p in sorted(SRC.rglob("*.py"))
        if p.relative_to(SRC).parts[0] != "analysis"
        for hit in statistics_outside_analysis(p)
    ]
    assert not found, "compute these with rtlab.analysis.stats:\n" + "\n".join(found)


def test_the_statistics_check_finds_each_kind(tmp_path: Path) -> None:
    """The check above is not vacuous: it flags each way a quantile could be computed,
    and not rtlab.analysis.stats' own functions called by name."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import statistics\nimport numpy as np\nfrom numpy import percentile\n"
        "a = np.median([1, 2])\nb = np.quantile([1], 0.5)\nc = s.quantile(0.9)\n"
        "d = statistics.median([1])\ne = 'SELECT quantile_cont(x, 0.5) FROM t'\n"
        "f = median([1, 2])\n"
    )
    hits = [h.split(": ", 1)[1] for h in statistics_outside_analysis(bad, tmp_path)]
    assert hits == [
        "statistics",
        "percentile",
        ".median()",
        ".quantile()",
        ".quantile()",
        ".median()",
        "SQL quantile_cont(",
    ], hits


def test_no_module_imports_another_modules_private_name() -> None:
    """A module's _name is its own: what another module needs is public (a seam), never
    reached through `from rtlab.x import _helper`."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rtlab"):
                found += [
                    f"{path.relative_to(SRC)}:{node.lineno}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert found == []


def test_code_gives_reasons_not_issue_numbers() -> None:
    """A comment or docstring says why; an issue number says where to look elsewhere."""
    pattern = re.compile(r"\b[Ii]ssues? #?\d+")
    found = [
        f"{path.relative_to(REPO_ROOT)}:{n}"
        for top in ("src", "tests", "bench")
        for path in sorted((REPO_ROOT / top).rglob("*.py"))
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


def test_flashers_are_made_only_through_their_registry() -> None:
    """Outside serialboard/flashers, a flasher class is FLASHERS.get(name), never imported
    from its module: the serial target and labgrid's boards flash alike."""
    flashers = SRC / "lab" / "serialboard" / "flashers"
    found = [
        f"{path.relative_to(SRC)}:{node.lineno}: {a.name}"
        for path in sorted(SRC.rglob("*.py"))
        if flashers not in path.parents
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("rtlab.lab.serialboard.flashers.")
        and node.module != "rtlab.lab.serialboard.flashers.base"
        for a in node.names
        if a.name.endswith("Flasher")
    ]
    assert found == []
