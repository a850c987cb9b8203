"""Adding an RTOS touches at most its port folder, its Python package and the README row
(docs/porting.md): no other code names an RTOS. The RTOSes are the ones
discovered (a port folder workloads/rtbench/ports/<rtos>/ with its registered package,
rtlab.lab.rtos.RTOSES), each under its spellings (its name, without its version digit,
its title: ucos3, ucos, µC/OS-III).

Checked: everything of workloads/rtbench outside ports/ (the board layers' C and CMake,
the core src/, include/, boards/cmake/, tests/), and every module of src/rtlab except
the RTOS's own package, rtlab/lab/rtos/<rtos>/ (every module in it). A port folder
may name another RTOS (the NuttX port's warnings say "as on FreeRTOS"; the POSIX port,
which NuttX's app builds, tests __NuttX__): that is the port's own text, and nothing
outside it changes when an RTOS is added. Code is checked, not prose: C and CMake
comments, Python comments and docstrings may name an RTOS as an example; identifiers,
string literals, include lines and file names may not."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from rtlab.lab.rtos import RTOSES
from tests.paths import REPO_ROOT

RTBENCH = REPO_ROOT / "workloads" / "rtbench"
SRC = REPO_ROOT / "src" / "rtlab"
# Files that name RTOSes by design, and why. Paths relative to the repository.
ALLOWED = {
    # The published studies' figures, transcribed: each column is the paper's RTOS.
    "src/rtlab/studies/published/*.toml": "published figures",
    # Comparing rtbench with the published studies: the papers' claims name RTOSes
    # ("FreeRTOS vs NuttX on one core"), so the checks of those claims do too.
    "src/rtlab/studies/reproduction_rtbench.py": "the published studies' RTOS claims",
    # Zephyr's own benchmark (tests/benchmarks/latency_measure) as a workload kind, its
    # study and report section: the cross-check of rtbench's Zephyr figures exists for
    # that one RTOS's benchmark, not as a list of RTOSes.
    "src/rtlab/lab/workloads/latency_measure.py": "one RTOS's own benchmark",
    "src/rtlab/studies/latency_measure.py": "one RTOS's own benchmark",
    "src/rtlab/report/sections/latency_measure.py": "one RTOS's own benchmark",
    # The cross-validation of the two M0+ cycle models (the QEMU plugin and the RP2040
    # model) times one kernel's primitives on both, built alike: FreeRTOS's, the one
    # whose study port builds for both machines.
    "src/rtlab/studies/cycles_crosscheck.py": "one RTOS's primitives on two cycle models",
}
C_EXT = {".c", ".h", ".S", ".s", ".in", ".ld", ".overlay", ".dts"}
CMAKE_NAMES = {"CMakeLists.txt"}
SKIP_EXT = {".md"}  # prose: the port folder's README, the docs


def rtoses() -> dict[str, set[str]]:
    """name -> its spellings, for every port folder with a registered module."""
    names = {p.name for p in (RTBENCH / "ports").iterdir() if p.is_dir()}
    out: dict[str, set[str]] = {}
    for name in sorted(names & set(RTOSES.names())):
        title = RTOSES.get(name).title.lower()
        base = {name, name.rstrip("0123456789"), title, title.split("-")[0]}
        out[name] = (
            {s.replace("µ", "u") for s in base}
            | base
            | {s.replace("µ", "u").replace("/", "-") for s in base}
        )
    return out


def _allowed(rel: str) -> bool:
    return any(Path(rel).match(pattern) for pattern in ALLOWED)


def strip_c(text: str) -> str:
    """C without its comments (string and character literals kept)."""
    pat = r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''

    def keep(m: re.Match[str]) -> str:  # a comment becomes its newlines (lines stay)
        return ("\n" * m.group(0).count("\n") or " ") if m.group(0)[0] == "/" else m.group(0)

    return re.sub(pat, keep, text, flags=re.S)


def strip_cmake(text: str) -> str:
    """CMake (and Kconfig, .conf) without # comments (# inside a quoted string kept)."""
    return "\n".join(
        re.sub(r'^((?:[^"#]|"(?:\\.|[^"\\])*")*)#.*$', r"\1", line) for line in text.splitlines()
    )


