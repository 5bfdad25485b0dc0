"""File ▸ Import ▸ Device types: questions for ambiguous files, a field-by-field diff
over an existing item (keep by default, or replace), malformed files refused with
file:line, everything in one undo step, and the palette offering what came in."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QMenu
from qt_helpers import open_window

from workbench.catalog import load_catalog
from workbench.catalog.design_import import build, read_candidate
from workbench.model import Design
from workbench.ui.catalog.device_type_import import known_items, read_files

NETBOX = Path(__file__).parent / "data" / "netbox"
XE8545 = NETBOX / "dell-poweredge-xe8545.yaml"  # names no GPU model: a question
QM9700 = NETBOX / "nvidia-qm9700-library.yaml"  # over the shipped item: a diff
SWITCH = "nvidia-qm9700"
SERVER = "dell-poweredge-xe8545"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture
def broken(tmp_path) -> Path:
    path = tmp_path / "broken.yaml"
    path.write_text("manufacturer: Acme\nmodel: X1\nslug: acme-x1\nu_height: [1,\n")
    return path


@pytest.fixture
def window(qtbot, tmp_path, tiny_design, catalog):
    window = open_window(qtbot, tmp_path, tiny_design, catalog)
    window.type_import = window.device_type_import  # installed by the main window
    return window


def _choose(qtbot, box, text: str) -> None:
    """Pick ``text`` in a combo box with the keyboard, as a person would."""
    box.setFocus()
    target = box.findText(text)
    assert target > 0, [box.itemText(i) for i in range(box.count())]
    while box.currentIndex() < target:
        qtbot.keyClick(box, Qt.Key.Key_Down)


def _page(qtbot, dialog, slug):
    """The page of ``slug``, brought to the front by clicking its tab."""
    page = next(p for p in dialog.pages if p.candidate.slug == slug)
    bar = dialog.tabs.tabBar()
    qtbot.mouseClick(
        bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(dialog.tabs.indexOf(page)).center()
    )
    assert dialog.tabs.currentWidget() is page
    return page


def _click_box(qtbot, button) -> None:
    """Click a check box or radio button on its indicator (a wide one's centre is past
    its label, where a click does nothing)."""
    assert button.isVisible()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton, pos=QPoint(8, button.height() // 2))


def _rows(page) -> dict[str, str]:
    table = page.table
    return {table.item(r, 0).text(): table.item(r, 3).text() for r in range(table.rowCount())}


def test_the_menu_action_sits_under_file_import(window):
    file_menu = window.menuBar().actions()[0].menu()
    submenu = file_menu.findChild(QMenu, "importMenu")
    assert submenu is not None
    # NetBox files (a new design), device types (into this one), as-built captures.
    names = [a.objectName() for a in submenu.actions()]
    assert names[:2] == ["importNetBoxAction", "importDeviceTypesAction"] and len(names) == 3


def test_import_asks_shows_the_diff_and_is_one_undo_step(qtbot, window, broken):
    document, importer = window.document, window.type_import
    design = document.design
    before = dict(design.device_types)
    dialog = importer.start([XE8545, QM9700, broken])
    assert dialog is not None and dialog.isVisible()
    summary = dialog.tabs.widget(0).text()
    assert f"{broken}:5: YAML syntax error" in summary and "nothing imported from them" in summary
    assert not dialog.ok.isEnabled()  # the GPU question is open
    assert "choose the gpu" in dialog.message.text()

    server = _page(qtbot, dialog, SERVER)
    assert set(server.answers) == {"gpu"}
    _choose(qtbot, server.answers["gpu"], "nvidia-a100-sxm4-80gb")
    switch = _page(qtbot, dialog, SWITCH)
    rows = _rows(switch)
    assert rows["max_power_w"] == "kept" and rows["unit_price"] == "kept"
    assert dialog.ok.isEnabled() and dialog.ok.text() == "Import 2 device type(s)"
    qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)

    imported = design.device_types
    assert (imported[SERVER].gpu, imported[SERVER].gpu_count) == ("nvidia-a100-sxm4-80gb", 4)
    assert imported["nvidia-a100-sxm4-80gb"].kind == "gpu"  # its GPU came along
    assert imported[SWITCH].max_power_w == 1200 and imported[SWITCH].unit_price == 30000
    assert "acme-x1" not in imported
    assert document.undo_stack.count() == 1
    assert SERVER in window.palette_widget.model.items  # available to drop
    assert window.palette_widget.model.items[SWITCH] is imported[SWITCH]
    assert "Imported 2 new and 0 replaced" in importer.last_message

    document.undo()
    assert design.device_types == before
    assert SERVER not in window.palette_widget.model.items
    assert window.palette_widget.model.items[SWITCH] is catalog_item(window, SWITCH)


def catalog_item(window, slug):
    return window.document.catalog[slug]


def test_replace_takes_the_file_alone_and_replaces_in_place(qtbot, window):
    document, importer = window.document, window.type_import
    first = importer.start([QM9700])
    qtbot.mouseClick(first.ok, Qt.MouseButton.LeftButton)  # kept: 1,200 W
    order = list(document.design.device_types)
    dialog = importer.start([QM9700])
    page = _page(qtbot, dialog, SWITCH)
    assert page.candidate.old is document.design.device_types[SWITCH]
    _click_box(qtbot, page.replace)
    assert _rows(page)["max_power_w"] == "replaced"
    qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    item = document.design.device_types[SWITCH]
    assert item.max_power_w is None and item.unit_price is None
    assert list(document.design.device_types) == order  # replaced where it was
    document.undo()
    assert document.design.device_types[SWITCH].max_power_w == 1200


def test_cancel_and_unticked_files_import_nothing(qtbot, window):
    document, importer = window.document, window.type_import
    dialog = importer.start([QM9700, NETBOX / "ddn-ai400x2.yaml"])
    _click_box(qtbot, _page(qtbot, dialog, SWITCH).include)
    assert dialog.ok.text() == "Import 1 device type(s)"
    qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    assert SWITCH not in document.design.device_types
    assert "ddn-ai400x2" in document.design.device_types
    dialog = importer.start([QM9700])
    dialog.reject()
    QApplication.processEvents()
    assert SWITCH not in document.design.device_types
    assert document.undo_stack.count() == 1


def test_only_malformed_files_say_why_and_change_nothing(window, broken, tmp_path):
    twice = tmp_path / "twice.yaml"
    twice.write_bytes(QM9700.read_bytes())
    importer = window.type_import
    assert importer.start([broken]) is None
    assert f"{broken}:5: YAML syntax error" in importer.last_message
    assert window.document.undo_stack.count() == 0
    _found, refused = read_files([QM9700, twice], known_items(window.document.design, None))
    assert len(refused) == 1 and "already imported from" in refused[0]


def test_build_refuses_an_open_question_and_a_gpu_that_is_not_one(catalog):
    known = known_items(Design(), catalog)
    candidate = read_candidate(XE8545, known)
    with pytest.raises(Exception, match="cannot tell without guessing"):
        build(candidate, {}, known)
    with pytest.raises(Exception, match="is not a GPU in the catalog"):
        build(candidate, {"gpu": "nvidia-qm9700"}, known)


def test_a_question_offers_its_best_guess_first() -> None:
    """A PCIe GPU server's count is asked with the likely answer first (8 for an
    AS-4125GS), not only the other candidates."""
    import yaml

    from workbench.catalog.classify import classify
    from workbench.ui.catalog.device_type_dialog import choices

    path = Path(__file__).parent / "data" / "netbox_library" / "Supermicro" / "AS-4125GS-TNRT.yml"
    found = classify(yaml.safe_load(path.read_text(encoding="utf-8")))
    [count] = [q for q in found.questions() if q.field == "gpu_count"]
    assert choices(count, {})[:2] == [8, 4]
