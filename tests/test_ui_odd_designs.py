"""Nothing a design can hold crashes a view (issue 9).

The file reader refuses most odd values on open, but designs are also built by scripts,
templates and future importers, so every view must show whatever the model can hold:
U positions outside the rack or overlapping, 10,000 devices in one rack, a power limit
of 0 or of "lots", devices of catalog items the design lacks, racks off the floor plan,
names that are not text, links to ports that do not exist, an empty design.

Each design below is built through the model (plain dataclasses, no file), opened in a
real :class:`~workbench.ui.shell.main_window.MainWindow`, and every tab, dock and inspector
page is shown and painted (``grab()``).  Any exception that reaches Qt fails the test:
paint code and slots run from C++, where PySide only prints what they raise, so the
exceptions are collected with ``qtbot.captureExceptions()`` and listed.
"""

from __future__ import annotations

import logging
import math
import traceback
from collections.abc import Callable

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QApplication, QWidget
from qt_helpers import open_window

from workbench.catalog.item import CatalogItem, Interface
from workbench.model import Design, Device, Rack, Row, Site
from workbench.model.design import Link, Network, StorageTier, Waiver, Workload

# -- the catalog items the odd designs use ---------------------------------------------------


def _types(*extra: CatalogItem) -> dict[str, CatalogItem]:
    items = [
        CatalogItem(slug="rack-42u", kind="rack", manufacturer="Generic", model="42U", u_height=42),
        CatalogItem(
            slug="srv-2u",
            kind="server",
            manufacturer="Acme",
            model="GPU server",
            u_height=2,
            gpu="gpu-x",
            gpu_count=8,
            max_power_w=5000,
            typical_power_w=4000,
            weight=40,
            interfaces=(Interface("p1", "400gbase-x-osfp"), Interface("bmc", "1000base-t")),
        ),
        CatalogItem(
            slug="gpu-x", kind="gpu", manufacturer="Acme", model="GPU X", tflops={"bf16": 900.0}
        ),
        CatalogItem(
            slug="sw-1u",
            kind="switch",
            manufacturer="Acme",
            model="Switch",
            u_height=1,
            max_power_w=500,
            interfaces=tuple(Interface(f"swp{i}", "400gbase-x-osfp") for i in range(1, 5)),
        ),
        CatalogItem(slug="pdu-0u", kind="pdu", manufacturer="Acme", model="PDU", u_height=0),
        *extra,
    ]
    return {item.slug: item for item in items}


def _site(*racks: Rack, rows: int = 1) -> Site:
    """One site; the racks spread over ``rows`` rows."""
    per = max(1, math.ceil(len(racks) / rows))
    return Site(
        id="site",
        name="Hall",
        rows=[
            Row(id=f"row{i}", name=f"Row {i}", racks=list(racks[i * per : (i + 1) * per]))
            for i in range(rows)
        ],
    )


def _device(i: int, position, slug: str = "srv-2u", **fields) -> Device:
    return Device(id=f"d{i}", name=f"dev-{i}", device_type=slug, position=position, **fields)


# -- the odd designs --------------------------------------------------------------------------


def empty() -> Design:
    return Design(name="")


def no_racks() -> Design:
    """Sites without rows, rows without racks."""
    return Design(
        name="Bare",
        sites=[Site("s1", "Hall 1"), Site("s2", "Hall 2", rows=[Row("row1", "Row 1")])],
        device_types=_types(),
    )


def odd_positions() -> Design:
    """U positions outside the rack, overlapping, not whole numbers, not numbers."""
    positions = [-5, 0, 2**63 - 1, -(2**63), "abc", 1.5, None, 41, 10, 10, 11, math.nan, True]
    positions += [math.inf, 1e300, b"\x00", [3]]
    devices = [_device(i, p) for i, p in enumerate(positions)]
    devices.append(_device(90, 5, face="sideways"))
    devices.append(_device(91, 6, face=None))
    devices.append(_device(92, 7, slug="sw-1u", face="rear"))
    devices.append(_device(93, None, slug="pdu-0u"))
    rack = Rack("r1", "A01", "rack-42u", devices=devices)
    return Design(name="Odd positions", sites=[_site(rack)], device_types=_types())


