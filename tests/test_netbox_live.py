"""The export imports into a real NetBox unchanged (issue 13 §2), and reads back right.

Opt-in: ``WORKBENCH_NETBOX_LIVE=1`` (it starts PostgreSQL, Redis and NetBox, about a
minute), after ``sh tests/netbox_live/setup.sh`` built the cache once.  Skipped with
the reason otherwise, or where NetBox cannot start.  ``WORKBENCH_NETBOX_LIVE_GPUS``
picks a generated DGX SuperPOD design of that many GPUs instead of the 64-GPU sample.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from netbox_live import harness
from netbox_live.client import NetBoxClient, import_folder

from workbench.catalog.vocabulary import item_role
from workbench.export.ip_plan import plan_addresses
from workbench.netbox import read_netbox, write_netbox
from workbench.netbox.export import role_name
from workbench.templates import build_template

pytestmark = pytest.mark.skipif(
    os.environ.get("WORKBENCH_NETBOX_LIVE") != "1",
    reason="live NetBox test is opt-in: WORKBENCH_NETBOX_LIVE=1 (after tests/netbox_live/setup.sh)",
)


def _design():
    gpus = int(os.environ.get("WORKBENCH_NETBOX_LIVE_GPUS", "0") or 0)
    if gpus:
        return build_template("dgx-h100-superpod", gpus=gpus)
    return build_template("hgx-h100-air")


def test_every_file_imports_and_reads_back(tmp_path: Path) -> None:
    design = _design()
    folder = tmp_path / "netbox"
    write_netbox(design, folder)
    try:
        context = harness.running_netbox()
        netbox = context.__enter__()
    except harness.Unavailable as exc:
        pytest.skip(f"NetBox cannot start here: {exc}")
    try:
        client = NetBoxClient(netbox.url, netbox.token)
        client.login(netbox.username, netbox.password)
        timings = import_folder(client, folder)
        print("imported:", ", ".join(f"{f} {s:.1f}s" for f, s in timings))

        devices = [(r, d) for r, d in design.iter_devices()]
        racks = list(design.iter_racks())
        used = {d.device_type for _r, d in devices}
        plan = plan_addresses(design)
        lanes = (folder / "interfaces.csv").read_text().count("\n") - 1
        expected = {
            "dcim/sites/": len(design.sites),
            "dcim/locations/": sum(len(s.rows) for s in design.sites),
            "dcim/racks/": len(racks),
            "dcim/devices/": len(devices),
            "dcim/cables/": len(design.links),
            "ipam/vlans/": sum(1 for s in plan.subnets if s.vlan is not None),
            "ipam/prefixes/": len(design.networks),
            "ipam/ip-addresses/": len(plan.addresses),
        }
        got = {path: client.count(path) for path in expected}
        print("counts:", got)
        assert got == expected
        assert client.count("dcim/device-types/") >= len(used)
        interfaces = sum(len(design.device_types[d.device_type].interfaces) for _r, d in devices)
        assert client.count("dcim/interfaces/") == interfaces + lanes

        # A sample of fields, object by object.
        by_name = {d["name"]: d for d in client.all("dcim/devices/")}
        for rack, device in devices[:: max(len(devices) // 50, 1)]:
            got_device = by_name[device.name]
            item = design.device_types[device.device_type]
            assert got_device["rack"]["name"] == rack.name
            assert got_device["device_type"]["model"] == item.model
            assert got_device["role"]["name"] == role_name(item_role(item, device.role))
            position = got_device["position"]
            assert (None if position is None else int(position)) == device.position
            if device.position is not None:
                assert got_device["face"]["value"] == device.face
            assert got_device["custom_fields"]["wb_id"] == device.id
        got_racks = {r["name"]: r for r in client.all("dcim/racks/")}
        for rack in racks[:: max(len(racks) // 20, 1)]:
            got_rack = got_racks[rack.name]
            assert got_rack["u_height"] == int(design.device_types[rack.rack_type].u_height)
            assert got_rack["custom_fields"]["wb_floor_x_mm"] == _num(rack.floor_x_mm)
        cables = client.all("dcim/cables/") if len(design.links) <= 5000 else []
        ends = Counter()
        for cable in cables:
            a, b = cable["a_terminations"][0]["object"], cable["b_terminations"][0]["object"]
            ends[(a["device"]["name"], a["name"], b["device"]["name"], b["name"])] += 1
            assert cable["length_unit"]["value"] == "m" and cable["length"] > 0
        names = {d.id: d.name for _r, d in devices}
        if cables:
            want = Counter((names[lk.a_device], lk.a_port, names[lk.b_device], lk.b_port)
                           for lk in design.links)  # fmt: skip
            assert ends == want

        # NetBox's own exports, as a team whose system of record is NetBox downloads
        # them ("Export ▸ All data", its file names), read back without the sidecar.
        exported = tmp_path / "from-netbox"
        exported.mkdir()
        for listing in ("dcim/sites", "dcim/locations", "dcim/rack-types", "dcim/racks",
                        "dcim/device-types", "dcim/devices", "dcim/cables", "ipam/vlans",
                        "ipam/prefixes"):  # fmt: skip
            name, data = client.export(listing)
            assert name.startswith("netbox_"), name
            (exported / name).write_bytes(data)
        assert (exported / "netbox_devices.csv").exists()
        assert (exported / "netbox_device types.yaml").exists()
        back = read_netbox(exported)
        assert sum(1 for _ in back.iter_racks()) == len(racks)
        assert sorted(d.name for _r, d in back.iter_devices()) == sorted(
            d.name for _r, d in devices)  # fmt: skip
        if len(design.links) <= 5000:
            assert len(back.links) == len(design.links)
            assert all(link.cable_type for link in back.links)  # labels mapped to media
            assert all(link.length_m for link in back.links)
    finally:
        context.__exit__(None, None, None)


def _num(value):
    from workbench.netbox.export import num

    return num(value) or None
