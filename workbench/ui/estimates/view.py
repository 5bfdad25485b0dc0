"""The Estimates view: workloads on the left, the selected one's form and results in the
middle, the plots on the right (days against GPUs, the step time as a stacked bar,
memory per GPU and power per rack).

Everything is refreshed synchronously in the ``Document.changed`` slot, in the same
event-loop turn as the edit, so the figures and plots are never a frame behind the
model.  The numbers come from the document's shared
:class:`~workbench.ui.shell.live_figures.LiveFigures` (computed once per change for every
view), and each part is redrawn only when its input moved: the form and list when a
workload changed, the estimate when its workload result is a new one, the rack-power
plot when some rack's load differs (a device rename redraws nothing here).
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from workbench.calc.layout_proposal import layout_changes, propose
from workbench.calc.layout_search import Candidate
from workbench.model import Workload
from workbench.ui.commands import add_workload, remove_workload
from workbench.ui.estimates import estimate as est
from workbench.ui.estimates.costs_panel import CostsPanel
from workbench.ui.estimates.form import WorkloadForm, find_workload, preset_title
from workbench.ui.estimates.layout_dialog import AutoLayoutDialog, describe
from workbench.ui.estimates.panes import AdaptiveSplitter, scrolled
from workbench.ui.estimates.plots import (
    DaysPlot,
    MemoryPlot,
    RackPowerPlot,
    StepPlot,
    with_legend,
)
from workbench.ui.estimates.results import ExplainDialog, ResultsPanel
from workbench.ui.shell.document import Change, Document

_KIND_TITLE = {"training": "Training", "inference": "Inference"}


class EstimatesView(QWidget):
    """Workload forms bound live to the calculators, with the estimate plots."""

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.current_id: str | None = None
        self.estimate: est.Estimate | None = None
        self._explain: ExplainDialog | None = None
        self._layout_dialog: AutoLayoutDialog | None = None
        #: What the shown estimate was made from: (result, deadline text, SU text).
        self._estimate_inputs: tuple[object, str, str] | None = None
        #: ``LiveFigures.rack_loads_version`` the power plot shows (None: never drawn).
        self._power_version: int | None = None
        #: Edits made while the view was hidden, drawn when it is shown again.
        self._hidden_changes = False

        # -- the workloads (top of the left column) ---------------------------------
        self.workload_list = QListWidget()
        self.workload_list.setObjectName("workloadList")
        self.workload_list.setMinimumHeight(70)
        self.workload_list.setMaximumHeight(110)
        self.workload_list.currentItemChanged.connect(self._on_current_item_changed)
        self.add_training_button = QPushButton("+ Training job")
        self.add_training_button.setObjectName("addTraining")
        self.add_training_button.setToolTip("Add a training job (undoable)")
        self.add_training_button.clicked.connect(lambda: self.add_workload("training"))
        self.add_inference_button = QPushButton("+ Inference service")
        self.add_inference_button.setObjectName("addInference")
        self.add_inference_button.setToolTip("Add an inference service (undoable)")
        self.add_inference_button.clicked.connect(lambda: self.add_workload("inference"))
        self.remove_button = QPushButton("Remove")
        self.remove_button.setObjectName("removeWorkload")
        self.remove_button.setToolTip("Remove the selected workload (undoable)")
        self.remove_button.clicked.connect(self.remove_current)
        list_box = QGroupBox("Workloads")
        list_layout = QVBoxLayout(list_box)
        list_layout.addWidget(self.workload_list)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_training_button)
        buttons.addWidget(self.add_inference_button)
        buttons.addStretch(1)
        buttons.addWidget(self.remove_button)
        list_layout.addLayout(buttons)

        # -- form and results ----------------------------------------------------------
        self.form = WorkloadForm(document)
        self.form.parseErrorsChanged.connect(self._refresh_errors)
        self.form.autoLayoutRequested.connect(self.open_auto_layout)
        form_box = QGroupBox("Workload")
        form_layout = QVBoxLayout(form_box)
        form_layout.addWidget(self.form)
        self.results = ResultsPanel()
        self.results.explainRequested.connect(self.explain)
        self.results.deadlineChanged.connect(self._recompute)
        # The form and the results side by side when there is room (the results are
        # what a planner reads, so they must not sit below some twenty form rows),
        # stacked in a narrow window; each scrolls on its own.
        columns = AdaptiveSplitter(min_side_by_side=None, shares=(5, 6))
        self.columns = columns
        #: Whether the form and the results stand side by side (None: not laid out yet).
        self._wide: bool | None = None
        columns.addWidget(scrolled(list_box, form_box, minimum_width=330))
        self.costs = CostsPanel(document)
        columns.addWidget(scrolled(self.results, self.costs, minimum_width=430))

        # -- right: plots ----------------------------------------------------------------
        self.days_plot = DaysPlot()
        self.step_plot = StepPlot(est.STEP_TERMS)
        self.step_plot.termClicked.connect(self.explain)
        self.memory_plot = MemoryPlot()
        self.power_plot = RackPowerPlot()
        bottom = AdaptiveSplitter(min_side_by_side=520)
        bottom.addWidget(with_legend(self.memory_plot))
        bottom.addWidget(with_legend(self.power_plot))
        bottom.setStretchFactor(0, 2)
        bottom.setStretchFactor(1, 3)
        step_pane = with_legend(self.step_plot)
        step_pane.setMinimumHeight(110)
        step_pane.setMaximumHeight(190)
        self.step_pane = step_pane
        plots = QSplitter(Qt.Orientation.Vertical)
        plots.addWidget(self.days_plot)
        plots.addWidget(step_pane)
        plots.addWidget(bottom)
        plots.setStretchFactor(0, 4)
        plots.setStretchFactor(1, 0)
        plots.setStretchFactor(2, 5)
        plots.setSizes([400, 140, 460])
        plots.setChildrenCollapsible(False)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(columns)
        splitter.addWidget(plots)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([820, 780])
        splitter.setChildrenCollapsible(False)
        self.splitter = splitter
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

        document.changed.connect(self._on_changed)
        document.designReplaced.connect(self._on_design_replaced)
        self._rebuild_list()
        self._refresh_power()
        self._recompute()

    #: View width from which the form and the results stand side by side: both columns
    #: (~820 px) and plots still ~600 px wide; narrower, they stack and scroll.
    SIDE_BY_SIDE_WIDTH = 1420

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        width = event.size().width()
        wide = width >= self.SIDE_BY_SIDE_WIDTH
        if wide != self._wide:
            self._wide = wide
            self.columns.setOrientation(
                Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
            )
            left = 820 if wide else 440
            self.splitter.setSizes([left, max(1, width - left)])
            if not wide:
                height = max(1, event.size().height())
                self.columns.setSizes([height * 3 // 5, height * 2 // 5])
        super().resizeEvent(event)

    # -- workloads list ----------------------------------------------------------------
    def _rebuild_list(self) -> None:
        workloads = self.document.design.workloads
        ids = [w.id for w in workloads]
        if self.current_id not in ids:
            self.current_id = ids[0] if ids else None
        blocker = QSignalBlocker(self.workload_list)
        self.workload_list.clear()
        for workload in workloads:
            item = QListWidgetItem(self._item_text(workload))
            item.setData(Qt.ItemDataRole.UserRole, workload.id)
            self.workload_list.addItem(item)
            if workload.id == self.current_id:
                self.workload_list.setCurrentItem(item)
        del blocker
        self.remove_button.setEnabled(self.current_id is not None)
        self.form.set_workload(self.current_id)
        self.document.set_current_workload(self.current_id)

    def _update_list_texts(self) -> None:
        for row in range(self.workload_list.count()):
            item = self.workload_list.item(row)
            workload = find_workload(self.document, item.data(Qt.ItemDataRole.UserRole))
            if workload is not None:
                item.setText(self._item_text(workload))

    @staticmethod
    def _item_text(workload: Workload) -> str:
        model = "Custom" if workload.model == "custom" else preset_title(workload.model)
        return f"{workload.name}  ({_KIND_TITLE.get(workload.kind, workload.kind)} · {model})"

    def _on_current_item_changed(self, current: QListWidgetItem | None, _previous) -> None:
        self.current_id = None if current is None else current.data(Qt.ItemDataRole.UserRole)
        self.remove_button.setEnabled(self.current_id is not None)
        self.form.set_workload(self.current_id)
        self.document.set_current_workload(self.current_id)
        self._recompute()

    def select_workload(self, workload_id: str | None) -> None:
        """Make ``workload_id`` the one shown in the form."""
        for row in range(self.workload_list.count()):
            item = self.workload_list.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == workload_id:
                self.workload_list.setCurrentItem(item)
                return

    # -- user actions ------------------------------------------------------------------
    def add_workload(self, kind: str) -> str:
        """Push one add_workload for a new training job or inference service."""
        existing = {w.id for w in self.document.design.workloads}
        number = 1
        while f"workload-{number}" in existing:
            number += 1
        workload_id = f"workload-{number}"
        same_kind = sum(1 for w in self.document.design.workloads if w.kind == kind)
        if kind == "inference":
            workload = Workload(
                id=workload_id,
                name=f"Inference service {same_kind + 1}",
                kind="inference",
                tp=8,
                pp=1,
                context=8192,
                concurrency=32,
            )
        else:
            workload = self._fitted(Workload(id=workload_id, name=f"Training job {same_kind + 1}"))
        self.current_id = workload_id
        self.document.push(add_workload(self.document, workload))
        self.select_workload(workload_id)
        return workload_id

    def _fitted(self, workload: Workload) -> Workload:
        """``workload`` in the fastest layout that fits the design's GPUs (the auto
        layout's choice), or as it is when the search finds none."""
        figures = self.document.figures
        proposal = propose(self.document.design, workload, figures.summary, figures.fabric)
        choice = proposal.choice
        if choice is None or choice.best is None:
            return workload
        return replace(workload, **layout_changes(choice.best, workload, proposal.global_batch))

    @property
    def layout_dialog(self) -> AutoLayoutDialog:
        """The (single, non-modal) auto layout dialog, created on first use."""
        if self._layout_dialog is None:
            self._layout_dialog = AutoLayoutDialog(self)
            self._layout_dialog.applyRequested.connect(self.apply_layout)
        return self._layout_dialog

    def open_auto_layout(self) -> None:
        """Search the layouts of the selected training job and show the answer."""
        workload = find_workload(self.document, self.current_id)
        if workload is None or workload.kind != "training":
            return
        figures = self.document.figures
        proposal = propose(self.document.design, workload, figures.summary, figures.fabric)
        dialog = self.layout_dialog
        dialog.show_proposal(proposal)
        dialog.show()
        dialog.raise_()

    def apply_layout(self, candidate: Candidate) -> None:
        """Put ``candidate``'s layout into the selected job as ONE undo step."""
        workload = find_workload(self.document, self.current_id)
        if workload is None:
            return
        proposal = self.layout_dialog.proposal
        batch = proposal.global_batch if proposal is not None else None
        changes = layout_changes(candidate, workload, batch)
        self.form.apply_layout(changes, f"Auto layout: {describe(candidate)}")

    def remove_current(self) -> None:
        """Push one remove_workload for the selected workload."""
        if self.current_id is not None:
            self.document.push(remove_workload(self.document, self.current_id))

    # -- model → view ------------------------------------------------------------------
    def _on_changed(self, change: Change) -> None:
        came_or_went = change.workloads & (change.added | change.removed)
        if change.everything or came_or_went:
            self._rebuild_list()
        elif change.workloads or change.types:
            # A new catalog type in the design can be a new GPU to choose.
            self._update_list_texts()
            self.form.refresh()
        # else: a rack or device edit; no workload field or GPU choice can have moved.
        if not self.isVisible():
            # Behind another tab nobody sees the plots: draw them when the tab is shown,
            # so an edit in the rack view does not pay for curves and bars (~8 ms at
            # 100,000 GPUs).
            self._hidden_changes = True
            return
        if change.structural or change.racks or change.devices:
            self._refresh_power()
        self._recompute(only_if_changed=True)
        self.costs.refresh()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self._hidden_changes:
            self._hidden_changes = False
            self._refresh_power()
            self._recompute(only_if_changed=True)
            self.costs.refresh()

    def _on_design_replaced(self) -> None:
        self.current_id = None
        self._rebuild_list()
        self._refresh_power()
        self._recompute()
        self.costs.refresh()

    def _recompute(self, only_if_changed: bool = False) -> None:
        """Evaluate the selected workload and push the results into panel and plots.

        With ``only_if_changed`` nothing is redrawn when the shared figures hold the very
        result already shown and the deadline inputs are the same: the panel rebuilds
        its rows and the days curve is recomputed, too much to repeat for a rename.
        """
        workload = find_workload(self.document, self.current_id)
        result = self.document.figures.workload(workload.id) if workload is not None else None
        inputs = (result, self.results.deadline_text(), self.results.su_text())
        shown = self._estimate_inputs
        if only_if_changed and shown is not None and shown[0] is result and shown[1:] == inputs[1:]:
            return
        self._estimate_inputs = inputs
        if workload is None or result is None:  # (a workload always has a result)
            self.estimate = None
            self.results.set_estimate(None)
            self.form.show_errors([])
            self.days_plot.set_curves(None, {}, None, "Add a training job to see its curve")
            self.step_plot.set_step({}, "", "Add a training job to see its step")
            self.memory_plot.set_breakdown({}, None, None, "No workload selected")
        else:
            self.estimate = est.estimate(
                self.document.design,
                workload,
                result,
                self.results.deadline_text(),
                self.results.su_text(),
            )
            self.results.set_estimate(self.estimate)
            self.form.show_errors(self.estimate.errors)
            e = self.estimate
            self.form.show_hints(e.hints)
            self.days_plot.set_curves(
                e.curve_gpus, e.curve_days, e.point, e.curve_note, e.curve_predicted
            )
            self.step_plot.set_step(e.step_s, e.step_title, e.step_note)
            self.memory_plot.set_breakdown(e.memory_gb, e.hbm_gb, e.usable_gb, e.memory_note)
        # Serving has no training step: the pane would only say so, taking room.
        self.step_pane.setVisible(workload is None or workload.kind == "training")
        self._refresh_explain()

    def _refresh_errors(self) -> None:
        self.form.show_errors(self.estimate.errors if self.estimate else [])

    def _refresh_power(self) -> None:
        figures = self.document.figures
        if figures.rack_loads_version == self._power_version:
            return  # no rack's load moved (a device rename): the bars are still right
        self._power_version = figures.rack_loads_version
        names, typical, maximum, limit = est.rack_power(figures.rack_loads)
        self.power_plot.set_loads(names, typical, maximum, limit)

    # -- explain -----------------------------------------------------------------------
    @property
    def explain_dialog(self) -> ExplainDialog:
        """The (single, non-modal) explain dialog, created on first use."""
        if self._explain is None:
            self._explain = ExplainDialog(self)
        return self._explain

    def explain(self, key: str) -> None:
        """Open the explain dialog for figure ``key`` (``days``, ``deadline`` ...)."""
        self._show_explained(key)
        dialog = self.explain_dialog
        dialog.show()
        dialog.raise_()

    def _show_explained(self, key: str) -> None:
        figure = self.estimate.figure(key) if self.estimate else None
        if figure is None:
            self.explain_dialog.show_figure(key, key, None)
        else:
            self.explain_dialog.show_figure(key, figure.label, figure.explained, figure.parts)

    def _refresh_explain(self) -> None:
        """Keep an open explain dialog in step with the live numbers."""
        if self._explain is not None and self._explain.isVisible() and self._explain.key:
            self._show_explained(self._explain.key)
