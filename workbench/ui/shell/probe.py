"""A read-only window probe for the journey tests (tests/journeys/).

The journey tests drive the real application through the window system with OS-level
input (xdotool); they need to know where on the screen a rack's unit or a catalog item
is drawn, and what the window holds afterwards.  When the environment names a socket
path in :data:`PROBE_ENV`, the window answers one JSON question per line on that local
socket: where things are (global screen points) and what the document, the status bar
and the checks say.  It never changes the design (asked where something is, it only
scrolls that into view first), and it is off unless asked for, so a planner's window
never opens a socket.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QObject, QPoint, QPointF, Qt
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QTabBar,
    QWidget,
)

from workbench.render import rack_geometry as geo
from workbench.rules.budgets import rack_budgets

if TYPE_CHECKING:
    from PySide6.QtNetwork import QLocalSocket

    from workbench.ui.shell.main_window import MainWindow

#: The environment variable holding the socket path the probe listens on.
PROBE_ENV = "WORKBENCH_PROBE"


def _texts(widget: QWidget) -> list[str]:
    """What the labels and fields under ``widget`` show, in creation order."""
    shown = []
    for child in widget.findChildren(QWidget):
        if isinstance(child, (QLabel, QLineEdit)) and child.isVisible() and child.text():
            shown.append(child.text())
        elif isinstance(child, QComboBox) and child.isVisible():
            shown.append(child.currentText())
    return shown


def _point(p: QPoint) -> dict[str, int]:
    return {"x": p.x(), "y": p.y()}


class Probe(QObject):
    """Answers the journey tests' questions about one main window."""

    def __init__(self, window: MainWindow, path: str):
        # Qt's network module is loaded only here: every start imports this module and
        # asks install_probe, and only the journey tests start a probe.
        from PySide6.QtNetwork import QLocalServer

        super().__init__(window)
        self.window = window
        self.server = QLocalServer(self)
        QLocalServer.removeServer(path)
        if not self.server.listen(path):
            raise OSError(f"{path}: the window probe cannot listen: {self.server.errorString()}")
        self.server.newConnection.connect(self._on_connection)
        self._buffers: dict[int, bytes] = {}

    def _on_connection(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            socket.readyRead.connect(lambda s=socket: self._read(s))

    def _read(self, socket: QLocalSocket) -> None:
        key = id(socket)
        data = self._buffers.get(key, b"") + bytes(socket.readAll().data())
        while b"\n" in data:
            line, data = data.split(b"\n", 1)
            try:
                answer: Any = self.answer(json.loads(line))
            except Exception as exc:  # noqa: BLE001 - the test reads the error
                answer = {"error": f"{type(exc).__name__}: {exc}"}
            socket.write(json.dumps(answer).encode("utf-8") + b"\n")
            socket.flush()
        self._buffers[key] = data

    # -- questions ----------------------------------------------------------------------
    def answer(self, question: dict[str, Any]) -> Any:
        handler = getattr(self, f"q_{question.get('q')}", None)
        if handler is None:
            raise ValueError(f"unknown question {question.get('q')!r}")
        return handler(**{k: v for k, v in question.items() if k != "q"})

    def q_state(self) -> dict[str, Any]:
        """The document, selection, undo history, status bar and findings."""
        window = self.window
        document = window.document
        design = document.design
        figures = document.figures
        racks = []
        for rack in design.iter_racks():
            load = figures.rack_load(rack.id)
            budgets = (
                {
                    name: {"used": b.used, "limit": b.limit, "state": b.state.value}
                    for name, b in rack_budgets(design, rack, load).named().items()
                }
                if load is not None
                else {}
            )
            racks.append(
                {
                    "id": rack.id,
                    "name": rack.name,
                    "cooling": rack.cooling,
                    "power_limit_kw": rack.power_limit_kw,
                    "budgets": budgets,
                    "devices": [
                        {
                            "id": d.id,
                            "name": d.name,
                            "type": d.device_type,
                            "u": d.position,
                            "face": d.face,
                        }
                        for d in rack.devices
                    ],
                }
            )
        dropper = window.rack_view.dropper
        target = dropper._target  # noqa: SLF001 - what the highlight shows now
        active = QApplication.activeWindow()
        return {
            "title": window.windowTitle(),
            "modified": window.isWindowModified(),
            "path": str(document.path) if document.path else None,
            "status": window.statusBar().currentMessage(),
            "undo_index": document.undo_stack.index(),
            "undo_count": document.undo_stack.count(),
            "undo_text": document.undo_stack.undoText(),
            "selected": list(document.selected),
            "tab": window.tabs.tabText(window.tabs.currentIndex()),
            "active_window": active.windowTitle() if active is not None else None,
            "racks": racks,
            "findings": [
                {"rule": f.rule, "message": f.message, "objects": list(f.objects)}
                # Not asked while the links are read: asking would finish the reading.
                for f in ([] if document.links_pending else figures.findings())
            ],
            "strip": window.summary.text(),
            "scenarios": _scenarios(window),
            "inspector": _texts(window.inspector),
            "hover": (
                {"rack": target.rack_id, "state": target.verdict.state.value}
                if target is not None
                else None
            ),
        }

    def _rack_id(self, rack: str) -> str:
        for candidate in self.window.document.design.iter_racks():
            if candidate.name == rack or candidate.id == rack:
                return candidate.id
        raise ValueError(f"no rack {rack!r}")

    def q_rack_u(self, rack: str, u: int) -> dict[str, int]:
        """The screen point over unit ``u`` of a rack in the rack view (scrolled in)."""
        view = self.window.rack_view
        item = view.rack_item(self._rack_id(rack))
        if item is None or item.rack is None:
            raise ValueError(f"rack {rack!r} is not drawn")
        from workbench.ui.racks.scene import SCENE_SCALE

        rect = geo.u_rect(u, 1, geo.rack_units(item.rack, view.design), SCENE_SCALE)
        centre = item.mapToScene(QPointF(rect.x + rect.w / 2, rect.y + rect.h / 2))
        view.ensureVisible(centre.x() - 1, centre.y() - 1, 2, 2, 120, 120)
        return _point(view.viewport().mapToGlobal(view.mapFromScene(centre)))

    def q_widget(self, name: str) -> dict[str, int]:
        """A widget's rectangle on the screen, by attribute of the window or object name."""
        widget = getattr(self.window, name, None)
        if not isinstance(widget, QWidget):
            widget = self.window.findChild(QWidget, name)
        if widget is None:
            for top in QApplication.topLevelWidgets():
                found = top if top.objectName() == name else top.findChild(QWidget, name)
                if found is not None and found.isVisible():
                    widget = found
                    break
        if widget is None:
            raise ValueError(f"no widget {name!r}")
        target = widget.viewport() if hasattr(widget, "viewport") else widget
        corner = target.mapToGlobal(QPoint(0, 0))
        return {"x": corner.x(), "y": corner.y(), "w": target.width(), "h": target.height()}

    def q_palette(self, slug: str) -> dict[str, int]:
        """The screen point of a catalog item in the palette (expanded and scrolled in)."""
        from workbench.ui.catalog.palette import SLUG_ROLE

        palette = self.window.palette_widget
        proxy, tree = palette.proxy, palette.tree
        stack: list[QModelIndex] = [proxy.index(r, 0) for r in range(proxy.rowCount())]
        while stack:
            index = stack.pop()
            if index.data(SLUG_ROLE) == slug:
                tree.scrollTo(index)
                rect = tree.visualRect(index)
                return _point(tree.viewport().mapToGlobal(rect.center()))
            stack.extend(proxy.index(r, 0, index) for r in range(proxy.rowCount(index)))
        raise ValueError(f"{slug!r} is not in the palette")

    def q_menu_item(self, text: str) -> dict[str, int]:
        """The screen point of the entry starting with ``text`` in the open menu."""
        for top in QApplication.topLevelWidgets():
            if isinstance(top, QMenu) and top.isVisible():
                for action in top.actions():
                    if action.text().replace("&", "").startswith(text):
                        rect = top.actionGeometry(action)
                        return _point(top.mapToGlobal(rect.center()))
        raise ValueError(f"no open menu has an entry {text!r}")

    def q_tab(self, text: str) -> dict[str, int]:
        """The screen point of the main tab named ``text`` ("Floor plan")."""
        bar = self.window.tabs.tabBar()
        for i in range(bar.count()):
            if bar.tabText(i).replace("&", "") == text:
                return _point(bar.mapToGlobal(bar.tabRect(i).center()))
        raise ValueError(f"no tab {text!r}")

    def q_dock_tab(self, title: str) -> dict[str, int]:
        """The screen point of a tabified dock's tab ("Scenarios")."""
        for bar in self.window.findChildren(QTabBar):
            if bar.parent() is not self.window:
                continue  # the central tabs and tabs inside panels
            for i in range(bar.count()):
                if bar.tabText(i).replace("&", "") == title and bar.isVisible():
                    return _point(bar.mapToGlobal(bar.tabRect(i).center()))
        raise ValueError(f"no dock tab {title!r}")

    def q_list_item(self, name: str, text: str) -> dict[str, int]:
        """The screen point of the entry ``text`` of the list widget ``name``."""
        widget = self.window.findChild(QListWidget, name)
        if widget is None:
            raise ValueError(f"no list {name!r}")
        for row in range(widget.count()):
            item = widget.item(row)
            if item.text() == text:
                widget.scrollToItem(item)
                rect = widget.visualItemRect(item)
                return _point(widget.viewport().mapToGlobal(rect.center()))
        raise ValueError(f"{name!r} has no entry {text!r}")

    def q_floor_rack(self, rack: str) -> dict[str, int]:
        """The screen point of a rack's centre on the floor plan."""
        plan = self.window.floor_plan
        point = plan.view_point_of(self._rack_id(rack))
        if point is None:
            raise ValueError(f"rack {rack!r} is not on the floor plan")
        return _point(plan.viewport().mapToGlobal(point))

    def q_checks_rows(self) -> list[dict[str, Any]]:
        """What the Checks tree shows now: each group's title and its rows' cell texts.

        Read through the tree's model, as the view draws it, not from the figures: the
        tree is updated row by row after an edit, so a journey test compares these rows
        with a full check of the saved file in another process.
        """
        model = self.window.checks.tree.model()
        groups = []
        for g in range(model.rowCount()):
            group = model.index(g, 0)
            rows = [
                [str(model.index(r, c, group).data() or "") for c in range(model.columnCount())]
                for r in range(model.rowCount(group))
            ]
            groups.append({"title": str(group.data()), "rows": rows})
        return groups


def _scenarios(window: MainWindow) -> dict[str, Any]:
    """The Scenarios panel: its files (ticked or not) and the comparison it shows."""
    panel = window.scenario_actions.panel
    files = [
        {"label": item.text(), "ticked": item.checkState() == Qt.CheckState.Checked}
        for item in (panel.files.item(r) for r in range(panel.files.count()))
    ]
    table = panel.table
    return {
        "files": files,
        "columns": list(table.names) if table is not None else [],
        "rows": {r.label: list(r.values) for r in table.rows} if table is not None else {},
        "message": panel.message.text(),
    }


def install_probe(window: MainWindow) -> Probe | None:
    """Start the probe when :data:`PROBE_ENV` names a socket path (journey tests)."""
    path = os.environ.get(PROBE_ENV)
    if not path:
        return None
    return Probe(window, path)


__all__ = ["PROBE_ENV", "Probe", "install_probe"]