def stacked() -> Design:
    """10,000 servers claiming U1 of one rack, and 1,000 0U devices in another."""
    servers = [_device(i, 1) for i in range(10_000)]
    pdus = [_device(20_000 + i, None, slug="pdu-0u") for i in range(1_000)]
    return Design(
        name="Stacked",
        sites=[
            _site(
                Rack("r1", "A01", "rack-42u", devices=servers),
                Rack("r2", "A02", "rack-42u", devices=pdus),
            )
        ],
        device_types=_types(),
    )


def odd_budgets() -> Design:
    """Power limits of 0, below 0, infinite, not a number, text; odd cooling and feeds."""
    limits = [0, 0.0, -1, math.inf, -math.inf, math.nan, "lots", None, 1e308, 1e-300, True]
    racks = [
        Rack(f"r{i}", f"R{i:02}", "rack-42u", power_limit_kw=limit, devices=[_device(i, 1)])
        for i, limit in enumerate(limits)
    ]
    racks += [
        Rack("c1", "C1", "rack-42u", cooling="martian", devices=[_device(50, 3)]),
        Rack("c2", "C2", "rack-42u", cooling=None, cooling_limit_kw="x"),  # type: ignore[arg-type]
        Rack("c3", "C3", "rack-42u", cooling_limit_kw=0, max_weight_kg=-5),
        Rack(
            "f1",
            "F1",
            "rack-42u",
            feed_a_voltage=0,
            feed_a_phases=2,
            feed_a_breaker_a=-1,
            feed_b_voltage="x",  # type: ignore[arg-type]
            feed_b_phases=3,
            feed_b_breaker_a=math.inf,
            devices=[_device(51, 1)],
        ),
    ]
    return Design(name="Odd budgets", sites=[_site(*racks, rows=3)], device_types=_types())


def missing_items() -> Design:
    """Devices and racks of items the design lacks; items with odd heights and figures."""
    odd_items = [
        # Taller than any rack (1e9 U works too, but the overlap rule then needs ~0.3 s
        # per rack to build its bit masks: a rules cost, not a view's).
        CatalogItem(slug="tall", kind="server", manufacturer="X", model="Tall", u_height=1e5),
        CatalogItem(slug="inf", kind="server", manufacturer="X", model="Inf", u_height=math.inf),
        CatalogItem(slug="nan", kind="server", manufacturer="X", model="NaN", u_height=math.nan),
        CatalogItem(slug="neg", kind="server", manufacturer="X", model="Neg", u_height=-3),
        CatalogItem(slug="txt", kind="server", manufacturer="X", model="Txt", u_height="2U"),  # type: ignore[arg-type]
        CatalogItem(
            slug="hot",
            kind="server",
            manufacturer="X",
            model="Hot",
            u_height=1,
            max_power_w=math.inf,
            typical_power_w=math.nan,
            weight=-10,
            gpu="ghost-gpu",
            gpu_count=-8,
        ),
        CatalogItem(slug="huge-rack", kind="rack", manufacturer="X", model="Huge", u_height=1e6),
        CatalogItem(slug="inf-rack", kind="rack", manufacturer="X", model="Inf", u_height=math.inf),
        CatalogItem(slug="flat-rack", kind="rack", manufacturer="X", model="Flat", u_height=0),
    ]
    devices = [_device(i, 1 + 3 * i, slug=s.slug) for i, s in enumerate(odd_items[:6])]
    devices.append(_device(10, 30, slug="no-such-item"))
    devices.append(_device(11, None, slug="no-such-item"))
    racks = [
        Rack("r1", "Odd items", "rack-42u", devices=devices),
        Rack("r2", "No rack item", "no-such-rack", devices=[_device(12, 1)]),
        Rack("r3", "Server as rack", "srv-2u", devices=[_device(13, 1)]),
        Rack("r4", "Huge", "huge-rack", devices=[_device(14, 900_000)]),
        Rack("r5", "Inf", "inf-rack", devices=[_device(15, 1)]),
        Rack("r6", "Flat", "flat-rack", devices=[_device(16, 1)]),
    ]
    return Design(
        name="Missing items", sites=[_site(*racks, rows=2)], device_types=_types(*odd_items)
    )


