"""The design rules: each registered rule fires with its numbers and stays quiet on a
near miss; a broken rule becomes one internal error; the incremental checker agrees
with a full check after any edit; every template passes."""

from __future__ import annotations

import dataclasses
import itertools
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.calc.summary import rack_load
from workbench.calc.workload import evaluate_workload
from workbench.catalog import load_catalog, snapshot_for
from workbench.catalog.item import CatalogItem
from workbench.model import (
    Design,
    Device,
    Feed,
    Link,
    Rack,
    Row,
    Site,
    StorageTier,
    Workload,
    ops,
)
from workbench.model.errors import EditError
from workbench.model.placement import can_place, covered_units, units_label
from workbench.rules import (
    INTERNAL_ERROR,
    REGISTRY,
    Checker,
    Finding,
    Rule,
    RuleContext,
    Severity,
    check_design,
    count,
    full_check,
    registry,
    rule,
)
from workbench.templates import TEMPLATES, build_template, sample_design

#: The rules the workbench ships (the issue's list); a new rule needs tests here.
EXPECTED_RULES = {
    "NAME-DUPLICATE",
    "COST-PUE-LIQUID",
    "NODE-HOSTNAME",
    "BASELINE-EMPTY",
    "RACK-OVERLAP",
    "RACK-DEPTH",
    "RACK-OUTSIDE",
    "RACK-POWER",
    "RACK-COOLING",
    "DEVICE-COOLING",
    "RACK-WEIGHT",
    "RACK-FEED",
    "RACK-POWER-UNKNOWN",
    "RACK-PDU",
    "NODE-MIXED-GPU",
    "NODE-HOST-RAM",
    "STORAGE-HOT-TIER",
    "STORAGE-HOT-FLASH",
    "STORAGE-UNCABLED",
    "STORAGE-CLIENT",
    "STORAGE-CHECKPOINT",
    "STORAGE-POOLS",
    "STORAGE-CAPACITY",
    "STORAGE-METADATA",
    "STORAGE-GDS",
    "STORAGE-CHECKPOINT-BURST",
    "FABRIC-PORT",
    "FABRIC-MTU",
    "FABRIC-UNCABLED",
    "FABRIC-OVERSUB",
    "WORKLOAD-INPUT",
    "WORKLOAD-PARALLEL",
    "WORKLOAD-MEMORY",
    "WORKLOAD-DEADLINE",
    "WORKLOAD-MIXED-GPU",
    "CATALOG-MISSING",
    "VERSION-DRIVER",
    "VERSION-FRAMEWORK",
    "VERSION-GPU",
    "VERSION-ONE-LAYER",
    "VERSION-DRIFT",
    "VERSION-MIXED-GPU",
}

H100 = "nvidia-h100-sxm5-80gb"
H200 = "nvidia-h200-sxm-141gb"
DGX_H100 = "nvidia-dgx-h100"
DGX_H200 = "nvidia-dgx-h200"
AIR_42U = "generic-rack-42u-air"  # 42U, air, 12 kW cooling, 1,360 kg
RDHX_48U = "generic-rack-48u-rdhx"  # 48U, rear door, 50 kW cooling, 1,500 kg

#: Hand-made items: the half-U heights NetBox allows, and exact round figures.
HALF_U = CatalogItem(
    slug="patch-0u5",
    kind="switch",
    manufacturer="Generic",
    model="0.5U patch panel",
    u_height=0.5,
    is_full_depth=False,
    weight=1.0,
)
ONE_AND_HALF_U = CatalogItem(
    slug="server-1u5",
    kind="server",
    manufacturer="Generic",
    model="1.5U server",
    u_height=1.5,
    max_power_w=500,
    weight=15.0,
)
ONE_U = CatalogItem(
    slug="switch-1u",
    kind="switch",
    manufacturer="Generic",
    model="1U switch",
    u_height=1,
    max_power_w=100,
    weight=8.0,
)
HALF_DEPTH_1U = dataclasses.replace(
    ONE_U, slug="switch-1u-half", model="1U half-depth switch", is_full_depth=False
)
LOAD_12KW = CatalogItem(
    slug="load-12kw",
    kind="server",
    manufacturer="Generic",
    model="12 kW load bank",
    u_height=4,
    max_power_w=12000,
    weight=50.0,
)
BALLAST = CatalogItem(
    slug="ballast-1360kg",
    kind="storage",
    manufacturer="Generic",
    model="1,360 kg ballast",
    u_height=1,
    weight=1360.0,
)
PDU_0U = CatalogItem(
    slug="pdu-0u", kind="pdu", manufacturer="Generic", model="0U PDU", u_height=0, weight=10.0
)
HAND_MADE = (HALF_U, ONE_AND_HALF_U, ONE_U, HALF_DEPTH_1U, LOAD_12KW, BALLAST, PDU_0U)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def make_design(
    catalog,
    *racks: Rack,
    extra: tuple[CatalogItem, ...] = (),
    workloads: tuple[Workload, ...] = (),
    tiers: tuple[StorageTier, ...] = (),
) -> Design:
    """One row holding ``racks``; the snapshot is every shipped item they use plus
    ``extra`` (hand-made items) and the hand-made items above."""
    made = {item.slug: item for item in (*HAND_MADE, *extra)}
    used = {r.rack_type for r in racks} | {d.device_type for r in racks for d in r.devices}
    types = snapshot_for(catalog, sorted(s for s in used if s in catalog.items))
    types.update({slug: made[slug] for slug in used if slug in made})
    for item in extra:
        types[item.slug] = item
        if item.gpu and item.gpu in catalog.items:
            types.setdefault(item.gpu, catalog.items[item.gpu])
        for slug in item.props.get("gpus", {}):
            if slug in catalog.items:
                types.setdefault(slug, catalog.items[slug])
    return Design(
        name="Rules test",
        sites=[Site("site", "Hall 1", [Row("row-a", "Row A", list(racks))])],
        device_types=types,
        workloads=list(workloads),
        storage_tiers=list(tiers),
    )


def rack(rack_id: str = "r1", rack_type: str = AIR_42U, cooling: str = "air", **kw) -> Rack:
    kw.setdefault("power_limit_kw", 50.0)
    return Rack(rack_id, kw.pop("name", "A01"), rack_type, cooling=cooling, **kw)


def dev(device_id: str, device_type: str, position: int | None, face: str = "front") -> Device:
    return Device(device_id, device_id, device_type, position=position, face=face)


def run(design: Design, rule_id: str) -> list[Finding]:
    """The findings of one rule (the full check must agree)."""
    mine = check_design(design, rules=[REGISTRY[rule_id]])
    assert mine == [f for f in check_design(design) if f.rule == rule_id]
    return mine


def only(design: Design, rule_id: str) -> Finding:
    found = run(design, rule_id)
    assert len(found) == 1, found
    assert found[0].rule == rule_id
    return found[0]


