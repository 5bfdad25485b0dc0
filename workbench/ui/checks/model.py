"""The Checks view's item model: findings grouped by severity, rule or object, filtered.

A hand-written two-level model (groups, then findings) instead of a QStandardItemModel:
a 100,000-GPU design can hold thousands of findings, and building thousands of items
after every edit would cost more than the edit.  The model keeps plain rows and changes
only when the findings or the waivers actually differ (the checker's version says so).

When the groups stay the same (an edit changes a figure in a finding, adds one or ends
one), only the rows that differ are announced (changed, inserted, removed) instead of
resetting the model: a reset made the tree lay out and repaint every row and its header
after each such edit (~2-4 ms of a node removed at 100,000 GPUs, when only the
oversubscription figure had moved), and dropped the user's current row and scroll place.
A group that comes or goes (the Errors heading a dropped node's first error brings, and
its undo takes away) is inserted or removed as one row too, the other groups kept as
they are (a reset cost ~1 ms of such a drop at 16,384 GPUs: the header repainted, every
group's rows laid out and opened again).  That is why a finding row's index names its
group by a number kept for the group's key (:attr:`FindingsModel._ids`), not by the
group's place, which an inserted group shifts under the tree's current row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QIcon, QPainter, QPixmap

from workbench.model import Design, Waiver
from workbench.render import colors
from workbench.rules.registry import Finding, Severity, all_rules

COLUMNS: tuple[str, ...] = ("Finding", "Rule", "Object", "Waiver")
#: Groups coming and going at once beyond which the model is reset instead (a filter or
#: grouping change replaces them all; one row announced per group would cost more).
MOST_GROUPS_MOVED = 8
GROUPINGS: tuple[str, ...] = ("severity", "rule", "object")

_Index = QModelIndex | QPersistentModelIndex
#: The invalid index (the root), as Qt's default argument.
_ROOT = QModelIndex()


@dataclass(frozen=True)
class Row:
    """One finding as the view shows it."""

    finding: Finding
    object_name: str
    waiver: Waiver | None
    #: Live before waived, worst first, then by rule and object name.
    sort_key: tuple = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        f = self.finding
        key = (self.waiver is not None, -f.severity, f.rule, self.object_name.casefold())
        object.__setattr__(self, "sort_key", key)

    @property
    def waived(self) -> bool:
        return self.waiver is not None


@dataclass
class Group:
    key: str
    title: str
    rows: list[Row]


def object_name(design: Design, object_id: str) -> str:
    """What a person calls an object: its name, and what it is."""
    index = design.index
    found = index.devices.get(object_id)
    if found is not None:
        return f"{found[1].name} (in {found[0].name})"
    placed = index.racks.get(object_id)
    if placed is not None:
        return f"rack {placed[1].name}"
    workload = index.workloads.get(object_id)
    if workload is not None:
        return f"workload {workload.name}"
    for tier in design.storage_tiers:
        if tier.id == object_id:
            return f"tier {tier.name}"
    return "the design" if object_id in ("", "design") else object_id


class FindingsModel(QAbstractItemModel):
    """Groups of finding rows; internal ids tell group rows (0) from finding rows (their
    group's id, see :attr:`_ids`)."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.groups: list[Group] = []
        self.grouping = "severity"
        self.min_severity = Severity.INFO
        self.rule_filter = ""
        self.text_filter = ""
        self.show_waived = True
        self._rows: list[Row] = []
        #: A number (from 1) per group key, kept until the next reset: a finding row's
        #: internal id, so its index stays right when groups before it come or go.
        self._ids: dict[str, int] = {}
        self._last_id = 0
        #: Group id -> its place in :attr:`groups`.
        self._at: dict[int, int] = {}

    # -- filling ------------------------------------------------------------------------
    def set_rows(self, rows: list[Row]) -> None:
        # Sorted once here; grouping and filtering keep the order (thousands of rows
        # re-sorted per group on every filter change cost ~20 ms).
        self._rows = sorted(rows, key=attrgetter("sort_key"))
        self._regroup()

    def set_filters(
        self,
        *,
        grouping: str | None = None,
        min_severity: Severity | None = None,
        rule: str | None = None,
        text: str | None = None,
        show_waived: bool | None = None,
    ) -> None:
        if grouping is not None:
            self.grouping = grouping
        if min_severity is not None:
            self.min_severity = min_severity
        if rule is not None:
            self.rule_filter = rule
        if text is not None:
            self.text_filter = text.strip().casefold()
        if show_waived is not None:
            self.show_waived = show_waived
        self._regroup()

    def _keep(self, row: Row) -> bool:
        f = row.finding
        if f.severity < self.min_severity or (row.waived and not self.show_waived):
            return False
        if self.rule_filter and f.rule != self.rule_filter:
            return False
        if self.text_filter:
            haystack = f"{row.object_name} {f.message} {f.rule} {' '.join(f.objects)}".casefold()
            return self.text_filter in haystack
        return True

    def _regroup(self) -> None:
        groups = self._grouped()
        old = [g.key for g in self.groups]
        new = [g.key for g in groups]
        if old != new:
            kept = set(old).intersection(new)
            if len(old) + len(new) - 2 * len(kept) > MOST_GROUPS_MOVED:
                self.beginResetModel()
                self._ids.clear()  # no index outlives a reset
                self._place(groups)
                self.endResetModel()
                return
            self._move_groups(groups, kept)
        self._update_rows(groups)

    def _place(self, groups: list[Group]) -> None:
        """Make ``groups`` the shown ones, numbering the keys not numbered yet."""
        self.groups = groups
        ids = self._ids
        for group in groups:
            if group.key not in ids:
                self._last_id += 1
                ids[group.key] = self._last_id
        self._at = {ids[g.key]: number for number, g in enumerate(groups)}

    def _move_groups(self, groups: list[Group], kept: set[str]) -> None:
        """Remove the groups whose keys are gone and insert the new ones, each as one
        row (with its findings); the groups ``kept`` stay (their rows updated after).
        Both lists are sorted by key, so the kept ones keep their order."""
        for number in range(len(self.groups) - 1, -1, -1):
            key = self.groups[number].key
            if key in kept:
                continue
            self.beginRemoveRows(_ROOT, number, number)
            self._place(self.groups[:number] + self.groups[number + 1 :])
            self.endRemoveRows()
        for number, group in enumerate(groups):
            if group.key in kept:
                continue
            self.beginInsertRows(_ROOT, number, number)
            self._place(self.groups[:number] + [group] + self.groups[number:])
            self.endInsertRows()

    def _grouped(self) -> list[Group]:
        """The kept rows, filtered, in their groups (sorted by key)."""
        groups: dict[str, Group] = {}
        key_of: Callable[[Row], tuple[str, str]] = {
            "severity": lambda r: (
                f"{2 - r.finding.severity}",
                _severity_title(r.finding.severity),
            ),
            "rule": lambda r: (r.finding.rule, _rule_title(r.finding.rule)),
            "object": lambda r: (r.object_name.casefold(), r.object_name),
        }[self.grouping]
        for row in self._rows:
            if not self._keep(row):
                continue
            key, title = key_of(row)
            group = groups.get(key)
            if group is None:
                group = groups[key] = Group(key, title, [])
            group.rows.append(row)
        return [groups[k] for k in sorted(groups)]

    def _update_rows(self, groups: list[Group]) -> None:
        """Put ``groups`` (the same group keys as now) in place, announcing per group
        only the run of rows between the unchanged first and last ones: removed or
        inserted where the counts differ, changed where they overlap.  A row kept by the
        view for a finding that did not change is the same object, so ``is`` finds the
        unchanged ends without comparing messages.  Changes are announced cell by cell:
        a tree repaints one cell for a one-cell change, its whole viewport for a range."""
        changed: list[QModelIndex] = []
        for number, group in enumerate(groups):
            old = self.groups[number].rows
            new = group.rows
            if old == new and self.groups[number].title == group.title:
                self.groups[number] = group
                continue
            shortest = min(len(old), len(new))
            start = 0
            while start < shortest and old[start] is new[start]:
                start += 1
            end = 0
            while end < shortest - start and old[-1 - end] is new[-1 - end]:
                end += 1
            old_middle, new_middle = len(old) - start - end, len(new) - start - end
            parent = self.index(number, 0)
            if old_middle > new_middle:
                first = start + new_middle
                self.beginRemoveRows(parent, first, start + old_middle - 1)
                self.groups[number].rows = old[:first] + old[start + old_middle :]
                self.endRemoveRows()
            elif new_middle > old_middle:
                first = start + old_middle
                self.beginInsertRows(parent, first, start + new_middle - 1)
                self.groups[number] = group
                self.endInsertRows()
            self.groups[number] = group  # the same key: its id and place stay
            changed.append(parent)  # its title counts the live and waived findings
            for row in range(start, start + min(old_middle, new_middle)):
                changed.extend(self.index(row, c, parent) for c in range(len(COLUMNS)))
        for index in changed:
            self.dataChanged.emit(index, index)

    def visible_count(self) -> int:
        return sum(len(g.rows) for g in self.groups)

    # -- reading ------------------------------------------------------------------------
    def row_at(self, index: _Index) -> Row | None:
        """The finding row behind ``index`` (None for a group row)."""
        if not index.isValid() or index.internalId() == 0:
            return None
        return self.groups[self._at[index.internalId()]].rows[index.row()]

    # -- QAbstractItemModel -------------------------------------------------------------
    def index(self, row: int, column: int, parent: _Index = _ROOT) -> QModelIndex:
        # Bounds checked here rather than by hasIndex(), which asked rowCount() and
        # columnCount() back through Python (the tree asks ~80 indexes per paint).
        if row < 0 or not 0 <= column < len(COLUMNS):
            return QModelIndex()
        if not parent.isValid():
            if row >= len(self.groups):
                return QModelIndex()
            return self.createIndex(row, column, 0)
        if parent.internalId() != 0 or parent.column() != 0:
            return QModelIndex()  # a finding row has no children
        group = self.groups[parent.row()]
        if row >= len(group.rows):
            return QModelIndex()
        return self.createIndex(row, column, self._ids[group.key])

    def parent(self, index: _Index = _ROOT) -> QModelIndex:  # type: ignore[override]
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        return self.createIndex(self._at[index.internalId()], 0, 0)

    def rowCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt's name
        if not parent.isValid():
            return len(self.groups)
        if parent.internalId() == 0 and parent.column() == 0:
            return len(self.groups[parent.row()].rows)
        return 0

    def columnCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt's name
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        # Roles compare as plain ints (a Qt enum attribute costs a lookup per call).
        role = int(role)
        if role not in _ANSWERED or not index.isValid():
            return None
        return self._answer(self._cell(index), index.column(), role)

    def multiData(self, index: _Index, roleDataSpan) -> None:  # noqa: N802 - Qt's name
        """Every role a delegate asks of one cell, in one call.

        Why: Qt's item delegate asks seven roles of each cell it paints (font, alignment,
        foreground, check state, decoration, text, background) through this method, whose
        default asked :meth:`data` once per role: ~250 Python calls per paint of the tree,
        which follows every edit that changes the findings (a drop at 16,384 GPUs).  Here
        the cell is found once and each role answered from it; the answers are those of
        :meth:`data` (one home: :meth:`_answer`)."""
        if not index.isValid():
            for item in roleDataSpan:
                item.clearData()
            return
        cell, column = self._cell(index), index.column()
        for item in roleDataSpan:
            role = item.role()
            value = self._answer(cell, column, role) if role in _ANSWERED else None
            if value is None:
                item.clearData()
            else:
                item.setData(value)

    def _cell(self, index: _Index) -> Group | Row:
        """The group (a group row) or the finding row behind a valid ``index``."""
        internal = index.internalId()
        if internal == 0:
            return self.groups[index.row()]
        return self.groups[self._at[internal]].rows[index.row()]

    @staticmethod
    def _answer(cell: Group | Row, column: int, role: int):
        """What ``role`` of ``cell``'s ``column`` reads (None: nothing), for
        :meth:`data` and :meth:`multiData` alike."""
        if isinstance(cell, Group):
            if column != 0:
                return None
            if role == _DISPLAY:
                # Live findings only, as the status strip counts them; waived apart.
                waived = sum(1 for r in cell.rows if r.waived)
                live = len(cell.rows) - waived
                extra = f" + {waived:,} waived" if waived else ""
                return f"{cell.title} ({live:,}{extra})"
            if role == _FONT:
                return _bold()
            return None
        row = cell
        f = row.finding
        if role == _DISPLAY:
            if column == 0:
                return f.message
            if column == 1:
                return f.rule
            if column == 2:
                return row.object_name
            return f"waived: {row.waiver.note}" if row.waiver is not None else ""
        if role == _TOOLTIP:
            rule = all_rules().get(f.rule)
            source = f"\nSource: {rule.source}" if rule is not None else ""
            waiver = f"\nWaived: {row.waiver.note}" if row.waiver is not None else ""
            return f"{f.severity.label.upper()} {f.rule}: {f.message}{source}{waiver}"
        if role == _FOREGROUND:
            if row.waived:
                return _brush(colors.TEXT_MUTED, darker=False)
            if column == 0:
                # Darkened: amber text on white is hard to read at the severity's own tone.
                return _brush(colors.SEVERITY_COLORS[f.severity], darker=True)
            return None
        if role == _DECORATION and column == 0:
            return _dot(f.severity, row.waived)
        return None


_DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
_DECORATION = int(Qt.ItemDataRole.DecorationRole.value)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole.value)
_FONT = int(Qt.ItemDataRole.FontRole.value)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole.value)
#: The roles :meth:`FindingsModel.data` answers; every other role is None at once.
_ANSWERED = frozenset((_DISPLAY, _DECORATION, _TOOLTIP, _FONT, _FOREGROUND))

