"""Plain dataclasses for a cluster design, its id index and its edits; no Qt, no I/O.

Every edit is data with an exact inverse: :mod:`workbench.model.ops` gathers the one
table of them (``ops.apply``, ``ops.snapshot``) from the modules that define them
(``structure_ops`` for rows, racks and devices; ``link_ops``; ``field_ops`` for names,
rack properties and workloads; ``net_ops``, ``floor_ops``, ``site_ops``, ``team_ops``,
``type_ops``, ``waiver_ops``, ``version_ops``, ``cost_ops``, ``acceptance``,
``captures``).  :mod:`~workbench.model.applied` and :mod:`~workbench.model.keep` sit
below them all, so no edit module imports ``ops``.  The design's parts
(:mod:`~workbench.model.parts`) and imported records (:mod:`~workbench.model.records`)
are leaves that :mod:`~workbench.model.design` and the edits both import, so no import
circle runs through the design.  A rack's cooling limit has its one home in
:mod:`~workbench.model.rack_fields`.
"""

from workbench.model.change import Change
from workbench.model.design import (
    COOLING_LIMITS_KW,
    COOLING_TYPES,
    DEFAULT_FEED,
    DEVICE_ROLES,
    FACES,
    FACINGS,
    PLANES,
    Design,
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

__all__ = [
    "COOLING_LIMITS_KW",
    "COOLING_TYPES",
    "DEFAULT_FEED",
    "DEVICE_ROLES",
    "FACES",
    "FACINGS",
    "PLANES",
    "Change",
    "Design",
    "Device",
    "Feed",
    "Link",
    "Network",
    "Rack",
    "Row",
    "Site",
    "SoftwareStack",
    "StorageTier",
    "Team",
    "Waiver",
    "Workload",
]
