"""The garbage collector paused while the window's start builds what lives on.

Importing the window's modules (about 500 of them), reading the catalog and building
the widgets allocate hundreds of thousands of objects that are never garbage, and that
allocation sets off a hundred or more collector passes before the first frame, none of
which finds anything to free.  The start runs them with the collector paused; once the
window is built, :func:`~workbench.ui.shell.app.collector_off_until_first_frame` keeps it
off until the first check, then sets everything made aside (:func:`gc.freeze`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """No collector passes inside; on the way out the collector is as it was."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
