"""The Versions tab: a drifted node highlighted, filters, the baseline editor's edits as
undo steps, and an import of a real report folder driven through the window's code."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from workbench.catalog import load_catalog
from workbench.model import ops
from workbench.model.version_ops import AddAssignment, AddBaseline, AddObservations
from workbench.model.versions import LAYER_KEYS, Assignment, Baseline, BaselineRevision, Observation
from workbench.templates import build_template
from workbench.ui.shell.document import Document
from workbench.ui.versions.model import DRIFT_BRUSH
from workbench.ui.versions.version_import import import_reports
from workbench.ui.versions.view import VersionsView
from workbench.versions.matrix import is_node

DATA = Path(__file__).parent / "data" / "node_reports"
PIN = {"driver": "550.54.14", "cuda": "12.4", "kernel": "5.15.0-105-generic"}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def gpu_nodes(design) -> list[str]:
    return [d.name for _, d in design.iter_devices() if is_node(design, d)]


def matrix_design(catalog):
    """The 64-GPU template with one baseline on every GPU node and one drifted node."""
    design = build_template("hgx-h100-air", catalog=catalog)
    ops.apply(design, AddBaseline(Baseline("bl-1", "H100 training", [BaselineRevision(1, PIN)])))
    ops.apply(design, AddAssignment(Assignment("as-1", "bl-1", "*")))
    nodes = gpu_nodes(design)
    observations = tuple(
        Observation(f"ob-{i}", name, "driver", "535.104.05" if i == 0 else "550.54.14",
                    "reports/nvidia-smi.csv", 2, "2026-11-30T10:00:00Z", "ana", "im-1")
        for i, name in enumerate(nodes)
    )  # fmt: skip
    ops.apply(design, AddObservations(observations))
    return design, nodes


def shown_view(qtbot, design, catalog) -> VersionsView:
    document = Document(design, catalog=catalog)
    view = VersionsView(document)
    document.setParent(view)
    qtbot.addWidget(view)
    view.resize(1400, 700)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: document.figures.checked)
    return view


def test_a_drifted_node_is_highlighted_with_its_story(qtbot, catalog) -> None:
    design, nodes = matrix_design(catalog)
    view = shown_view(qtbot, design, catalog)
    model = view.model
    assert model.rowCount() == len(nodes) == 8
    column = 3 + model.layers.index("driver")
    drifted = model.row_of(nodes[0])
    fine = model.row_of(nodes[1])
    cell = model.index(drifted, column)
    assert model.data(cell) == "535.104.05"
    assert model.data(cell, Qt.ItemDataRole.BackgroundRole) == DRIFT_BRUSH
    assert model.data(model.index(fine, column), Qt.ItemDataRole.BackgroundRole) is None
    story = model.data(cell, Qt.ItemDataRole.ToolTipRole)
    assert "pins 550.54.14" in story and "reports/nvidia-smi.csv:2" in story and "DRIFT" in story
    # A pinned layer nobody reported shows the pin, in grey.
    cuda = model.index(fine, 3 + model.layers.index("cuda"))
    assert model.data(cuda) == "12.4" and model.data(cuda, Qt.ItemDataRole.ForegroundRole)
    assert view.counts.text() == "8 nodes, 1 drifted"
    # The same drift is a finding of the rules engine, listed in the compatibility panel.
    texts = [view.verdicts.item(i).text() for i in range(view.verdicts.count())]
    assert any("VERSION-DRIFT" in t and nodes[0] in t for t in texts)


def test_drifted_only_and_text_filter(qtbot, catalog) -> None:
    design, nodes = matrix_design(catalog)
    view = shown_view(qtbot, design, catalog)
    qtbot.mouseClick(view.drifted, Qt.MouseButton.LeftButton)
    assert view.proxy.rowCount() == 1
    assert view.proxy.data(view.proxy.index(0, 0)) == nodes[0]
    qtbot.mouseClick(view.drifted, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(view.search, nodes[3])
    assert view.proxy.rowCount() == 1
    # Plain text, not a pattern: the dots of a version mean dots.
    view.search.clear()
    qtbot.keyClicks(view.search, "535.104")
    assert view.proxy.rowCount() == 1
    assert view.proxy.data(view.proxy.index(0, 0)) == nodes[0]


def test_baseline_editor_saves_a_revision_as_one_undo_step(qtbot, catalog) -> None:
    design, nodes = matrix_design(catalog)
    view = shown_view(qtbot, design, catalog)
    editor = view.editor
    document = view.document
    row = LAYER_KEYS.index("driver")
    editor._cell(row).setText("535.104.05")  # what the table's delegate does on commit
    assert "Pending: driver" in editor.pending.text()
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    baseline = design.versions.baselines[0]
    assert [r.revision for r in baseline.revisions] == [1, 2]
    assert baseline.current.versions["driver"] == "535.104.05"
    assert document.undo_stack.count() == 1
    # The node that runs 535 no longer drifts; the seven others now do.
    assert view.counts.text() == "8 nodes, 7 drifted"
    document.undo()
    assert [r.revision for r in baseline.revisions] == [1]
    assert view.counts.text() == "8 nodes, 1 drifted"


def test_changing_two_layers_warns_before_saving(qtbot, catalog) -> None:
    design, _ = matrix_design(catalog)
    view = shown_view(qtbot, design, catalog)
    view.editor._cell(LAYER_KEYS.index("driver")).setText("560.35.03")
    view.editor._cell(LAYER_KEYS.index("cuda")).setText("12.6")
    assert "one-layer-at-a-time" in view.editor.pending.text()


def test_import_of_a_report_folder_is_one_undo_step(qtbot, catalog, tmp_path) -> None:
    design, nodes = matrix_design(catalog)
    folder = tmp_path / "reports"
    (folder / nodes[2]).mkdir(parents=True)
    shutil.copy(DATA / "nvidia-smi-q-h100.xml", folder / nodes[2] / "smi.xml")
    shutil.copy(DATA / "uname-r.txt", folder / f"{nodes[2]}.uname.txt")
    view = shown_view(qtbot, design, catalog)
    before = len(design.versions.observations)
    assert import_reports(view, view.document, folder, confirm=False)
    added = design.versions.observations[before:]
    assert {o.node for o in added} == {nodes[2]}
    assert {o.layer for o in added} >= {"driver", "kernel", "gpu_model"}
    assert view.document.undo_stack.count() == 1
    view.document.undo()
    assert len(design.versions.observations) == before


def test_a_malformed_report_refuses_the_import(qtbot, catalog, tmp_path, monkeypatch) -> None:
    design, nodes = matrix_design(catalog)
    folder = tmp_path / "reports"
    folder.mkdir()
    shutil.copy(DATA / "uname-r.txt", folder / f"{nodes[1]}.uname.txt")
    (folder / f"{nodes[2]}.smi.xml").write_bytes(b"<nvidia_smi_log><driver_version>55")
    said: list[str] = []
    monkeypatch.setattr(
        "workbench.ui.versions.version_import.QMessageBox.warning",
        lambda _parent, _title, text: said.append(text),
    )
    view = shown_view(qtbot, design, catalog)
    before = list(design.versions.observations)
    assert not import_reports(view, view.document, folder, confirm=False)
    assert design.versions.observations == before
    assert len(said) == 1 and f"{nodes[2]}.smi.xml" in said[0] and "Nothing was imported" in said[0]


def test_a_drag_does_not_reload_the_matrix_but_a_rename_does(qtbot, catalog) -> None:
    from workbench.ui.commands import EditCommand, rename_device

    design, nodes = matrix_design(catalog)
    view = shown_view(qtbot, design, catalog)
    rows = view.model.rows
    rack, device = next((r, d) for r, d in design.iter_devices() if d.name == nodes[0])
    move = ops.MoveDevice(device.id, rack.id, device.position, device.face)
    view.document.push(EditCommand(view.document, move, "Move"))
    assert view.model.rows is rows  # nothing a row shows changed
    view.document.push(rename_device(view.document, device.id, "gpu-renamed"))
    assert view.model.rows is not rows
    # The rename detaches the node from its reports (nodes are named): it now shows as a
    # node without reports, and its old reports stay under the old name.
    assert view.model.row_of("gpu-renamed") is not None
    assert view.model.row_of(nodes[0]) is not None


def test_the_acceptance_state_of_each_node_is_shown(qtbot, catalog) -> None:
    from workbench.model.acceptance import AcceptanceResult, AddAcceptanceResults

    design, nodes = matrix_design(catalog)
    results = tuple(
        AcceptanceResult(nodes[0], item, measured, verdict, "results-x.csv", i + 2,
                         "2026-12-01T10:00:00Z", "ana", "2026-12-01T09:00:00Z", "acc-1")
        for i, (item, measured, verdict) in enumerate(
            [("gpu.count", "8", "PASS"), ("gpu.driver", "535.104.05", "FAIL")]
        )
    )  # fmt: skip
    view = shown_view(qtbot, design, catalog)
    column = 2  # the Acceptance column follows Node and Baseline
    row = view.model.row_of(nodes[0])
    assert view.model.data(view.model.index(row, column)) == "not run"
    from workbench.ui.commands import EditCommand

    view.document.push(EditCommand(view.document, AddAcceptanceResults(results), "Import"))
    assert view.model.headerData(column, Qt.Orientation.Horizontal) == "Acceptance"
    cell = view.model.index(view.model.row_of(nodes[0]), column)
    assert view.model.data(cell) == "1 FAIL · 1 PASS"
    assert view.model.data(cell, Qt.ItemDataRole.BackgroundRole) is not None
    other = view.model.index(view.model.row_of(nodes[1]), column)
    assert view.model.data(other) == "not run"


def test_results_are_imported_in_the_window_as_one_undo_step(qtbot, catalog, tmp_path) -> None:
    from workbench.ui.versions.version_import import import_results

    design, nodes = matrix_design(catalog)
    results = tmp_path / "results"
    results.mkdir()
    (results / f"results-{nodes[0]}.csv").write_text(
        "node,item,measured,verdict,timestamp\n"
        f"{nodes[0]},gpu.count,8,PASS,2026-12-01T09:00:00Z\n"
        f"{nodes[0]},gpu.driver,535.104.05,FAIL,2026-12-01T09:00:01Z\n"
    )
    view = shown_view(qtbot, design, catalog)
    assert import_results(view, view.document, results, confirm=False)
    assert len(design.acceptance) == 2 and view.document.undo_stack.count() == 1
    cell = view.model.index(view.model.row_of(nodes[0]), 2)
    assert view.model.data(cell) == "1 FAIL · 1 PASS"
    view.document.undo()
    assert design.acceptance == [] and view.model.data(cell) == "not run"


def test_a_bad_results_file_imports_nothing_in_the_window(qtbot, catalog, tmp_path, monkeypatch):
    from workbench.ui.versions.version_import import import_results

    design, _nodes = matrix_design(catalog)
    results = tmp_path / "results"
    results.mkdir()
    (results / "results-x.csv").write_text("node,item\nnobody,gpu.count\n")
    said: list[str] = []
    monkeypatch.setattr(
        "workbench.ui.versions.version_import.QMessageBox.warning",
        lambda _parent, _title, text: said.append(text),
    )
    view = shown_view(qtbot, design, catalog)
    assert not import_results(view, view.document, results, confirm=False)
    assert design.acceptance == [] and len(said) == 1 and "results-x.csv" in said[0]
