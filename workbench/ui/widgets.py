"""Small widget helpers shared by the side panels, so they fit a laptop's narrow docks."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox


def narrow_combo(object_name: str, min_chars: int = 8) -> QComboBox:
    """A combo box that may shrink to ``min_chars`` characters instead of growing to its
    longest entry (which pushed the inspector wider than its dock)."""
    box = QComboBox()
    box.setObjectName(object_name)
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(min_chars)
    return box
