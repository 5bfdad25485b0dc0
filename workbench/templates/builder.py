"""Build a realistic design of any size from a :class:`TemplateSpec`.

The sizes follow the rules of the domain brief rather than fixed counts, so
``--gpus 16384`` and ``--gpus 100000`` stay inside the same budgets as the sample:

* GPU servers per rack: as many as fit both the rack's U (less the top units for the
  in-band and out-of-band access switches and a bottom unit for cabling) and
  ``rack_fill`` of its cooling limit.
* Every plane is cabled by the fabric generator (:mod:`workbench.planning.fabric.generator`):
  compute rail-optimized for 8-GPU servers (scalable units of ``su_nodes``), leaf-spine
  otherwise, non-blocking; when the spec's compute switch cannot build that at the
  requested size, ``large_compute_switch`` does, and the design's properties say why.
  Storage: two ports of every GPU node, head node and appliance on a non-blocking
  leaf-spine.  Management and out-of-band: one access switch per rack over a pair (or
  more) of spines.  The switches go into network racks, rows of them added as needed.
* Storage: the hot tier is two pools (brief §4: dataset and checkpoint paths on
  separate pools).  The dataset pool reads at least ``read_gbs_per_node`` per GPU node
  and never less than the rules' hot-tier floor (50 GB/s above 40 GPUs); the checkpoint
  pool writes a checkpoint of the largest job the template offers within 5 % of an
  hour (:func:`workbench.calc.storage.checkpoint_bytes`).  A warm object tier of at
  least two nodes.
* Workload: the largest training job the workload rules accept on the design
  (:mod:`workbench.templates.workload_choice`), reading from the dataset pool and
  checkpointing to the checkpoint pool every 60 minutes.
* Head nodes (scheduler, login, monitoring) in a services rack.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator

from workbench.calc.presets import get_preset
from workbench.calc.storage import MAX_CHECKPOINT_OVERHEAD, checkpoint_bytes
from workbench.calc.summary import LoadCache, rack_load
from workbench.catalog import Catalog, CatalogItem, load_catalog, snapshot_for
from workbench.catalog.item import power_figure_w
from workbench.model import (
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
from workbench.model.ports import candidate_ports
from workbench.model.rack_fields import built_cooling, built_limit_kw
from workbench.planning.fabric.cluster import ClusterFabrics, cable_cluster
from workbench.planning.fabric.placement import NETWORK_RACKS_PROPERTY
from workbench.planning.fabric.sizing import FabricError, Radix, size_leaf_spine
from workbench.progress import Progress, parts_told, within
from workbench.rules.budgets import feed_limit_kw
from workbench.rules.storage import hot_tier_required_gbs
from workbench.templates.specs import SAMPLE_TEMPLATE, TEMPLATES, TemplateSpec

HEAD_NODES = 3
HEAD_NODE = "generic-cpu-storage-server"
HOT_NODE = "generic-allflash-pfs-node"
WARM_NODE = "generic-object-storage-node"
MAX_GPUS = 1_000_000
#: The largest job :mod:`~workbench.templates.workload_choice` offers: the checkpoint
#: pool is sized for its saves, so whichever job is chosen checkpoints in time.
CHECKPOINT_SIZING_MODEL = "llama3-70b"
#: Minutes between checkpoint saves the template's job is planned with.
CHECKPOINT_INTERVAL_MIN = 60.0
#: Storage ports per host on the storage plane: 2 × 200G = 50 GB/s per node, the read
#: bandwidth of one all-flash node.
STORAGE_PORTS_PER_HOST = 2
#: Access switches mounted at the top of every compute rack: in-band and out-of-band.
ACCESS_SWITCHES_PER_RACK = 2


class TemplateError(ValueError):
    """A template request that cannot be built (unknown name, absurd size)."""


def sample_design(catalog: Catalog | None = None) -> Design:
    """The bundled sample: the default template at its default size."""
    return build_template(SAMPLE_TEMPLATE, catalog=catalog)


def build_template(
    name: str,
    gpus: int | None = None,
    catalog: Catalog | None = None,
    progress: Progress | None = None,
) -> Design:
    """A design from template ``name``, scaled to ``gpus`` GPUs (rounded up to whole
    nodes); ``progress(fraction, part)`` is told before each part of the build (at
    1,000,000 GPUs it takes ~12 s, most of it cabling the fabrics)."""
    spec = TEMPLATES.get(name)
    if spec is None:
        raise TemplateError(f"unknown template {name!r}; known: {', '.join(TEMPLATES)}")
    return build_spec(spec, gpus, catalog, progress)


#: The parts of a build and where each starts, as a share of the whole (measured on
#: ``workbench new --gpus 1000000``).
_PARTS = {
    "racks and devices": 0.0,
    "the training job": 0.09,
    "the fabrics": 0.15,  # 10.8 s of 14.5
    "power feeds": 0.89,
    "the hall plan": 0.9,
}


def build_spec(
    spec: TemplateSpec,
    gpus: int | None = None,
    catalog: Catalog | None = None,
    progress: Progress | None = None,
) -> Design:
    """A design from ``spec`` (a template or a scenario's variant of one) of ``gpus``
    GPUs; ``progress`` as :func:`build_template` tells it."""
    if gpus is None:
        gpus = spec.default_gpus
    if not 1 <= gpus <= MAX_GPUS:
        raise TemplateError(f"--gpus must be between 1 and {MAX_GPUS:,}, got {gpus:,}")
    catalog = catalog if catalog is not None else load_catalog(include_user=False, strict=True)
    return _Builder(spec, catalog).build(gpus, progress)


def build_nodes(
    server: str,
    nodes: int,
    catalog: Catalog | None = None,
    *,
    compute_switch: str | None = None,
    speed_gbps: float | None = None,
) -> Design:
    """A scratch design for sizing a fabric: ``nodes`` servers of ``server`` in racks on
    a hall plan, one empty network rack, the four networks, no links yet.

    The racks are those of the template built around ``server`` (the sample's when
    none is), so the hall looks like a template's; ``workbench fabric`` uses it.
    """
    catalog = catalog if catalog is not None else load_catalog(include_user=False, strict=True)
    spec = next((t for t in TEMPLATES.values() if t.server == server), TEMPLATES[SAMPLE_TEMPLATE])
    item = catalog[server]
    ports = candidate_ports(item, "compute", as_host=True)
    speed = speed_gbps or (ports[0].kind.speed_gbps if ports else spec.compute_speed_gbps)
    technology = spec.compute_technology
    if compute_switch:
        # The compute network speaks the switch's protocol: InfiniBand, else RoCE.
        data = candidate_ports(catalog[compute_switch], None, as_host=False)
        infiniband = bool(data) and data[0].kind.family == "infiniband"
        technology = "infiniband" if infiniband else "roce"
    spec = dataclasses.replace(
        spec,
        server=server,
        compute_switch=compute_switch or spec.compute_switch,
        compute_speed_gbps=float(speed),
        compute_technology=technology,
    )
    builder = _Builder(spec, catalog)
    return builder.build_racks(nodes)


#: Breaker ratings a feed is sized from (IEC preferred values, A), smallest first.
FEED_BREAKERS_A: tuple[float, ...] = (16, 20, 25, 32, 40, 50, 63, 80, 100, 125, 160, 200, 250)
#: The circuit a template rack's feeds use: 415 V three-phase (Europe and Asia).
FEED_VOLTAGE, FEED_PHASES = 415.0, 3


def size_feeds(design: Design) -> None:
    """Give every rack A and B feeds of the smallest breaker whose continuous rating
    (the rules' :func:`~workbench.rules.budgets.feed_limit_kw`) carries the whole rack
    alone, so a failover of either feed passes RACK-FEED."""
    cache = LoadCache()
    # Each breaker's feed and its limit, made once rather than per rack (35,000 racks
    # at 1,000,000 GPUs); a rack's fields take the feed's figures, not the object.
    feeds = [Feed(FEED_VOLTAGE, FEED_PHASES, a) for a in FEED_BREAKERS_A]
    limits = [(feed_limit_kw(feed) or 0, feed) for feed in feeds]
    for rack in design.iter_racks():
        kw = rack_load(design, rack, cache).kw_max
        chosen = next((feed for limit, feed in limits if limit >= kw), feeds[-1])
        for side in ("a", "b"):
            rack.set_feed(side, chosen)


def row_name(index: int) -> str:
    """Spreadsheet-style row letters: 0 → A, 25 → Z, 26 → AA."""
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(ord("A") + rem) + letters
    return letters


def _kw(item: CatalogItem) -> float:
    """The kW a device of ``item`` adds when racks are packed: its maximum draw, else its
    typical draw.  An item of unknown power adds no figure (there is none to add), so
    racks of it are packed by U alone; the rack's load counts it as unknown and
    RACK-POWER-UNKNOWN flags the rack, instead of 0 kW passing for a known figure."""
    watts = power_figure_w(item)
    return watts / 1000.0 if watts is not None else 0.0


def fabric_switches(endpoints: int, radix: int) -> tuple[int, int, int]:
    """(leaves, spines, cores) of a non-blocking leaf-spine fabric of ``radix``-port
    switches for ``endpoints`` host ports (the generator's sizing,
    :func:`~workbench.planning.fabric.sizing.size_leaf_spine`)."""
    if endpoints <= 0:
        return 0, 0, 0
    shape = size_leaf_spine(endpoints, Radix(radix, 1.0), radix)
    return shape.leaves, shape.spines, shape.cores


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
        rack = Rack(
            id=f"r{self._rack_seq:05d}",
            name=name,
            rack_type=slug,
            cooling=built_cooling(item),
            power_limit_kw=built_limit_kw(item),
        )
        pdu = self.spec.pdu
        rack.devices.append(self.device(pdu, f"pdu-{name.lower()}-a", None, "rear"))
        rack.devices.append(self.device(pdu, f"pdu-{name.lower()}-b", None, "rear"))
        return rack

    # -- the design ------------------------------------------------------------------
    def build(self, gpus: int, progress: Progress | None = None) -> Design:
        tell = parts_told(progress, _PARTS)
        per_node = max(self.catalog[self.spec.server].gpu_count, 1)
        tell("racks and devices")
        design = self.build_racks(math.ceil(gpus / per_node), storage=True)
        design.properties["requested_gpus"] = str(gpus)
        # The job first: the workload rules read the devices and the storage tiers, not
        # the links, and choosing re-indexes the design once per candidate.  Imported
        # here: choosing registers every rule (~25 ms), which build_nodes (the scratch
        # design of ``workbench fabric``) never asks.
        from workbench.templates.workload_choice import choose_workload

        tell("the training job")
        workload = choose_workload(design, self.catalog[self.spec.server].gpu_count)
        workload.dataset_tier, workload.checkpoint_tier = "tier-hot-data", "tier-hot-ckpt"
        workload.checkpoint_interval_min = CHECKPOINT_INTERVAL_MIN
        design.workloads = [workload]
        design.reindex()
        tell("the fabrics")
        self._fabrics(design, progress)
        tell("power feeds")
        size_feeds(design)
        tell("the hall plan")
        lay_out_floor(design)  # every rack on the hall plan, rows in hot/cold-aisle pairs
        return design

    def build_racks(self, nodes: int, storage: bool = False) -> Design:
        """The racks and networks of a design of ``nodes`` servers, no links: compute
        rows, with ``storage`` the storage and services racks, and last one empty
        network rack, listed in the design's ``network_racks`` property (the generator
        fills it and adds racks like it after it)."""
        spec = self.spec
        server = self.item(spec.server)
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
        groups = [list(self._compute_racks(server, nodes, stack.id))]
        tiers: list[StorageTier] = []
        network = self.rack(spec.network_rack, "n01")
        if storage:
            racks, tiers = self._storage(total_gpus, nodes)
            groups.append([*racks, *self._services_racks(), network])
        else:
            groups.append([network])
        rows: list[Row] = []
        per_row = spec.racks_per_row
        for racks in groups:
            for start in range(0, len(racks), per_row):
                rows.append(
                    Row(id=f"row{len(rows) + 1:03d}", name="", racks=racks[start : start + per_row])
                )
        for index, row in enumerate(rows):
            row.name = f"Row {row_name(index)}"
            for number, rack in enumerate(row.racks, start=1):
                self._rename_rack(rack, f"{row_name(index)}{number:02d}")
        design = Design(
            name=f"{spec.title} — {total_gpus:,} GPUs",
            sites=[Site(id="site1", name="Hall 1", rows=rows)],
            networks=self._networks(),
            storage_tiers=tiers,
            software_stacks=[stack],
            properties={
                "template": spec.name,
                "requested_gpus": str(total_gpus),
                # The generator fills this rack first and adds racks like it after it.
                NETWORK_RACKS_PROPERTY: network.id,
            },
        )
        design.device_types = snapshot_for(self.catalog, sorted(self.used))
        design.reindex()
        if not storage:
            lay_out_floor(design)
        return design

    @staticmethod
    def _rename_rack(rack: Rack, name: str) -> None:
        """Give a rack its row-based name, and its PDUs with it."""
        old, new = f"-{rack.name.lower()}", f"-{name.lower()}"
        rack.name = name
        for device in rack.devices:
            if device.name.startswith("pdu-") and old in device.name:
                device.name = device.name.replace(old, new)

    def _compute_racks(self, server: CatalogItem, nodes: int, stack_id: str) -> Iterator[Rack]:
        spec = self.spec
        rack_item = self.item(spec.compute_rack)
        access = self.item(spec.management_switch)
        rack_u = int(rack_item.u_height)
        limit = built_limit_kw(rack_item)
        server_u = max(int(math.ceil(server.u_height)), 1)
        top = ACCESS_SWITCHES_PER_RACK * int(math.ceil(access.u_height))
        by_u = (rack_u - 1 - top) // server_u
        budget = limit * spec.rack_fill - ACCESS_SWITCHES_PER_RACK * _kw(access)
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
            yield rack

    def _pack(self, rack_slug: str, prefix: str, devices: list[Device]) -> list[Rack]:
        """Place devices bottom-up into as many racks as U and the power budget need,
        keeping the top units for the rack's two access switches."""
        rack_item = self.item(rack_slug)
        access = self.item(self.spec.management_switch)
        top = ACCESS_SWITCHES_PER_RACK * int(math.ceil(access.u_height))
        rack_u = int(rack_item.u_height) - top
        budget = built_limit_kw(rack_item) * self.spec.rack_fill
        budget -= ACCESS_SWITCHES_PER_RACK * _kw(access)
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

    def _storage(self, gpus: int, nodes: int) -> tuple[list[Rack], list[StorageTier]]:
        """The dataset and checkpoint pools of the hot tier and the warm tier (see the
        module docstring), with their racks."""
        hot = self.item(HOT_NODE)
        read = float(hot.props.get("read_gbs", 0) or 0)
        write = float(hot.props.get("write_gbs", 0) or 0)
        need = max(nodes * self.spec.read_gbs_per_node, hot_tier_required_gbs(gpus))
        data_nodes = max(2, math.ceil(need / read)) if read > 0 else 2
        save_s = MAX_CHECKPOINT_OVERHEAD * CHECKPOINT_INTERVAL_MIN * 60.0
        write_need = checkpoint_bytes(get_preset(CHECKPOINT_SIZING_MODEL).params) / 1e9 / save_s
        ckpt_nodes = max(2, math.ceil(write_need / write)) if write > 0 else 2
        warm_nodes = max(2, math.ceil(nodes / 64))
        data = [self.device(HOT_NODE, f"pfs-data-{i:03d}", None) for i in range(1, data_nodes + 1)]
        ckpt = [self.device(HOT_NODE, f"pfs-ckpt-{i:03d}", None) for i in range(1, ckpt_nodes + 1)]
        warm = [self.device(WARM_NODE, f"obj-{i:03d}", None) for i in range(1, warm_nodes + 1)]
        racks = self._pack(self.spec.storage_rack, "s", data + ckpt + warm)
        tiers = [
            StorageTier("tier-hot-data", "Hot: datasets", "hot", "Lustre", [d.id for d in data]),
            StorageTier("tier-hot-ckpt", "Hot: checkpoints", "hot", "Lustre", [d.id for d in ckpt]),
            StorageTier("tier-warm", "Warm: object storage", "warm", "S3", [d.id for d in warm]),
        ]
        return racks, tiers

    def _services_racks(self) -> list[Rack]:
        """The head nodes (scheduler, login, monitoring)."""
        devices = [self.device(HEAD_NODE, f"head-{i:02d}", None) for i in range(1, HEAD_NODES + 1)]
        return self._pack(self.spec.storage_rack, "m", devices)

    # -- the fabrics -----------------------------------------------------------------
    def _fabrics(self, design: Design, progress: Progress | None = None) -> None:
        """Cable every plane with the generator (see the module docstring); ``progress``
        is told each plane's start within the build's span for the fabrics."""
        spec = self.spec
        told = within(progress, _PARTS["the fabrics"], _PARTS["power feeds"])
        fabrics = ClusterFabrics(
            compute_switch=spec.compute_switch,
            storage_switch=spec.storage_switch,
            access_switch=spec.management_switch,
            access_spine_switch=spec.management_spine_switch,
            storage_spine_switch=spec.storage_spine_switch,
            large_compute_switch=spec.large_compute_switch,
            rails=self.catalog[spec.server].gpu_count >= 8
            if spec.rail_optimized is None
            else spec.rail_optimized,
            su_nodes=spec.su_nodes,
            storage_ports=STORAGE_PORTS_PER_HOST,
        )
        try:
            design.properties.update(cable_cluster(design, self.catalog, fabrics, told))
        except FabricError as exc:
            raise TemplateError(str(exc)) from None

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
