"""The index's first build files a rack's devices in one step (issue 21: 443,000
devices at 1,000,000 GPUs, indexed more than once per template build); the table is
the one filing them device by device gives, duplicates (a damaged file's) included."""

from __future__ import annotations

import copy

from workbench.model import Device, ops
from workbench.model.index import index_problems


def test_the_first_build_files_every_device_as_add_device_does(tiny_design) -> None:
    rack = tiny_design.sites[0].rows[0].racks[0]
    rack.devices.append(Device(rack.devices[0].id, "dup", "mgmt-48", 40))  # damaged file
    tiny_design.reindex()
    built = tiny_design.index
    plain: dict[str, tuple[object, object]] = {}
    for site in tiny_design.sites:
        for row in site.rows:
            for r in row.racks:
                for device in r.devices:
                    plain[device.id] = (r, device)
    assert list(built.devices.items()) == list(plain.items())


def test_a_rack_added_later_files_its_devices_one_by_one(tiny_design) -> None:
    """After the first build the index tells of each device (name counts, a link
    naming it): a whole rack added by an edit goes device by device."""
    index = tiny_design.index
    assert index.device_names["gpu-x0"] == 0  # counted from now on
    twin = copy.deepcopy(tiny_design.sites[0].rows[0].racks[0])
    twin.id, twin.name = "r9", "Z09"
    for i, device in enumerate(twin.devices):
        device.id, device.name = f"z{i}", f"gpu-x{i}"
    ops.apply(tiny_design, ops.AddRack(tiny_design.sites[0].rows[1].id, twin))
    assert all(index.device_names[f"gpu-x{i}"] == 1 for i in range(len(twin.devices)))
    assert all(index.devices[d.id] == (twin, d) for d in twin.devices)
    assert index_problems(tiny_design) == []
