"""The design as plain dataclasses: Design → sites → rows → racks → devices.

Everything a user edits lives here and nowhere else; views mirror it and the project file
stores it.  The classes hold no Qt and no I/O.  Mutations that the window performs go
through :mod:`workbench.model.edit` (fields) and :mod:`workbench.model.ops` (adding,
removing and moving objects), so that the id index (:attr:`Design.index`) stays correct
and every change can be undone by applying its exact inverse.

Ports are not stored per device: a device's ports are the interfaces of its catalog
item (thousands of identical servers would otherwise repeat the same rows).  Links name
a device id and an interface name on each end.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.catalog.item import CatalogItem
from workbench.catalog.vocabulary import (  # noqa: F401 - the model's vocabulary, re-exported
    COOLING_TYPES,
    DEVICE_ROLES,
    FACES,
)
from workbench.model.index import DesignIndex
from workbench.model.parts import (  # noqa: F401 - the parts, re-exported for their many users
    COOLING_LIMITS_KW,
    DEFAULT_FEED,
    FACINGS,
    FEED_FIELDS,
    PLANES,
    Device,
    Feed,
    Link,
    Network,
    Rack,
    Row,
    Site,
    SoftwareStack,
    StorageTier,
    Team,
    Waiver,
    Workload,
)
from workbench.model.records import AcceptanceResult, CapturedLink
from workbench.model.versions import VersionMatrix


@dataclass
class Design:
    """A whole cluster design.

    ``device_types`` is the snapshot of every catalog item the design uses (server, its
    GPU, racks, switches ...), keyed by slug: calculators read figures from it, so a
    design's numbers never depend on the catalog installed on the laptop.
    """

    name: str = "Untitled design"
    sites: list[Site] = field(default_factory=list)
    device_types: dict[str, CatalogItem] = field(default_factory=dict)
    networks: list[Network] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    storage_tiers: list[StorageTier] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    software_stacks: list[SoftwareStack] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    waivers: list[Waiver] = field(default_factory=list)
    #: The teams sharing the cluster (the handoffs' QOS and quotas).
    teams: list[Team] = field(default_factory=list)
    #: Baselines, their assignment to nodes and what the nodes reported (version matrix).
    versions: VersionMatrix = field(default_factory=VersionMatrix)
    #: Acceptance results the nodes' health checks reported (append-only, per import).
    acceptance: list[AcceptanceResult] = field(default_factory=list)
    #: What the installed cluster reported (as-built captures, the latest import).
    captures: list[CapturedLink] = field(default_factory=list)
    #: Built on first use and kept correct by :mod:`workbench.model.ops`.
    _index: DesignIndex | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def index(self) -> DesignIndex:
        """Every object by id (see :mod:`workbench.model.index`)."""
        if self._index is None:
            self._index = self.new_index()
        return self._index

    def reindex(self, index: DesignIndex | None = None) -> None:
        """Forget the index, for code that rebuilt the lists by hand (readers, builders);
        or take ``index``, built of the lists as they are now (by :meth:`new_index`)."""
        self._index = index

    def new_index(self) -> DesignIndex:
        """A new index of the lists as they are, not yet the design's (see
        :meth:`reindex`): built aside, on a thread, while the old one still serves."""
        return DesignIndex(self)

    # -- traversal ---------------------------------------------------------------
    def iter_racks(self):
        """Every rack in site/row order."""
        for site in self.sites:
            for row in site.rows:
                yield from row.racks

    def iter_devices(self):
        """Every (rack, device) pair in site/row/rack order."""
        for rack in self.iter_racks():
            for device in rack.devices:
                yield rack, device

    def item(self, slug: str) -> CatalogItem:
        """The snapshot catalog item for ``slug``; KeyError names the slug."""
        try:
            return self.device_types[slug]
        except KeyError:
            raise KeyError(f"unknown catalog slug {slug!r}") from None

    def find_rack(self, rack_id: str) -> Rack | None:
        """The rack with this id, or None."""
        placed = self.index.racks.get(rack_id)
        return placed[1] if placed is not None else None

    def find_device(self, device_id: str) -> tuple[Rack, Device] | None:
        """The (rack, device) with this device id, or None."""
        return self.index.devices.get(device_id)

    def find_workload(self, workload_id: str) -> Workload | None:
        """The workload with this id, or None."""
        return self.index.workloads.get(workload_id)
