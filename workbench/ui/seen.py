"""Whether a person can see a widget: views put their work off until they are seen.

``QWidget.isVisible()`` answers whether the widget *and its parents* are shown, and a
dock tabbed behind another stays shown in that sense: Qt only stops painting it.  A
panel that refreshed "while visible" therefore re-analysed a whole plane on every edit
while the person looked at the Checks tab (82 % of a drop at 16,384 GPUs).  What the
person sees is the region Qt actually exposes, and the dock says when that changes
(``QDockWidget.visibilityChanged``), so a covered panel marks itself stale and catches
up when its tab is raised.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QDockWidget, QWidget


def is_seen(widget: QWidget) -> bool:
    """True when ``widget`` is shown and some of it is exposed (not behind a tab)."""
    return widget.isVisible() and not widget.visibleRegion().isEmpty()


def follow_dock(dock: QDockWidget, on_exposed: Callable[[], None]) -> None:
    """Call ``on_exposed`` whenever ``dock`` comes into view (its tab raised, the dock
    shown or floated), so the panel in it can refresh what it put off."""
    dock.visibilityChanged.connect(lambda shown: on_exposed() if shown else None)