# -- the registry -----------------------------------------------------------------------------


def test_registry_holds_the_shipped_rules() -> None:
    assert set(REGISTRY) == EXPECTED_RULES
    ids = [r.id for r in REGISTRY.values()]
    assert len(ids) == len(set(ids))
    assert all(key == r.id for key, r in REGISTRY.items())


@pytest.mark.parametrize("rule_id", sorted(EXPECTED_RULES))
def test_every_rule_is_described(rule_id: str) -> None:
    registered = REGISTRY[rule_id]
    assert re.fullmatch(r"[A-Z][A-Z0-9]*(-[A-Z0-9]+)+", registered.id)
    assert registered.id == registered.id.upper()
    assert registered.title.strip() and registered.source.strip()
    assert registered.scope in registry.SCOPES
    assert registered.looks_at and registered.looks_at <= registry.KINDS
    assert isinstance(registered.severity, Severity)


def test_a_rule_cannot_be_registered_twice() -> None:
    with pytest.raises(ValueError, match="RACK-POWER"):
        rule(
            "RACK-POWER",
            title="again",
            severity=Severity.ERROR,
            scope="rack",
            looks_at={"rack"},
            source="test",
        )(lambda ctx, me, obj: ())
    assert REGISTRY["RACK-POWER"].title == "Rack over its power budget"
    with pytest.raises(ValueError, match="scope"):
        rule("TEST-X", title="t", severity=Severity.INFO, scope="hall", looks_at={}, source="s")
    with pytest.raises(ValueError, match="kinds"):
        rule(
            "TEST-X", title="t", severity=Severity.INFO, scope="rack", looks_at={"pdu"}, source="s"
        )
    assert "TEST-X" not in REGISTRY


def test_severity_order_parse_and_count() -> None:
    assert Severity.ERROR > Severity.WARNING > Severity.INFO
    assert Severity.parse(" Warning ") is Severity.WARNING
    with pytest.raises(ValueError, match="error, warning, info|info, warning, error"):
        Severity.parse("fatal")
    found = [
        Finding("A", Severity.ERROR, "a", ("x",)),
        Finding("A", Severity.ERROR, "a", ("y",)),
        Finding("B", Severity.WARNING, "b", ("x",)),
        Finding("C", Severity.INFO, "c", ()),
    ]
    counts = count(found, {("A", "y")})
    assert counts.to_dict() == {"errors": 1, "warnings": 1, "info": 1, "waived": 1}
    assert found[3].object_id == "" and found[1].key == ("A", "y")


# -- half units -------------------------------------------------------------------------------


def test_half_unit_geometry() -> None:
    assert covered_units(20, 0.5) == range(20, 21)
    assert units_label(20, 0.5) == "U20 (0.5U)"
    assert covered_units(30, 1.5) == range(30, 32)
    assert units_label(30, 1.5) == "U30–U31 (1.5U)"
    assert units_label(2, 8) == "U2–U9 (8U)"
    assert units_label(None, 1) == "0U" and units_label(5, 0) == "0U"
    assert covered_units(None, 1) == range(0)


def assert_mentions(message: str, *parts: str) -> None:
    """Every part (names, unit labels, numbers) appears in ``message``."""
    missing = [p for p in parts if p not in message]
    assert not missing, (missing, message)


def half_u_rack(extra: Device | None = None) -> Rack:
    devices = [dev("patch", HALF_U.slug, 20), dev("srv15", ONE_AND_HALF_U.slug, 30)]
    return rack(devices=devices + ([extra] if extra else []))


def test_overlap_fires_on_the_upper_half_of_a_1u5_device(catalog) -> None:
    design = make_design(catalog, half_u_rack(dev("sw31", ONE_U.slug, 31)))
    finding = only(design, "RACK-OVERLAP")
    assert finding.severity is Severity.ERROR
    assert finding.objects == ("sw31", "srv15", "r1")
    assert_mentions(finding.message, "A01", "sw31", "U31 (1U)", "srv15", "U30–U31 (1.5U)", "front")
    assert run(design, "RACK-DEPTH") == []
    # The placement check that drag-and-drop asks agrees with the rule.
    verdict = can_place(design, design.find_rack("r1"), ONE_U, 31, ignore=frozenset({"sw31"}))
    assert not verdict.ok and verdict.blocking == ("srv15",)
    assert "U30–U31 (1.5U)" in verdict.reason


def test_overlap_fires_on_a_half_unit(catalog) -> None:
    design = make_design(catalog, half_u_rack(dev("sw20", ONE_U.slug, 20)))
    finding = only(design, "RACK-OVERLAP")
    assert finding.objects[:2] == ("sw20", "patch")
    assert_mentions(finding.message, "sw20", "U20 (1U)", "patch", "U20 (0.5U)")


def test_overlap_names_every_device_met_in_one_finding(catalog) -> None:
    r = rack(
        devices=[
            dev("patch", HALF_U.slug, 29),
            dev("srv15", ONE_AND_HALF_U.slug, 30),
            dev("dgx", DGX_H100, 24),  # U24–U31 reaches both
        ]
    )
    finding = only(make_design(catalog, r), "RACK-OVERLAP")
    assert finding.objects == ("dgx", "patch", "srv15", "r1")
    assert_mentions(finding.message, "U24–U31 (8U)", "U29 (0.5U)", "U30–U31 (1.5U)")


@pytest.mark.parametrize("position", [32, 21, 29])
def test_overlap_quiet_next_to_half_units(catalog, position: int) -> None:
    design = make_design(catalog, half_u_rack(dev("sw", ONE_U.slug, position)))
    assert run(design, "RACK-OVERLAP") == []
    assert run(design, "RACK-DEPTH") == []
    assert can_place(design, design.find_rack("r1"), ONE_U, position, ignore={"sw"}).ok


def test_overlap_needs_the_same_face(catalog) -> None:
    """Two half-depth devices back to back share a unit legally (NetBox is_full_depth)."""
    r = rack(
        devices=[
            dev("front", HALF_DEPTH_1U.slug, 10, "front"),
            dev("rear", HALF_DEPTH_1U.slug, 10, "rear"),
        ]
    )
    design = make_design(catalog, r)
    assert run(design, "RACK-OVERLAP") == []
    assert run(design, "RACK-DEPTH") == []


def test_depth_fires_when_a_full_depth_device_meets_the_other_face(catalog) -> None:
    r = rack(devices=[dev("full", ONE_U.slug, 20, "front"), dev("back", HALF_U.slug, 20, "rear")])
    design = make_design(catalog, r)
    finding = only(design, "RACK-DEPTH")
    assert finding.severity is Severity.ERROR
    assert finding.objects == ("back", "full", "r1")
    assert_mentions(finding.message, "back", "U20 (0.5U)", "rear", "full", "U20 (1U)", "front")
    assert run(design, "RACK-OVERLAP") == []


