"""The typed form of one catalog entry.

A catalog entry is a NetBox device-type mapping (manufacturer, model, slug, u_height,
power-ports, interfaces, ...) plus the workbench's own fields (GPU model and count,
TFLOPS per precision, HBM, typical/maximum power, price, sources).  The original mapping
is kept in ``raw`` because a design stores a *snapshot* of every item it uses: the
snapshot is that mapping, and re-parsing it must give back an equal item, so a design
opens identically on a laptop that lacks the catalog.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

#: Every kind of catalog item the workbench knows.
KINDS: tuple[str, ...] = (
    "gpu",
    "server",
    "switch",
    "nic",
    "cable",
    "optic",
    "rack",
    "pdu",
    "storage",
    "infrastructure",
)

#: Precisions for which dense TFLOPS may be given; keys of ``CatalogItem.tflops``.
PRECISIONS: tuple[str, ...] = ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "fp4")

#: Kinds that occupy rack units and can be placed in a rack.  ``infrastructure`` is the
#: passive and facility gear a rack also holds (patch panels, coolant distribution
#: units, cable managers, blanking panels): it takes units and weight, but is no IT
#: device, never a fabric or compute node.
RACKABLE_KINDS: frozenset[str] = frozenset({"server", "switch", "storage", "pdu", "infrastructure"})

#: Kinds that draw no IT power of their own (a PDU passes power on; a patch panel or a
#: CDU's pumps are facility load, not IT load): no power figure is expected of them, so
#: they are never counted as "power unknown".
PASSIVE_KINDS: frozenset[str] = frozenset({"pdu", "rack", "cable", "infrastructure"})


def is_gpu_server(item: CatalogItem | None) -> bool:
    """True for a GPU node: a server that holds GPUs.  The one definition that the
    version matrix, the fabric rules, the handoff exports (Slurm, Kubernetes,
    monitoring), the storage figures, the hardware the estimates read and the summary's
    GPU-server count all ask.  A type missing from the design is no node (its GPUs are
    unknown; CATALOG-MISSING says so)."""
    return item is not None and item.kind == "server" and item.gpu_count > 0


def fitted_gpus(item: CatalogItem) -> dict[str, int]:
    """GPU model (catalog slug) → count fitted in one node of type ``item``.

    ``gpu``/``gpu_count`` name the node's GPU; a server fitted with cards of more than
    one kind lists them all in ``props.gpus`` (slug → count, see ``catalogs/README.md``).
    The one reading of which other items a node's figures come from: the GPU rules ask
    it, and so does the model when a GPU's item is replaced (the nodes fitted with it
    are what changed, though no device is of the GPU's own type).
    """
    fitted: dict[str, int] = {}
    listed = item.props.get("gpus")
    if isinstance(listed, Mapping):
        for slug, n in listed.items():
            if isinstance(n, (int, float)) and n > 0:
                fitted[str(slug)] = fitted.get(str(slug), 0) + int(n)
    if item.gpu and item.gpu_count and item.gpu not in fitted:
        fitted[item.gpu] = int(item.gpu_count)
    return fitted


def is_compute_switch(item: CatalogItem | None) -> bool:
    """True for a switch that can carry a compute or storage fabric: any switch but a
    management one (a 48-port 10G access switch is no leaf for 400G NICs).  What the
    scenario wizard offers and the variant planner accepts as "another compute switch"."""
    return item is not None and item.kind == "switch" and item.role != "management-switch"


def power_figure_w(item: CatalogItem | None) -> float | None:
    """The watts a device of ``item`` counts for in budgets and plans: its maximum draw,
    else its typical draw, else None (unknown, never 0 W).  The one reading of an item's
    power figure; a stated 0 W is a figure."""
    if item is None:
        return None
    return item.max_power_w if item.max_power_w is not None else item.typical_power_w


def power_unknown(item: CatalogItem | None) -> bool:
    """True for a rack device that draws IT power and states no figure (neither maximum
    nor typical), and for a device whose catalog type is missing from the design (what
    it draws, nobody knows): the one test the budgets, the RACK-POWER-UNKNOWN rule, the
    palette, the fill dialog and the importers all ask, so they cannot disagree about an
    item.  GPUs, NICs and optics draw through the server they sit in."""
    if item is None:
        return True
    return (
        item.max_power_w is None
        and item.typical_power_w is None
        and item.kind in RACKABLE_KINDS
        and item.kind not in PASSIVE_KINDS
    )


@dataclass(frozen=True)
class PowerPort:
    """A NetBox power-port: draws are watts per port (per PSU), as NetBox defines them."""

    name: str
    type: str = ""
    maximum_draw: float | None = None
    allocated_draw: float | None = None


@dataclass(frozen=True)
class Interface:
    """A NetBox interface template; ``type`` is a NetBox type name such as ``400gbase-x-osfp``."""

    name: str
    type: str
    mgmt_only: bool = False


@dataclass
class CatalogItem:
    """One catalog entry, validated and typed.

    ``props`` holds the kind-specific figures whose names are documented in
    ``catalogs/README.md`` (``reach_m``, ``speed_gbps``, ``max_weight_kg``, ``cooling``,
    ``cooling_limit_kw``, ``phases``, ``voltage``, ``breaker_a``, ``capacity_tb``,
    ``read_gbs``, ``write_gbs``, ``host_ram_gb`` ...).  ``sources`` maps a field name to
    where its figure comes from, so a planner can defend it.
    """

    slug: str
    kind: str
    manufacturer: str
    model: str
    part_number: str = ""
    role: str = ""
    u_height: float = 0.0
    is_full_depth: bool = True
    airflow: str = ""
    weight: float | None = None
    weight_unit: str = "kg"
    power_ports: tuple[PowerPort, ...] = ()
    interfaces: tuple[Interface, ...] = ()
    gpu: str | None = None
    gpu_count: int = 0
    tflops: dict[str, float] = field(default_factory=dict)
    hbm_gb: float | None = None
    hbm_bw_tbs: float | None = None
    nvlink_gbs: float | None = None
    typical_power_w: float | None = None
    max_power_w: float | None = None
    unit_price: float | None = None
    currency: str = "USD"
    props: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    comments: str = ""
    #: The mapping this item was parsed from; it is what a design snapshots.
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    #: Where the item was read from (a catalog file, or ``design snapshot``).
    source_file: str = field(default="", compare=False)

    @property
    def weight_kg(self) -> float | None:
        """Weight in kilograms whatever unit the file used (NetBox allows kg, g, lb, oz)."""
        if self.weight is None:
            return None
        factor = {"kg": 1.0, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523125}
        return self.weight * factor.get(self.weight_unit, 1.0)

    @property
    def label(self) -> str:
        """What a person calls it: manufacturer and model."""
        return f"{self.manufacturer} {self.model}".strip()


# -- the one list of an item's fields ---------------------------------------------------------
#: Fields held as lists of records rather than plain values (a file's ``interfaces`` and
#: ``power-ports``), and the two the parser adds about where an item came from.
_NOT_PLAIN: frozenset[str] = frozenset({"power_ports", "interfaces", "raw", "source_file"})

#: Every plain field a catalog file (and a design's snapshot of it) holds, in the order
#: CatalogItem declares them.  Read off the dataclass, so a new field is stored, merged
#: and listed without a second list to update.
FILE_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(CatalogItem) if f.name not in _NOT_PLAIN
)

#: The workbench's own figures, beyond NetBox's device-type schema: what an import of a
#: NetBox file keeps when the new file does not state them (see
#: :mod:`workbench.catalog.merge`).  NetBox's own fields (maker, model, U, depth,
#: airflow, weight, ports) come from the file.
WORKBENCH_FIELDS: tuple[str, ...] = (
    "max_power_w",
    "typical_power_w",
    "unit_price",
    "currency",
    "gpu",
    "gpu_count",
    "tflops",
    "hbm_gb",
    "hbm_bw_tbs",
    "nvlink_gbs",
    "kind",
    "role",
    "props",
    "sources",
)
