"""The fabric drawing's layout (Qt-free) and painter: layers read from the cabling, hosts
and big tiers grouped, parallel links bundled with their counts, and the one painting
path lighting up a selection.

The small fabric's figures are worked out by hand in ``fabric_cabling.small_fabric``'s
docstring: two racks of two nodes, two leaves, two spines, eight links in every bundle.
"""

from __future__ import annotations

import pytest
from fabric_cabling import small_fabric
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter

from workbench.calc.fabric.planes import plane_structures
from workbench.catalog import load_catalog
from workbench.model import Link, StorageTier
from workbench.render import colors
from workbench.render import fabric_painter as fp
from workbench.render.fabric_layout import UNCABLED, Limits, lay_out_fabric


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture
def design(catalog):
    return small_fabric(catalog)


def boxes_of(layout, level, plane="compute"):
    return [b for b in layout.boxes.values() if b.plane == plane and b.level == level]


def test_layers_are_read_from_the_cabling_top_down(design):
    layout = lay_out_fabric(design, ["compute"])
    panel = layout.panels[0]
    assert [(layer.name, layer.devices) for layer in panel.layers] == [
        ("Spine", 2),
        ("Leaf", 2),
        ("Nodes", 4),
    ]
    spine, leaf, nodes = panel.layers
    assert spine.y < leaf.y < nodes.y  # the core side at the top
    assert {layout.boxes[k].title for k in spine.boxes} == {"spine-1", "spine-2"}
    # Hosts are never drawn one by one: one box per rack of nodes.
    groups = boxes_of(layout, 0)
    assert sorted((b.title, b.members) for b in groups) == [
        ("A01", ("n1", "n2")),
        ("A02", ("n3", "n4")),
    ]
    assert groups[0].detail == "2 nodes"


def test_parallel_links_are_one_bundle_with_their_count(design):
    layout = lay_out_fabric(design, ["compute"])
    counts = sorted(
        (layout.boxes[a].title, layout.boxes[b].title, bundle.count)
        for (a, b), bundle in layout.bundles.items()
    )
    # By hand: each rack's 2 nodes × 4 ports per leaf; each leaf's 16 uplinks, 8 a spine.
    assert counts == [
        ("A01", "leaf-1", 8),
        ("A01", "leaf-2", 8),
        ("A02", "leaf-1", 8),
        ("A02", "leaf-2", 8),
        ("leaf-1", "spine-1", 8),
        ("leaf-1", "spine-2", 8),
        ("leaf-2", "spine-1", 8),
        ("leaf-2", "spine-2", 8),
    ]
    every = [i for bundle in layout.bundles.values() for i in bundle.link_ids]
    assert sorted(every) == sorted(link.id for link in design.links)  # each link once
    assert all(layout.bundle_of_link[i] == k for k, b in layout.bundles.items() for i in b.link_ids)
    # A bundle's line runs from the top edge of its lower box to the bottom edge of the upper.
    bundle = layout.bundles[layout.bundle_of_link["l000001"]]
    low, high = layout.ends(bundle)
    assert low.level < high.level
    assert bundle.a_point[1] == pytest.approx(low.y - low.h / 2)
    assert bundle.b_point[1] == pytest.approx(high.y + high.h / 2)


def test_a_switch_no_link_reaches_waits_in_the_tray(design):
    layout = lay_out_fabric(design, ["compute"])
    tray = layout.panels[-1]
    assert tray.plane == UNCABLED
    loose = {layout.boxes[k].title for k in tray.layers[0].boxes}
    assert loose == {"spare-1", "mgmt-1"}
    assert layout.boxes_of_device["spare"] == [f"{UNCABLED}:spare"]


def test_big_tiers_are_grouped_by_what_they_reach_below(design):
    """With room for one switch box a layer, the two leaves (which reach the same two
    racks) become one group, and so do the two spines."""
    layout = lay_out_fabric(design, ["compute"], limits=Limits(switches=1, hosts=1))
    leaves = boxes_of(layout, 1)
    spines = boxes_of(layout, 2)
    assert [(b.kind, set(b.members)) for b in leaves] == [("switches", {"leaf1", "leaf2"})]
    assert [(b.kind, set(b.members)) for b in spines] == [("switches", {"spine1", "spine2"})]
    assert leaves[0].detail == "2 leaf switches"
    # The four nodes share leaves: one unit of hosts.
    hosts = boxes_of(layout, 0)
    assert [set(b.members) for b in hosts] == [{"n1", "n2", "n3", "n4"}]
    # Every host link is now in one bundle of 32, every leaf–spine link in one of 32.
    assert sorted(b.count for b in layout.bundles.values()) == [32, 32]


