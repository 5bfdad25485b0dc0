"""Reading a network fabric: planes and tiers, graph analysis, failures, media, ports and tables.

The shape of each plane (:mod:`workbench.calc.fabric.planes`) is what every other part
reads first, so its names are offered here too.
"""

from workbench.calc.fabric.planes import (
    TIER_NAMES,
    PlaneStructure,
    link_plane,
    network_planes,
    plane_structure,
    plane_structures,
    tier_name,
)

__all__ = [
    "TIER_NAMES",
    "PlaneStructure",
    "link_plane",
    "network_planes",
    "plane_structure",
    "plane_structures",
    "tier_name",
]