def test_depth_quiet_one_unit_apart(catalog) -> None:
    r = rack(devices=[dev("full", ONE_U.slug, 21, "front"), dev("back", HALF_U.slug, 20, "rear")])
    assert run(make_design(catalog, r), "RACK-DEPTH") == []


# -- outside the rack -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "device_type, position, label",
    [
        (DGX_H100, 36, "U36–U43 (8U)"),
        (ONE_AND_HALF_U.slug, 42, "U42–U43 (1.5U)"),
        (ONE_U.slug, 0, "U0 (1U)"),
    ],
)
def test_outside_fires_past_the_top_or_below_u1(
    catalog, device_type: str, position: int, label: str
) -> None:
    design = make_design(catalog, rack(devices=[dev("x", device_type, position)]))
    finding = only(design, "RACK-OUTSIDE")
    assert finding.severity is Severity.ERROR
    assert finding.objects == ("x", "r1")
    assert_mentions(finding.message, "A01", "x", label, "outside", "U1–U42")


@pytest.mark.parametrize(
    "device_type, position", [(DGX_H100, 35), (ONE_AND_HALF_U.slug, 41), (ONE_U.slug, 1)]
)
def test_outside_quiet_at_the_top_and_bottom(catalog, device_type: str, position: int) -> None:
    design = make_design(catalog, rack(devices=[dev("x", device_type, position)]))
    assert run(design, "RACK-OUTSIDE") == []


def test_outside_fires_for_an_unplaced_device_not_a_0u_one(catalog) -> None:
    design = make_design(catalog, rack(devices=[dev("loose", ONE_U.slug, None)]))
    finding = only(design, "RACK-OUTSIDE")
    assert finding.objects == ("loose", "r1")
    assert "loose (1U) has no rack unit" in finding.message
    quiet = make_design(catalog, rack(devices=[dev("pdu", PDU_0U.slug, None)]))
    assert run(quiet, "RACK-OUTSIDE") == []


def test_outside_reads_the_rack_types_height(catalog) -> None:
    r = rack(rack_type=RDHX_48U, cooling="rear-door", devices=[dev("x", DGX_H100, 41)])
    assert run(make_design(catalog, r), "RACK-OUTSIDE") == []  # U41–U48 of a 48U rack
    r = rack(rack_type=RDHX_48U, cooling="rear-door", devices=[dev("x", DGX_H100, 42)])
    assert "U1–U48" in only(make_design(catalog, r), "RACK-OUTSIDE").message


# -- budgets ----------------------------------------------------------------------------------


def two_dgx(**kw) -> Rack:
    return rack(devices=[dev("dgx-1", DGX_H100, 1), dev("dgx-2", DGX_H100, 9)], **kw)


def test_power_fires_for_two_dgx_h100_on_12_kw(catalog) -> None:
    # DGX H100: 10.2 kW maximum (DGX H100 user guide) × 2 = 20.4 kW.
    design = make_design(catalog, two_dgx(power_limit_kw=12.0))
    finding = only(design, "RACK-POWER")
    assert finding.severity is Severity.ERROR
    assert finding.objects == ("r1",)
    assert "20.4 kW" in finding.message and "12 kW" in finding.message
    assert finding.message.startswith("A01 ")


@pytest.mark.parametrize("limit", [20.4, 0.0])
def test_power_quiet_exactly_at_the_limit_or_without_one(catalog, limit: float) -> None:
    design = make_design(catalog, two_dgx(power_limit_kw=limit))
    assert run(design, "RACK-POWER") == []


def test_cooling_fires_for_two_dgx_h100_in_an_air_rack(catalog) -> None:
    design = make_design(catalog, two_dgx(power_limit_kw=25.0))
    finding = only(design, "RACK-COOLING")
    assert finding.severity is Severity.ERROR
    assert finding.objects == ("r1",)
    assert "A01 needs 20.4 kW, air limit 12 kW" in finding.message
    # The finding names the remedies whose limit covers the heat.
    assert (
        "fewer servers, a rear-door heat exchanger (50 kW) or direct liquid (120 kW)"
        in finding.message
    )
    assert run(design, "RACK-POWER") == []


def test_cooling_fires_just_over_the_air_limit(catalog) -> None:
    r = rack(devices=[dev("load", LOAD_12KW.slug, 1), dev("sw", ONE_U.slug, 10)])
    finding = only(make_design(catalog, r), "RACK-COOLING")
    assert "12.1 kW" in finding.message and "12 kW" in finding.message


def test_cooling_quiet_exactly_at_the_air_limit(catalog) -> None:
    r = rack(devices=[dev("load", LOAD_12KW.slug, 1)])
    assert run(make_design(catalog, r), "RACK-COOLING") == []


def test_cooling_reads_the_racks_own_cooling(catalog) -> None:
    """An air rack type fitted with direct liquid cooling gets the 120 kW limit."""
    assert run(make_design(catalog, two_dgx(cooling="liquid")), "RACK-COOLING") == []
    five = rack(
        rack_type=RDHX_48U,
        cooling="rear-door",
        devices=[dev(f"dgx-{i}", DGX_H100, 1 + 8 * i) for i in range(5)],
    )
    finding = only(make_design(catalog, five), "RACK-COOLING")
    assert "51.0 kW" in finding.message and "50 kW" in finding.message
    assert "rear-door heat exchanger" in finding.message


LIQUID_TRAY = CatalogItem(
    slug="liquid-tray",
    kind="server",
    manufacturer="Generic",
    model="cold-plate GPU tray",
    u_height=1,
    max_power_w=5000,
    props={"cooling": "liquid"},
)


def test_a_liquid_cooled_device_in_an_air_rack_is_an_error_naming_the_remedy(catalog) -> None:
    design = make_design(
        catalog, rack(devices=[dev("t1", LIQUID_TRAY.slug, 1)]), extra=(LIQUID_TRAY,)
    )
    finding = only(design, "DEVICE-COOLING")
    assert finding.severity is Severity.ERROR
    assert finding.objects == ("t1", "r1")
    assert "liquid-cooled" in finding.message and "cooled by air" in finding.message
    assert "set A01's cooling to direct liquid" in finding.message
    liquid = rack(cooling="liquid", devices=[dev("t1", LIQUID_TRAY.slug, 1)])
    assert run(make_design(catalog, liquid, extra=(LIQUID_TRAY,)), "DEVICE-COOLING") == []
    # An air-cooled server in any rack is fine.
    assert run(make_design(catalog, two_dgx()), "DEVICE-COOLING") == []


def test_the_drop_of_a_liquid_cooled_device_on_an_air_rack_is_amber_with_the_remedy(
    catalog,
) -> None:
    from workbench.model.hall_edits import Slot
    from workbench.rules.drops import DropState, judge_drop

    design = make_design(catalog, rack(), extra=(LIQUID_TRAY,))
    target = design.find_rack("r1")
    verdict = judge_drop(design, target, [Slot(LIQUID_TRAY, 1, "front")])
    assert verdict.state is DropState.OVER_BUDGET
    assert "set A01's cooling to direct liquid" in verdict.reason


