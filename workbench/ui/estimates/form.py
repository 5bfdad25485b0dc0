"""The form for one workload: every box mirrors a Workload field.

Edits become :func:`~workbench.ui.commands.update_workload` pushes (one undo step per field, merged while
the same field is retyped, but never across a switch between a typed value and the
default: clearing a typed MFU is its own step, so undo brings the override back); the
form re-reads the model on every ``Document.changed`` and writes the boxes under a
QSignalBlocker, so undo/redo refills it without pushing anything.  Whether a value makes
sense is decided by the calculators: the view passes their ``InputError`` list to
:meth:`WorkloadForm.show_errors`, which paints the named field red and prints the
message under the form, and the defaults they used to :meth:`WorkloadForm.show_hints`,
which the blank boxes show as placeholder text ("predicted 43 %").
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from workbench.calc.job_layout import DEFAULT_GRAD_PRECISION
from workbench.calc.presets import PRESET_TITLES, PRESETS
from workbench.model import Workload
from workbench.ui.commands import EditCommand, update_workload
from workbench.ui.estimates.fields import (
    FIELD_BY_NAME,
    FIELDS,
    LAYOUT_SECTION,
    FieldSpec,
    ParseError,
    format_quantity,
    from_text,
    to_text,
)
from workbench.ui.shell.document import Document

CUSTOM = "custom"
#: The GPU-model combo's entry for "the design's GPUs" (Workload.gpu_type None).
DESIGN_GPU = ""
_ERROR_STYLE = "border: 1px solid #c62828; background: #fdecea;"


def preset_title(name: str) -> str:
    """``llama3-70b`` → ``Llama 3 70B``, ``gpt3-175b`` → ``GPT-3 175B`` (display only).

    A preset with a title of its own (``PRESET_TITLES``: "LLaMA 65B", "Megatron-LM
    175B") keeps it: the pattern cannot know how a family spells its name."""
    if name in PRESET_TITLES:
        return PRESET_TITLES[name]
    match = re.fullmatch(r"([a-z]+)(\d+)-(\w+)", name)
    if not match:
        return name
    family, version, size = match.groups()
    family_title = {"llama": "Llama ", "gpt": "GPT-"}.get(family, family.title() + " ")
    return f"{family_title}{version} {size.upper()}"


_FRACTION_MESSAGE = re.compile(r"must be a fraction in ([(\[])0, 1\], got (\S+)$")


def percent_message(spec: FieldSpec | None, message: str) -> str:
    """A calculator's fraction complaint in the percent the field is typed in.

    ``calc`` checks MFU as a fraction ("must be a fraction in (0, 1], got 1.5"); a planner
    who typed 150 into "MFU (%)" reads "must be above 0 % and at most 100 %, got 150 %".
    """
    if spec is None or spec.kind not in ("percent", "optional_percent"):
        return message
    match = _FRACTION_MESSAGE.search(message)
    if match is None:
        return message
    low = "above 0 %" if match.group(1) == "(" else "at least 0 %"
    try:
        got = f"{float(match.group(2)) * 100:.6g} %"
    except ValueError:
        got = match.group(2)
    return f"must be {low} and at most 100 %, got {got}"


def workload_edit(document: Document, workload: Workload, **changes: object) -> EditCommand:
    """The form's edit of one field: merges with the previous edit of that field (typing
    35 then 45 is one undo step) unless it switches between a typed value and the
    default (None), so "clear the MFU box" can be undone back to the override."""
    command = update_workload(document, workload.id, **changes)
    command.fresh = any(
        (value is None) != (getattr(workload, name, None) is None)
        for name, value in changes.items()
    )
    return command


def layout_edit(document: Document, workload_id: str, text: str, **changes: object) -> EditCommand:
    """Several layout fields set at once (the auto layout's choice): one undo step that
    never merges with a neighbour."""
    command = update_workload(document, workload_id, **changes)
    command.setText(text)
    command.merge = None
    return command


def find_workload(document: Document, workload_id: str | None) -> Workload | None:
    """The current Workload object with this id (commands replace the object on edit)."""
    if workload_id is None:
        return None
    for workload in document.design.workloads:
        if workload.id == workload_id:
            return workload
    return None


class WorkloadForm(QWidget):
    """Edits one workload of the document; shows the calculators' input errors."""

    #: A field name whose text could not be read as a number (the view shows it).
    parseErrorsChanged = Signal()
    #: The "Auto layout…" button was pressed.
    autoLayoutRequested = Signal()

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.workload_id: str | None = None
        self.editors: dict[str, QWidget] = {}
        self.labels: dict[str, QLabel] = {}
        self.parse_errors: dict[str, str] = {}
        self._calc_errors: list[tuple[str, str]] = []

        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.form.setVerticalSpacing(4)
        #: Section heading widgets, and the fields under each.
        self.sections: dict[str, QWidget] = {}
        self._section_fields: dict[str, list[str]] = {}
        self.auto_layout_button = QPushButton("Auto layout…")
        self.auto_layout_button.setObjectName("autoLayout")
        self.auto_layout_button.setToolTip(
            "Propose the fastest TP / PP / recompute / ZeRO split that fits the GPUs' "
            "memory, with the alternatives weighed (applied as one undo step)"
        )
        self.auto_layout_button.clicked.connect(self.autoLayoutRequested)
        for spec in FIELDS:
            if spec.section and spec.section not in self.sections:
                self._add_section(spec.section)
            self._section_fields.setdefault(spec.section, []).append(spec.name)
            editor = self._make_editor(spec)
            label = QLabel(spec.label)
            label.setBuddy(editor)
            if spec.tooltip:
                label.setToolTip(spec.tooltip)
                editor.setToolTip(spec.tooltip)
            self.editors[spec.name] = editor
            self.labels[spec.name] = label
            self.form.addRow(label, editor)

        self.error_label = QLabel()
        self.error_label.setObjectName("workloadErrors")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #c62828;")
        self.error_label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.error_label.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.form)
        layout.addWidget(self.error_label)
        self.setEnabled(False)

    # -- building ------------------------------------------------------------------
    def _add_section(self, title: str) -> None:
        """A bold heading row; the layout section's carries the "Auto layout…" button."""
        heading = QWidget()
        heading.setObjectName(f"section_{title}")
        row = QHBoxLayout(heading)
        row.setContentsMargins(0, 6 if self.sections else 0, 0, 0)
        label = QLabel(title)
        font = label.font()
        font.setWeight(QFont.Weight.DemiBold)
        label.setFont(font)
        label.setStyleSheet("color: #37474f;")
        row.addWidget(label)
        row.addStretch(1)
        if title == LAYOUT_SECTION:
            row.addWidget(self.auto_layout_button)
        self.sections[title] = heading
        self.form.addRow(heading)

    def _make_editor(self, spec: FieldSpec) -> QWidget:
        if spec.kind == "bool":
            box = QCheckBox()
            box.setObjectName(f"field_{spec.name}")
            box.clicked.connect(lambda _checked, n=spec.name: self._commit(n))
            return box
        if spec.kind == "choice":
            combo = QComboBox()
            combo.setObjectName(f"field_{spec.name}")
            if spec.name == "model":
                for name in PRESETS:
                    combo.addItem(preset_title(name), name)
                combo.addItem("Custom", CUSTOM)
            elif spec.name == "gpu_type":
                combo.addItem("The design's GPUs", DESIGN_GPU)
            else:
                for text, value in spec.choices:
                    combo.addItem(text, value)
            combo.activated.connect(lambda _index, n=spec.name: self._commit(n))
            return combo
        line = QLineEdit()
        line.setObjectName(f"field_{spec.name}")
        placeholder = {"gpus": "all GPUs in the design", "target_days": "none"}
        line.setPlaceholderText(placeholder.get(spec.name, ""))
        line.editingFinished.connect(lambda n=spec.name: self._commit(n))
        return line

    # -- binding -------------------------------------------------------------------
    def workload(self) -> Workload | None:
        """The workload being edited (looked up afresh: edits replace the object)."""
        return find_workload(self.document, self.workload_id)

    def set_workload(self, workload_id: str | None) -> None:
        """Show ``workload_id`` (or nothing)."""
        if workload_id != self.workload_id:
            self.parse_errors.clear()
        self.workload_id = workload_id
        self.refresh()

    def refresh(self) -> None:
        """Re-read every box from the model without pushing commands.

        A box whose text could not be read keeps that text and its complaint.
        """
        workload = self.workload()
        self.setEnabled(workload is not None)
        if workload is None:
            return
        if workload.model != CUSTOM:
            # N is now the preset's and read-only, so that box could never clear its
            # complaint: drop it and show the preset's N.
            self.parse_errors.pop("params", None)
        self._fill_gpu_choices(workload.gpu_type)
        for spec in FIELDS:
            editor = self.editors[spec.name]
            blocker = QSignalBlocker(editor)
            value = getattr(workload, spec.name)
            if spec.name == "gpu_type" and value is None:
                value = DESIGN_GPU
            if spec.name == "grad_precision" and value is None:
                value = DEFAULT_GRAD_PRECISION
            if isinstance(editor, QComboBox):
                index = editor.findData(value)
                if index < 0 and spec.name == "framework" and isinstance(value, str):
                    editor.addItem(value, value)  # a stack named in the file, kept
                    index = editor.findData(value)
                if index < 0 and spec.name == "model":
                    index = editor.findData(CUSTOM)
                editor.setCurrentIndex(index)
            elif isinstance(editor, QCheckBox):
                editor.setChecked(bool(value))
            elif isinstance(editor, QLineEdit):
                text = to_text(spec, value)
                if spec.name == "params" and workload.model != CUSTOM:
                    preset = PRESETS.get(workload.model)
                    text = format_quantity(preset.params) if preset else text
                # A box with a complaint keeps what the user typed until they edit it
                # again (or open another workload): an edit of another field must not
                # silently throw the typed value away.
                if spec.name not in self.parse_errors and editor.text() != text:
                    editor.setText(text)
                if not editor.hasFocus():
                    editor.setCursorPosition(0)
            del blocker
            visible = workload.kind in spec.applies
            self.form.setRowVisible(editor, visible)
        for title, heading in self.sections.items():
            shown = any(
                workload.kind in FIELD_BY_NAME[name].applies
                for name in self._section_fields.get(title, ())
            )
            self.form.setRowVisible(heading, shown)
        self.auto_layout_button.setVisible(workload.kind == "training")
        params = self.editors["params"]
        assert isinstance(params, QLineEdit)
        params.setReadOnly(workload.model != CUSTOM)
        params.setToolTip(
            FIELD_BY_NAME["params"].tooltip
            if workload.model == CUSTOM
            else "Set by the preset; choose Custom to type N."
        )
        self._paint_errors()

    def _fill_gpu_choices(self, current: str | None) -> None:
        """The GPU models of the design's snapshot (plus the workload's own, if gone)."""
        combo = self.editors["gpu_type"]
        assert isinstance(combo, QComboBox)
        choices = [(DESIGN_GPU, "The design's GPUs")]
        for item in self.document.design.device_types.values():
            if item.kind == "gpu":
                choices.append((item.slug, item.model or item.slug))
        if current and current not in {slug for slug, _ in choices}:
            choices.append((current, current))
        have = [(combo.itemData(i), combo.itemText(i)) for i in range(combo.count())]
        if have != choices:
            blocker = QSignalBlocker(combo)
            combo.clear()
            for slug, text in choices:
                combo.addItem(text, slug)
            del blocker

    # -- editing -------------------------------------------------------------------
    def _commit(self, name: str) -> None:
        workload = self.workload()
        if workload is None:
            return
        spec = FIELD_BY_NAME[name]
        editor = self.editors[name]
        if isinstance(editor, QComboBox):
            value = editor.currentData()
            if name == "gpu_type" and value == DESIGN_GPU:
                value = None
        elif isinstance(editor, QCheckBox):
            value = editor.isChecked()
        else:
            assert isinstance(editor, QLineEdit)
            if name == "params" and editor.isReadOnly():
                return
            try:
                value = from_text(spec, editor.text())
            except ParseError as exc:
                self.parse_errors[name] = str(exc)
                self._paint_errors()
                self.parseErrorsChanged.emit()
                return
            if name == "name" and not value:
                self.parse_errors[name] = "cannot be empty"
                self._paint_errors()
                return
        had_error = self.parse_errors.pop(name, None) is not None
        changes: dict[str, object] = {}
        if value != getattr(workload, name):
            changes[name] = value
        if name == "model" and value == CUSTOM and workload.params is None:
            preset = PRESETS.get(workload.model)
            if preset is not None:
                changes["params"] = preset.params
        if changes:
            self.document.push(workload_edit(self.document, workload, **changes))
        elif had_error:
            self.refresh()
            self.parseErrorsChanged.emit()

    def apply_layout(self, changes: Mapping[str, object], text: str) -> bool:
        """Set several fields of the workload as ONE undo step (the auto layout's
        choice); False when nothing would change."""
        workload = self.workload()
        if workload is None:
            return False
        moved = {k: v for k, v in changes.items() if getattr(workload, k) != v}
        if not moved:
            return False
        self.document.push(layout_edit(self.document, workload.id, text, **moved))
        return True

    # -- hints and errors ------------------------------------------------------------
    def show_hints(self, hints: Mapping[str, str]) -> None:
        """Placeholder text of the blank boxes: the default the calculators used
        ("predicted 43 %" in the MFU box); a box without a hint keeps its own."""
        for name, text in hints.items():
            editor = self.editors.get(name)
            if isinstance(editor, QLineEdit) and editor.placeholderText() != text:
                editor.setPlaceholderText(text)

    def show_errors(self, errors: list[tuple[str, str]]) -> None:
        """The calculators' complaints as (field, message) pairs; [] clears them."""
        self._calc_errors = list(errors)
        self._paint_errors()

    def error_lines(self) -> list[str]:
        """Every error as the user reads it: "<field label>: <message>"."""
        lines = [
            f"{self._label_for(name)}: {message}" for name, message in self.parse_errors.items()
        ]
        for name, message in self._calc_errors:
            if name in self.parse_errors:
                # The calculators judged the value still in the model, not the text the
                # user just typed ("got 0.0" next to "'abc' is not a number" misleads).
                continue
            lines.append(
                f"{self._label_for(name)}: {percent_message(FIELD_BY_NAME.get(name), message)}"
            )
        return lines

    def _label_for(self, field: str) -> str:
        spec = FIELD_BY_NAME.get(field)
        return spec.label if spec else field

    def _paint_errors(self) -> None:
        bad = set(self.parse_errors) | {name for name, _ in self._calc_errors}
        for name, editor in self.editors.items():
            editor.setStyleSheet(_ERROR_STYLE if name in bad else "")
        lines = self.error_lines()
        self.error_label.setText("\n".join(f"⚠ {line}" for line in lines))
        self.error_label.setVisible(bool(lines))
