"""The Scenarios panel: the open design's sibling scenario files, two to four of them
compared side by side (table and plots), and the actions that make scenarios.

The list is the design file and its ``NAME.scenario-LABEL.dcwb`` siblings
(:func:`~workbench.planning.scenarios.sibling_scenarios`).  Ticking two to four and
pressing Compare builds the table from each file's cached figures
(:func:`~workbench.planning.scenarios.figures.figures_of_file`: a file is read and
checked once per version, and its figures kept in the user's cache folder, so the
first comparison of a later session does not read a 100,000-GPU file again); the open
design's own file, while the document is unmodified, from the design in memory and the
window's rule findings (:mod:`~workbench.ui.scenarios.open_figures`).  The panel does no work while it is not seen
(:func:`~workbench.ui.seen.is_seen`): a covered panel marks itself stale when the
design's path changes and re-reads the folder when its tab is raised (``on_exposed``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from workbench.planning.scenarios import (
    MAX_SCENARIOS,
    MIN_SCENARIOS,
    CompareTable,
    compare,
    sibling_scenarios,
)
from workbench.planning.scenarios.figures import ScenarioFigures, figures_of_file
from workbench.planning.scenarios.files import scenario_label
from workbench.store import ProjectFileError
from workbench.ui.scenarios.open_figures import open_design_figures
from workbench.ui.scenarios.table import CompareTableWidget
from workbench.ui.seen import is_seen
from workbench.ui.shell.document import Document

if TYPE_CHECKING:  # pyqtgraph (0.1 s to import, numpy's plotting stack) loads on first use
    from workbench.ui.scenarios.plots import ComparePlots


class ScenariosPanel(QWidget):
    """Sibling scenarios on the left, the comparison on the right."""

    #: Asked of the window: "save" (Save as Scenario), "wizard", "pdf".
    actionRequested = Signal(str)
    #: A comparison was drawn (the window gives the dock room for it).
    compared = Signal()

    def __init__(self, document: Document, catalog=None) -> None:  # noqa: ANN001
        super().__init__()
        self.document = document
        self.catalog = catalog
        self.table: CompareTable | None = None
        self._stale = True
        #: Files to tick when the list is next read (None: keep what is ticked).
        self._to_tick: set[Path] | None = None
        #: How many times the folder was read (tests check a hidden panel reads none).
        self.refreshes = 0
        self.files = QListWidget()
        self.files.setObjectName("scenarioFiles")
        self.files.itemChanged.connect(self._update_buttons)
        self.save_button = QPushButton("Save as Scenario…")
        self.wizard_button = QPushButton("New Variant…")
        self.compare_button = QPushButton("Compare")
        self.compare_button.setObjectName("scenarioCompare")
        self.pdf_button = QPushButton("PDF…")
        self.save_button.clicked.connect(lambda: self.actionRequested.emit("save"))
        self.wizard_button.clicked.connect(lambda: self.actionRequested.emit("wizard"))
        self.compare_button.clicked.connect(self.compare_ticked)
        self.pdf_button.clicked.connect(lambda: self.actionRequested.emit("pdf"))
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.grid = CompareTableWidget()
        #: The plots, made by :attr:`plots` on the first comparison; until then an empty
        #: stand-in holds their place, so starting the window never imports pyqtgraph.
        self._plots: ComparePlots | None = None
        self._plots_place = QWidget()

        left = QWidget()
        side = QVBoxLayout(left)
        side.setContentsMargins(0, 0, 0, 0)
        side.addWidget(QLabel(f"Tick {MIN_SCENARIOS} to {MAX_SCENARIOS} to compare:"))
        side.addWidget(self.files)
        buttons = QHBoxLayout()
        buttons.addWidget(self.compare_button)
        buttons.addWidget(self.pdf_button)
        side.addLayout(buttons)
        side.addWidget(self.save_button)
        side.addWidget(self.wizard_button)
        right = self._right = QSplitter(Qt.Orientation.Horizontal)
        right.addWidget(self.grid)
        right.addWidget(self._plots_place)
        right.setSizes([520, 520])
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([240, 1040])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(split, 1)
        layout.addWidget(self.message)
        document.pathChanged.connect(self._on_path_changed)
        document.designReplaced.connect(self.refresh)
        self._update_buttons()

    @property
    def plots(self) -> ComparePlots:
        """The comparison plots, made (and pyqtgraph imported) when first asked for."""
        if self._plots is None:
            from workbench.ui.scenarios.plots import ComparePlots

            self._plots = ComparePlots()
            sizes = self._right.sizes()
            self._right.replaceWidget(self._right.indexOf(self._plots_place), self._plots)
            self._plots_place.deleteLater()
            self._right.setSizes(sizes)
        return self._plots

    # -- the list --------------------------------------------------------------------
    def _on_path_changed(self, _path: object) -> None:
        """A bound slot, not a lambda: Qt drops it with the panel, where a lambda held by
        the document's signal would keep the panel, and through it the document, alive."""
        self.refresh()

    def refresh(self, tick: list[Path] | None = None) -> None:
        """Re-read the design's folder for scenarios, now if seen, else when exposed;
        ``tick``: the files to tick then (the wizard's variants), else those ticked."""
        if tick is not None:
            self._to_tick = {Path(f).resolve() for f in tick}
        if not is_seen(self):
            self._stale = True
            return
        self._stale = False
        self.refreshes += 1
        if self._to_tick is not None:
            ticked, self._to_tick = self._to_tick, None
        else:
            ticked = {f.resolve() for f in self.ticked()}
        self.files.blockSignals(True)
        self.files.clear()
        path = self.document.path
        for file in sibling_scenarios(path) if path is not None else []:
            item = QListWidgetItem(scenario_label(file))
            item.setData(Qt.ItemDataRole.UserRole, str(file))
            item.setToolTip(str(file))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            on = file.resolve() in ticked
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            self.files.addItem(item)
        self.files.blockSignals(False)
        if path is None:
            self.message.setText("Save the design first: scenarios are saved beside it.")
        elif self.files.count() < MIN_SCENARIOS:
            self.message.setText("No scenarios yet: Save as Scenario or New Variant makes one.")
        self._update_buttons()

    def on_exposed(self) -> None:
        """The dock came into view: catch up on what was put off."""
        if self._stale:
            self.refresh()

    def showEvent(self, event) -> None:  # noqa: ANN001, N802
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def ticked(self) -> list[Path]:
        """The files ticked for the comparison, in list order."""
        out = []
        for row in range(self.files.count()):
            item = self.files.item(row)
            if item.checkState() == Qt.CheckState.Checked:
                out.append(Path(item.data(Qt.ItemDataRole.UserRole)))
        return out

    def tick(self, files: list[Path]) -> None:
        """Tick exactly ``files`` (a script's or a test's way to choose)."""
        wanted = {Path(f).resolve() for f in files}
        for row in range(self.files.count()):
            item = self.files.item(row)
            path = Path(item.data(Qt.ItemDataRole.UserRole)).resolve()
            item.setCheckState(Qt.CheckState.Checked if path in wanted else Qt.CheckState.Unchecked)

    def _update_buttons(self, *_args: object) -> None:
        n = len(self.ticked())
        self.compare_button.setEnabled(MIN_SCENARIOS <= n <= MAX_SCENARIOS)
        self.pdf_button.setEnabled(self.table is not None)
        self.save_button.setEnabled(self.document.path is not None)

    # -- the comparison --------------------------------------------------------------
    def _figures_of(self, file: Path) -> ScenarioFigures:
        """``file``'s figures; the open design's from memory while it is the file's
        (:func:`~workbench.ui.scenarios.open_figures.open_design_figures`)."""
        path = self.document.path
        if path is not None and file.resolve() == path.resolve():
            mine = open_design_figures(self.document, self.catalog)
            if mine is not None:
                return mine
        return figures_of_file(file, catalog=self.catalog)

    def compare_ticked(self) -> CompareTable | None:
        """Compare the ticked files; the table, or None with the reason in the message."""
        files = self.ticked()
        if not MIN_SCENARIOS <= len(files) <= MAX_SCENARIOS:
            self.message.setText(f"Tick {MIN_SCENARIOS} to {MAX_SCENARIOS} scenarios.")
            return None
        # A file not read before is checked with every rule (seconds at 100,000 GPUs).
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            figures = [self._figures_of(f) for f in files]
        except (ProjectFileError, OSError) as exc:
            self.message.setText(f"Cannot compare: {exc}")
            return None
        finally:
            QApplication.restoreOverrideCursor()
        self.table = compare(figures)
        self.grid.show_table(self.table)
        self.plots.show_table(self.table)
        notes = "; ".join(self.table.notes)
        self.message.setText(
            "Green: best, red: worst, bold: the scenarios differ." + (f"  {notes}" if notes else "")
        )
        self._update_buttons()
        self.compared.emit()
        return self.table
