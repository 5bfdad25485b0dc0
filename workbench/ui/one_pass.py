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

from weakref import WeakSet

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QAbstractScrollArea, QLabel

#: Layout requests climb one parent per round (label → panel → dock → main window).
ROUNDS = 5

_LAYOUT_REQUEST = int(QEvent.Type.LayoutRequest.value)
_META_CALL = int(QEvent.Type.MetaCall.value)
_UPDATE_LATER = int(QEvent.Type.UpdateLater.value)

#: Scroll areas whose scroll bar an edit may show or hide (see :func:`follow`).
_FOLLOWED: WeakSet[QAbstractScrollArea] = WeakSet()


def follow(area: QAbstractScrollArea) -> None:
    """Have :func:`lay_out_now` show or hide ``area``'s scroll bars too.

    Why: a scroll area shows or hides a bar in a queued call once its contents were laid
    out (the inspector's device page is taller than its "Nothing selected" page), and
    that resizes its contents: left to the event loop it came after the first paint, and
    the whole inspector (~2 ms at 16,384 GPUs) was painted a second time."""
    _FOLLOWED.add(area)


def set_text_keeping_width(label: QLabel, text: str) -> None:
    """Show ``text`` in ``label``, which never gets narrower than the widest text it
    showed, and is held at that fixed size (one line high).

    Why: a count that got shorter (an undo's "2 warnings" after a drop's "4 errors ·
    2 warnings") shrank its label, the layout moved the label's neighbours (the Checks
    search box, its check box), and Qt repainted the whole row after each such edit
    (~1 ms of every drop and undo at 16,384 GPUs).  Widths only grow to the longest
    text seen, so after the first few edits a count changes its label alone.  Fixed,
    not merely at least that wide: a new text in a label whose size may still change
    invalidates its parent's layout, and that climbs to the dock (or the status bar)
    and the main window, which were laid out again after every such edit, its docks
    re-placed and the window painted a second time (~0.6 ms of a drop and of its undo
    at 16,384 GPUs, ~2.5 ms of a move at 100,000 whose status strip counts changed);
    Qt skips that for a widget of fixed size."""
    if label.text() == text:
        return  # the same text: nothing to lay out or to measure
    label.setText(text)
    hint = label.sizeHint()
    wide = max(hint.width(), label.minimumWidth())
    if label.minimumWidth() != wide or label.maximumWidth() != wide:
        label.setFixedWidth(wide)
    if label.minimumHeight() != label.maximumHeight():
        label.setFixedHeight(hint.height())


def kept_width(label: QLabel) -> int:
    """The width a label given :func:`set_text_keeping_width` takes in its layout (its
    text's own width, or the wider one it keeps)."""
    return max(label.sizeHint().width(), label.minimumWidth())


def _lay_out() -> None:
    for _ in range(ROUNDS):
        QCoreApplication.sendPostedEvents(None, _LAYOUT_REQUEST)


def lay_out_now() -> None:
    """Activate every layout request posted so far, and those they post in turn; show or
    hide the followed scroll areas' bars and lay out what that resized; then mark the
    widgets the edit showed as to be painted (Qt posts that for every widget it shows,
    and delivered after the first paint it painted them all again)."""
    _lay_out()
    for area in list(_FOLLOWED):
        QCoreApplication.sendPostedEvents(area, _META_CALL)
    _lay_out()
    QCoreApplication.sendPostedEvents(None, _UPDATE_LATER)


__all__ = ["follow", "kept_width", "lay_out_now", "set_text_keeping_width"]
