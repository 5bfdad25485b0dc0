"""Small helpers shared by the window tests (imported as a plain module, like
``store_designs``)."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QWidget


def visit(widget: QWidget, elsewhere: QWidget) -> None:
    """Give ``widget`` the keyboard focus, then take it away, as a Tab or a click would."""
    widget.setFocus()
    QApplication.processEvents()
    assert widget.hasFocus()
    elsewhere.setFocus()
    QApplication.processEvents()
    assert not widget.hasFocus()


def show_window(qtbot, tmp_path, document, catalog=None):
    """A shown main window on ``document`` with its own settings file (not the user's),
    its first check maybe still running (see :func:`open_window`)."""
    from PySide6.QtCore import QSettings

    from workbench.ui.shell.main_window import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(document, catalog=catalog, settings=settings)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    QApplication.processEvents()
    return window


def open_window(qtbot, tmp_path, design, catalog=None):
    """A shown main window on ``design``, its first check ended, with its own settings
    file (not the user's)."""
    from workbench.ui.shell.document import Document

    window = show_window(qtbot, tmp_path, Document(design), catalog)
    # The first frame is drawn before the first check and the estimates (issue 21).
    qtbot.waitUntil(lambda: not window.document.figures.held)
    # Then the first check runs in slices; tests read its findings, so they wait for its
    # end (under load the slices stretch, and a test that did not wait was flaky).
    qtbot.waitUntil(lambda: window.document.figures.checked, timeout=20_000)
    QApplication.processEvents()
    return window


# -- drag and drop from the catalog palette ----------------------------------------------------


def palette_index(window, slug: str):
    """The palette's (proxy) index of catalog item ``slug``."""
    from workbench.ui.catalog.palette import SLUG_ROLE

    proxy = window.palette_widget.proxy
    stack = [proxy.index(r, 0) for r in range(proxy.rowCount())]
    while stack:
        index = stack.pop()
        if index.data(SLUG_ROLE) == slug:
            return index
        stack.extend(proxy.index(r, 0, index) for r in range(proxy.rowCount(index)))
    raise AssertionError(f"{slug} is not in the palette")


def palette_mime(window, slug: str):
    """The mime data the palette's model makes for dragging ``slug``."""
    return window.palette_widget.proxy.mimeData([palette_index(window, slug)])


def at_unit(view, rack_id: str, u: int):
    """The viewport point over unit ``u`` of a rack."""
    from PySide6.QtCore import QPointF

    from workbench.render import rack_geometry as geo
    from workbench.ui.racks.scene import SCENE_SCALE

    item = view.rack_item(rack_id)
    rect = geo.u_rect(u, 1, geo.rack_units(item.rack, view.design), SCENE_SCALE)
    return view.mapFromScene(item.mapToScene(QPointF(rect.x + rect.w / 2, rect.y + rect.h / 2)))


def drag_over(window, slug: str, rack_id: str, u: int):
    """Enter and move a catalog drag over unit ``u`` with real drag events; returns
    (mime, point, accepted)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent

    view = window.rack_view
    mime = palette_mime(window, slug)
    where = at_unit(view, rack_id, u)
    left, none = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    actions = Qt.DropAction.CopyAction
    QApplication.sendEvent(view.viewport(), QDragEnterEvent(where, actions, mime, left, none))
    move = QDragMoveEvent(where, actions, mime, left, none)
    QApplication.sendEvent(view.viewport(), move)
    return mime, where, move.isAccepted()


def drop(window, mime, where) -> bool:
    """Release the drag over ``where``; True when the view took the drop."""
    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtGui import QDropEvent

    event = QDropEvent(
        QPointF(where),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window.rack_view.viewport(), event)
    return event.isAccepted()
