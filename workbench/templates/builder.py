"""Build a realistic design of any size from a :class:`TemplateSpec`.

The sizes follow the rules of the domain brief rather than fixed counts, so
``--gpus 16384`` and ``--gpus 100000`` stay inside the same budgets as the sample:

* GPU servers per rack: as many as fit both the rack's U (less a top unit for the
  management switch and a bottom unit for cabling) and ``rack_fill`` of its cooling limit.
* Compute fabric: one port per GPU (rail-optimised NICs), leaves with half their ports
  down and half up (non-blocking), two tiers while ``k²/2`` hosts fit, else three (§3).
  This is a sizing for the bill of switches; the fabric generator (roadmap) draws links.
* Storage: the hot tier reads at least ``read_gbs_per_node`` per GPU node and never less
  than the rules' hot-tier floor (50 GB/s above 40 GPUs, §4); a warm object tier of at
  least two nodes.
* Workload: the largest training job the workload rules accept on the design
  (:mod:`workbench.templates.workload_choice`).
* Management: one in-band switch per compute rack, aggregated in a services rack that
  also holds the head nodes (scheduler, login, monitoring).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from workbench.calc.summary import LoadCache, rack_load
from workbench.catalog import Catalog, CatalogItem, load_catalog, snapshot_for
from workbench.model import (
    COOLING_LIMITS_KW,
    Design,
    Device,
    Feed,
    Network,
    Rack,
    Row,
    Site,
    SoftwareStack,
    StorageTier,
)
from workbench.model.floor import lay_out as lay_out_floor
from workbench.rules.budgets import feed_limit_kw
from workbench.rules.storage import hot_tier_required_gbs
from workbench.templates.specs import SAMPLE_TEMPLATE, TEMPLATES, TemplateSpec
from workbench.templates.workload_choice import choose_workload

HEAD_NODES = 3
HEAD_NODE = "generic-cpu-storage-server"
HOT_NODE = "generic-allflash-pfs-node"
WARM_NODE = "generic-object-storage-node"
MAX_GPUS = 1_000_000


class TemplateError(ValueError):
    """A template request that cannot be built (unknown name, absurd size)."""


def sample_design(catalog: Catalog | None = None) -> Design:
    """The bundled sample: the default template at its default size."""
    return build_template(SAMPLE_TEMPLATE, catalog=catalog)


def build_template(name: str, gpus: int | None = None, catalog: Catalog | None = None) -> Design:
    """A design from template ``name``, scaled to ``gpus`` GPUs (rounded up to whole nodes)."""
    spec = TEMPLATES.get(name)
    if spec is None:
        raise TemplateError(f"unknown template {name!r}; known: {', '.join(TEMPLATES)}")
    if gpus is None:
        gpus = spec.default_gpus
    if not 1 <= gpus <= MAX_GPUS:
        raise TemplateError(f"--gpus must be between 1 and {MAX_GPUS:,}, got {gpus:,}")
    catalog = catalog if catalog is not None else load_catalog(include_user=False, strict=True)
    return _Builder(spec, catalog).build(gpus)


#: Breaker ratings a feed is sized from (IEC preferred values, A), smallest first.
FEED_BREAKERS_A: tuple[float, ...] = (16, 20, 25, 32, 40, 50, 63, 80, 100, 125, 160, 200, 250)
#: The circuit a template rack's feeds use: 415 V three-phase (Europe and Asia).
FEED_VOLTAGE, FEED_PHASES = 415.0, 3


def size_feeds(design: Design) -> None:
    """Give every rack A and B feeds of the smallest breaker whose continuous rating
    (the rules' :func:`~workbench.rules.budgets.feed_limit_kw`) carries the whole rack
    alone, so a failover of either feed passes RACK-FEED."""
    cache = LoadCache()
    for rack in design.iter_racks():
        kw = rack_load(design, rack, cache).kw_max
        amps = next(
            (
                a
                for a in FEED_BREAKERS_A
                if (feed_limit_kw(Feed(FEED_VOLTAGE, FEED_PHASES, a)) or 0) >= kw
            ),
            FEED_BREAKERS_A[-1],
        )
        for side in ("a", "b"):
            rack.set_feed(side, Feed(FEED_VOLTAGE, FEED_PHASES, amps))


def row_name(index: int) -> str:
    """Spreadsheet-style row letters: 0 → A, 25 → Z, 26 → AA."""
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(ord("A") + rem) + letters
    return letters


def _kw(item: CatalogItem) -> float:
    return (item.max_power_w or 0.0) / 1000.0


def _data_ports(item: CatalogItem, default: int = 64) -> int:
    ports = sum(1 for i in item.interfaces if not i.mgmt_only)
    return ports or default


def fabric_switches(endpoints: int, radix: int) -> tuple[int, int, int]:
    """(leaves, spines, cores) for a non-blocking fat tree serving ``endpoints`` ports."""
    if endpoints <= 0:
        return 0, 0, 0
    half = radix // 2
    leaves = math.ceil(endpoints / half)
    if endpoints <= radix * radix // 2:
        return leaves, math.ceil(leaves * half / radix), 0
    spines = leaves
    return leaves, spines, math.ceil(spines * half / radix)


class _Builder:
    """Holds the counters while one design is assembled."""

    def __init__(self, spec: TemplateSpec, catalog: Catalog):
        self.spec, self.catalog = spec, catalog
        self._device_seq = 0
        self._rack_seq = 0
        self.used: set[str] = set()

    def item(self, slug: str) -> CatalogItem:
        self.used.add(slug)
        return self.catalog[slug]

    # -- ids and devices -------------------------------------------------------------
    def device(
        self,
        slug: str,
        name: str,
        position: int | None,
        face: str = "front",
        stack: str | None = None,
    ) -> Device:
        self.item(slug)
        self._device_seq += 1
        return Device(
            id=f"d{self._device_seq:06d}",
            name=name,
            device_type=slug,
            position=position,
            face=face,
            software_stack=stack,
        )

    def rack(self, slug: str, name: str) -> Rack:
        item = self.item(slug)
        self._rack_seq += 1
        cooling = str(item.props.get("cooling", "air"))
        limit = float(item.props.get("cooling_limit_kw", COOLING_LIMITS_KW.get(cooling, 12.0)))
        rack = Rack(
            id=f"r{self._rack_seq:05d}",
            name=name,
            rack_type=slug,
            cooling=cooling,
            power_limit_kw=limit,
        )
        pdu = self.spec.pdu
        rack.devices.append(self.device(pdu, f"pdu-{name.lower()}-a", None, "rear"))
        rack.devices.append(self.device(pdu, f"pdu-{name.lower()}-b", None, "rear"))
        return rack

    # -- the design ------------------------------------------------------------------
    def build(self, gpus: int) -> Design:
        spec = self.spec
        server = self.item(spec.server)
        per_node = max(server.gpu_count, 1)
        nodes = math.ceil(gpus / per_node)
        total_gpus = nodes * server.gpu_count
        stack = SoftwareStack(
            id="stack-1",
            name="baseline-2026Q4",
            components={
                "driver": "550.127.08",
                "cuda": "12.4",
                "nccl": "2.21.5",
                "kernel": "5.15.0-126-generic",
                "os": "Ubuntu 22.04.5 LTS",
                "container_toolkit": "1.17.3",
                "framework": "PyTorch 2.5.1",
            },
        )

        compute = list(self._compute_racks(server, nodes, stack.id))
        infra = (
            self._network_racks(nodes)
            + self._storage_racks(total_gpus, nodes)
            + self._services_racks(len(compute))
        )

        rows: list[Row] = []
        per_row = spec.racks_per_row
        for start in range(0, len(compute), per_row):
            rows.append(
                Row(id=f"row{len(rows) + 1:03d}", name="", racks=compute[start : start + per_row])
            )
        for start in range(0, len(infra), per_row):
            rows.append(
                Row(id=f"row{len(rows) + 1:03d}", name="", racks=infra[start : start + per_row])
            )
        for index, row in enumerate(rows):
            row.name = f"Row {row_name(index)}"
            for number, rack in enumerate(row.racks, start=1):
                self._rename_rack(rack, f"{row_name(index)}{number:02d}")

        design = Design(
            name=f"{spec.title} — {total_gpus:,} GPUs",
            sites=[Site(id="site1", name="Hall 1", rows=rows)],
            networks=self._networks(),
            storage_tiers=self._tiers(rows),
            software_stacks=[stack],
            properties={"template": spec.name, "requested_gpus": str(gpus)},
        )
        design.device_types = snapshot_for(self.catalog, sorted(self.used))
        size_feeds(design)
        design.workloads = [choose_workload(design, server.gpu_count)]
        design.reindex()
        lay_out_floor(design)  # every rack on the hall plan, rows in hot/cold-aisle pairs
        return design

    @staticmethod
    def _rename_rack(rack: Rack, name: str) -> None:
        """Give a rack its row-based name, and its PDUs and in-rack switch with it."""
        old, new = f"-{rack.name.lower()}", f"-{name.lower()}"
        rack.name = name
        for device in rack.devices:
            if device.name.startswith(("pdu-", "mgmt-")) and old in device.name:
                device.name = device.name.replace(old, new)

    def _compute_racks(self, server: CatalogItem, nodes: int, stack_id: str) -> Iterator[Rack]:
        spec = self.spec
        rack_item = self.item(spec.compute_rack)
        mgmt = self.item(spec.management_switch)
        rack_u = int(rack_item.u_height)
        limit = float(rack_item.props.get("cooling_limit_kw", 12.0))
        server_u = max(int(math.ceil(server.u_height)), 1)
        by_u = (rack_u - 1 - int(math.ceil(mgmt.u_height))) // server_u
        budget = limit * spec.rack_fill - _kw(mgmt)
        by_kw = int(budget // _kw(server)) if _kw(server) > 0 else by_u
        per_rack = max(1, min(by_u, by_kw))
        made = 0
        rack_no = 0
        while made < nodes:
            rack_no += 1
            rack = self.rack(spec.compute_rack, f"c{rack_no:05d}")
            for slot in range(min(per_rack, nodes - made)):
                made += 1
                rack.devices.append(
                    self.device(spec.server, f"gpu{made:05d}", 2 + slot * server_u, stack=stack_id)
                )
            rack.devices.append(
                self.device(
                    spec.management_switch,
                    f"mgmt-c{rack_no:05d}",
                    rack_u - int(math.ceil(mgmt.u_height)) + 1,
                )
            )
            yield rack

    def _pack(self, rack_slug: str, prefix: str, devices: list[Device]) -> list[Rack]:
        """Place devices bottom-up into as many racks as U and the power budget need."""
        rack_item = self.item(rack_slug)
        rack_u = int(rack_item.u_height)
        budget = float(rack_item.props.get("cooling_limit_kw", 12.0)) * self.spec.rack_fill
        racks: list[Rack] = []
        rack: Rack | None = None
        next_u, kw = 2, 0.0
        for device in devices:
            item = self.catalog[device.device_type]
            height = max(int(math.ceil(item.u_height)), 1)
            if rack is None or next_u + height - 1 > rack_u or kw + _kw(item) > budget:
                rack = self.rack(rack_slug, f"{prefix}{len(racks) + 1:02d}")
                racks.append(rack)
                next_u, kw = 2, 0.0
            device.position = next_u
            next_u += height
            kw += _kw(item)
            rack.devices.append(device)
        return racks

    def _switches(self, slug: str, name: str, count: int, role: str = "") -> list[Device]:
        devices = [self.device(slug, f"{name}-{i:03d}", None) for i in range(1, count + 1)]
        for device in devices:
            device.role = role
        return devices

    def _network_racks(self, nodes: int) -> list[Rack]:
        """Compute and storage fabric switches, sized as non-blocking fat trees.

        8-GPU servers bring one compute port per GPU; smaller servers two.  Storage gets
        two ports per node plus room for the storage servers themselves.
        """
        spec = self.spec
        compute = self.item(spec.compute_switch)
        storage = self.item(spec.storage_switch)
        ports_per_node = 8 if self.catalog[spec.server].gpu_count >= 8 else 2
        tiers = fabric_switches(nodes * ports_per_node, _data_ports(compute))
        s_leaves, s_spines, _ = fabric_switches(nodes * 2 + 16, _data_ports(storage))
        prefix = "ib-" if spec.compute_technology == "infiniband" else "eth-"
        devices: list[Device] = []
        for role, count in zip(("leaf", "spine", "core"), tiers, strict=True):
            devices += self._switches(spec.compute_switch, prefix + role, count)
        # The storage fabric may use a compute-class model (SN5600): say what it does.
        devices += self._switches(spec.storage_switch, "stor-leaf", s_leaves, "storage-switch")
        devices += self._switches(spec.storage_switch, "stor-spine", s_spines, "storage-switch")
        return self._pack(spec.network_rack, "n", devices)

    def _storage_racks(self, gpus: int, nodes: int) -> list[Rack]:
        hot = self.item(HOT_NODE)
        need = max(nodes * self.spec.read_gbs_per_node, hot_tier_required_gbs(gpus))
        read = float(hot.props.get("read_gbs", 0) or 0)
        hot_nodes = max(2, math.ceil(need / read)) if read > 0 else 2
        warm_nodes = max(2, math.ceil(nodes / 64))
        devices = [self.device(HOT_NODE, f"pfs-{i:03d}", None) for i in range(1, hot_nodes + 1)] + [
            self.device(WARM_NODE, f"obj-{i:03d}", None) for i in range(1, warm_nodes + 1)
        ]
        return self._pack(self.spec.storage_rack, "s", devices)

    def _services_racks(self, compute_racks: int) -> list[Rack]:
        """Head nodes and the management aggregation: a redundant pair per 40 racks."""
        spec = self.spec
        aggregation = max(2, math.ceil(compute_racks / 40) * 2)
        devices = [
            self.device(HEAD_NODE, f"head-{i:02d}", None) for i in range(1, HEAD_NODES + 1)
        ] + [
            self.device(spec.management_switch, f"mgmt-agg-{i:03d}", None)
            for i in range(1, aggregation + 1)
        ]
        return self._pack(spec.storage_rack, "m", devices)

    def _networks(self) -> list[Network]:
        spec = self.spec
        ib = spec.compute_technology == "infiniband"
        return [
            Network(
                id="net-compute",
                name="Compute fabric",
                plane="compute",
                technology=spec.compute_technology,
                speed_gbps=spec.compute_speed_gbps,
                mtu=4096 if ib else 9000,
            ),
            Network(
                id="net-storage",
                name="Storage",
                plane="storage",
                technology="ethernet",
                speed_gbps=200.0,
                mtu=9000,
            ),
            Network(
                id="net-mgmt",
                name="In-band management",
                plane="management",
                technology="ethernet",
                speed_gbps=10.0,
                mtu=1500,
                vlan=10,
            ),
            Network(
                id="net-oob",
                name="Out-of-band (BMC)",
                plane="oob",
                technology="ethernet",
                speed_gbps=1.0,
                mtu=1500,
                vlan=20,
            ),
        ]

    @staticmethod
    def _tiers(rows: list[Row]) -> list[StorageTier]:
        hot, warm = [], []
        for row in rows:
            for rack in row.racks:
                for device in rack.devices:
                    if device.device_type == HOT_NODE:
                        hot.append(device.id)
                    elif device.device_type == WARM_NODE:
                        warm.append(device.id)
        return [
            StorageTier(
                id="tier-hot",
                name="Hot: parallel file system",
                tier="hot",
                filesystem="Lustre",
                device_ids=hot,
            ),
            StorageTier(
                id="tier-warm",
                name="Warm: object storage",
                tier="warm",
                filesystem="S3",
                device_ids=warm,
            ),
        ]