def test_cooling_warns_about_an_unknown_cooling_type(catalog) -> None:
    design = make_design(catalog, two_dgx(cooling="immersion"))
    finding = only(design, "RACK-COOLING")
    assert finding.severity is Severity.WARNING
    assert finding.objects == ("r1",)
    assert "'immersion'" in finding.message and "air, rear-door, liquid" in finding.message


def test_weight_fires_just_over_the_rating(catalog) -> None:
    r = rack(devices=[dev("ballast", BALLAST.slug, 1), dev("sw", ONE_U.slug, 2)])
    finding = only(make_design(catalog, r), "RACK-WEIGHT")
    assert finding.severity is Severity.ERROR
    assert finding.objects == ("r1",)
    assert "1,368 kg" in finding.message and "1,360 kg" in finding.message


def test_weight_quiet_exactly_at_the_rating(catalog) -> None:
    r = rack(devices=[dev("ballast", BALLAST.slug, 1)])
    assert run(make_design(catalog, r), "RACK-WEIGHT") == []


def test_weight_quiet_without_a_rating(catalog) -> None:
    unrated = CatalogItem(
        slug="rack-unrated", kind="rack", manufacturer="Generic", model="Rack", u_height=42
    )
    r = rack(
        rack_type=unrated.slug,
        devices=[dev("ballast", BALLAST.slug, 1), dev("b2", BALLAST.slug, 2)],
    )
    assert run(make_design(catalog, r, extra=(unrated,)), "RACK-WEIGHT") == []


# -- nodes ------------------------------------------------------------------------------------


def server(catalog, slug: str, **changes) -> CatalogItem:
    """A copy of the DGX H100 with some fields changed (the shipped item is untouched)."""
    base = catalog.items[DGX_H100]
    props = {**base.props, **changes.pop("props", {})}
    return dataclasses.replace(
        base, slug=slug, model=changes.pop("model", slug), props=props, **changes
    )


def test_mixed_gpu_fires_for_a_node_listing_two_models(catalog) -> None:
    mixed = server(
        catalog, "mixed-8gpu", model="Mixed 8-GPU", gpu_count=4, props={"gpus": {H200: 4}}
    )
    design = make_design(catalog, rack(devices=[dev("node-1", mixed.slug, 1)]), extra=(mixed,))
    finding = only(design, "NODE-MIXED-GPU")
    assert finding.severity is Severity.ERROR
    assert finding.objects == ("node-1",)
    assert "node-1 (Mixed 8-GPU)" in finding.message
    assert "4 × H100 SXM5 80GB, 4 × H200 SXM 141GB" in finding.message


def test_mixed_gpu_fires_for_props_gpus_alone(catalog) -> None:
    mixed = server(
        catalog, "mixed-props", gpu=None, gpu_count=0, props={"gpus": {H100: 6, H200: 2}}
    )
    design = make_design(catalog, rack(devices=[dev("node-1", mixed.slug, 1)]), extra=(mixed,))
    assert "6 × H100 SXM5 80GB, 2 × H200 SXM 141GB" in only(design, "NODE-MIXED-GPU").message


@pytest.mark.parametrize("listed", [{H100: 8}, {H100: 8, H200: 0}, {}])
def test_mixed_gpu_quiet_for_one_model(catalog, listed: dict) -> None:
    same = server(catalog, "one-model", props={"gpus": listed})
    design = make_design(catalog, rack(devices=[dev("node-1", same.slug, 1)]), extra=(same,))
    assert run(design, "NODE-MIXED-GPU") == []


def test_host_ram_warns_below_the_gpu_memory(catalog) -> None:
    # 8 × H100 SXM5 80 GB = 640 GB of HBM per node.
    starved = server(catalog, "dgx-639", model="DGX 639", props={"host_ram_gb": 639})
    design = make_design(catalog, rack(devices=[dev("node-1", starved.slug, 1)]), extra=(starved,))
    finding = only(design, "NODE-HOST-RAM")
    assert finding.severity is Severity.WARNING
    assert finding.objects == ("node-1",)
    assert "639 GB of host memory for 640 GB of GPU memory (8 × 80 GB)" in finding.message


@pytest.mark.parametrize("ram", [640, 2048, None])
def test_host_ram_quiet_at_the_gpu_memory(catalog, ram) -> None:
    item = server(catalog, "dgx-ram", props={"host_ram_gb": ram})
    if ram is None:
        del item.props["host_ram_gb"]
    design = make_design(catalog, rack(devices=[dev("node-1", item.slug, 1)]), extra=(item,))
    assert run(design, "NODE-HOST-RAM") == []


def test_shipped_nodes_are_quiet(catalog) -> None:
    r = rack(
        rack_type=RDHX_48U,
        cooling="rear-door",
        devices=[dev("h100", DGX_H100, 1), dev("h200", DGX_H200, 9)],
    )
    design = make_design(catalog, r)
    assert run(design, "NODE-MIXED-GPU") == [] and run(design, "NODE-HOST-RAM") == []


# -- storage ----------------------------------------------------------------------------------

PFS = "generic-allflash-pfs-node"  # 50 GB/s read
HDD = "generic-hdd-enclosure-84"  # 8 GB/s read
STORAGE_SWITCH = "nvidia-sn4600"  # 200G ports: a 400G appliance port runs at 200G


def cabled(design: Design, appliance: str, switch: str, links: int = 2) -> Design:
    """``appliance`` cabled to ``switch`` with ``links`` storage links (200G each, 25 GB/s):
    an uncabled appliance serves nothing (issue 24)."""
    for k in range(links):
        design.links.append(
            Link(f"st-{appliance}-{k}", appliance, f"storage{k}", switch, f"swp{k + 1}")
        )
    design.reindex()
    return design


def gpu_racks(nodes: int, storage: tuple[Device, ...] = ()) -> list[Rack]:
    """``nodes`` DGX H100 three to a 48U rear-door rack, then a rack for storage."""
    racks = []
    for start in range(0, nodes, 3):
        count_here = min(3, nodes - start)
        devices = [dev(f"dgx-{start + i}", DGX_H100, 1 + 8 * i) for i in range(count_here)]
        racks.append(
            rack(
                f"r{len(racks) + 1}",
                RDHX_48U,
                "rear-door",
                name=f"A0{len(racks) + 1}",
                devices=devices,
            )
        )
    racks.append(rack("rs", RDHX_48U, "rear-door", name="S01", devices=list(storage)))
    return racks


