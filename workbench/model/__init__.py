"""Plain dataclasses for a cluster design, its id index and its edits; no Qt, no I/O."""

from workbench.model.change import Change
from workbench.model.design import (
    COOLING_LIMITS_KW,
    COOLING_TYPES,
    DEVICE_ROLES,
    FACES,
    PLANES,
    Design,
    Device,
    Link,
    Network,
    Rack,
    Row,
    Site,
    SoftwareStack,
    StorageTier,
    Waiver,
    Workload,
)

__all__ = [
    "COOLING_LIMITS_KW",
    "COOLING_TYPES",
    "DEVICE_ROLES",
    "FACES",
    "PLANES",
    "Change",
    "Design",
    "Device",
    "Link",
    "Network",
    "Rack",
    "Row",
    "Site",
    "SoftwareStack",
    "StorageTier",
    "Waiver",
    "Workload",
]