def test_storage_tiers_are_their_own_boxes_with_their_figures(design, catalog):
    from workbench.catalog import snapshot_for

    design.device_types.update(snapshot_for(catalog, ["generic-allflash-pfs-node"]))
    rack = design.find_rack("r3")
    from workbench.model import Device, Network

    rack.devices.append(Device("pfs1", "pfs-1", "generic-allflash-pfs-node", position=44))
    design.networks.append(Network("net-storage", "Storage", "storage", "ethernet", 400.0, 9000))
    design.links.append(Link("s1", "pfs1", "storage0", "mgmt", "uplink1", "net-storage"))
    design.links.append(Link("s2", "n1", "storage0", "mgmt", "uplink2", "net-storage"))
    design.storage_tiers.append(StorageTier("hot", "Hot tier", "hot", "Lustre", ["pfs1"]))
    design.reindex()
    layout = lay_out_fabric(design, ["storage"], tier_details={"hot": "1 PB usable"})
    tiers = [b for b in boxes_of(layout, 0, "storage") if b.kind == "tier"]
    assert [(b.title, b.detail, b.members) for b in tiers] == [
        ("Hot tier", "1 PB usable", ("pfs1",))
    ]
    hosts = [b for b in boxes_of(layout, 0, "storage") if b.kind == "hosts"]
    assert [b.members for b in hosts] == [("n1",)]  # the node is not in the tier's box


def test_an_uncabled_tier_stays_on_the_canvas(design, catalog):
    """Before issue 24: a tier none of whose appliances had a storage link vanished from
    the Fabric view, so it could not be cabled by dragging onto it."""
    from workbench.catalog import snapshot_for
    from workbench.model import Device, Network

    design.device_types.update(snapshot_for(catalog, ["generic-allflash-pfs-node"]))
    design.find_rack("r3").devices.append(
        Device("pfs1", "pfs-1", "generic-allflash-pfs-node", position=44)
    )
    design.networks.append(Network("net-storage", "Storage", "storage", "ethernet", 400.0, 9000))
    design.links.append(Link("s2", "n1", "storage0", "mgmt", "uplink2", "net-storage"))
    design.storage_tiers.append(StorageTier("hot", "Hot tier", "hot", "Lustre", ["pfs1"]))
    design.reindex()
    layout = lay_out_fabric(design, ["storage"])
    tiers = [b for b in boxes_of(layout, 0, "storage") if b.kind == "tier"]
    assert [(b.title, b.members) for b in tiers] == [("Hot tier", ("pfs1",))]


def test_grouped_layers_stay_within_the_limits_on_a_large_design():
    """A 16,384-GPU template (its generated fabric) draws at most the limits' boxes per
    layer and no box per link, and every link of a drawn plane is in a bundle."""
    from workbench.templates import build_template

    big = build_template("dgx-h100-superpod", gpus=16384)
    structures = plane_structures(big)
    if not structures["compute"].links:
        from fabric_cabling import cable_template

        cable_template(big)
        structures = plane_structures(big)
    limits = Limits()
    layout = lay_out_fabric(big, ["compute"], structures=structures, limits=limits)
    for layer in layout.panels[0].layers:
        assert len(layer.boxes) <= max(limits.switches, limits.hosts)
    assert sum(b.count for b in layout.bundles.values()) + sum(layout.inside.values()) == len(
        structures["compute"].links
    )
    assert len(layout.bundles) < len(structures["compute"].links) / 20


# -- the painter ---------------------------------------------------------------------------


def paint(layout, highlight: fp.Highlight | None = None) -> QImage:
    left, top, right, bottom = layout.bounds
    image = QImage(800, 500, QImage.Format.Format_ARGB32)
    image.fill(QColor("#ffffff"))
    painter = QPainter(image)
    source = QRectF(left, top, right - left, bottom - top)
    scale = min(800 / source.width(), 500 / source.height())
    painter.scale(scale, scale)
    painter.translate(-left, -top)
    fp.paint_fabric(painter, layout, highlight or fp.Highlight())
    painter.end()
    return image


def selection_pixels(image: QImage) -> int:
    target = QColor(colors.SELECTION)
    count = 0
    for y in range(0, image.height(), 2):
        for x in range(0, image.width(), 2):
            c = image.pixelColor(x, y)
            if (
                abs(c.red() - target.red()) < 30
                and abs(c.green() - target.green()) < 30
                and abs(c.blue() - target.blue()) < 30
            ):
                count += 1
    return count


def test_the_painter_draws_the_lit_bundles_in_the_selection_colour(design, qapp):
    layout = lay_out_fabric(design, ["compute"])
    plain = paint(layout)
    assert selection_pixels(plain) == 0
    spine = layout.boxes["compute:spine1"]
    lit = frozenset(k for k in layout.bundles if spine.key in k)
    highlight = fp.Highlight(frozenset({spine.key}), frozenset(), lit)
    assert len(lit) == 2
    assert selection_pixels(paint(layout, highlight)) > 50
