"""Plain dataclasses for a cluster design; no Qt, no I/O."""

from workbench.model.design import (
    COOLING_LIMITS_KW,
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
    Workload,
)

__all__ = [
    "COOLING_LIMITS_KW",
    "DEVICE_ROLES",
    "FACES",
    "PLANES",
    "Design",
    "Device",
    "Link",
    "Network",
    "Rack",
    "Row",
    "Site",
    "SoftwareStack",
    "StorageTier",
    "Workload",
]
