"""The live summary in the status bar: racks, devices, GPUs, peak PFLOPS, IT and facility power.

It refreshes in the same event-loop turn as every ``Document.changed`` (no timers), from
the document's shared :class:`~workbench.ui.shell.live_figures.LiveFigures`: the summary and the
training estimate are computed once per change for every view, never by the strip itself.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from workbench.calc.summary import PUE_SET, DesignSummary
from workbench.model import Design, Workload
from workbench.render import colors
from workbench.rules.full_check import count
from workbench.rules.registry import Severity
from workbench.ui.one_pass import kept_width, set_text_keeping_width
from workbench.ui.shell.document import Change, Document
from workbench.units import finite, format_count, format_flops, format_power

#: Evaluates a workload (``evaluate_workload`` or the document's cached result).
Evaluate = Callable[[Workload], object]

SEPARATOR = " · "


class NotYet(Exception):
    """Raised by an ``evaluate`` that will not compute the estimate yet (the window's
    first frame comes first); the strip shows the workload with its days to come."""


def training_days(
    design: Design, evaluate: Evaluate, preferred: str | None = None
) -> tuple[str, float | None, float | None, str | None] | None:
    """(workload name, days, MFU, MFU source) of the training workload to show, or None
    without one.

    That is ``preferred`` (the workload open in the Estimates view) when it is a training
    job, else the first training workload, so the strip follows what the user is editing
    and still shows something before they open the Estimates view.  Days and MFU are
    None when the estimate cannot be made (missing inputs); the source is "predicted"
    (from the design and the layout) or "given".  ``evaluate`` gives a workload's result
    (the window passes the document's cached one, so the strip never computes it).
    """
    training = [w for w in design.workloads if w.kind == "training"]
    workload = next((w for w in training if w.id == preferred), training[0] if training else None)
    if workload is None:
        return None
    try:
        result = evaluate(workload)
    except NotYet:
        raise
    except Exception:  # noqa: BLE001 - a bad workload must not break the status bar
        return workload.name, None, None, None
    days, mfu = getattr(result, "days", None), getattr(result, "mfu", None)
    source = getattr(result, "mfu_source", None)
    return workload.name, days if finite(days) else None, mfu if finite(mfu) else None, source


def summary_parts(
    summary: DesignSummary, design: Design, evaluate: Evaluate, preferred: str | None = None
) -> list[tuple[str, str, str]]:
    """(key, text, tooltip) of each figure shown, in order; pure, for tests and the strip.

    ``evaluate`` and ``preferred`` are passed on to :func:`training_days`."""
    bf16 = summary.peak_pflops.get("bf16", 0.0)
    parts = [
        ("racks", format_count(summary.racks, "rack"), "Racks in the design"),
        ("devices", format_count(summary.devices, "device"), "Devices placed in racks"),
        (
            "gpus",
            format_count(summary.gpus, "GPU"),
            ", ".join(f"{n:,} × {slug}" for slug, n in summary.gpu_models.items()) or "No GPUs",
        ),
        (
            "bf16",
            f"{format_flops(bf16)} BF16 peak",
            "Dense BF16 peak: GPUs × TFLOPS per GPU (no sparsity)",
        ),
        (
            "it",
            f"{format_power(summary.it_kw)} IT",
            f"IT load at maximum draw; typical {format_power(summary.typical_kw)}",
        ),
        (
            "facility",
            f"{format_power(summary.facility_kw)} facility "
            # A typed PUE as typed; one weighted from cooling to planning precision.
            f"(PUE {summary.pue:{'g' if summary.pue_source == PUE_SET else '.3g'}}, "
            f"{summary.pue_source})",
            "Facility power = IT power × PUE; the PUE is the design's when one is set, "
            "else each rack's cooling type's planning PUE weighted by its IT draw",
        ),
    ]
    try:
        days = training_days(design, evaluate, preferred)
    except NotYet:
        first = [w for w in design.workloads if w.kind == "training"]
        chosen = next((w for w in first if w.id == preferred), first[0] if first else None)
        if chosen is not None:
            parts.append(
                (
                    "days",
                    f"{chosen.name}: days …",
                    "Estimate pending: it reads the compute fabric, built while the "
                    "first check runs",
                )
            )
        return parts
    if days is not None:
        # Loaded with the estimate it names (numpy and the step-time model): not before
        # there is one, so not for the first frame.
        from workbench.calc.training_estimate import PLAN_SOURCE

        name, value, mfu, source = days
        text = f"{name}: {value:,.1f} days" if value is not None else f"{name}: days n/a"
        tip = (
            "Training time of the workload open in Estimates "
            "(the first training workload until one is chosen)"
        )
        if value is not None and mfu is not None and source == PLAN_SOURCE:
            text += " (planned at 30 % MFU)"
        elif value is not None and mfu is not None:
            text += f" at MFU {mfu * 100:.0f} %"
            tip += f"; MFU {mfu * 100:.1f} % {source or ''}".rstrip()
            if source == "predicted":
                tip += " from the design (GPUs, NVLink, NICs, fabric) and the layout"
        parts.append(("days", text, tip))
    return parts


def checks_text(errors: int, warnings: int) -> str:
    """'2 errors · 1 warning', or 'No errors' when the rules found nothing to fix."""
    if not errors and not warnings:
        return "✔ No errors"
    parts = [format_count(errors, "error")] if errors else []
    if warnings:
        parts.append(format_count(warnings, "warning"))
    return SEPARATOR.join(parts)


def _opaque(label: QLabel) -> QLabel:
    """``label``, painting its own background (the status bar's colour): a new count then
    repaints the label alone, where a see-through label had Qt paint the main window,
    the status bar and the strip beneath it first (~0.3 ms of an edit that changes the
    counts)."""
    label.setAutoFillBackground(True)
    return label


class SummaryStrip(QWidget):
    """A row of labels with the design's headline figures, kept live, led by the count
    of rule findings (a link that opens the Checks view)."""

    #: The findings count was clicked.
    checksClicked = Signal()

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self._labels: dict[str, QLabel] = {}
        self._separators: dict[str, QLabel] = {}
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(6, 0, 6, 0)
        self._layout.setSpacing(4)
        self.checks = _opaque(QLabel())
        self.checks.setObjectName("summary-checks")
        self.checks.setTextFormat(Qt.TextFormat.RichText)
        self.checks.linkActivated.connect(lambda _link: self.checksClicked.emit())
        self._layout.addWidget(self.checks)
        self._checks_text = ""
        #: Figures shown now, and those set aside to leave a status message its room.
        self._shown: set[str] = set()
        self._squeezed: set[str] = set()
        self._room: int | None = None
        self._more = QLabel("· …")
        self._more.setObjectName("summary-more")
        self._more.setStyleSheet("color: #90a4ae;")
        self._more.setVisible(False)
        self._layout.addWidget(self._more)
        document.changed.connect(self._on_document_changed)
        document.designReplaced.connect(self.refresh)
        document.currentWorkloadChanged.connect(self.refresh)
        # The estimate waits for the first check too (see _show_figures).
        document.figures.findingsReady.connect(self.refresh)
        document.figures.checkProgress.connect(self._show_progress)
        document.figures.released.connect(self.refresh)
        self.refresh()

    def _on_document_changed(self, change: Change) -> None:
        del change  # every change may move a figure; reading the shared figures is cheap
        self.refresh()

    def refresh(self) -> None:
        """Show the document's current figures now."""
        self._show_checks()
        self._show_figures()

    def _show_checks(self) -> None:
        figures = self.document.figures
        if not figures.checked:
            self._checks_text = "Checking…"
            set_text_keeping_width(
                self.checks, f'<span style="color:{colors.TEXT_MUTED}">Checking…</span>'
            )
            figures.check_soon()
            return
        counts = count(figures.findings(), figures.waived())
        self._checks_text = checks_text(counts.errors, counts.warnings)
        worst = Severity.ERROR if counts.errors else Severity.WARNING if counts.warnings else None
        color = colors.SEVERITY_COLORS[worst] if worst is not None else colors.LOAD_OK
        set_text_keeping_width(
            self.checks,
            f'<a href="checks" style="color:{color}; font-weight:600; text-decoration:none">'
            f"{self._checks_text}</a>",
        )
        waived = f"; {counts.waived:,} waived" if counts.waived else ""
        self.checks.setToolTip(f"Design checks{waived}. Click to open the Checks view.")

    def _show_progress(self, percent: int) -> None:
        """How far the first full check is (it runs in slices on a big design)."""
        if self.document.figures.checked or percent >= 100:
            return
        self._checks_text = f"Checking… {percent} %"
        set_text_keeping_width(
            self.checks, f'<span style="color:{colors.TEXT_MUTED}">{self._checks_text}</span>'
        )

    def _show_figures(self) -> None:
        figures = self.document.figures

        def evaluate(workload):
            # Until the first check is done, no estimate that builds the whole compute
            # fabric in one go: the check builds it in steps, then the strip reads it.
            if (figures.held or not figures.checked) and not figures.estimate_is_cheap(workload):
                figures.check_soon()
                raise NotYet
            return figures.workload(workload.id)

        parts = summary_parts(
            figures.summary, self.document.design, evaluate, self.document.current_workload
        )
        shown = set()
        for key, text, tip in parts:
            label = self._labels.get(key)
            if label is None:
                label = self._add_label(key)
            # Each figure keeps its widest width (see set_text_keeping_width): a new count
            # repaints its label alone, and never lays out the status bar and the window.
            set_text_keeping_width(label, text)
            label.setToolTip(tip)
            shown.add(key)
        self._shown = shown
        self._apply_room()

    def make_room(self, width: int | None) -> None:
        """Fit in ``width`` pixels (None: no limit) by setting the last figures aside
        behind "…" (their text in its tooltip): a status message such as a drop's reason
        is read whole, and the summary is what gives way."""
        self._room = width
        self._apply_room()

    def _apply_room(self) -> None:
        keys = [k for k in self._labels if k in self._shown]
        squeezed: list[str] = []
        if self._room is not None:
            more = self._more.sizeHint().width() + self._layout.spacing()
            used = kept_width(self.checks) + self._layout.contentsMargins().left() * 2
            for key in keys:
                wide = kept_width(self._labels[key])
                wide += self._separators[key].sizeHint().width() + 2 * self._layout.spacing()
                if squeezed or used + wide + more > self._room:
                    squeezed.append(key)
                else:
                    used += wide
        self._squeezed = set(squeezed)
        first = next(iter(self._labels), None)
        for key, label in self._labels.items():
            visible = key in self._shown and key not in self._squeezed
            label.setVisible(visible)
            self._separators[key].setVisible(visible and key != first)
        self._more.setVisible(bool(squeezed))
        self._more.setToolTip(SEPARATOR.join(self._labels[k].text() for k in squeezed))

    def _add_label(self, key: str) -> QLabel:
        sep = QLabel("·")
        sep.setStyleSheet("color: #90a4ae;")
        self._layout.addWidget(sep)
        self._separators[key] = sep
        label = _opaque(QLabel())
        label.setObjectName(f"summary-{key}")
        if key in ("gpus", "bf16", "it"):
            label.setStyleSheet("font-weight: 600;")
        self._labels[key] = label
        self._layout.addWidget(label)
        # "…" stays last.  Moved only when a figure is added: moved on every refresh, it
        # laid out the strip and repainted the status bar after every edit.
        self._layout.removeWidget(self._more)
        self._layout.addWidget(self._more)
        return label

    def text(self) -> str:
        """Everything the strip shows, as one line."""
        return SEPARATOR.join(
            label.text() for key, label in self._labels.items() if key in self._shown
        )

    def figure(self, key: str) -> str:
        """The text of one figure ('checks', 'gpus', 'bf16', 'it' ...)."""
        if key == "checks":
            return self._checks_text
        label = self._labels.get(key)
        return label.text() if label is not None and key in self._shown else ""
