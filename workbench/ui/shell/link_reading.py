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

import threading
import time
from contextlib import ExitStack
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication

from workbench.store import ProjectFileError
from workbench.ui.shell.gil_turns import shorter_turns
from workbench.units import format_count

if TYPE_CHECKING:
    from workbench.store.later import LinksToRead
    from workbench.ui.shell.live_figures import LiveFigures

#: Seconds of reading per slice: short enough that input is answered within a frame
#: (8 ms left a 17-22 ms block just after the first frame, two slices back to back).
SLICE_S = 0.005

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
    """Reads ``later`` into the design of a document (``parent``) in slices once the
    window has drawn (its ``figures`` are released: they wait for the first frame too).

    Signals: ``progress(str)`` a line for the status bar; ``finished()`` the design is
    complete and checked as at any open; ``refused(ProjectFileError)`` it is not the
    file's and must be dropped.
    """

    progress = Signal(str)
    #: Input came in before the links were all read: the window is about to wait for
    #: the rest (a second or more at scale), so it says why now, painted at once.
    waiting = Signal(str)
    finished = Signal()
    refused = Signal(object)

    def __init__(self, parent: QObject, figures: LiveFigures, later: LinksToRead) -> None:
        super().__init__(parent)
        self._later: LinksToRead | None = later
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._slice)
        #: The whole-design check once every row is in, run on its own thread
        #: (:meth:`_check_aside`); what it raised, or None.
        self._checking: threading.Thread | None = None
        self._refusal: ProjectFileError | None = None
        self._shown = -1  # the percentage last shown
        self._turns = ExitStack()  # shorter turns of the lock while the check runs
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)
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
        if self._checking is not None:  # the check's thread, looked at between events
            if not self._checking.is_alive():
                self.complete()
            return
        deadline = time.perf_counter() + SLICE_S
        try:
            while time.perf_counter() < deadline:
                if later.step():
                    later.assemble()
                    self._check_aside(later)
                    return
        except ProjectFileError as exc:
            self._refuse(exc)
            return
        percent = 100 * later.read // max(later.total, 1)
        if percent != self._shown:  # the status bar repainted per point, not per slice
            self._shown = percent
            self.progress.emit(f"Reading {format_count(later.total, 'link')}… {percent} %")

    def _check_aside(self, later: LinksToRead) -> None:
        """Check the whole design on a thread, the window answering meanwhile.

        Why: the check is 0.1 s at 100,000 GPUs, mostly C calls of a few milliseconds
        each (joining and testing 443,216 link ids, a chunk at a time); on the event
        loop it was one block of that length just after the window appeared.  On a
        thread the interpreter hands the main thread its turn between them (every
        millisecond, :func:`~workbench.ui.shell.gil_turns.shorter_turns`).  It only reads
        the design and its rows, and nothing edits them meanwhile: an edit, or any input,
        waits for it in :meth:`complete`.
        """

        def check() -> None:
            try:
                later.check()
            except ProjectFileError as exc:
                self._refusal = exc

        self._checking = threading.Thread(target=check, name="links_check", daemon=True)
        self._turns.enter_context(shorter_turns())
        self._checking.start()
        self._timer.setInterval(4)  # look again soon, not in a busy loop beside it
        self.progress.emit(f"Checking {format_count(later.total, 'link')}…")

    def complete(self) -> bool:
        """Read and check whatever is left now; False when the file was refused."""
        later = self._later
        if later is None:
            return True
        try:
            if self._checking is None:
                later.finish()
            else:
                self._checking.join()
                if self._refusal is not None:
                    raise self._refusal
        except ProjectFileError as exc:
            self._refuse(exc)
            return False
        self._stop()
        self.finished.emit()
        return True

    def cancel(self) -> None:
        """Stop without the links (the design is being replaced, or the window closes)."""
        later = self._later
        checking = self._checking
        self._stop()
        if checking is not None:  # let it end: it reads what is being dropped
            checking.join()
        if later is not None:
            later.cancel()

    def _refuse(self, exc: ProjectFileError) -> None:
        self._stop()
        self.refused.emit(exc)

    def _stop(self) -> None:
        self._later = None
        self._timer.stop()
        self._turns.close()
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's
        """Input waits for the links: finished first, swallowed when they are refused."""
        later = self._later
        if later is not None and event.type() in FINISHING:
            left = later.total - later.read
            if later.done or left <= 0:  # read: the check runs on its thread
                self.waiting.emit(f"Checking {format_count(later.total, 'link')} first…")
            else:
                self.waiting.emit(f"Reading the last {format_count(left, 'link')} first…")
            QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
            try:
                return not self.complete()
            finally:
                QApplication.restoreOverrideCursor()
        return False
