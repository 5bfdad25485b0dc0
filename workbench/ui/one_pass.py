"""Lay out what an edit changed before its first paint, so it is painted once.

Why: a rack repainted after an edit makes Qt's graphics scene paint the whole window at
once (QGraphicsScene processes its dirty items and sends the window's pending paint
request itself), before the layouts the edit's other views asked for (the inspector's
new page, the Checks counts, the status strip) were activated.  Those layouts then
moved and resized widgets that had just been painted, and the window was painted a
second and a third time: the inspector, the Checks dock and the status bar twice over
after every drop and undo at 16,384 GPUs.  Activating the pending layouts at the end of
the gesture puts them before that first paint.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent

#: Layout requests climb one parent per round (label → panel → dock → main window).
ROUNDS = 5

_LAYOUT_REQUEST = int(QEvent.Type.LayoutRequest.value)


def lay_out_now() -> None:
    """Activate every layout request posted so far, and those they post in turn."""
    for _ in range(ROUNDS):
        QCoreApplication.sendPostedEvents(None, _LAYOUT_REQUEST)


__all__ = ["lay_out_now"]
