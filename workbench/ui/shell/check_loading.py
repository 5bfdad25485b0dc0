"""What the window's first check loads after the first frame, and how: on a thread of
its own, waited for from the event loop.

Why a module of its own: the list and the loader are the cold start's contract (see
tests/test_ui_cold_start.py), read by :class:`~workbench.ui.shell.live_figures.LiveFigures`
when the first check starts, and kept apart from the figures it computes.  Qt-free.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from workbench.ui.shell.gil_turns import shorter_turns

if TYPE_CHECKING:
    from workbench.model import Design

#: Where the compute plane is built and kept (:func:`plane_ready`).
_HARDWARE = "workbench.calc.design_hardware"

#: What the first check loads before it starts, in this order on a thread
#: (:func:`import_steps`): the window's first frame does without them, and
#: loaded in one go when the check started they blocked input for ~0.2 s of CPU just
#: after that frame.  Each module after what it imports (numpy first); the rules last,
#: all together and so in their fixed order (:mod:`workbench.rules.every_rule`).
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


#: The module of :data:`CHECK_MODULES` whose compiled modules are mapped first (see
#: :func:`_map_compiled`).
_MAPPED = "numpy"

#: The compiled modules that importing numpy loads, under its package folder (see
#: :func:`_map_compiled`): the core links OpenBLAS, gfortran and quadmath (~40 MB).
_NUMPY_COMPILED = ("_core/_multiarray_umath", "linalg/_umath_linalg")


def one_blas_thread() -> None:
    """OpenBLAS told to start no threads of its own, unless the user chose a number.

    Why: the window does no linear algebra (its numpy work is counting, gathering and
    sorting columns, which OpenBLAS does not run), but OpenBLAS as numpy loads it
    starts a thread per core that spins for a while: measured here, 30-90 ms more CPU
    while numpy loads just after the first frame, taken from the main thread on two
    cores.  Read once, when numpy loads OpenBLAS, so set before (at the window's start,
    before Qt starts threads that could read the environment meanwhile); the window
    process only: the command line's ``fabric`` and ``check`` are left as they are.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _map_compiled(package: str, parts: tuple[str, ...]) -> None:
    """Map ``package``'s compiled modules (and the libraries they link) by a plain
    ``dlopen`` called through ctypes, which lets go of the GIL while it runs.

    Why: the import's own ``dlopen`` holds the GIL: ~4 ms of CPU here for numpy's core
    and OpenBLAS (relocations, OpenBLAS's set-up), 10-25 ms of wall time in the window
    (page faults; more with the files not cached), and the main thread, whose input
    waited for the GIL, stalled that long just after the first frame.  Loaded here first, the import's ``dlopen`` of the same file finds it mapped
    and returns at once; only the module's own set-up then runs holding the GIL.
    Linux and macOS (``ctypes.CDLL(None)`` is the process's own symbols); elsewhere,
    or for a package laid out otherwise, nothing is mapped and the import does it all.
    """
    import ctypes

    spec = importlib.util.find_spec(package)  # a top-level package: imports nothing
    if spec is None or not spec.submodule_search_locations:
        return
    dlopen = ctypes.CDLL(None).dlopen
    dlopen.restype = ctypes.c_void_p
    dlopen.argtypes = (ctypes.c_char_p, ctypes.c_int)
    flags = sys.getdlopenflags()  # as the import opens it, so it is the same load
    for folder in spec.submodule_search_locations:
        for part in parts:
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                path = os.path.join(folder, part + suffix)
                if os.path.isfile(path):
                    dlopen(os.fsencode(path), flags)
                    break


def _import_all(names: tuple[str, ...]) -> None:
    """Import ``names`` in order (on a thread), numpy's compiled modules mapped first
    without the GIL (:func:`_map_compiled`); at the first error it stops, and the
    import on the main thread that follows raises it where it is seen."""
    with contextlib.suppress(BaseException):
        if _MAPPED in names:
            _map_compiled(_MAPPED, _NUMPY_COMPILED)
    with contextlib.suppress(BaseException):
        for name in names:
            importlib.import_module(name)


def plane_ready(design: Design) -> bool:
    """``design_hardware.compute_plane_ready``, without loading that module (numpy, the
    fabric analysis) to learn what is plain while it is not loaded: only it builds
    and keeps the compute plane, so no plane is ready yet."""
    hardware = sys.modules.get(_HARDWARE)
    return hardware is not None and bool(hardware.compute_plane_ready(design))


def import_steps() -> Iterator[bool]:
    """Every module of :data:`CHECK_MODULES` loaded on a thread of its own, in order;
    then any it could not load imported here, one per step (raising its error where
    it is seen).  Yields True while the thread loads (nothing done here: ask again
    later, from the event loop), False after a step done here.

    Why a thread, and not a module per step here: numpy's import is ~0.1 s of CPU with
    no step in it, the rules' ~15 ms in one (they register in a fixed order), and the
    main thread is only ever blocked by the thread for one switch of the GIL: held
    meanwhile at most ``gil_turns.SWITCH_S`` at a time (plus the longest call into C, the
    libraries' own loading let go of it by :func:`_map_compiled`); the main thread
    importing one of them meanwhile (a reader wanting the findings now) waits for the
    thread to finish that module, as imports on two threads do.  Waited for from
    the event loop, not by joining here: a join is a stretch with no input handled,
    and each wake from it waited a switch for the GIL (~20-30 ms blocks after the
    first frame at 100,000 GPUs)."""
    missing = tuple(name for name in CHECK_MODULES if name not in sys.modules)
    if missing:
        loader = threading.Thread(target=_import_all, args=(missing,), name="import", daemon=True)
        with shorter_turns():
            loader.start()
            while loader.is_alive():
                yield True
    for name in CHECK_MODULES:
        if name not in sys.modules:
            importlib.import_module(name)
            yield False
