"""RichNote: rich text laid out once per text and width, read and painted as the
word-wrapped QLabel it replaces."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from workbench.ui.rich_note import RichNote

TEXT = (
    '<b>Checks</b><p style="margin:0 0 4px 0"><b style="color:#f9a825">FABRIC-UNCABLED'
    "</b>: gpu-server-Y02-u34 has no link on the compute plane: its GPUs cannot take part "
    "in collectives with the rest of the cluster.</p>"
)


def _shown(qtbot, widget: QWidget, width: int) -> QWidget:
    host = QWidget()
    qtbot.addWidget(host)
    layout = QVBoxLayout(host)
    layout.addWidget(widget)
    layout.addStretch(1)
    host.resize(width, 400)
    host.show()
    qtbot.waitExposed(host)
    return host


def _label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


def test_it_takes_the_height_and_paints_the_pixels_of_a_wrapped_rich_label(qtbot):
    for width in (306, 180, 600):
        label, note = _label(), RichNote()
        label.setText(TEXT)
        note.setText(TEXT)
        first, second = _shown(qtbot, label, width), _shown(qtbot, note, width)
        assert note.text() == label.text()
        assert note.geometry() == label.geometry()
        assert note.heightForWidth(width - 20) == label.heightForWidth(width - 20)
        assert first.grab().toImage() == second.grab().toImage()


def test_the_same_text_again_asks_for_no_layout(qtbot):
    note = RichNote()
    host = _shown(qtbot, note, 306)
    note.setText(TEXT)
    host.layout().activate()
    asked: list[bool] = []
    note.updateGeometry = lambda: asked.append(True)  # type: ignore[method-assign]
    note.setText(TEXT)
    assert asked == []
    note.setText(TEXT.replace("Y02", "Y03"))
    assert asked == [True]
