"""The catalog palette: a searchable tree whose items drag out as slugs."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from workbench.catalog import load_catalog
from workbench.ui.catalog.palette import SLUG_MIME, SLUG_ROLE, CatalogPalette


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False)


def test_typing_h100_leaves_only_matching_items(qtbot, catalog):
    palette = CatalogPalette(catalog)
    qtbot.addWidget(palette)
    everything = palette.visible_slugs()
    assert len(everything) == len(catalog.items)
    qtbot.keyClicks(palette.search, "H100")
    shown = palette.visible_slugs()
    assert "nvidia-dgx-h100" in shown
    assert "nvidia-qm9700" not in shown and "nvidia-dgx-b200" not in shown
    for slug in shown:
        item = catalog.get(slug)
        text = " ".join(
            [item.manufacturer, item.model, item.slug, item.gpu or "", item.role, item.part_number]
        ).lower()
        assert "h100" in text
    assert palette.status.text() == f"{len(shown)} of {len(everything)} items"
    palette.search.clear()
    assert len(palette.visible_slugs()) == len(everything)


def test_manufacturer_match_keeps_its_items(qtbot, catalog):
    palette = CatalogPalette(catalog)
    qtbot.addWidget(palette)
    qtbot.keyClicks(palette.search, "nvidia")
    shown = palette.visible_slugs()
    nvidia = [i.slug for i in catalog.items.values() if i.manufacturer.lower() == "nvidia"]
    assert nvidia and set(nvidia) <= set(shown)
    assert "generic-rack-42u-air" not in shown


def test_items_drag_as_slug_mime(qtbot, catalog):
    palette = CatalogPalette(catalog)
    qtbot.addWidget(palette)
    qtbot.keyClicks(palette.search, "DGX H100")
    proxy = palette.proxy
    leaf = None
    stack = [proxy.index(r, 0) for r in range(proxy.rowCount())]
    while stack:
        index = stack.pop()
        if index.data(SLUG_ROLE) == "nvidia-dgx-h100":
            leaf = index
            break
        stack.extend(proxy.index(r, 0, index) for r in range(proxy.rowCount(index)))
    assert leaf is not None
    assert proxy.flags(leaf) & Qt.ItemFlag.ItemIsDragEnabled
    mime = proxy.mimeData([leaf])
    assert bytes(mime.data(SLUG_MIME)).decode() == "nvidia-dgx-h100"
    assert "8U" in leaf.data() and "kW max" in leaf.data(Qt.ItemDataRole.ToolTipRole)


def _heading(palette: CatalogPalette, label: str) -> str:
    proxy = palette.proxy
    for row in range(proxy.rowCount()):
        text = proxy.index(row, 0).data()
        if text.startswith(label + " ("):
            return text
    raise AssertionError(f"no {label} heading")


def test_headings_count_what_the_search_leaves(qtbot, catalog):
    """Typing "qm97" shows "Switches (1 of 5)", not the unfiltered "(5)" over one item."""
    palette = CatalogPalette(catalog)
    qtbot.addWidget(palette)
    switches = sum(1 for i in catalog.items.values() if i.kind == "switch")
    assert _heading(palette, "Switches") == f"Switches ({switches})"
    qtbot.keyClicks(palette.search, "qm97")
    assert _heading(palette, "Switches") == f"Switches (1 of {switches})"
    palette.search.clear()
    assert _heading(palette, "Switches") == f"Switches ({switches})"


def test_a_search_without_matches_says_so(qtbot, catalog):
    palette = CatalogPalette(catalog)
    qtbot.addWidget(palette)
    qtbot.keyClicks(palette.search, "zzzz")
    assert palette.visible_slugs() == []
    assert palette.status.text() == "No item matches “zzzz”"


def test_the_same_items_again_keep_the_tree_and_changed_ones_rebuild_it(qtbot, catalog):
    """The window hands the palette its catalog twice before its first frame (its first
    design, then the sample): equal items keep the tree (its search and what is open);
    an item that differs, even in one field, is shown as it now is."""
    from dataclasses import replace

    palette = CatalogPalette(catalog)
    qtbot.addWidget(palette)
    qtbot.keyClicks(palette.search, "H100")
    first_row = palette.model.item(0)
    palette.set_items([replace(item) for item in catalog])  # equal copies
    assert palette.model.item(0) is first_row
    assert palette.search.text() == "H100"
    items = list(catalog)
    items[0] = replace(items[0], model=items[0].model + " (imported)")
    palette.set_items(items)
    assert palette.model.item(0) is not first_row
    assert palette.model.items[items[0].slug].model.endswith("(imported)")
    assert len(palette.model.items) == len(catalog.items)