def floor() -> Design:
    """Racks off the floor plan beside racks at odd places, facing odd ways."""
    places = [
        (None, None),
        (0.0, 0.0),
        (None, 500.0),
        (math.inf, 0.0),
        (math.nan, math.nan),
        (1e300, -1e300),
        ("x", "y"),
        (1200.0, 0.0),
        (1200.0, 0.0),  # on top of the one before
    ]
    racks = [
        Rack(f"r{i}", f"F{i}", "rack-42u", floor_x_mm=x, floor_y_mm=y, devices=[_device(i, 1)])
        for i, (x, y) in enumerate(places)
    ]
    racks.append(Rack("up", "Up", "rack-42u", floor_x_mm=2400.0, floor_y_mm=0.0, facing="up"))
    design = Design(name="Floor", sites=[_site(*racks, rows=3)], device_types=_types())
    design.sites.append(Site("s2", "Empty hall", rows=[Row("row9", "Row 9")]))
    return design


def names() -> Design:
    """Very long names, names that are not text, control characters, empty names."""
    long = "N" * 4_000  # labels lay out every character of a name they wrap
    odd = [long, "", "   ", b"\x00blob", None, 42, ["x"], "line\nbreak\ttab", "\u202e evil", "💥"]
    racks = [
        Rack(f"r{i}", name, "rack-42u", devices=[_device(i, 1)])  # type: ignore[arg-type]
        for i, name in enumerate(odd)
    ]
    for i, rack in enumerate(racks):
        rack.devices[0].name = odd[i]  # type: ignore[assignment]
        rack.devices[0].serial = odd[-1 - i]  # type: ignore[assignment]
        rack.devices[0].asset_tag = odd[i]  # type: ignore[assignment]
        rack.devices[0].role = odd[i]  # type: ignore[assignment]
    site = _site(*racks, rows=2)
    site.name = long
    site.rows[0].name = b"\xff"  # type: ignore[assignment]
    site.rows[1].name = long
    return Design(name=long, sites=[site], device_types=_types())


def links() -> Design:
    """Links to devices and ports that do not exist; odd networks, tiers and waivers."""
    servers = [_device(1, 1), _device(2, 3), _device(3, 5, slug="sw-1u")]
    rack = Rack("r1", "A01", "rack-42u", devices=servers)
    odd_links = [
        Link("l1", "ghost", "p1", "d1", "p1", network="net-c"),
        Link("l2", "d1", "p99", "d3", "swp1", network="net-c"),
        Link("l3", "d1", "p1", "d1", "p1", network="nowhere"),
        Link("l4", "d2", "p1", "d3", "swp9/3", network="net-c", speed_gbps="fast"),  # type: ignore[arg-type]
        Link("l5", "d2", "bmc", "d3", "swp2", network=None, length_m=math.nan, speed_gbps=-1),
        Link("l6", "d2", "", "d3", "", network="net-c", cable_type="string", length_m=-5),
        Link("l7", "d3", "swp3", "d3", "swp4", network="net-c", speed_gbps=math.inf),
    ]
    networks = [
        Network("net-c", "Compute", plane="compute", speed_gbps=0),
        Network("net-w", "Warp", plane="warp", speed_gbps=math.nan, mtu=-1),
    ]
    tiers = [
        StorageTier("t1", "Hot", tier="hot", device_ids=["ghost", "d1", "d1"]),
        StorageTier("t2", "Odd", tier="lukewarm", device_ids=[]),
    ]
    waivers = [Waiver("no-such-rule", "ghost", "why not"), Waiver("", "", "")]
    return Design(
        name="Links",
        sites=[_site(rack)],
        device_types=_types(),
        networks=networks,
        links=odd_links,
        storage_tiers=tiers,
        waivers=waivers,
    )


def duplicates() -> Design:
    """Ids used twice: racks, devices, rows, links."""
    a = Rack("r1", "A01", "rack-42u", devices=[_device(1, 1), _device(1, 3)])
    b = Rack("r1", "A02", "rack-42u", devices=[_device(1, 5)])
    site = Site("s", "Hall", rows=[Row("row", "Row A", racks=[a]), Row("row", "Row B", racks=[b])])
    links = [Link("l1", "d1", "p1", "d1", "bmc"), Link("l1", "d1", "p1", "d1", "bmc")]
    return Design(name="Duplicates", sites=[site], device_types=_types(), links=links)


