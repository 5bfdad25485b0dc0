"""A started window reads its design's links after its first frame, between events.

Why: the links are the bulk of a large file (443,216 rows at 100,000 GPUs, 1.4-1.5 s of
a 2.5 s start here) and the first frame draws nothing they decide (see
:mod:`workbench.store.later`).  The window opens the rest, draws, then reads the links
a slice at a time, its progress in the status bar.

Nothing that depends on links runs before they are in and checked: the first check is
held (:meth:`LiveFigures._check_now <workbench.ui.shell.live_figures.LiveFigures>`),
an edit finishes the reading first (:meth:`Document.push`), and so does any input
(a press, a key, a shortcut, a drop, a context menu): the event waits for the rest of
the links, then is handled on the complete design.  No view can show, save or export the
design without its links, and no edit can be made to it, because none is reached but by
input or an edit.

A file whose links turn out bad is refused then, with the same message naming the file
and the problem as at any open (``refused``); the design shown was never edited, so
dropping it loses nothing (the File actions offer a repair, or close the window).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication

from workbench.store import ProjectFileError
from workbench.units import format_count

if TYPE_CHECKING:
    from workbench.store.later import LinksToRead
    from workbench.ui.shell.document import Document

#: Seconds of reading per slice: short enough that input is answered within a frame.
SLICE_S = 0.008

#: Input that finishes the reading before it is handled (what could reach the links).
FINISHING = frozenset(
    {
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseButtonDblClick,
        QEvent.Type.KeyPress,
        QEvent.Type.ShortcutOverride,
        QEvent.Type.Shortcut,
        QEvent.Type.ContextMenu,
        QEvent.Type.Drop,
        QEvent.Type.DragEnter,
    }
)


class LinkReading(QObject):
    """Reads ``later`` into ``document``'s design in slices once the window has drawn.

    Signals: ``progress(str)`` a line for the status bar; ``finished()`` the design is
    complete and checked as at any open; ``refused(ProjectFileError)`` it is not the
    file's and must be dropped.
    """

    progress = Signal(str)
    finished = Signal()
    refused = Signal(object)

    def __init__(self, document: Document, later: LinksToRead) -> None:
        super().__init__(document)
        self._document = document
        self._later: LinksToRead | None = later
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._slice)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)
        figures = document.figures
        if figures.held:  # after the first frame
            figures.released.connect(self._timer.start)
        else:
            self._timer.start()

    @property
    def pending(self) -> bool:
        """True while the design still lacks its links."""
        return self._later is not None

    def _slice(self) -> None:
        later = self._later
        if later is None:
            return
        deadline = time.perf_counter() + SLICE_S
        try:
            while time.perf_counter() < deadline:
                if later.step():
                    self.complete()
                    return
        except ProjectFileError as exc:
            self._refuse(exc)
            return
        self.progress.emit(
            f"Reading {format_count(later.total, 'link')}… "
            f"{100 * later.read // max(later.total, 1)} %"
        )

    def complete(self) -> bool:
        """Read and check whatever is left now; False when the file was refused."""
        later = self._later
        if later is None:
            return True
        try:
            later.finish()
        except ProjectFileError as exc:
            self._refuse(exc)
            return False
        self._stop()
        self.finished.emit()
        return True

    def cancel(self) -> None:
        """Stop without the links (the design is being replaced, or the window closes)."""
        later = self._later
        self._stop()
        if later is not None:
            later.cancel()

    def _refuse(self, exc: ProjectFileError) -> None:
        self._stop()
        self.refused.emit(exc)

    def _stop(self) -> None:
        self._later = None
        self._timer.stop()
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's
        """Input waits for the links: finished first, swallowed when they are refused."""
        if self._later is not None and event.type() in FINISHING:
            return not self.complete()
        return False
