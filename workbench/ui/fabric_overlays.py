"""What floats over the Fabric view: the plane filter, the controls (generate, zoom,
fit), a line of hints, and the titles and layer labels pinned to the window.

The labels are drawn at a fixed size in window pixels (through the one drawing path,
:func:`workbench.render.fabric_painter.paint_layer_label` and
:func:`~workbench.render.fabric_painter.paint_title`), beside each panel where there is
room, so a layer's name, switch count and oversubscription stay readable however far
out a 32-leaf fabric is zoomed; paper draws them at scene size instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QButtonGroup, QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from workbench.render import fabric_painter as fp
from workbench.render.fabric_layout import UNCABLED

if TYPE_CHECKING:
    from workbench.ui.fabric_view import FabricView

#: The plane filter's choices: one plane, or all of them side by side.
PLANE_CHOICES: dict[str, str] = {
    "compute": "Compute",
    "storage": "Storage",
    "management": "Management",
    "oob": "OOB",
    "all": "All planes",
}

_OVERLAY_STYLE = (
    "#{name} {{ background: rgba(255,255,255,235); border: 1px solid #cfd8dc;"
    " border-radius: 4px; }} QLabel {{ background: transparent; color: #546e7a; }}"
    " QToolButton {{ border: none; padding: 3px 9px; }}"
    " QToolButton:hover {{ background: #e3e8eb; border-radius: 3px; }}"
    " QToolButton:checked {{ background: #37474f; color: white; border-radius: 3px; }}"
)


#: Room the pinned labels take beside and above a panel, in view pixels.
LABEL_PX, TITLE_PX = 172, 52


class Overlays:
    """The view's floating widgets and pinned labels."""

    def __init__(self, view: FabricView):
        self.view = view
        self.filter, self.buttons = self._make_filter()
        self.controls = self._make_controls()
        self.hint = self._make_hint()

    def _make_filter(self) -> tuple[QWidget, dict[str, QToolButton]]:
        box = QFrame(self.view)
        box.setObjectName("fabricFilter")
        box.setStyleSheet(_OVERLAY_STYLE.format(name="fabricFilter"))
        layout = QHBoxLayout(box)
        layout.setContentsMargins(6, 3, 6, 3)
        layout.setSpacing(2)
        label = QLabel("Plane")
        layout.addWidget(label)
        group = QButtonGroup(box)
        group.setExclusive(True)
        buttons: dict[str, QToolButton] = {}
        for plane, text in PLANE_CHOICES.items():
            button = QToolButton(box)
            button.setText(text)
            button.setCheckable(True)
            button.setObjectName(f"plane-{plane}")
            button.clicked.connect(lambda _=False, p=plane: self.view.set_plane(p))
            group.addButton(button)
            layout.addWidget(button)
            buttons[plane] = button
        buttons["all"].setChecked(True)
        box.adjustSize()
        return box, buttons

    def _make_controls(self) -> QWidget:
        box = QFrame(self.view)
        box.setObjectName("fabricControls")
        box.setStyleSheet(_OVERLAY_STYLE.format(name="fabricControls"))
        layout = QHBoxLayout(box)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        for text, tip, slot in (
            (
                "Generate fabric…",
                "Generate a plane's switches and links",
                self.view.generateRequested.emit,
            ),
            ("−", "Zoom out (Ctrl+wheel)", lambda: self.view.zoom_by(1 / 1.25)),
            ("+", "Zoom in (Ctrl+wheel)", lambda: self.view.zoom_by(1.25)),
            ("Fit", "Show the whole drawing", self.view.fit),
        ):
            button = QToolButton(box)
            button.setText(text)
            button.setToolTip(tip)
            button.clicked.connect(lambda _=False, s=slot: s())
            layout.addWidget(button)
        box.adjustSize()
        return box

    def _make_hint(self) -> QWidget:
        box = QFrame(self.view)
        box.setObjectName("fabricHint")
        box.setStyleSheet(_OVERLAY_STYLE.format(name="fabricHint"))
        layout = QHBoxLayout(box)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(
            QLabel(
                "Drag from one box to another to cable them · Delete removes the selected "
                "links · right-click a switch: what if it fails · drop switches from the catalog"
            )
        )
        box.adjustSize()
        return box

    def place(self) -> None:
        """Put the overlays back in their corners (after a resize)."""
        vp = self.view.viewport().geometry()
        self.filter.adjustSize()
        self.filter.move(vp.left() + 10, vp.top() + 10)
        self.controls.adjustSize()
        self.controls.move(vp.right() - self.controls.width() - 10, vp.top() + 10)
        self.hint.adjustSize()
        self.hint.move(vp.left() + 10, vp.bottom() - self.hint.height() - 10)

    def paint_pinned(self, painter: QPainter) -> None:
        """Each panel's title above it and its layers' names and figures at its left, at
        a fixed size (readable at any zoom); inside the panel when there is no room."""
        view = self.view
        layout = view.fabric.layout
        figures = view.fabric.figures
        viewport = view.viewport().rect()
        top_clear = self.filter.geometry().bottom() + 6
        painter.save()
        painter.resetTransform()
        previous_right = -1e9
        panels = layout.panels
        for i, panel in enumerate(panels):
            left = view.mapFromScene(QPointF(panel.left, 0)).x()
            right = view.mapFromScene(QPointF(panel.right, 0)).x()
            following = (
                view.mapFromScene(QPointF(panels[i + 1].left, 0)).x()
                if i + 1 < len(panels)
                else viewport.right()
            )
            room_left = max(4, previous_right + 8)
            previous_right = right
            if right < 40 or left > viewport.right():
                continue
            if panel.plane != UNCABLED and right - left >= LABEL_PX * 1.6:
                for layer in panel.layers:
                    y = view.mapFromScene(QPointF(0, layer.y)).y()
                    if not top_clear + 20 < y < viewport.bottom() - 20:
                        continue
                    lines = fp.layer_lines(panel, layer, figures)
                    width, _height = fp.layer_label_size(layer.name, lines)
                    x = left - width - 8
                    if x < room_left:
                        x = max(left + 10, 10)
                    fp.paint_layer_label(painter, QPointF(x, y), layer.name, lines)
            top = view.mapFromScene(QPointF(0, panel.top)).y()
            title_y = max(top - TITLE_PX + 6, top_clear)
            x = max(left + 4, 10)
            room = min(following, viewport.right()) - 8 - x
            if title_y < viewport.bottom() - 40 and room > 60:
                subtitle = figures.planes.get(panel.plane, "")
                title = fp.panel_title(panel)
                fp.paint_title(painter, QPointF(x, title_y), title, subtitle, room)
        painter.restore()