def odd_workloads() -> Design:
    """Workloads whose figures no calculator expects."""
    rack = Rack("r1", "A01", "rack-42u", devices=[_device(i, 1 + 2 * i) for i in range(4)])
    workloads = [
        Workload("w1", "Zero GPUs", gpus=0, tp=0, pp=0, micro_batch=0, seq_len=0),
        Workload("w2", "Negative", gpus=-8, mfu=-1.0, tokens=-1.0),
        Workload("w3", "Text", gpus="all", mfu="high", tokens="many"),  # type: ignore[arg-type]
        Workload("w4", "Unknown model", model="no-such-model", precision="fp3"),
        Workload("w5", "Custom without size", model="custom", params=None),
        Workload("w6", "Party", kind="party", target_days=math.nan),
        Workload("w7", "Inference", kind="inference", context=0, concurrency=-1),
        Workload("w8", "Huge", gpus=10**12, tokens=math.inf, tp=10**9),
    ]
    return Design(
        name="Odd workloads", sites=[_site(rack)], device_types=_types(), workloads=workloads
    )


ODD_DESIGNS: dict[str, Callable[[], Design]] = {
    f.__name__: f
    for f in (
        empty,
        no_racks,
        odd_positions,
        stacked,
        odd_budgets,
        missing_items,
        floor,
        names,
        links,
        duplicates,
        odd_workloads,
    )
}


# -- exercising a window ----------------------------------------------------------------------


def _ids(design: Design, limit: int = 40) -> list[str]:
    """Racks, devices, links and workloads to select (each odd one of the small designs,
    the first few of the stacked one)."""
    racks = [r.id for r in design.iter_racks()][:limit]
    devices = [d.id for _, d in design.iter_devices()]
    devices = devices[: limit if len(devices) < 1000 else 6]  # each repaints 10,000 blocks
    return (
        racks
        + devices
        + [link.id for link in design.links[:limit]]
        + [w.id for w in design.workloads[:limit]]
    )


