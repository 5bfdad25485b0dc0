"""File ▸ Save as Scenario…, File ▸ New Scenario Variant…, and the Scenarios dock.

Save as Scenario writes the open design, as it is now, to a sibling file
(:func:`~workbench.planning.scenarios.scenario_path`) through the store's atomic save;
the window keeps editing the design it had.  A sibling that exists is only replaced
after the user says so.  New Scenario Variant opens the wizard, makes one variant per
combination ticked with the Qt-free planning functions, under a progress dialog that can
cancel between variants (each rebuild of a 100,000-GPU design takes seconds; the ones
made stay), saves each the same way, lists what the rules find on each, and ticks the
made files in the Scenarios dock, ready to compare.  Each saved file's comparison
figures are computed from the design in hand (a variant's rule findings, the window's
current findings for Save as Scenario) and kept in the user's cache folder
(:func:`~workbench.planning.scenarios.figures.keep_figures_of_saved`), so comparing them
reads none of them again.  File ▸ Save keeps the saved design's figures too, from the
window's findings once its check is done (:meth:`ScenarioActions.keep_saved_figures`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QInputDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressDialog,
)

from workbench.planning.scenarios import MAX_SCENARIOS, scenario_path
from workbench.planning.scenarios.figures import keep_figures_of_saved
from workbench.rules.context import RuleContext
from workbench.rules.registry import Finding
from workbench.store import ProjectFileError, save_design
from workbench.ui.scenarios.open_figures import open_design_figures
from workbench.ui.scenarios.panel import ScenariosPanel

if TYPE_CHECKING:  # imported when first used: the wizard and the variants
    # (the template builder, the fabric planner) and the comparison page are a tenth of
    # the window's imports, none of them needed before its first frame
    from workbench.templates.variants import Variant, VariantRequest
    from workbench.ui.scenarios.wizard import ScenarioWizard

#: The height the Scenarios dock takes when it shows a comparison.
ROOM_PX = 430


class ScenarioActions:
    """The scenario actions of one window (``window`` has ``document`` and ``catalog``)."""

    def __init__(self, window: QMainWindow, dock_under=None) -> None:  # noqa: ANN001
        self.window = window
        self.document = window.document  # type: ignore[attr-defined]
        self.catalog = window.catalog  # type: ignore[attr-defined]
        self.panel = ScenariosPanel(self.document, self.catalog)
        self.panel.actionRequested.connect(self._on_panel)
        self.panel.compared.connect(self._make_room)
        self.dock = window._dock(  # type: ignore[attr-defined]
            "Scenarios", "scenariosDock", self.panel, Qt.DockWidgetArea.BottomDockWidgetArea
        )
        if dock_under is not None:
            window.tabifyDockWidget(dock_under, self.dock)
        self.save_action = QAction("Save as &Scenario…", window)
        self.save_action.triggered.connect(self.save_as_scenario)
        self.wizard_action = QAction("New Scenario &Variant…", window)
        self.wizard_action.triggered.connect(self.new_variant)
        #: The last message shown (tests read it instead of a dialog).
        self.last_message = ""

    def add_to_menu(self, menu: QMenu, before: QAction) -> None:
        menu.insertAction(before, self.save_action)
        menu.insertAction(before, self.wizard_action)
        menu.insertSeparator(before)

    # -- small dialogs, replaceable in tests --------------------------------------------
    def ask_label(self) -> str | None:
        text, ok = QInputDialog.getText(self.window, "Save as Scenario", "Scenario label:")
        return text.strip() if ok and text.strip() else None

    def confirm_replace(self, path: Path) -> bool:
        answer = QMessageBox.question(self.window, "Save as Scenario", f"Replace {path.name}?")
        return answer == QMessageBox.StandardButton.Yes

    def confirm_replace_all(self, paths: list[Path]) -> bool:
        names = "\n".join(f"  {p.name}" for p in paths)
        answer = QMessageBox.question(
            self.window,
            "New Scenario Variants",
            f"These scenarios exist:\n{names}\n\nReplace them?",
        )
        return answer == QMessageBox.StandardButton.Yes

    def tell(self, title: str, text: str, details: str = "") -> None:
        """Say ``text``; ``details`` (long findings) behind the box's Show Details…."""
        self.last_message = f"{text}\n\n{details}" if details else text
        box = QMessageBox(QMessageBox.Icon.Information, title, text, parent=self.window)
        if details:
            box.setDetailedText(details)
            # A line per variant: wide enough that a rule name is not broken at its hyphen.
            box.setStyleSheet("QLabel#qt_msgbox_label { min-width: 44em; }")
        box.exec()

    def run_wizard(self) -> ScenarioWizard | None:
        from workbench.ui.scenarios.wizard import ScenarioWizard

        dialog = ScenarioWizard(
            self.catalog, self.document.design, self.document.path, parent=self.window
        )
        return dialog if dialog.exec() else None

    def progress_dialog(self, count: int) -> QProgressDialog:
        dialog = QProgressDialog("Making variants…", "Cancel", 0, count, self.window)
        dialog.setWindowTitle("New Scenario Variants")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        return dialog

    # -- the actions ---------------------------------------------------------------------
    def _target(self, label: str) -> Path | None:
        base = self.document.path
        if base is None:
            self.tell("Save as Scenario", "Save the design first: scenarios are saved beside it.")
            return None
        target = scenario_path(base, label)
        if target.exists() and not self.confirm_replace(target):
            return None
        return target

    def save_as_scenario(self) -> Path | None:
        """Save the design as it is now as a sibling scenario; its path, or None."""
        label = self.ask_label()
        target = self._target(label) if label else None
        if target is None:
            return None
        figures = self.document.figures
        findings = figures.findings() if figures.checked else None
        return self._save(self.document.design, target, findings=findings)

    def new_variant(self) -> list[Path]:
        """Make the variants ticked in the wizard and save each beside the design; the
        files saved (those made before a Cancel included)."""
        base = self.document.path
        if base is None:
            self.tell(
                "New Scenario Variants", "Save the design first: scenarios are saved beside it."
            )
            return []
        dialog = self.run_wizard()
        if dialog is None:
            return []
        from workbench.templates.builder import TemplateError
        from workbench.templates.variants import plan_variants, variant_paths

        try:
            requests = plan_variants(self.document.design, dialog.choices(), self.catalog)
            targets = variant_paths(base, requests)
        except TemplateError as exc:
            self.tell("New Scenario Variants", str(exc))
            return []
        there = [t for t in targets if t.exists()]
        if there and not self.confirm_replace_all(there):
            return []
        made, cancelled = self._make_all(list(zip(requests, targets, strict=True)))
        if made:
            files = [target for target, _variant in made]
            self.panel.refresh(tick=files if len(files) >= 2 else [base, *files])
            self.dock.raise_()
        self.tell("New Scenario Variants", *_report(made, len(requests), cancelled))
        return [target for target, _variant in made]

    def _make_all(
        self, plan: list[tuple[VariantRequest, Path]]
    ) -> tuple[list[tuple[Path, Variant]], bool]:
        """Make and save each planned variant under a progress dialog; what was saved,
        and whether the user cancelled (checked between variants: a rebuild cannot stop
        half-way, and a half-made variant is never saved)."""
        from workbench.templates.builder import TemplateError
        from workbench.templates.variants import make_variant

        progress = self.progress_dialog(len(plan))
        made: list[tuple[Path, Variant]] = []
        try:
            for n, (request, target) in enumerate(plan):
                progress.setValue(n)
                progress.setLabelText(
                    f"Making {target.name} ({n + 1} of {len(plan)})…\n"
                    "Rebuilding the racks and the fabric, then checking the rules."
                )
                QApplication.processEvents()
                if progress.wasCanceled():
                    return made, True
                try:
                    variant = make_variant(self.document.design, request, self.catalog)
                except TemplateError as exc:
                    self.tell("New Scenario Variants", f"{request.label()}: {exc}")
                    return made, False
                saved = self._save(
                    variant.design,
                    target,
                    refresh=False,
                    findings=variant.findings,
                    context=variant.context,
                )
                if saved is None:
                    return made, False
                made.append((target, variant))
            progress.setValue(len(plan))
            return made, False
        finally:
            progress.close()

    def _save(
        self,
        design,  # noqa: ANN001
        target: Path,
        refresh: bool = True,
        findings: list[Finding] | None = None,
        context: RuleContext | None = None,
    ) -> Path | None:
        """Save ``design`` as ``target`` and keep its comparison figures (``findings``
        and ``context``: what the rules already found on it, see
        :func:`~workbench.planning.scenarios.figures.keep_figures_of_saved`)."""
        try:
            save_design(design, target)
        except ProjectFileError as exc:
            self.tell("Save as Scenario", str(exc))
            return None
        keep_figures_of_saved(design, target, self.catalog, findings=findings, context=context)
        if refresh:
            self.panel.refresh()
        self.window.statusBar().showMessage(f"Saved scenario {target.name}", 5000)
        return target

    def keep_saved_figures(self, _path: object = None) -> None:
        """The window saved the design (File ▸ Save): keep its file's comparison figures
        from the design in memory and the window's findings, if its check is done (the
        rules are not run for this).  Computing them (the costs, about half a second or
        more at 100,000 GPUs) waits until the save has returned, and is skipped when the
        design was edited meanwhile."""
        if self.document.figures.checked:
            QTimer.singleShot(0, self.panel, self._keep_saved_now)

    def _keep_saved_now(self) -> None:
        open_design_figures(self.document, self.catalog, checked_only=True)

    def _make_room(self) -> None:
        """A table and two plots need more than the Checks tab's strip of height."""
        if self.dock.height() < ROOM_PX:
            self.window.resizeDocks([self.dock], [ROOM_PX], Qt.Orientation.Vertical)

    def _on_panel(self, what: str) -> None:
        if what == "save":
            self.save_as_scenario()
        elif what == "wizard":
            self.new_variant()
        elif what == "pdf":
            self.write_pdf()

    def ask_pdf_path(self) -> Path | None:
        base = self.document.path
        start = str(base.with_suffix(".comparison.pdf")) if base is not None else ""
        name, _ = QFileDialog.getSaveFileName(self.window, "Comparison PDF", start, "PDF (*.pdf)")
        return Path(name) if name else None

    def write_pdf(self) -> Path | None:
        """Write the panel's comparison as a one-page PDF where the user says."""
        table = self.panel.table
        if table is None:
            return None
        target = self.ask_pdf_path()
        if target is None:
            return None
        from workbench.ui.scenarios.page import write_table_pdf

        try:
            write_table_pdf(table, target)
        except OSError as exc:
            self.tell("Comparison PDF", f"{target}: cannot write: {exc.strerror or exc}")
            return None
        self.window.statusBar().showMessage(f"Wrote {target.name}", 5000)
        return target


def _report(made: list[tuple[Path, Variant]], asked: int, cancelled: bool) -> tuple[str, str]:
    """What the wizard made, one line per variant with its verdict; and the details:
    what the rules find on each, one line per rule."""
    head = f"Made {len(made)} of {asked} variants" + (" (cancelled)." if cancelled else ".")
    if len(made) > MAX_SCENARIOS:
        head += f" Untick all but {MAX_SCENARIOS} of them to compare."
    summary = [head, ""] + [f"{target.name}: {variant.verdict()}" for target, variant in made]
    details = []
    for target, variant in made:
        lines = "\n".join(f"  {line}" for line in variant.brief()) or "  no findings"
        details.append(f"{target.name}:\n{lines}")
    return "\n".join(summary), "\n\n".join(details)