def python_code(text: str, name: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every identifier, imported name and string literal that is not a
    docstring in a Python module."""
    tree = ast.parse(text, name)
    docs = {
        id(body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and (body := node.body)
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield line, node.value
        elif isinstance(node, ast.Name):
            yield line, node.id
        elif isinstance(node, ast.Attribute):
            yield line, node.attr
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield line, node.name
        elif isinstance(node, ast.arg | ast.keyword) and node.arg:
            yield line, node.arg
        elif isinstance(node, ast.ImportFrom):
            yield line, node.module or ""
        elif isinstance(node, ast.alias):
            yield line, f"{node.name} {node.asname or ''}"


def named_in(
    path: Path, rel: str, spellings: dict[str, set[str]]
) -> Iterator[tuple[str, int, str]]:
    """(rtos, line, what) for each RTOS named in the file's name `rel` or its code."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".py":
        chunks: list[tuple[int, str]] = list(python_code(text, rel))
    else:
        if path.suffix in C_EXT:
            text = strip_c(text)
        elif (
            path.suffix == ".cmake"
            or path.name in CMAKE_NAMES
            or path.suffix in {".conf", ".defconfig", ""}
        ):
            text = strip_cmake(text)
        chunks = list(enumerate(text.splitlines(), 1))
    chunks.append((0, rel))  # the file's own path
    for rtos, names in spellings.items():
        for line, chunk in chunks:
            low = chunk.lower()
            hit = next((n for n in names if n in low), None)
            if hit:
                yield rtos, line, chunk.strip()[:80]


def owner(rel: str) -> str | None:
    """The RTOS whose module this is: a module of its package src/rtlab/lab/rtos/<rtos>/;
    else None."""
    m = re.match(r"src/rtlab/lab/rtos/([a-z0-9]+)/[a-z0-9_]+\.py$", rel)
    return m.group(1) if m else None


def violations(
    files: list[Path], spellings: dict[str, set[str]], root: Path = REPO_ROOT
) -> list[str]:
    """`file:line: names <rtos>: what` for each RTOS named where it may not be (paths
    relative to the repository `root`)."""
    out = []
    for path in files:
        rel = path.relative_to(root).as_posix()
        if _allowed(rel) or path.suffix in SKIP_EXT or rel.startswith("workloads/rtbench/ports/"):
            continue
        mine = owner(rel)
        for rtos, line, what in named_in(path, rel, spellings):
            if rtos != mine:
                out.append(f"{rel}:{line}: names {rtos}: {what}")
    return out


def _files(root: Path) -> list[Path]:
    return sorted(
        p for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in {".pyc"}
    )  # fmt: skip


def test_the_rtoses_are_discovered() -> None:
    assert {"freertos", "ucos3"} <= set(rtoses()), "the port folders and the registry disagree"


def test_workloads_name_an_rtos_only_in_its_port_folder() -> None:
    bad = violations(_files(RTBENCH), rtoses())
    assert not bad, "move RTOS code into its port folder:\n" + "\n".join(bad)


def test_python_names_an_rtos_only_in_its_package() -> None:
    bad = violations(_files(SRC), rtoses())
    assert not bad, "an RTOS is discovered, not listed; move this into its package:\n" + "\n".join(
        bad
    )


# (file laid out as in the repository, its text, whether the check flags it)
IN_WORKLOADS = [
    ("workloads/rtbench/boards/x/a.c", "/* FreeRTOS */ int x; // zephyr\n", False),
    ("workloads/rtbench/boards/x/a.c", '#include "FreeRTOS.h"\n', True),
    ("workloads/rtbench/boards/x/board_ucos3.c", "int x;\n", True),
    ("workloads/rtbench/boards/x/CMakeLists.txt", '# nuttx\nset(a "#")\n', False),
    ("workloads/rtbench/boards/x/CMakeLists.txt", "if(UCOS3_PATH) # x\n", True),
    ("workloads/rtbench/ports/zephyr/boards/x.c", "#include <zephyr/irq.h>\n", False),
    ("workloads/rtbench/src/board/x.cmake", "include(ports/zephyr/x.cmake)\n", True),
    ("workloads/rtbench/boards/x/x.overlay", "/* nuttx */ &uart0 {};\n", False),
    # a machine file describes the hardware; the RTOS's overlay says it runs there
    ("workloads/rtbench/boards/x/machines/m.toml", 'zephyr_board = "m"\n', True),
    ("workloads/rtbench/boards/x/machines/m.toml", "# the FreeRTOS heap\nheap = 1\n", True),
    ("workloads/rtbench/ports/zephyr/machines/m.toml", 'zephyr_board = "m"\n', False),
]
IN_PYTHON = [
    ("src/rtlab/lab/x.py", '"""FreeRTOS."""\n# nuttx\nX = 1\n', False),
    ("src/rtlab/lab/x.py", 'T = {"ucos3": "µC/OS-III"}\n', True),
    ("src/rtlab/lab/x.py", "from rtlab.lab.rtos.zephyr import BOARDS\n", True),
    ("src/rtlab/lab/rtos/nuttx/baked.py", 'B = "nuttx"\n', False),
    ("src/rtlab/lab/rtos/nuttx/__init__.py", 'B = "nuttx"\n', False),
    ("src/rtlab/lab/rtos/zephyr/build.py", 'B = "nuttx"\n', True),
    ("src/rtlab/lab/rtos/base.py", 'B = "nuttx"\n', True),
    ("src/rtlab/lab/rtos/nuttx_baked.py", 'B = "nuttx"\n', True),
]


@pytest.mark.parametrize(("rel", "text", "flagged"), IN_WORKLOADS + IN_PYTHON)
def test_the_check_finds_each_kind(tmp_path: Path, rel: str, text: str, flagged: bool) -> None:
    """Each kind of naming is found (and comments, docstrings, port folders and the
    owner's module are not), on files laid out like the repository's."""
    path = tmp_path / rel
    path.parent.mkdir(parents=True)
    path.write_text(text)
    found = violations([path], rtoses(), root=tmp_path)
    assert bool(found) == flagged, found