def _paint_on_paper(design: Design) -> None:
    """Every rack through the paper style too (the print and export path)."""
    from workbench.render import rack_geometry as geo
    from workbench.render.rack_painter import paint_rack

    image = QImage(400, 1200, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        for rack in list(design.iter_racks())[:25]:
            for face in ("front", "rear"):
                paint_rack(
                    painter, rack, design, QPointF(0, 0), 20.0, face=face, style=geo.PAPER_STYLE
                )
    finally:
        painter.end()


def exercise(window) -> None:
    """Show every tab and dock, select things so the inspector shows them, paint all."""
    app = QApplication.instance()
    document = window.document
    tabs = window.tabs
    for index in range(tabs.count()):
        tabs.setCurrentIndex(index)
        app.processEvents()
        tabs.widget(index).grab()
    tabs.setCurrentIndex(0)
    app.processEvents()
    for dock in (window.checks_dock, window.storage_dock, window.cables_dock):
        dock.show()
        dock.raise_()
        app.processEvents()
        dock.widget().grab()
    for object_id in _ids(document.design):
        document.select(object_id)
        window.show_object(object_id)
        app.processEvents()
        window.inspector.grab()
    document.select_many(_ids(document.design, 5))
    app.processEvents()
    window.rack_view.set_face("rear")
    window.rack_view.zoom_by(6.0)
    app.processEvents()
    window.rack_view.grab()
    window.rack_view.set_face("front")
    window.rack_view.fit()
    for plane in ("compute", "storage", "all"):
        window.fabric_view.set_plane(plane)
        window.fabric_panel.set_plane(plane if plane != "all" else "compute")
        app.processEvents()
    window.grab()
    _paint_on_paper(document.design)
    # An edit, its undo and redo: the incremental refresh paths, not only the first fill.
    racks = list(document.design.iter_racks())
    if racks:
        from workbench.ui.commands import rename_rack

        document.push(rename_rack(document, racks[0].id, "Renamed"))
        document.undo_stack.undo()
        document.undo_stack.redo()
        app.processEvents()
        window.grab()


def _report(raised) -> str:
    return "\n".join("".join(traceback.format_exception(*info)) for info in raised)


@pytest.mark.parametrize("name", list(ODD_DESIGNS))
def test_every_view_shows_an_odd_design(qtbot, tmp_path, caplog, name):
    design = ODD_DESIGNS[name]()
    caplog.set_level(logging.WARNING, logger="workbench")
    with qtbot.captureExceptions() as raised:
        window = open_window(qtbot, tmp_path, design)
        window.file_actions.autosave_timer.stop()
        exercise(window)
    assert not raised, f"{len(raised)} exception(s) reached Qt:\n{_report(raised)}"
    # The last-resort guards (the rack painter, the inspector) log what they caught as
    # errors: each one is a view that could not show something, so it fails here too.
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, "\n".join(f"{r.getMessage()}\n{r.exc_text or ''}" for r in errors)


def test_exceptions_in_paint_code_are_caught_here(qtbot, request):
    """The check above can fail: a paint event that raises, called from C++, either
    comes back out of ``grab()`` (PySide re-raises it to the Python caller) or, when the
    event loop called it, is collected; and pytest-qt's own capture is not switched off
    for these tests."""

    class Broken(QWidget):
        def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
            raise RuntimeError("paint failed")

    widget = Broken()
    qtbot.addWidget(widget)
    widget.resize(20, 20)
    with pytest.raises(RuntimeError, match="paint failed"):
        widget.grab()
    with qtbot.captureExceptions() as raised:
        widget.show()
        qtbot.waitExposed(widget)
        widget.repaint()
        QApplication.processEvents()
    assert raised and "paint failed" in str(raised[0][1])
    assert not request.config.getini("qt_no_exception_capture")
    assert request.node.get_closest_marker("qt_no_exception_capture") is None


# -- the geometry and painter on their own (no window) ---------------------------------------


@pytest.mark.parametrize("u", [-5, 0, 2**63 - 1, -(2**63), "abc", math.nan, math.inf, None, 1.5])
def test_a_unit_rectangle_is_finite_and_near_the_rack(u):
    from workbench.render import rack_geometry as geo

    rect = geo.u_rect(u, 2, 42, 10.0)  # type: ignore[arg-type]
    slots = geo.slots_rect(42, 10.0)
    assert all(math.isfinite(v) for v in rect)
    assert slots.y - 42 * 10.0 - 20 <= rect.y <= slots.y + slots.h + 42 * 10.0


def test_devices_at_no_unit_of_the_rack_are_drawn_in_the_strip():
    from workbench.render import rack_geometry as geo

    design = odd_positions()
    rack = next(design.iter_racks())
    blocks = {b.device_id: b for b in geo.device_blocks(rack, design, 10.0)}
    assert len(blocks) == len(rack.devices)  # every device can be seen and selected
    for device in rack.devices:
        inside = geo.whole_unit(device.position) is not None and 1 <= device.position <= 41
        assert blocks[geo.as_text(device.id)].zero_u != inside, device
    assert blocks["d7"].zero_u is False  # U41, 2U: the top two units of a 42U rack
    assert blocks["d3"].zero_u  # -(2**63): a whole unit, far below U1
    assert blocks["d4"].zero_u and blocks["d4"].position is None  # "abc": no unit at all
    assert blocks["d12"].zero_u  # True is no unit


def test_ten_thousand_stacked_devices_paint_as_one_block():
    from workbench.render import rack_geometry as geo
    from workbench.render.rack_painter import visible_blocks

    design = stacked()
    servers, pdus = list(design.iter_racks())
    blocks = geo.device_blocks(servers, design, 10.0)
    shown = visible_blocks(blocks, 10.0)
    assert len(blocks) == 10_000 and len(shown) == 1 and shown[0] is blocks[-1]
    strip = visible_blocks(geo.device_blocks(pdus, design, 10.0), 10.0)
    assert len(strip) <= 42 / 0.25 + 1  # one piece per quarter unit of the strip


@pytest.mark.parametrize("name", [n for n in ODD_DESIGNS if n not in ("empty", "no_racks")])
def test_an_odd_design_prints(qapp, tmp_path, name):
    """The paper path (File › Export PDF) paints the same racks, plus title blocks and
    budget tables; it read the loads and budgets itself and raised on the same values."""
    from workbench.render.print_export import write_pdf
    from workbench.render.print_layout import PrintOptions

    design = ODD_DESIGNS[name]()
    for per_page in ("rack", "row"):
        pages = write_pdf(tmp_path / f"{per_page}.pdf", design, PrintOptions(per_page=per_page))
        assert pages >= 1
