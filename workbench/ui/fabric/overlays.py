"""What floats over the Fabric view: the plane filter, the controls (generate, zoom,
fit), a line of hints, the as-built legend, and the titles and layer labels pinned to
the window.

The legend shows while the design holds as-built captures, as a line above the hints:
each mark's line style and colour with how many links have that verdict
(:mod:`workbench.ui.fabric.asbuilt`), and how many captured cables the design lacks.  The tooltip of a marked bundle gains its
as-built lines (the counts, each wrong link's detail and file:line); the view's own
tooltip text comes first, so the overlays answer a tooltip only over a marked bundle.

The labels are drawn at a fixed size in window pixels (through the one drawing path,
:func:`workbench.render.fabric_painter.paint_layer_label` and
:func:`~workbench.render.fabric_painter.paint_title`), beside each panel where there is
room, so a layer's name, switch count and oversubscription stay readable however far
out a 32-leaf fabric is zoomed; paper draws them at scene size instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from workbench.render import fabric_painter as fp
from workbench.render.fabric_layout import UNCABLED
from workbench.ui.fabric.asbuilt import (
    MARK_ORDER,
    MARK_STYLES,
    UNEXPECTED_COLOR,
    bundle_tooltip,
    mark_pen,
)
from workbench.ui.zoom_view import ZoomPanView, ZoomToolbar

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from workbench.render.fabric_layout import Box, Bundle
    from workbench.ui.fabric.scene import FabricScene

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


class FabricCanvas(Protocol):
    """What the overlays read of the fabric view besides its widget
    (:class:`workbench.ui.fabric.view.FabricView` holds them; naming the shape instead
    of importing the view, which imports this module, keeps the two out of a circle)."""

    fabric: FabricScene
    generateRequested: SignalInstance  # noqa: N815 - Qt's signal name

    def set_plane(self, plane: str) -> None: ...

    def box_at(self, view_pos: QPoint) -> Box | None: ...

    def bundle_at(self, view_pos: QPoint) -> Bundle | None: ...

    def _tooltip(self, pos: QPoint) -> str: ...


class Overlays:
    """The view's floating widgets and pinned labels.

    ``view`` is the widget they float on and ``canvas`` what they read of the fabric:
    the fabric view passes itself as both.
    """

    def __init__(self, view: ZoomPanView, canvas: FabricCanvas):
        self.view = view
        self.canvas = canvas
        self.filter, self.buttons = self._make_filter()
        self.controls = self._make_controls()
        self.hint = self._make_hint()
        self.legend, self.legend_counts = self._make_legend()
        canvas.fabric.marksChanged.connect(self.update_legend)
        self._tips = _TipFilter(self)
        view.viewport().installEventFilter(self._tips)

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
            button.clicked.connect(lambda _=False, p=plane: self.canvas.set_plane(p))
            group.addButton(button)
            layout.addWidget(button)
            buttons[plane] = button
        buttons["all"].setChecked(True)
        box.adjustSize()
        return box, buttons

    def _make_controls(self) -> ZoomToolbar:
        bar = ZoomToolbar(self.view, "fabricControls", "Show the whole drawing")
        bar.add_button(
            "Generate fabric…",
            "Generate a plane's switches and links",
            self.canvas.generateRequested.emit,
        )
        return bar

    def _make_hint(self) -> QWidget:
        box = QFrame(self.view)
        box.setObjectName("fabricHint")
        box.setStyleSheet(_OVERLAY_STYLE.format(name="fabricHint"))
        layout = QVBoxLayout(box)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(3)
        layout.addWidget(
            QLabel(
                "Drag from one box to another to cable them · Delete removes the selected "
                "links · right-click a switch: what if it fails · drop switches from the catalog"
            )
        )
        box.adjustSize()
        return box

    def _make_legend(self) -> tuple[QWidget, dict[str, QLabel]]:
        """One line above the hints, in the hint box: the view keeps that box's height
        clear of the drawing when it fits, so the legend never covers a bundle."""
        row = QWidget()
        row.setObjectName("fabricLegend")
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(5)
        title = QLabel("<b>As built</b>")
        title.setStyleSheet("color: #37474f;")
        line.addWidget(title)
        counts: dict[str, QLabel] = {}
        items = [(v, MARK_STYLES[v][0]) for v in MARK_ORDER] + [("unexpected", "Unexpected")]
        for verdict, text in items:
            line.addSpacing(8)
            swatch = QLabel()
            swatch.setPixmap(_swatch(verdict))
            line.addWidget(swatch)
            line.addWidget(QLabel(text))
            number = QLabel("0")
            number.setObjectName(f"legend-{verdict}")
            number.setStyleSheet("color: #263238; font-weight: bold;")
            line.addWidget(number)
            counts[verdict] = number
        rest = QLabel()
        rest.setObjectName("legend-rest")
        line.addSpacing(8)
        line.addWidget(rest)
        line.addStretch(1)
        counts["rest"] = rest
        counts["unexpected"].setToolTip(
            "Captured cables the design does not have: the Cables panel lists them"
        )
        layout = self.hint.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(0, row)
        row.hide()
        return row, counts

    def update_legend(self) -> None:
        """Show the legend with the design's verdict counts, or hide it (no captures)."""
        cache = self.canvas.fabric.asbuilt
        if not cache.has_captures:
            self.legend.hide()
            self.place()
            return
        counts = cache.counts()
        for verdict, label in self.legend_counts.items():
            if verdict != "rest":
                label.setText(f"{counts.get(verdict, 0):,}")
        self.legend_counts["rest"].setText(
            f"{counts.get('correct', 0):,} correct · {counts.get('unchecked', 0):,} not captured"
        )
        self.legend.show()
        self.place()

    def tooltip(self, pos: QPoint) -> str:
        """The view's tooltip with the as-built lines of a marked bundle under ``pos``;
        "" elsewhere (the view answers)."""
        canvas = self.canvas
        if canvas.box_at(pos) is not None:
            return ""
        bundle = canvas.bundle_at(pos)
        counts = canvas.fabric.marks.get(bundle.key) if bundle is not None else None
        if bundle is None or not counts:
            return ""
        lines = [canvas._tooltip(pos)]  # noqa: SLF001 - the view's own text first
        lines += bundle_tooltip(canvas.fabric.asbuilt, bundle, counts)
        return "<br>".join(lines)

    def place(self) -> None:
        """Put the overlays back in their corners (after a resize)."""
        vp = self.view.viewport().geometry()
        self.filter.adjustSize()
        self.filter.move(vp.left() + 10, vp.top() + 10)
        self.controls.place(reserve=False)  # the view leaves room for the plane filter
        self.hint.adjustSize()
        self.hint.move(vp.left() + 10, vp.bottom() - self.hint.height() - 10)

    def paint_pinned(self, painter: QPainter) -> None:
        """Each panel's title above it and its layers' names and figures at its left, at
        a fixed size (readable at any zoom); inside the panel when there is no room."""
        view = self.view
        layout = self.canvas.fabric.layout
        figures = self.canvas.fabric.figures
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


class _TipFilter(QObject):
    """Answers the viewport's tooltip over a marked bundle (before the view does)."""

    def __init__(self, overlays: Overlays):
        super().__init__(overlays.view)
        self.overlays = overlays

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() != QEvent.Type.ToolTip:
            return False
        text = self.overlays.tooltip(event.pos())  # type: ignore[attr-defined]
        if not text:
            return False
        QToolTip.showText(event.globalPos(), text, self.overlays.view.viewport())  # type: ignore[attr-defined]
        return True


def _swatch(verdict: str) -> QPixmap:
    """A short line in a mark's style (a filled chip for unexpected cables)."""
    pixmap = QPixmap(26, 12)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    if verdict in MARK_STYLES:
        painter.setPen(mark_pen(verdict, 3.0))
        painter.drawLine(1, 6, 25, 6)
    else:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(UNEXPECTED_COLOR))
        painter.drawRoundedRect(7, 1, 12, 10, 3, 3)
    painter.end()
    return pixmap
