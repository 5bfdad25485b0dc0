"""A block of rich text that wraps to its width, laid out once per text and width.

Why not a word-wrapped rich-text QLabel: for one new text such a label lays its document
out five to seven times (its size hint tries 80 characters, then half and a quarter of
that; its minimum size one unbounded line and width 0, each word on a line of its own;
then the height for the width it is given, and the paint), ~1.2 ms of every drop at
16,384 GPUs, where the inspector lists the new node's findings.  Here the document is
laid out at the width the layout gives it, and again only when that width or the text
changes; it reads and paints as the label did (no margin, the widget's font, wrapped at
word boundaries, in its text colour).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QSize
from PySide6.QtGui import QPainter, QTextDocument, QTextOption
from PySide6.QtWidgets import QSizePolicy, QWidget


class RichNote(QWidget):
    """Shows rich text (as :meth:`QLabel.setText` takes it), wrapped to its width."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._text = ""
        self._document = QTextDocument(self)
        self._document.setDocumentMargin(0)
        self._document.setUndoRedoEnabled(False)
        option = self._document.defaultTextOption()
        option.setWrapMode(QTextOption.WrapMode.WordWrap)
        self._document.setDefaultTextOption(option)
        self._document.setDefaultFont(self.font())
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def text(self) -> str:
        """The rich text shown."""
        return self._text

    def setText(self, text: str) -> None:  # noqa: N802 - QLabel's name, which it stands for
        """Show ``text``; the same text again changes nothing (no layout, no paint)."""
        if text == self._text:
            return
        self._text = text
        self._document.setHtml(text)
        self.updateGeometry()
        self.update()

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt's name
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt's name
        document = self._document
        if document.textWidth() != width:
            document.setTextWidth(width)
        return math.ceil(document.size().height())

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """As tall as the text at the width it has (no width of its own to ask for: the
        panel it sits in sets that)."""
        width = max(self.width(), 1)
        return QSize(0, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(0, 0)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.FontChange:
            self._document.setDefaultFont(self.font())
            self.updateGeometry()
        super().changeEvent(event)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.heightForWidth(self.width())  # laid out at this width (a no-op when it was)
        painter = QPainter(self)
        # drawContents paints the text not coloured by the markup in the pen's colour.
        painter.setPen(self.palette().color(self.foregroundRole()))
        self._document.drawContents(painter, event.rect())
        painter.end()


__all__ = ["RichNote"]
