"""The inventory workbook: one row per device, for the installers and the asset register.

Columns: name, role, model, site, row, rack, U, face, serial, asset tag, BMC IP,
management IP, MAC addresses, assigned baseline.

- **role** is the device's own role where the planner set one (an SN5600 bought as a
  storage switch), else its catalog item's;
- **U** is the lowest unit the device occupies (empty: 0U or not placed), **face**
  front or rear;
- **BMC IP / management IP** come from the IP plan (:func:`workbench.export.ip_plan.
  plan_addresses`, planes ``oob`` and ``management``), the same addresses the IP-plan
  workbook and the checklists give, so the three agree; ``cidrs`` is passed to it;
- **MAC addresses** is left empty: MACs are learnt on site (from the BMC or the
  switch's LLDP table), and the column is where the installer types them;
- **assigned baseline** is the version matrix's baseline for a GPU node, as
  ``name rN`` (its current revision); empty for devices the matrix does not track.
  One :class:`~workbench.versions.matrix.VersionIndex` resolves the assignments with a
  per-name cache, so 12,500 nodes cost a dict lookup each.

Every text cell goes through the formula-injection guard of
:mod:`workbench.export.xlsx_common`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from workbench.export.ip_plan import plan_addresses
from workbench.export.output import Progress, no_progress
from workbench.export.xlsx_common import Book, Column, write_workbook
from workbench.model import Design
from workbench.versions.matrix import VersionIndex, is_node

COLUMNS = [
    Column("Name"),
    Column("Role"),
    Column("Model", max_width=45),
    Column("Site"),
    Column("Row"),
    Column("Rack"),
    Column("U", "0"),
    Column("Face"),
    Column("Serial", min_width=14),
    Column("Asset tag", min_width=12),
    Column("BMC IP", min_width=15),
    Column("Management IP", min_width=15),
    Column("MAC addresses", min_width=20),
    Column("Assigned baseline"),
]
#: Rows between progress calls (a progress dialog repaints; every row would be slow).
PROGRESS_EVERY = 5000


def write_inventory(
    design: Design,
    target: Path,
    *,
    progress: Progress = no_progress,
    cidrs: Mapping[str, str] | None = None,
) -> Path:
    """Write the inventory workbook to ``target`` (atomically).

    ``cidrs`` (network id or plane → CIDR) is handed to the IP plan; an exhausted or
    overlapping subnet is an ExportError raised before anything is written.
    """
    target = Path(target)
    progress(0.0, "Planning addresses")
    plan = plan_addresses(design, cidrs, where=target)
    total = sum(len(rack.devices) for rack in design.iter_racks())

    def fill(book: Book) -> None:
        sheet = book.sheet("Inventory", COLUMNS)
        versions = VersionIndex(design)
        types = design.device_types
        done = 0
        append = sheet.append
        for site in design.sites:
            for row in site.rows:
                for rack in row.racks:
                    for device in rack.devices:
                        item = types.get(device.device_type)
                        baseline = ""
                        if is_node(design, device):
                            node = versions.node(device.name, device.id)
                            if node is not None and node.baseline_name:
                                baseline = f"{node.baseline_name} r{node.revision}"
                        append(
                            [
                                device.name,
                                device.role or (item.role if item is not None else ""),
                                item.label if item is not None else device.device_type,
                                site.name,
                                row.name,
                                rack.name,
                                device.position,
                                device.face,
                                device.serial,
                                device.asset_tag,
                                plan.address_of(device.id, "oob") or "",
                                plan.address_of(device.id, "management") or "",
                                "",
                                baseline,
                            ]
                        )
                        done += 1
                        if done % PROGRESS_EVERY == 0:
                            progress(0.05 + 0.9 * done / max(1, total), "Writing devices")

    return write_workbook(target, fill, progress)
