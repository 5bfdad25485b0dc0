"""A rack's mark follows a device moved to another rack even when no finding's
words change: a device's finding marks the rack the device is in now, not the rack it
was in when the finding was made (the marks are kept per findings version, and a move
that leaves every finding the same moved no version)."""

from __future__ import annotations

from qt_helpers import open_window

from workbench.catalog.item import CatalogItem
from workbench.model import Device, Link
from workbench.model.hall_edits import move_devices
from workbench.rules import Severity
from workbench.ui.commands import EditCommand


def test_a_moved_device_takes_its_finding_s_mark_to_its_new_rack(qtbot, tmp_path, tiny_design):
    # dgx-002 cabled on a port its item lacks: a FABRIC-PORT error filed under it, whose
    # words name no rack, so a move re-runs no rule and changes no finding.
    tiny_design.links.append(Link("l1", "d2", "nope", "s1", "eth1", None))
    # Both racks powered, and B01 holding a switch already: the rack rules find the
    # same before and after the move.
    tiny_design.device_types["pdu-1u"] = CatalogItem(
        slug="pdu-1u", kind="pdu", manufacturer="Generic", model="PDU", u_height=1
    )
    tiny_design.find_rack("r1").devices.append(
        Device(id="p1", name="pdu-a01", device_type="pdu-1u", position=41)
    )
    tiny_design.find_rack("r2").devices.extend(
        [
            Device(id="s2", name="mgmt-b01", device_type="mgmt-48", position=42),
            Device(id="p2", name="pdu-b01", device_type="pdu-1u", position=41),
        ]
    )
    tiny_design.reindex()
    window = open_window(qtbot, tmp_path, tiny_design)
    document = window.document
    figures = document.figures
    [finding] = figures.findings()
    assert finding.object_id == "d2" and "B01" not in finding.message
    assert figures.rack_mark("r2") is not Severity.ERROR
    moved = move_devices(document.design, "r2", [("d2", 1, "front")])
    document.push(EditCommand(document, moved, "Move"))
    assert figures.findings() == [finding]  # the same words: no rule's verdict moved
    assert figures.rack_mark("r2") is Severity.ERROR  # dgx-002 is in B01 now
    assert figures.object_mark("d2") is Severity.ERROR
    document.undo_stack.undo()
    assert figures.rack_mark("r2") is not Severity.ERROR
    document.undo_stack.setClean()