def test_hot_tier_fires_without_a_hot_tier(catalog) -> None:
    design = make_design(catalog, *gpu_racks(6))  # 48 GPUs
    finding = only(design, "STORAGE-HOT-TIER")
    assert finding.severity is Severity.ERROR
    assert finding.objects == ("design",)
    assert "48 GPUs need at least 50 GB/s" in finding.message
    assert "the design has no hot tier" in finding.message


def test_hot_tier_fires_when_too_slow(catalog) -> None:
    tier = StorageTier("tier-hot", "Hot", "hot", device_ids=["hdd-1"])
    design = make_design(catalog, *gpu_racks(6, (dev("hdd-1", HDD, 1),)), tiers=(tier,))
    finding = only(design, "STORAGE-HOT-TIER")
    assert finding.objects == ("tier-hot",)
    assert "48 GPUs" in finding.message and "50 GB/s" in finding.message
    assert "tier Hot, which the training jobs read, gives 8.0 GB/s from 1 devices" in (
        finding.message
    )


def test_hot_tier_ignores_warm_tiers(catalog) -> None:
    tier = StorageTier("tier-warm", "Warm", "warm", device_ids=["pfs-1"])
    design = make_design(catalog, *gpu_racks(6, (dev("pfs-1", PFS, 1),)), tiers=(tier,))
    assert "no hot tier" in only(design, "STORAGE-HOT-TIER").message


def test_hot_tier_quiet_at_exactly_50_gbs(catalog) -> None:
    tier = StorageTier("tier-hot", "Hot", "hot", device_ids=["pfs-1"])
    storage = (dev("pfs-1", PFS, 1), dev("stor-1", STORAGE_SWITCH, 30))
    design = make_design(catalog, *gpu_racks(6, storage), tiers=(tier,))
    assert "0 of 1 cabled" in only(design, "STORAGE-HOT-TIER").message
    cabled(design, "pfs-1", "stor-1")  # 2 × 200G = 50 GB/s, the appliance's own read
    assert run(design, "STORAGE-HOT-TIER") == []


def test_hot_tier_quiet_at_40_gpus(catalog) -> None:
    design = make_design(catalog, *gpu_racks(5))  # 40 GPUs: the floor applies above 40
    assert run(design, "STORAGE-HOT-TIER") == []


# -- workloads --------------------------------------------------------------------------------


def sixteen_gpus(catalog, *workloads: Workload, extra_rack: Rack | None = None) -> Design:
    """Two DGX H100 (16 GPUs) in a rear-door rack, and ``workloads``."""
    r = two_dgx(rack_type=RDHX_48U, cooling="rear-door")
    racks = (r, extra_rack) if extra_rack else (r,)
    return make_design(catalog, *racks, workloads=workloads)


def job(**kw) -> Workload:
    """A job known by N alone: the MFU is stated (nothing to predict it from)."""
    kw.setdefault("model", "custom")
    kw.setdefault("params", 1e9)
    kw.setdefault("mfu", 0.4)
    return Workload("w1", kw.pop("name", "Job"), **kw)


def test_input_fires_for_an_mfu_above_one(catalog) -> None:
    design = sixteen_gpus(catalog, job(mfu=1.5))
    finding = only(design, "WORKLOAD-INPUT")
    assert finding.severity is Severity.ERROR
    assert finding.objects == ("w1",)
    assert "Job: mfu:" in finding.message and "1.5" in finding.message
    assert run(design, "WORKLOAD-PARALLEL") == []


def test_input_fires_for_an_unknown_model(catalog) -> None:
    finding = only(sixteen_gpus(catalog, job(model="no-such-model")), "WORKLOAD-INPUT")
    assert "no-such-model" in finding.message


def test_input_quiet_at_mfu_one(catalog) -> None:
    assert run(sixteen_gpus(catalog, job(mfu=1.0)), "WORKLOAD-INPUT") == []


def test_parallel_fires_when_tp_pp_does_not_divide(catalog) -> None:
    design = sixteen_gpus(catalog, job(tp=8, pp=3))
    finding = only(design, "WORKLOAD-PARALLEL")
    assert finding.severity is Severity.ERROR
    assert finding.objects == ("w1",)
    assert "tp·pp = 24 does not divide the 16 GPUs" in finding.message
    assert run(design, "WORKLOAD-INPUT") == []


def test_parallel_fires_for_a_zero_tp(catalog) -> None:
    finding = only(sixteen_gpus(catalog, job(tp=0)), "WORKLOAD-PARALLEL")
    assert "at least 1" in finding.message and "0" in finding.message


def test_parallel_quiet_when_tp_pp_uses_every_gpu(catalog) -> None:
    assert run(sixteen_gpus(catalog, job(tp=8, pp=2)), "WORKLOAD-PARALLEL") == []


def test_memory_fires_just_over_usable_hbm(catalog) -> None:
    # ZeRO-1 over dp 2 with tp 8 is Megatron's distributed optimizer: bf16 weights and
    # fp32 gradients whole, fp32 master and Adam state sharded, 6 + 12/2 bytes per
    # parameter, / tp 8 = 1.5 bytes per parameter per GPU.  The H100's 81,559 MiB
    # (nvidia-smi) less 10 % headroom leaves 76.97 GB; 51.4e9 parameters need 77.1 GB.
    design = sixteen_gpus(catalog, job(params=51.4e9, tp=8, zero=1))
    finding = only(design, "WORKLOAD-MEMORY")
    assert finding.severity is Severity.ERROR
    assert finding.objects == ("w1",)
    assert "needs 77.1 GB per GPU with TP 8, PP 1, ZeRO-1" in finding.message
    assert "77.0 GB of 80.0 GB HBM is usable" in finding.message


def test_memory_fires_for_llama3_70b_on_16_gpus(catalog) -> None:
    # Defaults: TP 8, ZeRO-1 over dp 2: 1.5 bytes per parameter per GPU (above) ×
    # 70.55e9 = 105.8 GB of model state, plus about 12 GB of activations.
    finding = only(sixteen_gpus(catalog, Workload("w1", "Llama")), "WORKLOAD-MEMORY")
    assert "118 GB per GPU" in finding.message and "80.0 GB HBM" in finding.message


def test_memory_quiet_exactly_at_usable_hbm(catalog) -> None:
    # 1.5 bytes per parameter per GPU (above) × N = 76.968728985 GB, the usable HBM.
    design = sixteen_gpus(catalog, job(params=81559 * 2**20 * 0.9 / 1.5, tp=8, zero=1))
    result = evaluate_workload(design, design.workloads[0])
    assert result.memory_gb_per_gpu == pytest.approx(81559 * 2**20 * 0.9 / 1e9)
    assert run(design, "WORKLOAD-MEMORY") == []


def test_deadline_fires_past_the_target(catalog) -> None:
    design = sixteen_gpus(catalog, job(target_days=100))
    days = evaluate_workload(design, design.workloads[0]).days
    assert days > 100
    finding = only(design, "WORKLOAD-DEADLINE")
    assert finding.severity is Severity.WARNING
    assert finding.objects == ("w1",)
    assert f"takes {days:,.1f} days on 16 GPUs" in finding.message
    assert "past its target of 100.0 days" in finding.message