_BRUSHES: dict[tuple[str, bool], QBrush] = {}
_BOLD: list[QFont] = []


def _brush(color: str, *, darker: bool) -> QBrush:
    """A text brush in ``color`` (made once: asked for every cell of every paint)."""
    key = (color, darker)
    brush = _BRUSHES.get(key)
    if brush is None:
        tone = QColor(color)
        brush = _BRUSHES[key] = QBrush(tone.darker(160) if darker else tone)
    return brush


def _bold() -> QFont:
    """The group rows' bold font (made once)."""
    if not _BOLD:
        font = QFont()
        font.setBold(True)
        _BOLD.append(font)
    return _BOLD[0]


_DOTS: dict[tuple[Severity, bool], QIcon] = {}


def _dot(severity: Severity, waived: bool) -> QIcon:
    """A small round marker in the severity's colour (paler when waived)."""
    key = (severity, waived)
    if key not in _DOTS:
        pixmap = QPixmap(12, 12)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        color = QColor(colors.SEVERITY_COLORS[severity])
        if waived:
            color.setAlpha(80)
        painter.setBrush(color)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawEllipse(1, 1, 10, 10)
        painter.end()
        _DOTS[key] = QIcon(pixmap)
    return _DOTS[key]


def _severity_title(severity: Severity) -> str:
    return {Severity.ERROR: "Errors", Severity.WARNING: "Warnings", Severity.INFO: "Info"}[severity]


def _rule_title(rule_id: str) -> str:
    rule = all_rules().get(rule_id)
    return f"{rule_id}: {rule.title}" if rule is not None else rule_id
