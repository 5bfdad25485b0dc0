"""The Qt-free core really is Qt-free.

Every module under the core packages is imported in a fresh interpreter in which
PySide6, shiboken6 and pyqtgraph cannot be imported at all, so a stray import anywhere
(even a lazy one executed at import time) fails this test.  This is what lets the
command line, the exports and the benchmarks run on a machine without a display.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

CORE = (
    "model",
    "catalog",
    "calc",
    "rules",
    "planning",
    "store",
    "export",
    "templates",
    "versions",
    "netbox",
    "asbuilt",
)
#: Core modules that are not packages.
CORE_MODULES = ("units", "text_rules")

PROBE = textwrap.dedent(
    """
    import importlib, pkgutil, sys

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {"PySide6", "shiboken6", "pyqtgraph"}:
                raise ImportError(f"Qt is not allowed in the core: {name}")
            return None

    sys.meta_path.insert(0, Block())
    import workbench
    imported = []
    for layer in %r:
        pkg = importlib.import_module(f"workbench.{layer}")
        imported.append(pkg.__name__)
        for info in pkgutil.walk_packages(pkg.__path__, prefix=pkg.__name__ + "."):
            importlib.import_module(info.name)
            imported.append(info.name)
    for name in %r:
        importlib.import_module(f"workbench.{name}")
        imported.append(name)
    leaked = sorted(m for m in sys.modules if m.split(".")[0] in {"PySide6", "shiboken6", "pyqtgraph"})
    assert not leaked, leaked
    upward = sorted(m for m in sys.modules if m.startswith(("workbench.render", "workbench.ui")))
    assert not upward, f"the core imports the drawing or window layers: {upward}"
    print(len(imported))
    """
) % (CORE, CORE_MODULES)


def test_core_layers_import_without_qt() -> None:
    """Nor do they import ``render`` or ``ui``: imports point downwards only."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    # The probe must have walked real modules, not an empty tree.
    assert int(result.stdout.strip()) >= len(CORE)


def test_block_really_blocks_qt() -> None:
    """The blocker itself works: importing PySide6 under it fails."""
    probe = PROBE.split("import workbench")[0] + "import PySide6.QtCore\n"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0
    assert "Qt is not allowed" in result.stderr


def test_cli_help_needs_no_qt() -> None:
    """``workbench --help`` and the subcommands load without importing Qt."""
    probe = PROBE.split("import workbench")[0] + (
        "from workbench.cli.main import build_parser\nbuild_parser()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr


#: What a start reads before the window's first frame, a package whose names load on
#: first use (:mod:`workbench.lazy_exports`), and what that first import must not load.
LIGHT_IMPORTS = (
    ("workbench.store", "workbench.calc", ("numpy", "workbench.calc.workload")),
    ("workbench.templates.bundled", "workbench.templates", ("workbench.templates.builder",)),
)


@pytest.mark.parametrize(("first", "package", "heavy"), LIGHT_IMPORTS)
def test_a_package_with_names_on_first_use_loads_them_only_then(first, package, heavy) -> None:
    """Reading a design file (the store) or the bundled sample loads neither numpy and the
    workload evaluation nor the template builder: the window's start reads its design
    before its first frame and needs none of them until later.  Every exported name still
    resolves, from the module the package names for it."""
    probe = textwrap.dedent(
        """
        import importlib, sys
        first, package, heavy = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
        importlib.import_module(first)
        pkg = importlib.import_module(package)
        loaded = sorted(m for m in heavy if m in sys.modules)
        assert not loaded, f"{first} loads {loaded}"
        assert sorted(pkg.__all__) == sorted(pkg._HOMES)
        for name, home in pkg._HOMES.items():
            module = importlib.import_module(f"{package}.{home}")
            assert getattr(pkg, name) is getattr(module, name), name
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, first, package, ",".join(heavy)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr


#: What building the command line's parser must not load: every command builds it, and
#: ``workbench fabric`` (and the other commands without a project file) use none of these.
PARSER_HEAVY = ("workbench.store", "workbench.rules.full_check", "workbench.templates.variants")


def test_building_the_command_line_loads_no_store_rules_or_variants() -> None:
    """Each subcommand module imports what only its own command needs when that command
    runs, so the parser costs no command the store package, the rules or the scenario
    variants (~0.1 s of imports at every start)."""
    probe = textwrap.dedent(
        """
        import sys
        from workbench.cli.main import build_parser
        build_parser()
        loaded = sorted(m for m in sys.argv[1].split(",") if m in sys.modules)
        assert not loaded, f"build_parser loads {loaded}"
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, ",".join(PARSER_HEAVY)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr


#: Each core layer and the layers it must not import (imports point downwards only:
#: catalog < model < calc < rules < planning, templates < store, export).
BELOW: dict[str, tuple[str, ...]] = {
    "catalog": ("model", "calc", "rules", "planning", "store", "export", "templates"),
    "model": ("calc", "rules", "planning", "store", "export", "templates"),
    "calc": ("rules", "planning", "store", "export", "templates"),
    "rules": ("planning", "store", "export", "templates"),
}


def test_core_imports_point_downwards() -> None:
    """The model never reaches up into the rules (say): each layer only uses those below."""
    probe = textwrap.dedent(
        """
        import importlib, pkgutil, sys
        layer, forbidden = sys.argv[1], sys.argv[2].split(",")
        pkg = importlib.import_module(f"workbench.{layer}")
        for info in pkgutil.walk_packages(pkg.__path__, prefix=pkg.__name__ + "."):
            importlib.import_module(info.name)
        bad = sorted(m for m in sys.modules
                     if any(m == f"workbench.{f}" or m.startswith(f"workbench.{f}.")
                            for f in forbidden))
        assert not bad, f"workbench.{layer} imports {bad}"
        """
    )
    for layer, forbidden in BELOW.items():
        result = subprocess.run(
            [sys.executable, "-c", probe, layer, ",".join(forbidden)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
