"""The core's packages import only downwards, in a stated order (issue 19).

``test_layers.py`` keeps Qt out of the core; this keeps the order inside it, the way
napari's import-linter contracts do.  Every import in every module counts, a lazy one
inside a function or one under ``TYPE_CHECKING`` as well: each still ties the lower
package to the upper one.  The order, lowest first (one line may not import another
on the same line):

    units, text_rules, bounded_read, filenames, progress   (small leaf modules)
    catalog
    model
    calc | versions | asbuilt
    rules | store
    render | planning | export
    templates | netbox
    ui
    cli
    __main__                                     (python -m workbench)
"""

from __future__ import annotations

import ast
from pathlib import Path

import workbench

LAYERS: tuple[tuple[str, ...], ...] = (
    ("units", "text_rules", "bounded_read", "filenames", "lazy_exports", "progress"),
    ("catalog",),
    ("model",),
    ("calc", "versions", "asbuilt"),
    ("rules", "store"),
    ("render", "planning", "export"),
    ("templates", "netbox"),
    ("ui",),
    ("cli",),
    ("__main__",),
)
LEVEL = {name: i for i, layer in enumerate(LAYERS) for name in layer}
ROOT = Path(workbench.__file__).parent


def _package(path: Path) -> str:
    parts = path.relative_to(ROOT).parts
    return parts[0][:-3] if len(parts) == 1 else parts[0]


def _imported(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
            if node.module == "workbench":
                names = [f"workbench.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found += [(node.lineno, n.split(".")[1]) for n in names if n.startswith("workbench.")]
    return found


def test_every_package_has_a_layer():
    packages = {_package(p) for p in ROOT.rglob("*.py")} - {"__init__"}
    assert packages <= set(LEVEL), sorted(packages - set(LEVEL))


def test_imports_point_down_the_layers():
    wrong = []
    for path in sorted(ROOT.rglob("*.py")):
        source = _package(path)
        if source == "__init__":
            continue
        for line, target in _imported(ast.parse(path.read_text(encoding="utf-8"))):
            if target == source:
                continue
            if target not in LEVEL or LEVEL[target] >= LEVEL[source]:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {source} imports {target}")
    assert not wrong, "\n".join(wrong)