def test_deadline_quiet_exactly_at_the_target(catalog) -> None:
    design = sixteen_gpus(catalog, job())
    design.workloads[0].target_days = evaluate_workload(design, design.workloads[0]).days
    assert run(design, "WORKLOAD-DEADLINE") == []


@pytest.mark.parametrize("workload", [job(target_days=None), job(kind="inference", target_days=1)])
def test_deadline_quiet_without_a_training_target(catalog, workload: Workload) -> None:
    assert run(sixteen_gpus(catalog, workload), "WORKLOAD-DEADLINE") == []


def mixed_design(catalog, *workloads: Workload) -> Design:
    """One DGX H100 and one DGX H200: 8 GPUs of each model."""
    r = rack(
        rack_type=RDHX_48U,
        cooling="rear-door",
        devices=[dev("h100", DGX_H100, 1), dev("h200", DGX_H200, 9)],
    )
    return make_design(catalog, r, workloads=workloads)


def test_mixed_workload_fires_for_more_gpus_than_its_model_has(catalog) -> None:
    design = mixed_design(catalog, job(gpus=16, gpu_type=H100))
    finding = only(design, "WORKLOAD-MIXED-GPU")
    assert finding.severity is Severity.ERROR
    assert finding.objects == ("w1",)
    assert f"asks for 16 GPUs, but the design has only 8 {H100}" in finding.message
    assert f"8 × {H100}, 8 × {H200}" in finding.message


def test_mixed_workload_warns_without_a_gpu_model(catalog) -> None:
    finding = only(mixed_design(catalog, job()), "WORKLOAD-MIXED-GPU")
    assert finding.severity is Severity.WARNING
    assert finding.objects == ("w1",)
    assert "names no GPU model" in finding.message and "planned on the 8" in finding.message


def test_mixed_workload_quiet_within_its_model(catalog) -> None:
    assert run(mixed_design(catalog, job(gpus=8, gpu_type=H100)), "WORKLOAD-MIXED-GPU") == []
    assert run(mixed_design(catalog, job(gpus=8, gpu_type=DGX_H200)), "WORKLOAD-MIXED-GPU") == []
    assert run(sixteen_gpus(catalog, job()), "WORKLOAD-MIXED-GPU") == []


# -- the catalog snapshot ---------------------------------------------------------------------


def test_catalog_missing_fires_for_a_device_type(catalog) -> None:
    design = make_design(catalog, rack(devices=[dev("ghost-1", "ghost-server", 1)]))
    finding = only(design, "CATALOG-MISSING")
    assert finding.severity is Severity.ERROR
    assert finding.objects == ("ghost-1", "r1")
    assert "'ghost-server'" in finding.message and "A01" in finding.message


def test_catalog_missing_fires_for_a_rack_type(catalog) -> None:
    design = make_design(catalog, rack(rack_type="ghost-rack"))
    finding = only(design, "CATALOG-MISSING")
    assert finding.objects == ("r1",)
    assert "Rack A01" in finding.message and "'ghost-rack'" in finding.message


def test_catalog_missing_quiet_when_the_snapshot_is_complete(catalog) -> None:
    design = make_design(catalog, two_dgx())
    assert run(design, "CATALOG-MISSING") == []
    del design.device_types[AIR_42U]
    assert [f.objects for f in run(design, "CATALOG-MISSING")] == [("r1",)]


# -- a rule that raises -----------------------------------------------------------------------


@pytest.fixture
def broken_rules():
    """Two throwaway rules that raise (one per rack A01, one on the design), removed
    from the registry afterwards."""

    @rule(
        "TEST-BROKEN-RACK",
        title="Raises on rack r1",
        severity=Severity.ERROR,
        scope="rack",
        looks_at={"rack", "device"},
        source="test",
    )
    def broken_rack(ctx, me, r):
        yield me.finding("before the crash", r.id)
        if r.id == "r1":
            raise ZeroDivisionError("odd data")

    @rule(
        "TEST-BROKEN-DESIGN",
        title="Always raises",
        severity=Severity.WARNING,
        scope="design",
        looks_at={"design"},
        source="test",
    )
    def broken_design(ctx, me, design):
        raise KeyError("nothing")

    try:
        yield broken_rack, broken_design
    finally:
        REGISTRY.pop("TEST-BROKEN-RACK", None)
        REGISTRY.pop("TEST-BROKEN-DESIGN", None)


def test_a_rule_that_raises_is_one_internal_error(catalog, broken_rules) -> None:
    other = rack("r2", name="B01")
    design = make_design(catalog, two_dgx(power_limit_kw=12.0), other)
    found = check_design(design)
    internal = [f for f in found if f.rule == INTERNAL_ERROR]
    assert len(internal) == 2
    on_rack, on_design = internal
    assert on_rack.severity is Severity.ERROR
    assert on_rack.objects == ("r1",)
    assert "TEST-BROKEN-RACK" in on_rack.message and "rack 'A01'" in on_rack.message
    assert "ZeroDivisionError: odd data" in on_rack.message
    assert on_design.objects == ("design",)
    assert "TEST-BROKEN-DESIGN" in on_design.message and "the design" in on_design.message
    # The other rules still ran, and the broken rule still checked the other rack.
    assert {"RACK-POWER", "RACK-COOLING"} <= {f.rule for f in found}
    assert Finding("TEST-BROKEN-RACK", Severity.ERROR, "before the crash", ("r2",)) in found
    assert sorted(Checker(design).findings(), key=repr) == sorted(found, key=repr)


def test_run_rule_with_a_fake_rule(tiny_design) -> None:
    def explode(ctx, me, device):
        raise RuntimeError(f"cannot read {device.id}")

    fake = Rule(
        "FAKE-RULE", "fake", Severity.INFO, "device", frozenset({"device"}), "test", explode
    )
    _, device = tiny_design.find_device("d2")
    (finding,) = full_check.run_rule(RuleContext(tiny_design), fake, device, "d2")
    assert finding.rule == INTERNAL_ERROR and finding.severity is Severity.ERROR
    assert finding.objects == ("d2",)
    assert "FAKE-RULE" in finding.message and "device 'dgx-002'" in finding.message
    assert "RuntimeError: cannot read d2" in finding.message
    others = check_design(tiny_design)
    assert check_design(tiny_design, rules=[*REGISTRY.values(), fake]) == others + [
        f for f in check_design(tiny_design, rules=[fake])
    ]
    assert len(check_design(tiny_design, rules=[fake])) == 3  # one per device


# -- incremental checking ---------------------------------------------------------------------

