"""What the window's first check loads after the first frame, and how: a module per
step between events, numpy on a thread of its own.

Why a module of its own: the list and the loader are the cold start's contract (see
tests/test_ui_cold_start.py), read by :class:`~workbench.ui.shell.live_figures.LiveFigures`
when the first check starts, and kept apart from the figures it computes.  Qt-free.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.model import Design

#: Where the compute plane is built and kept (:func:`plane_ready`).
_HARDWARE = "workbench.calc.design_hardware"

#: What the first check loads before it starts, one module per step between events
#: (:func:`import_steps`): the window's first frame does without them, and
#: loaded in one go when the check started they blocked input for ~0.2 s of CPU just
#: after that frame.  Each module after what it imports, so a step loads little more
#: than its own code (numpy, the one big step, first); the rules last, all together
#: and so in their fixed order (:mod:`workbench.rules.every_rule`).
CHECK_MODULES: tuple[str, ...] = (
    "numpy",
    "workbench.calc.fabric.tables",
    "workbench.calc.fabric.graph",
    "workbench.calc.fabric.media",
    "workbench.calc.fabric.ports",
    "workbench.calc.fabric.failure",
    "workbench.calc.fabric.analysis",
    "workbench.calc.fabric.plane_edits",
    "workbench.calc.cabling",
    _HARDWARE,
    "workbench.calc.flops",
    "workbench.calc.comm",
    "workbench.calc.step_time",
    "workbench.calc.stack_profiles",
    "workbench.calc.training_estimate",
    "workbench.calc.workload",
    "workbench.calc.costs",
    "workbench.versions.compat",
    "workbench.rules.port_suspects",
    "workbench.rules.every_rule",
    "workbench.rules.engine",
)


#: The module of :data:`CHECK_MODULES` imported on a thread (see :func:`import_steps`).
_ON_A_THREAD = "numpy"


def _import_quietly(name: str) -> None:
    """Import ``name`` (on a thread): an error is left for the import on the main
    thread that follows to raise where it is seen."""
    with contextlib.suppress(BaseException):
        importlib.import_module(name)


def plane_ready(design: Design) -> bool:
    """``design_hardware.compute_plane_ready``, without loading that module (numpy, the
    fabric analysis) to learn what is plain while it is not loaded: only it builds
    and keeps the compute plane, so no plane is ready yet."""
    hardware = sys.modules.get(_HARDWARE)
    return hardware is not None and bool(hardware.compute_plane_ready(design))


def import_steps() -> Iterator[None]:
    """Each module of :data:`CHECK_MODULES` loaded, one per step.  numpy, whose import
    is one block of ~0.1 s of CPU here with no step in it, is loaded on a thread of
    its own meanwhile waited for a little per step (the GIL let go): input is then
    handled between the thread's turns instead of after the whole import.  Nothing
    else is imported until it is done (it imports nothing of ours)."""
    if _ON_A_THREAD not in sys.modules:
        loader = threading.Thread(
            target=_import_quietly, args=(_ON_A_THREAD,), name="import", daemon=True
        )
        loader.start()
        while loader.is_alive():
            loader.join(0.002)
            yield
    for name in CHECK_MODULES:
        if name not in sys.modules:
            importlib.import_module(name)
            yield
