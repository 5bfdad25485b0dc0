"""The Versions table's item model: nodes are rows, stack layers are columns.

Everything shown comes from :func:`workbench.versions.matrix.effective_versions`, the
shape the rules and ``workbench versions show`` read too, so the table cannot disagree
with the checks.  A cell shows what the node reported, or (in grey italics) what its
baseline expects when it has not reported that layer; a drifted cell is coloured, and
its tooltip tells the story: the pin and its revision, the reported value, the file and
line it came from, when and by whom it was imported.

The model keeps plain rows, not Qt items, so 12,500 nodes cost one pass over the
matrix; data() formats a cell only when the view asks for it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from workbench.model.acceptance import latest_results
from workbench.model.design import Design
from workbench.model.versions import OBSERVED_KEYS, OBSERVED_LABELS
from workbench.versions.matrix import NodeVersions, effective_versions, where

#: The first columns; the layers follow (a layer nobody pins or reports is left out).
_FIXED = ("node", "baseline", "acceptance")
_FAIL_BRUSH = QBrush(QColor(255, 190, 190))
_PASS_BRUSH = QBrush(QColor(214, 240, 214))
DRIFT_BRUSH = QBrush(QColor(255, 214, 204))
_EXPECTED_BRUSH = QBrush(QColor(120, 120, 120))
_MISSING_BRUSH = QBrush(QColor(255, 240, 200))

Index = QModelIndex | QPersistentModelIndex


class VersionTableModel(QAbstractTableModel):
    """Rows of :class:`NodeVersions`; columns: node, baseline, then each layer in use."""

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self.rows: list[NodeVersions] = []
        self.layers: list[str] = []
        self._drifted: list[frozenset[str]] = []
        self._haystack: list[str] | None = None
        self._acceptance: dict[str, Counter[str]] = {}
        self._italic = QFont()
        self._italic.setItalic(True)

    # -- filling ----------------------------------------------------------------------
    def load(self, design: Design) -> None:
        """Read the matrix afresh (after an edit of it, or of device names)."""
        nodes = list(effective_versions(design).values())
        pinned: set[str] = set()
        reported: set[str] = set()
        drifted: set[str] = set()
        for nv in nodes:
            pinned.update(nv.expected)
            reported.update(nv.observed)
            drifted.update(d.layer for d in nv.drift)
        # Drifted layers first, then reported, then pinned only: the answer to "which
        # nodes deviate, and where" is on screen without scrolling; each group top-down.
        groups = (drifted, reported - drifted, pinned - reported - drifted)
        # Acceptance per node: the newest result of each item (health_check.sh results).
        accepted: dict[str, Counter[str]] = {}
        for (node, _item), result in latest_results(design.acceptance).items():
            accepted.setdefault(node, Counter())[result.verdict] += 1
        self.beginResetModel()
        self.rows = nodes
        self._acceptance = accepted
        self.layers = [k for group in groups for k in OBSERVED_KEYS if k in group]
        self._drifted = [frozenset(d.layer for d in nv.drift) for nv in nodes]
        self._haystack = None  # built on the first filter
        self.endResetModel()

    def haystack(self, row: int) -> str:
        """The row's text (node, baseline, every value) folded, for the filter box: one
        string per row, built once, so typing filters 12,500 rows without asking data()
        for each of their cells."""
        if self._haystack is None:
            self._haystack = [
                " ".join(
                    [nv.node, nv.baseline_name]
                    + [nv.observed[k].value if k in nv.observed else nv.expected.get(k, "")
                       for k in self.layers]
                ).casefold()
                for nv in self.rows
            ]  # fmt: skip
        return self._haystack[row]

    def row_of(self, node: str) -> int | None:
        return next((i for i, nv in enumerate(self.rows) if nv.node == node), None)

    def is_drifted(self, row: int) -> bool:
        return bool(self._drifted[row]) or self.rows[row].baseline_missing

    def layer_of(self, column: int) -> str:
        return _FIXED[column] if column < len(_FIXED) else self.layers[column - len(_FIXED)]

    # -- Qt model interface --------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt's API
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(_FIXED) + len(self.layers)

    def headerData(  # noqa: N802 - Qt's name
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        key = self.layer_of(section)
        fixed = {"node": "Node", "baseline": "Baseline", "acceptance": "Acceptance"}
        return fixed.get(key) or OBSERVED_LABELS.get(key, key)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        nv = self.rows[index.row()]
        key = self.layer_of(index.column())
        if key == "node":
            return self._node_cell(nv, index.row(), role)
        if key == "baseline":
            return self._baseline_cell(nv, role)
        if key == "acceptance":
            return self._acceptance_cell(nv, role)
        return self._layer_cell(nv, key, index.row(), role)

    def _node_cell(self, nv: NodeVersions, row: int, role: int) -> Any:
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.UserRole):
            return nv.node
        if role == Qt.ItemDataRole.BackgroundRole and self.is_drifted(row):
            return DRIFT_BRUSH
        if role == Qt.ItemDataRole.ToolTipRole:
            drifted = ", ".join(OBSERVED_LABELS.get(d.layer, d.layer) for d in nv.drift)
            if nv.device_id is None:
                return f"{nv.node} reported versions but no device of the design has that name."
            return (
                f"{nv.node}: drifted on {drifted}." if drifted else f"{nv.node}: as its baseline."
            )
        return None

    def _baseline_cell(self, nv: NodeVersions, role: int) -> Any:
        text = f"{nv.baseline_name} r{nv.revision}" if nv.baseline_id and nv.revision else ""
        if nv.baseline_missing:
            text = "(deleted baseline)"
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.UserRole):
            return text or "—"
        if role == Qt.ItemDataRole.BackgroundRole and nv.baseline_missing:
            return _MISSING_BRUSH
        return None

    def _acceptance_cell(self, nv: NodeVersions, role: int) -> Any:
        counts = self._acceptance.get(nv.node)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.UserRole):
            if not counts:
                return "not run"
            return " · ".join(f"{counts[v]} {v}" for v in ("FAIL", "PASS", "SKIP") if counts[v])
        if role == Qt.ItemDataRole.BackgroundRole and counts:
            return _FAIL_BRUSH if counts["FAIL"] else _PASS_BRUSH
        if role == Qt.ItemDataRole.ToolTipRole:
            if not counts:
                return f"{nv.node}: no acceptance results imported yet."
            return (
                f"{nv.node}: newest result per checklist item, from health_check.sh "
                "(workbench acceptance import)."
            )
        return None

    def _layer_cell(self, nv: NodeVersions, layer: str, row: int, role: int) -> Any:
        seen = nv.observed.get(layer)
        pin = nv.expected.get(layer)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.UserRole):
            return seen.value if seen is not None else (pin or "")
        if role == Qt.ItemDataRole.BackgroundRole and layer in self._drifted[row]:
            return DRIFT_BRUSH
        if role == Qt.ItemDataRole.ForegroundRole and seen is None and pin:
            return _EXPECTED_BRUSH
        if role == Qt.ItemDataRole.FontRole and seen is None and pin:
            return self._italic
        if role == Qt.ItemDataRole.ToolTipRole:
            return cell_story(nv, layer)
        return None


def cell_story(nv: NodeVersions, layer: str) -> str:
    """The tooltip of one cell: what is pinned, what was reported, where and when."""
    label = OBSERVED_LABELS.get(layer, layer)
    seen = nv.observed.get(layer)
    pin = nv.expected.get(layer)
    parts = [f"{nv.node} — {label}"]
    if pin is not None:
        parts.append(f"Baseline {nv.baseline_name!r} r{nv.revision} pins {pin}.")
    elif nv.baseline_id:
        parts.append(f"Baseline {nv.baseline_name!r} does not pin this layer.")
    else:
        parts.append("No baseline covers this node.")
    if seen is not None:
        who = f" by {seen.imported_by}" if seen.imported_by else ""
        parts.append(
            f"Reported {seen.value} in {where(seen)}, imported {seen.observed_at}{who} "
            f"({seen.import_id})."
        )
    else:
        parts.append("Not reported yet: the cell shows the pin.")
    if any(d.layer == layer for d in nv.drift):
        parts.append(
            f"DRIFT: the node runs {seen.value if seen else '?'}, the baseline says {pin}."
        )
    return "\n".join(parts)