GHOST = "ghost-type"
L40S = "generic-pcie-4gpu-l40s"  # 4 GPUs: a count that 8-way TP does not divide
ADDABLE = (
    DGX_H100,
    DGX_H200,
    L40S,
    "mixed-8gpu",
    "dgx-639",
    "nvidia-qm9700",
    HALF_U.slug,
    ONE_AND_HALF_U.slug,
    ONE_U.slug,
    PFS,
    GHOST,
)


def incremental_start(catalog) -> Design:
    """Two rows: three racks of DGX H100 and switches, a storage rack, a workload."""
    a1 = rack(
        "ra1",
        RDHX_48U,
        "rear-door",
        name="A01",
        devices=[dev(f"dgx-{i}", DGX_H100, 1 + 8 * i) for i in range(3)]
        + [dev("leaf-1", "nvidia-qm9700", 40)],
    )
    a2 = rack(
        "ra2",
        RDHX_48U,
        "rear-door",
        name="A02",
        devices=[dev(f"dgx-{i}", DGX_H100, 1 + 8 * (i - 3)) for i in range(3, 6)],
    )
    b1 = rack(
        "rb1",
        AIR_42U,
        name="B01",
        power_limit_kw=12.0,
        devices=[
            dev("pfs-1", PFS, 1),
            dev("stor-1", STORAGE_SWITCH, 30),
            dev("mgmt-1", ONE_U.slug, 42),
            dev("patch-1", HALF_U.slug, 41),
        ],
    )
    design = make_design(
        catalog,
        a1,
        a2,
        b1,
        workloads=(Workload("w1", "Llama 3 8B", model="llama3-8b", tp=8, target_days=30),),
        tiers=(StorageTier("tier-hot", "Hot", "hot", device_ids=["pfs-1"]),),
    )
    design.device_types.update(snapshot_for(catalog, ["nvidia-qm9700", PFS, DGX_H200, L40S]))
    mixed = server(catalog, "mixed-8gpu", gpu_count=4, props={"gpus": {H200: 4}})
    starved = server(catalog, "dgx-639", props={"host_ram_gb": 639})
    design.device_types.update({mixed.slug: mixed, starved.slug: starved})
    row_b = Row("row-b", "Row B", [design.sites[0].rows[0].racks.pop()])
    design.sites[0].rows.append(row_b)
    design.reindex()
    return cabled(design, "pfs-1", "stor-1")


def draw_op(data, design: Design, fresh) -> ops.Op | None:
    racks = [r.id for r in design.iter_racks()]
    devices = [d.id for _, d in design.iter_devices()]
    kinds = ["add_rack"]
    if racks:
        kinds += ["add", "add", "remove_rack"]
    if devices:
        kinds += ["move", "move", "remove"]
    kind = data.draw(st.sampled_from(kinds), label="kind")
    position = st.one_of(st.none(), st.integers(min_value=-1, max_value=50))
    face = st.sampled_from(["front", "rear"])
    if kind == "add":
        device_id = next(fresh)
        device = Device(
            device_id,
            device_id,
            data.draw(st.sampled_from(ADDABLE), label="type"),
            position=data.draw(position, label="position"),
            face=data.draw(face, label="face"),
        )
        return ops.AddDevice(data.draw(st.sampled_from(racks), label="rack"), device)
    if kind == "move":
        return ops.MoveDevice(
            data.draw(st.sampled_from(devices), label="device"),
            data.draw(st.sampled_from(racks), label="to rack"),
            data.draw(position, label="position"),
            data.draw(face, label="face"),
        )
    if kind == "remove":
        return ops.RemoveDevice(data.draw(st.sampled_from(devices), label="device"))
    if kind == "remove_rack":
        return ops.RemoveRack(data.draw(st.sampled_from(racks), label="rack"))
    rack_id = next(fresh)
    inside = [
        Device(n, n, data.draw(st.sampled_from(ADDABLE), label="type"), position=1 + 8 * i)
        for i, n in enumerate(next(fresh) for _ in range(data.draw(st.integers(0, 2))))
    ]
    new = Rack(
        rack_id,
        rack_id,
        data.draw(st.sampled_from([AIR_42U, RDHX_48U, "ghost-rack"]), label="rack type"),
        cooling=data.draw(st.sampled_from(["air", "rear-door", "liquid"]), label="cooling"),
        power_limit_kw=data.draw(st.sampled_from([12.0, 20.4, 50.0])),
        devices=inside,
    )
    return ops.AddRack(data.draw(st.sampled_from(["row-a", "row-b"]), label="row"), new)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_incremental_checker_matches_a_full_check(catalog, data) -> None:
    design = incremental_start(catalog)
    checker = Checker(design)
    assert sorted(checker.findings(), key=repr) == sorted(check_design(design), key=repr)
    fresh = (f"new-{i}" for i in itertools.count())
    undo: list[ops.Op] = []
    for _ in range(data.draw(st.integers(min_value=1, max_value=12), label="steps")):
        undoing = bool(undo) and data.draw(st.integers(0, 3), label="undo?") == 0
        op = undo.pop() if undoing else draw_op(data, design, fresh)
        try:
            applied = ops.apply(design, op)
        except EditError:
            continue
        if not undoing:
            undo.append(applied.inverse)
        checker.update(applied.change)
        expected = sorted(check_design(design), key=repr)
        assert sorted(checker.findings(), key=repr) == expected, op


def test_incremental_start_has_findings_to_track(catalog) -> None:
    """The property test's start is realistic: it passes, so edits make findings come
    and go (a broken start would hide disagreements)."""
    design = incremental_start(catalog)
    assert [f for f in check_design(design) if f.severity is Severity.ERROR] == []
    applied = ops.apply(design, ops.RemoveDevice("pfs-1"))
    checker = Checker(design)
    assert "STORAGE-HOT-TIER" in {f.rule for f in checker.findings()}
    checker.update(ops.apply(design, applied.inverse).change)
    assert "STORAGE-HOT-TIER" not in {f.rule for f in checker.findings()}


# -- every template passes --------------------------------------------------------------------


def errors_of(design: Design) -> list[Finding]:
    return [f for f in check_design(design) if f.severity is Severity.ERROR]


def test_the_sample_design_has_no_error(catalog) -> None:
    assert errors_of(sample_design(catalog)) == []


@pytest.mark.parametrize("name", sorted(TEMPLATES))
@pytest.mark.parametrize("gpus", [8, 100, 2048])
def test_every_template_has_no_error(catalog, name: str, gpus: int) -> None:
    design = build_template(name, gpus=gpus, catalog=catalog)
    assert errors_of(design) == []
    assert sorted(Checker(design).findings(), key=repr) == sorted(check_design(design), key=repr)


