"""The files of a NetBox export, in import order, and the columns of each.

Column names are exactly the field names of NetBox's own bulk-import forms
(``netbox/dcim/forms/bulk_import.py``, ``ipam/forms/bulk_import.py`` and
``extras/forms/bulk_import.py`` of NetBox **4.7.3**, the release on PyPI that the live
test imports into), so each file is pasted into ``/<app>/<model>/import/`` unchanged.

How the workbench's objects map onto NetBox's (the choices a reader needs):

- a site is a site; a **row is a location** of its site (locations nest under sites
  and devices carry them too, so NetBox's rack elevations group by row);
- a rack's catalog type is a **rack type**, its cooling a **rack role** (``air``,
  ``rear-door`` ...); catalog items that take rack units are **device types** in the
  community library's YAML (NetBox makes their interfaces on every device);
- a breakout lane (``swp1/2``) is no interface of the device type, so it is created by
  ``interfaces.csv`` before the cables that plug into it;
- a network is a **prefix** (its planned subnet) and, on Ethernet planes, a **VLAN**;
  addresses come from :func:`workbench.export.ip_plan.plan_addresses`;
- what NetBox has no field for (a rack's power limit, feeds and place on the hall plan,
  a link's network, a device's own role override ...) goes into **custom fields** whose
  names start with ``wb_``; ``custom-fields.csv`` creates them first.  Numbers NetBox
  rounds (a rack's ``max_weight`` is a whole number) are kept exactly there too.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The NetBox release whose import forms these columns follow.
NETBOX_VERSION = "4.7.3"


@dataclass(frozen=True)
class NetBoxFile:
    """One file of the export: its name, the NetBox list it imports into, its columns."""

    name: str
    path: str
    columns: tuple[str, ...] = ()
    #: The workbench reads this file back; an import folder without it is refused.
    required: bool = True


def _cf(*names: str) -> tuple[str, ...]:
    return tuple(f"cf_{n}" for n in names)


RACK_CF = ("wb_id", "wb_power_limit_kw", "wb_cooling_limit_kw", "wb_max_weight_kg",
           "wb_feed_a_voltage", "wb_feed_a_phases", "wb_feed_a_breaker_a",
           "wb_feed_b_voltage", "wb_feed_b_phases", "wb_feed_b_breaker_a",
           "wb_floor_x_mm", "wb_floor_y_mm", "wb_facing")  # fmt: skip
DEVICE_CF = ("wb_id", "wb_role", "wb_face", "wb_software_stack")
CABLE_CF = ("wb_id", "wb_network", "wb_cable_type", "wb_length_m", "wb_speed_gbps")
PREFIX_CF = ("wb_id", "wb_plane", "wb_technology", "wb_speed_gbps", "wb_mtu", "wb_subnet",
             "wb_vlan")  # fmt: skip

FILES: tuple[NetBoxFile, ...] = (
    NetBoxFile("custom-fields.csv", "extras/custom-fields",
               ("name", "label", "group_name", "type", "object_types", "description",
                "search_weight", "filter_logic", "weight", "ui_visible", "ui_editable"),
               required=False),
    NetBoxFile("sites.csv", "dcim/sites", ("name", "slug", "status", "description",
                                           *_cf("wb_id"))),
    NetBoxFile("locations.csv", "dcim/locations", ("site", "name", "slug", "status",
                                                   *_cf("wb_id"))),
    NetBoxFile("rack-roles.csv", "dcim/rack-roles", ("name", "slug", "color", "description"),
               required=False),
    NetBoxFile("manufacturers.csv", "dcim/manufacturers", ("name", "slug"), required=False),
    NetBoxFile("rack-types.csv", "dcim/rack-types",
               ("manufacturer", "model", "slug", "form_factor", "width", "u_height",
                "outer_width", "outer_depth", "outer_unit", "weight", "max_weight",
                "weight_unit", "description"), required=False),
    NetBoxFile("racks.csv", "dcim/racks",
               ("site", "location", "name", "status", "role", "rack_type", "width",
                "u_height", "max_weight", "weight_unit", *_cf(*RACK_CF))),
    NetBoxFile("device-types.yaml", "dcim/device-types"),
    NetBoxFile("device-roles.csv", "dcim/device-roles", ("name", "slug", "color"),
               required=False),
    NetBoxFile("devices.csv", "dcim/devices",
               ("name", "role", "manufacturer", "device_type", "status", "site", "location",
                "rack", "position", "face", "serial", "asset_tag", "comments",
                *_cf(*DEVICE_CF))),
    NetBoxFile("interfaces.csv", "dcim/interfaces",
               ("device", "name", "type", "description"), required=False),
    NetBoxFile("cables.csv", "dcim/cables",
               ("side_a_site", "side_a_device", "side_a_type", "side_a_name",
                "side_b_site", "side_b_device", "side_b_type", "side_b_name",
                "type", "status", "label", "length", "length_unit", *_cf(*CABLE_CF))),
    NetBoxFile("vlans.csv", "ipam/vlans", ("vid", "name", "status", "description"),
               required=False),
    NetBoxFile("prefixes.csv", "ipam/prefixes",
               ("prefix", "vlan", "status", "description", *_cf(*PREFIX_CF))),
    NetBoxFile("ip-addresses.csv", "ipam/ip-addresses",
               ("address", "status", "device", "interface", "description"), required=False),
)  # fmt: skip

BY_NAME: dict[str, NetBoxFile] = {f.name: f for f in FILES}

#: What NetBox's own "Export" of each list is called: ``netbox_<verbose_name_plural>``
#: with ``.csv`` for a table and ``.yaml`` for models that export YAML (device types),
#: as ``netbox/views/generic/bulk_views.py`` names the download.  Matched ignoring case.
EXPORT_FILE_NAMES: dict[str, str] = {
    "custom-fields.csv": "netbox_custom fields.csv",
    "sites.csv": "netbox_sites.csv",
    "locations.csv": "netbox_locations.csv",
    "rack-roles.csv": "netbox_rack roles.csv",
    "manufacturers.csv": "netbox_manufacturers.csv",
    "rack-types.csv": "netbox_rack types.csv",
    "racks.csv": "netbox_racks.csv",
    "device-types.yaml": "netbox_device types.yaml",
    "device-roles.csv": "netbox_device roles.csv",
    "devices.csv": "netbox_devices.csv",
    "interfaces.csv": "netbox_interfaces.csv",
    "cables.csv": "netbox_cables.csv",
    "vlans.csv": "netbox_VLANs.csv",
    "prefixes.csv": "netbox_prefixes.csv",
    "ip-addresses.csv": "netbox_IP addresses.csv",
}

#: Not imported into NetBox (not in the manifest): the catalog figures NetBox has no
#: place for (GPUs, TFLOPS, power budgets, prices, cables and optics), so a design read
#: back from the files computes what it computed before.
SIDECAR = "workbench.yaml"
MANIFEST = "manifest.json"

#: (name, type, object types, label) of every custom field the export uses.
CUSTOM_FIELDS: tuple[tuple[str, str, str, str], ...] = (
    ("wb_id", "text", "dcim.site,dcim.location,dcim.rack,dcim.device,dcim.cable,ipam.prefix",
     "Workbench id"),
    ("wb_power_limit_kw", "text", "dcim.rack", "Power limit (kW)"),
    ("wb_cooling_limit_kw", "text", "dcim.rack", "Cooling limit (kW)"),
    ("wb_max_weight_kg", "text", "dcim.rack", "Weight limit (kg)"),
    ("wb_feed_a_voltage", "text", "dcim.rack", "Feed A voltage (V)"),
    ("wb_feed_a_phases", "integer", "dcim.rack", "Feed A phases"),
    ("wb_feed_a_breaker_a", "text", "dcim.rack", "Feed A breaker (A)"),
    ("wb_feed_b_voltage", "text", "dcim.rack", "Feed B voltage (V)"),
    ("wb_feed_b_phases", "integer", "dcim.rack", "Feed B phases"),
    ("wb_feed_b_breaker_a", "text", "dcim.rack", "Feed B breaker (A)"),
    ("wb_floor_x_mm", "text", "dcim.rack", "Hall plan x (mm)"),
    ("wb_floor_y_mm", "text", "dcim.rack", "Hall plan y (mm)"),
    ("wb_facing", "text", "dcim.rack", "Front faces"),
    ("wb_role", "text", "dcim.device", "Own role"),
    ("wb_face", "text", "dcim.device", "Face (unmounted)"),
    ("wb_software_stack", "text", "dcim.device", "Software baseline"),
    ("wb_network", "text", "dcim.cable", "Network"),
    ("wb_cable_type", "text", "dcim.cable", "Media chosen"),
    ("wb_length_m", "text", "dcim.cable", "Length given (m)"),
    ("wb_speed_gbps", "text", "dcim.cable,ipam.prefix", "Speed (Gb/s)"),
    ("wb_plane", "text", "ipam.prefix", "Plane"),
    ("wb_technology", "text", "ipam.prefix", "Technology"),
    ("wb_mtu", "integer", "ipam.prefix", "MTU"),
    ("wb_subnet", "text", "ipam.prefix", "Subnet set in the design"),
    ("wb_vlan", "integer", "ipam.prefix", "VLAN set in the design"),
)  # fmt: skip

#: Workbench media class → NetBox cable type (``CableTypeChoices``).
CABLE_TYPES: dict[str, str] = {
    "dac": "dac-passive",
    "aoc": "aoc",
    "mmf": "mmf-om4",
    "smf": "smf-os2",
    "utp": "cat6a",
}

#: NetBox's labels of its cable types (``CableTypeChoices``), which its list export
#: writes instead of the values: label, lower-cased → value.
CABLE_TYPE_LABELS: dict[str, str] = {
    **{f"cat{n}": f"cat{n}" for n in ("3", "5", "5e", "6", "6a", "7", "7a", "8")},
    "direct attach copper (active)": "dac-active",
    "direct attach copper (passive)": "dac-passive",
    "multimode fiber": "mmf",
    **{f"multimode fiber (om{n})": f"mmf-om{n}" for n in range(1, 6)},
    "singlemode fiber": "smf",
    "single-mode fiber": "smf",
    **{f"singlemode fiber (os{n})": f"smf-os{n}" for n in (1, 2)},
    **{f"single-mode fiber (os{n})": f"smf-os{n}" for n in (1, 2)},
    "active optical cabling (aoc)": "aoc",
}

#: NetBox cable type → workbench media class, for files NetBox wrote.
MEDIA_OF_CABLE_TYPE: dict[str, str] = {
    **{t: "dac" for t in ("dac-active", "dac-passive")},
    "aoc": "aoc",
    **{t: "mmf" for t in ("mmf", "mmf-om1", "mmf-om2", "mmf-om3", "mmf-om4", "mmf-om5")},
    **{t: "smf" for t in ("smf", "smf-os1", "smf-os2")},
    **{t: "utp" for t in ("cat3", "cat5", "cat5e", "cat6", "cat6a", "cat7", "cat7a", "cat8")},
}

#: Device roles: workbench key → (NetBox name, colour).
DEVICE_ROLE_NAMES: dict[str, tuple[str, str]] = {
    "gpu-server": ("GPU server", "4caf50"),
    "cpu-server": ("CPU server", "8bc34a"),
    "storage": ("Storage", "ff9800"),
    "compute-switch": ("Compute switch", "2196f3"),
    "storage-switch": ("Storage switch", "00bcd4"),
    "management-switch": ("Management switch", "9e9e9e"),
    "pdu": ("PDU", "f44336"),
    "other": ("Other", "607d8b"),
}

#: Header aliases: what NetBox's own CSV export (the object list's "Export ▸ All data"
#: uses each table column's heading) calls a column, lower-cased → the import field.
#: Confirmed against the ``verbose_name`` of the table columns in NetBox 4.7.3's
#: ``dcim/tables`` and ``ipam/tables``.
EXPORT_HEADERS: dict[str, str] = {
    "id": "id",
    "name": "name",
    "slug": "slug",
    "status": "status",
    "site": "site",
    "location": "location",
    "rack": "rack",
    "role": "role",
    "manufacturer": "manufacturer",
    "model": "model",
    "type": "type",
    "device type": "device_type",
    "rack type": "rack_type",
    "position": "position",
    "position (u)": "position",
    "face": "face",
    "rack face": "face",
    "serial number": "serial",
    "serial": "serial",
    "asset tag": "asset_tag",
    "comments": "comments",
    "description": "description",
    "height (u)": "u_height",
    "height": "u_height",
    "u height": "u_height",
    "width": "width",
    "max weight": "max_weight",
    "maximum weight": "max_weight",
    "weight unit": "weight_unit",
    "color": "color",
    "label": "label",
    "length": "length",
    "length unit": "length_unit",
    "side a": "side_a_device",
    "device a": "side_a_device",
    "termination a": "side_a_name",
    "site a": "side_a_site",
    "side b": "side_b_device",
    "device b": "side_b_device",
    "termination b": "side_b_name",
    "site b": "side_b_site",
    "vid": "vid",
    "prefix": "prefix",
    "vlan": "vlan",
    "ip address": "address",
    "address": "address",
    "device": "device",
    "interface": "interface",
    "assigned": "interface",
}  # fmt: skip

#: Headings that mean different fields in different lists: the device list's "Type"
#: column is the device type, the cable list's the cable type.
FILE_HEADERS: dict[str, dict[str, str]] = {
    "devices.csv": {"type": "device_type"},
    "racks.csv": {"type": "rack_type"},
}

#: Length units as NetBox's choices and its list's "Length" column spell them.
LENGTH_UNITS: dict[str, str] = {
    "m": "m", "meter": "m", "meters": "m", "metre": "m", "metres": "m",
    "cm": "cm", "centimeters": "cm", "centimetres": "cm",
    "km": "km", "kilometers": "km", "kilometres": "km",
    "ft": "ft", "feet": "ft", "foot": "ft",
    "in": "in", "inches": "in", "inch": "in",
    "mi": "mi", "miles": "mi", "mile": "mi",
}  # fmt: skip
