"""A package's exported names, loaded on first use (PEP 562's module ``__getattr__``).

A package ``__init__`` that imports what it exports makes every import of one of its
modules pay for all of them: ``workbench.calc.errors`` (read by the store) ran the
workload evaluation's imports and numpy's, and ``workbench.templates.bundled`` (the
sample the window opens) ran the template builder's and the fabric planner's, all before
the window's first frame.  A package lists each name's module instead, imports them
under ``TYPE_CHECKING`` (so type checkers and readers still see them), and hands the
list to :func:`exports_on_first_use`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def exports_on_first_use(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: a name of ``homes`` (name → the submodule
    that defines it, relative to ``package``) is imported from its module at its first
    read and then kept in the package, so later reads are plain attribute reads.  Any
    other name raises :class:`AttributeError` (so ``from package import submodule``
    still imports the submodule, as the import system then tries)."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
