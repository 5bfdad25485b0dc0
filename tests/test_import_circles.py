"""No file-level import circle inside ``workbench/model`` or ``workbench/ui``.

Every import statement counts, wherever it stands (``if TYPE_CHECKING:`` blocks and
imports inside functions included): a circle hidden behind ``TYPE_CHECKING`` still ties
the files together for a reader, and ends up as a run-time circle the day somebody needs
the name at run time.  Record types that both sides need belong in a leaf module
(:mod:`workbench.model.parts`, :mod:`workbench.model.records`).  Package ``__init__``
files are left out: they only hand names on.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "workbench"


def _module_file(dotted: str) -> Path | None:
    """The source file of ``workbench.a.b`` (module or package ``__init__``), if any."""
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _targets(path: Path) -> set[Path]:
    """The files ``path`` imports, at any depth of the file."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found: set[Path] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*parts, node.module] if node.module else parts)
            else:
                module = node.module or ""
            # ``from a.b import c`` imports the file a/b/c.py when c is a module, else a/b.
            names = [f"{module}.{alias.name}" for alias in node.names] + [module]
        for name in names:
            if name.startswith("workbench") and (target := _module_file(name)) is not None:
                found.add(target)
    return found


def _graph(folder: str) -> nx.DiGraph:
    graph: nx.DiGraph = nx.DiGraph()
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        if path.name == "__init__.py":
            continue
        graph.add_node(path)
        for target in _targets(path):
            inside = (PACKAGE / folder) in target.parents and target.name != "__init__.py"
            if inside and target != path:
                graph.add_edge(path, target)
    return graph


@pytest.mark.parametrize("folder", ["model", "ui"])
def test_no_file_level_import_circle(folder: str) -> None:
    graph = _graph(folder)
    assert graph.number_of_edges() > 20, f"the import graph of {folder}/ looks empty"
    circles = [
        sorted(str(p.relative_to(ROOT)) for p in scc)
        for scc in nx.strongly_connected_components(graph)
        if len(scc) > 1
    ]
    assert circles == [], f"import circles in workbench/{folder}: {circles}"


def test_the_check_reads_type_checking_imports() -> None:
    """The graph holds TYPE_CHECKING-only imports too (so an empty answer means none)."""
    graph = _graph("model")
    design = PACKAGE / "model" / "design.py"
    index = PACKAGE / "model" / "index.py"
    assert graph.has_edge(design, index)
    assert not graph.has_edge(index, design)
    assert (PACKAGE / "model" / "parts.py") in _targets(index)  # a TYPE_CHECKING import