def test_incremental_checker_after_removing_a_used_type(catalog) -> None:
    """A snapshot change drops the per-type figures the checker's rack budgets use."""
    design = make_design(catalog, two_dgx(power_limit_kw=12.0))
    checker = Checker(design)
    assert {"RACK-POWER", "RACK-COOLING"} <= {f.rule for f in checker.findings()}
    checker.update(ops.apply(design, ops.RemoveDeviceType(DGX_H100)).change)
    # Full check: the DGX type is gone, so CATALOG-MISSING for both and unknown power in A01.
    assert sorted(checker.findings(), key=repr) == sorted(check_design(design), key=repr)


def test_incremental_checker_after_adding_a_missing_type(catalog) -> None:
    design = make_design(catalog, rack(devices=[dev("load", LOAD_12KW.slug, 1)]))
    del design.device_types[LOAD_12KW.slug]
    checker = Checker(design)
    # A device of a missing type draws unknown power, not 0 kW (issue 19).
    assert {f.rule for f in checker.findings()} == {"CATALOG-MISSING", "RACK-POWER-UNKNOWN"}
    heavier = dataclasses.replace(LOAD_12KW, max_power_w=20400)
    checker.update(ops.apply(design, ops.AddDeviceType(heavier)).change)
    # Full check: 20.4 kW in a 12 kW air rack is RACK-COOLING; the catalog finding goes,
    # and the known device now needs a PDU the rack lacks (RACK-PDU).
    assert {f.rule for f in check_design(design)} == {"RACK-COOLING", "RACK-PDU"}
    assert sorted(checker.findings(), key=repr) == sorted(check_design(design), key=repr)


# -- RACK-FEED and the budgets a planner sets on the rack -------------------------------------


def test_feed_fires_when_one_feed_cannot_carry_the_rack(catalog) -> None:
    """Two DGX H100 (20.4 kW) on 415 V three-phase 32 A feeds: 80 % of √3·415·32 W is
    18.4 kW, so the rack survives normal running (10.2 kW a side) but not a failover."""
    r = two_dgx()
    r.set_feed("a", Feed(415.0, 3, 32.0))
    r.set_feed("b", Feed(415.0, 3, 63.0))
    finding = only(make_design(catalog, r), "RACK-FEED")
    assert finding.severity is Severity.ERROR and finding.objects == ("r1",)
    assert "20.4 kW" in finding.message
    assert "feed A (415 V three-phase 32 A, 18.4 kW at 80 %)" in finding.message
    assert "if feed B fails" in finding.message


def test_feed_is_quiet_at_the_limit_and_without_feeds(catalog) -> None:
    r = two_dgx()
    # 20.4 kW / (0.8 · 230 V) = 110.9 A single phase: a 111 A feed just carries it.
    r.set_feed("a", Feed(230.0, 1, 111.0))
    r.set_feed("b", Feed(230.0, 1, 111.0))
    assert run(make_design(catalog, r), "RACK-FEED") == []
    unknown = two_dgx()  # feeds not set: nothing to check
    assert run(make_design(catalog, unknown), "RACK-FEED") == []


def test_budgets_read_the_racks_own_limits(catalog) -> None:
    from workbench.rules.budgets import BudgetState, feed_limit_kw, rack_budgets

    r = two_dgx(cooling_limit_kw=18.0, max_weight_kg=200.0)
    r.set_feed("a", Feed(415.0, 3, 32.0))
    r.set_feed("b", Feed(415.0, 3, 32.0))
    design = make_design(catalog, r)
    budgets = rack_budgets(design, r, rack_load(design, r))
    assert budgets.cooling.limit == 18.0 and budgets.cooling.state is BudgetState.OVER
    assert budgets.weight.limit == 200.0 and budgets.weight.state is BudgetState.OVER
    assert feed_limit_kw(Feed(415.0, 3, 32.0)) == pytest.approx(3**0.5 * 415 * 32 * 0.8 / 1000)
    assert budgets.feed_a.used == pytest.approx(10.2) and budgets.feed_a.state is BudgetState.OK
    assert budgets.failover.state is BudgetState.OVER
    assert budgets.heat_btu_h == pytest.approx(20400 * 3.412)
    assert set(budgets.over()) >= {"cooling", "weight", "failover"}
    assert {f.rule for f in check_design(design)} >= {"RACK-COOLING", "RACK-WEIGHT", "RACK-FEED"}


def test_rack_pdu_flags_equipment_without_a_pdu(catalog) -> None:
    """Before issue 24: a rack with devices and no PDU passed, and the BOM counted no
    PDU for it."""
    bare = make_design(catalog, two_dgx())
    (finding,) = run(bare, "RACK-PDU")
    assert finding.severity is Severity.WARNING and "2 device(s) and no PDU" in finding.message
    pdu = dev("pdu-a", "generic-pdu-3ph-415v-63a", None, "rear")
    powered = make_design(catalog, two_dgx())
    powered.device_types.update(snapshot_for(catalog, ["generic-pdu-3ph-415v-63a"]))
    ops.apply(powered, ops.AddDevice(powered.sites[0].rows[0].racks[0].id, pdu))
    assert run(powered, "RACK-PDU") == []


def test_a_finding_above_a_rules_declared_worst_is_refused() -> None:
    """A rule that gives a finding worse than it declares fails loudly (a template's job
    choice skips the rules that cannot give an error, so the declaration must hold)."""
    pools = REGISTRY["STORAGE-POOLS"]
    assert pools.severity is Severity.WARNING and pools.most_severe is Severity.ERROR
    assert pools.finding("x", severity=Severity.ERROR).severity is Severity.ERROR
    checkpoint = REGISTRY["STORAGE-CHECKPOINT"]
    assert checkpoint.most_severe is Severity.WARNING
    assert checkpoint.finding("x", severity=Severity.INFO).severity is Severity.INFO
    with pytest.raises(ValueError, match="STORAGE-CHECKPOINT.*ERROR"):
        checkpoint.finding("x", severity=Severity.ERROR)


def test_job_choice_asks_only_rules_that_can_give_an_error(monkeypatch) -> None:
    """The template's job is the one the error-giving workload rules pass; the
    warning-only ones (the checkpoint rule weighing every rack) are not run."""
    from workbench.templates import workload_choice
    from workbench.templates.builder import build_template

    asked: list[str] = []
    run = full_check.run_rule

    def spy(ctx, registered, *args, **kwargs):
        asked.append(registered.id)
        return run(ctx, registered, *args, **kwargs)

    monkeypatch.setattr(full_check, "run_rule", spy)
    design = build_template("dgx-h100-superpod", gpus=64)
    assert asked and "STORAGE-CHECKPOINT" not in asked and "STORAGE-POOLS" in asked
    assert all(REGISTRY[r].most_severe is Severity.ERROR for r in asked)
    chosen = workload_choice.choose_workload(design, 8)
    design.workloads = [chosen]
    design.reindex()
    found = check_design(design, rules=[r for r in REGISTRY.values() if r.scope == "workload"])
    assert not [f for f in found if f.severity is Severity.ERROR]
