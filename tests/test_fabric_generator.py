"""The fabric generator: wiring, placement, undo, replacing a plane, bad requests.

The counts are checked against the published tables in ``test_fabric_sizing``; here the
links themselves are read back from the model.
"""

from __future__ import annotations

import copy
import re
from collections import Counter, defaultdict
from dataclasses import replace

import pytest

from workbench.calc.fabric.planes import plane_structure, plane_structures
from workbench.calc.summary import rack_load
from workbench.catalog import load_catalog
from workbench.model import ops
from workbench.model.design import Device
from workbench.model.index import index_problems
from workbench.model.placement import free_ranges
from workbench.model.ports import link_problem
from workbench.planning.fabric.attach import attach_hosts
from workbench.planning.fabric.generator import FabricRequest, generate_fabric, plan_fabric
from workbench.planning.fabric.placement import SwitchGroup, network_racks, place_switches
from workbench.planning.fabric.sizing import FabricError
from workbench.rules.budgets import BudgetState, rack_budgets
from workbench.templates.builder import build_nodes

RAIL = FabricRequest(plane="compute", switch="nvidia-qm9700", topology="rail")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def dgx(catalog, nodes: int):
    return build_nodes("nvidia-dgx-h100", nodes, catalog)


def name_of(design, device_id: str) -> str:
    return design.index.devices[device_id][1].name


def links_valid(design) -> None:
    index = design.index
    for link in design.links:
        a = design.item(index.devices[link.a_device][1].device_type)
        b = design.item(index.devices[link.b_device][1].device_type)
        assert link_problem(a, link.a_port, b, link.b_port, link.speed_gbps) is None, link
        assert link.network and link.speed_gbps and link.cable_type is None
        assert link.length_m is None


def neighbours(design, plane: str) -> dict[str, Counter]:
    """Device id → Counter of the devices it is cabled to on ``plane`` (links each)."""
    out: dict[str, Counter] = defaultdict(Counter)
    for link in plane_structure(design, plane).links:
        out[link.a_device][link.b_device] += 1
        out[link.b_device][link.a_device] += 1
    return out


def test_rail_wiring(catalog) -> None:
    # 48 DGX H100: one full SU of 32 and a partial one of 16, which still gets its 8
    # rail leaves.  16 leaves × 32 uplinks → 8 spines (ceil(512/64), divides 32).
    design = dgx(catalog, 48)
    plan, _ = generate_fabric(design, catalog, RAIL)
    assert (plan.shape.leaves, plan.shape.spines, plan.shape.cores) == (16, 8, 0)
    links_valid(design)
    nodes = [d for _r, d in design.iter_devices() if d.device_type == "nvidia-dgx-h100"]
    by_end = {(lk.a_device, lk.a_port): lk for lk in design.links}
    for n, node in enumerate(nodes):
        for i in range(8):
            link = by_end[(node.id, f"compute{i}")]
            # GPU i of every node of SU s goes to rail leaf i of SU s, node q on port q.
            assert name_of(design, link.b_device) == f"cmp-leaf-su{n // 32 + 1:02d}-r{i + 1}"
            assert link.b_port == f"p{n % 32 + 1}"
            assert link.speed_gbps == 400 and link.network == "net-compute"
    near = neighbours(design, "compute")
    spines = set(plan.devices["spine"])
    for leaf in plan.devices["leaf"]:
        up = {s: n for s, n in near[leaf].items() if s in spines}
        # Each leaf's 32 uplinks evenly over the 8 spines: 4 to each.
        assert up == dict.fromkeys(spines, 4)


def test_three_tier_wiring(catalog) -> None:
    # 20 SUs (640 nodes) on QM9700: 160 leaves > 64 → 3 tiers.  Pods of 4 SUs (32 leaves),
    # 5 pods × 32 spines; cores per group: smallest C ≥ ceil(5 × 32 / 64) = 3 that divides
    # 32 → 4, so 32 groups × 4 = 128 cores.
    design = dgx(catalog, 640)
    plan, _ = generate_fabric(design, catalog, RAIL)
    shape = plan.shape
    assert (shape.tiers, shape.leaves, shape.spines, shape.cores) == (3, 160, 160, 128)
    near = neighbours(design, "compute")
    leaves, spines, cores = (set(plan.devices[t]) for t in ("leaf", "spine", "core"))
    pods: dict[frozenset, list[str]] = defaultdict(list)
    for leaf in leaves:
        up = {s: n for s, n in near[leaf].items() if s in spines}
        assert len(up) == 32 and set(up.values()) == {1}  # one link to each pod spine
        pods[frozenset(up)].append(leaf)
    assert sorted(len(p) for p in pods.values()) == [32] * 5
    for pod_leaves in pods.values():  # a pod holds whole SUs
        sus = {re.match(r"cmp-leaf-(su\d+)", name_of(design, lk)).group(1) for lk in pod_leaves}
        assert len(sus) == 4
    pod_of = {s: i for i, pod in enumerate(pods) for s in pod}
    for spine in spines:
        up = {c: n for c, n in near[spine].items() if c in cores}
        assert len(up) == 4 and set(up.values()) == {8}  # 32 uplinks, 8 to each core
    for core in cores:
        down = near[core]
        # One spine of every pod, 8 links each: the spines of one group.
        assert sorted(pod_of[s] for s in down) == list(range(5))
        assert set(down.values()) == {8}
    links_valid(design)


def test_breakout_lanes_on_faster_switches(catalog) -> None:
    design = dgx(catalog, 32)
    request = FabricRequest(plane="compute", switch="nvidia-q3400-ra", topology="rail")
    plan, _ = generate_fabric(design, catalog, request)
    leaf_ports = {lk.b_port for lk in design.links if lk.a_port.startswith("compute")}
    # 800G XDR ports carry two 400G links each: p1/1, p1/2, p2/1 …
    assert {"p1/1", "p1/2", "p16/2"} <= leaf_ports
    links_valid(design)
    assert plan.shape.leaf_down == 32


def test_planning_changes_nothing_and_applies_whole(catalog) -> None:
    design = dgx(catalog, 64)
    before = copy.deepcopy(design)
    plan = plan_fabric(design, catalog, RAIL)
    assert design == before and not index_problems(design)
    applied = ops.apply(design, plan.batch)
    assert len(design.links) == plan.added.links == 64 * 8 + 16 * 32
    ops.apply(design, applied.inverse)
    assert design == before
    assert index_problems(design) == []


def test_undo_of_a_generation(catalog) -> None:
    design = dgx(catalog, 40)
    before = copy.deepcopy(design)
    _plan, applied = generate_fabric(design, catalog, RAIL)
    assert design.links
    ops.apply(design, applied.inverse)
    assert design == before
    assert index_problems(design) == []


def test_a_failing_request_creates_nothing(catalog) -> None:
    design = dgx(catalog, 64)
    before = copy.deepcopy(design)
    # InfiniBand leaves cannot cable to Ethernet spines: found after the switches were
    # placed, so the placements must all be taken back.
    bad = FabricRequest(
        plane="compute", switch="nvidia-qm9700", spine_switch="nvidia-sn5600", topology="rail"
    )
    with pytest.raises(FabricError, match="different protocols"):
        plan_fabric(design, catalog, bad)
    with pytest.raises(FabricError, match="different protocols"):
        generate_fabric(design, catalog, bad)
    assert design == before and index_problems(design) == []
    # Too big for three tiers of QM9700: 282 SUs > 256; the message names the way out.
    big = dgx(catalog, 9000)
    big_before = copy.deepcopy(big)
    with pytest.raises(FabricError, match="nvidia-q3400-ra, 288 ports") as caught:
        generate_fabric(big, catalog, RAIL)
    assert "4 tiers" in str(caught.value)
    assert big == big_before


def test_replace_regenerates_the_plane(catalog) -> None:
    design = dgx(catalog, 64)
    generate_fabric(design, catalog, RAIL)
    first = {d.id for _r, d in design.iter_devices() if d.name.startswith("cmp-")}
    plan, _ = generate_fabric(
        design, catalog, FabricRequest(**{**RAIL.__dict__, "oversubscription": 2.0})
    )
    now = {d.id for _r, d in design.iter_devices() if d.name.startswith("cmp-")}
    assert not first & now  # the old switches are gone ...
    assert plan.removed.switches == len(first) and plan.removed.links == 64 * 8 + 16 * 32
    # ... and the new fabric is 2:1: 16 leaves of 32 down, 16 up; 4 spines (ceil(256/64)).
    assert (plan.shape.leaves, plan.shape.leaf_up, plan.shape.spines) == (16, 16, 4)
    assert len(design.links) == 64 * 8 + 16 * 16
    names = [d.name for _r, d in design.iter_devices()]
    assert len(names) == len(set(names))
    assert index_problems(design) == []


def test_top_of_rack_management(catalog) -> None:
    # 12 DGX H100, 4 to a rack: 3 racks, one access switch each at the rack's top unit,
    # two SN4600 spines in the network rack, each access switch with one 100G uplink to
    # each spine on a 2 × 100G breakout lane.
    design = dgx(catalog, 12)
    request = FabricRequest(
        plane="management",
        switch="generic-mgmt-48p-10g",
        spine_switch="nvidia-sn4600",
    )
    plan, _ = generate_fabric(design, catalog, request)
    assert plan.shape.topology == "tor" and (plan.shape.leaves, plan.shape.spines) == (3, 2)
    index = design.index
    for leaf in plan.devices["leaf"]:
        rack, device = index.devices[leaf]
        assert device.name == f"mgt-tor-{rack.name.lower()}"
        assert device.position == 48 and device.role == "management-switch"
    network = {r.id for r in network_racks(design)}
    assert all(index.devices[s][0].id in network for s in plan.devices["spine"])
    mgmt = plane_structure(design, "management")
    for link in mgmt.host_links:
        host, switch = (link.a_device, link.b_device)
        assert index.devices[host][0] is index.devices[switch][0]  # in its own rack
        assert link.a_port == "mgmt0" and link.speed_gbps == 10
    uplinks = [lk for lk in mgmt.switch_links]
    assert len(uplinks) == 6 and {lk.a_port for lk in uplinks} == {"uplink1", "uplink2"}
    assert {lk.b_port for lk in uplinks} >= {"swp1/1", "swp1/2"}
    assert {lk.speed_gbps for lk in uplinks} == {100}
    links_valid(design)


def test_oob_plane_cables_every_management_port(catalog) -> None:
    design = dgx(catalog, 12)
    generate_fabric(design, catalog, RAIL)
    request = FabricRequest(
        plane="oob", switch="generic-mgmt-48p-10g", spine_switch="nvidia-sn4600"
    )
    plan, _ = generate_fabric(design, catalog, request)
    oob = plane_structures(design)["oob"]
    # Every device with a management-only port is an end point of the OOB plane: the
    # DGX BMCs, the compute switches and the OOB switches themselves ...
    managed = [d for _r, d in design.iter_devices() if d.device_type != "generic-pdu-3ph-415v-63a"]
    assert {d.id for d in managed} == oob.hosts
    # ... and no switch is cabled to itself.
    assert all(lk.a_device != lk.b_device for lk in oob.links)
    assert plan.shape.oversubscription["leaf"] <= 3.0
    links_valid(design)


def test_new_switches_join_the_oob_plane(catalog) -> None:
    design = dgx(catalog, 12)
    oob = FabricRequest(plane="oob", switch="generic-mgmt-48p-10g", spine_switch="nvidia-sn4600")
    generate_fabric(design, catalog, RAIL)
    generate_fabric(design, catalog, oob)
    # Regenerating the compute plane replaces its switches; the new ones' management
    # ports land on the OOB access switches' free ports in the same edit.
    plan, _ = generate_fabric(design, catalog, RAIL)
    new = set(plan.devices["leaf"]) | set(plan.devices["spine"])
    assert new <= plane_structure(design, "oob").hosts
    assert any("management ports to the OOB plane" in n for n in plan.notes)


def test_attach_hosts(catalog) -> None:
    design = dgx(catalog, 10)
    storage = FabricRequest(
        plane="storage", switch="nvidia-sn4600", ports_per_host=2, speed_gbps=200
    )
    generate_fabric(design, catalog, storage)
    rack = next(
        r for r in design.iter_racks() if any(d.device_type == "nvidia-dgx-h100" for d in r.devices)
    )
    appliance = Device(design.index.new_id("device"), "pfs-new", "generic-allflash-pfs-node", 34)
    ops.apply(
        design,
        ops.Batch(
            (
                ops.AddDeviceType(catalog["generic-allflash-pfs-node"]),
                ops.AddDevice(rack.id, appliance),
            )
        ),
    )
    before = len(design.links)
    batch = attach_hosts(design, "storage", [appliance.id])
    ops.apply(design, batch)
    mine = [lk for lk in design.links[before:]]
    # Its four 400G storage ports run at the plane's 200G on the leaf's free ports.
    assert {lk.a_port for lk in mine} == {"storage0", "storage1", "storage2", "storage3"}
    assert {lk.speed_gbps for lk in mine} == {200}
    links_valid(design)


def test_attach_hosts_says_how_many_ports_are_missing(catalog) -> None:
    # 16 nodes × 2 ports fill one 64-port leaf (32 down, 32 up): nothing is free.
    design = dgx(catalog, 16)
    storage = FabricRequest(
        plane="storage", switch="nvidia-sn4600", ports_per_host=2, speed_gbps=200
    )
    generate_fabric(design, catalog, storage)
    rack = next(iter(design.iter_racks()))
    appliance = Device(design.index.new_id("device"), "pfs-new", "generic-allflash-pfs-node", 34)
    ops.apply(
        design,
        ops.Batch(
            (
                ops.AddDeviceType(catalog["generic-allflash-pfs-node"]),
                ops.AddDevice(rack.id, appliance),
            )
        ),
    )
    before = copy.deepcopy(design)
    with pytest.raises(FabricError, match="4 missing"):
        attach_hosts(design, "storage", [appliance.id])
    assert design == before
    with pytest.raises(FabricError, match="no leaf switches"):
        attach_hosts(design, "management", [appliance.id])


def test_new_network_racks_when_full(catalog) -> None:
    # 9 SUs on QM9700: 72 leaves > 64 → 3 tiers, pods of 4 SUs → 3 pods × 32 spines = 96;
    # cores per group: smallest C ≥ ceil(3 × 32 / 64) = 2 dividing 32 → 2, × 32 = 64.
    # 232 switches of 1.2 kW: a 48U rear-door rack (50 kW) takes 41 by power, so the
    # one network rack is far from enough: rows of racks like it are added in the same
    # edit, and laid out on the hall plan.
    design = dgx(catalog, 9 * 32)
    (model,) = network_racks(design)
    plan, _ = generate_fabric(design, catalog, RAIL)
    assert plan.shape.switches == 232
    assert plan.added.racks >= 5
    placed = {design.index.devices[d][0].id for tier in plan.devices.values() for d in tier}
    assert model.id in placed and placed <= {r.id for r in network_racks(design)}
    for rack_id in placed:
        rack = design.find_rack(rack_id)
        assert (rack.rack_type, rack.power_limit_kw, rack.feed("a")) == (
            model.rack_type,
            model.power_limit_kw,
            model.feed("a"),
        )
        assert rack.floor_x_mm is not None
        budgets = rack_budgets(design, rack, rack_load(design, rack))
        assert all(b.state is not BudgetState.OVER for b in budgets.named().values())
        # One unit stays free for the rack's out-of-band access switch.
        assert sum(len(r) for r in free_ranges(design, rack, "front")) >= 1


def test_place_switches_alone_changes_nothing(catalog) -> None:
    design = dgx(catalog, 8)
    before = copy.deepcopy(design)
    placement = place_switches(
        design, catalog, [SwitchGroup("nvidia-qm9700", ("a", "b"), "compute-switch")]
    )
    assert design == before
    assert [d.name for d in placement.devices[0]] == ["a", "b"]
    ops.apply(design, placement.batch)
    assert {d.name for _r, d in design.iter_devices()} >= {"a", "b"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"plane": "fast"}, "plane: one of"),
        ({"topology": "mesh"}, "topology: one of"),
        ({"switch": "nvidia-dgx-h100"}, "is a server, not a switch"),
        ({"switch": "no-such"}, "no item 'no-such'"),
        ({"hosts": ("nope",)}, "no device with id 'nope'"),
        ({"su_nodes": 0}, "su_nodes"),
        ({"switch": "nvidia-sn4600"}, "nvidia-sn4600 has no port that runs at 400G"),
        ({"speed_gbps": 10.0}, "compute0 .400G OSFP. cannot run at 10G or slower"),
    ],
)
def test_bad_requests(catalog, change, message) -> None:
    design = dgx(catalog, 8)
    before = copy.deepcopy(design)
    request = FabricRequest(**{**RAIL.__dict__, **change})
    with pytest.raises(FabricError, match=message):
        plan_fabric(design, catalog, request)
    assert design == before


def test_a_host_without_a_port_on_the_plane(catalog) -> None:
    design = dgx(catalog, 8)
    pdu = next(d for _r, d in design.iter_devices() if d.device_type == "generic-pdu-3ph-415v-63a")
    with pytest.raises(FabricError, match="has no port on the compute plane"):
        plan_fabric(design, catalog, FabricRequest(**{**RAIL.__dict__, "hosts": (pdu.id,)}))


def test_neighbouring_racks_may_share_an_access_switch(catalog) -> None:
    # 12 DGX H100 in racks A01–A03 of one row; two racks per access switch: A01's switch
    # serves A01 and A02 (8 hosts), A03's its own 4.
    design = dgx(catalog, 12)
    request = FabricRequest(
        plane="management",
        switch="generic-mgmt-48p-10g",
        spine_switch="nvidia-sn4600",
        racks_per_access_switch=2,
    )
    plan, _ = generate_fabric(design, catalog, request)
    index = design.index
    served = Counter()
    for link in plane_structure(design, "management").host_links:
        served[name_of(design, link.b_device)] += 1
    assert served == {"mgt-tor-a01": 8, "mgt-tor-a03": 4}
    assert [index.devices[s][0].name for s in plan.devices["leaf"]] == ["A01", "A03"]


def test_oob_tiers_read_back(catalog) -> None:
    design = dgx(catalog, 12)
    request = FabricRequest(
        plane="oob", switch="generic-mgmt-48p-10g", spine_switch="nvidia-sn4600"
    )
    plan, _ = generate_fabric(design, catalog, request)
    oob = plane_structure(design, "oob")
    assert oob.depth == 2
    assert set(oob.switches_in(2)) == set(plan.devices["spine"])
    assert set(oob.switches_in(1)) == set(plan.devices["leaf"])


@pytest.mark.parametrize("plane", ["compute", "storage", "management", "oob"])
def test_regenerating_a_template_plane(catalog, plane) -> None:
    """Each plane of a template design regenerated in place: the same fabric again,
    every link valid, the rules still pass, and one undo gives the design back."""
    from workbench.rules import Severity, check_design
    from workbench.templates import build_template

    design = build_template("dgx-h100-superpod", gpus=300, catalog=catalog)
    before = copy.deepcopy(design)
    count = len(plane_structure(design, plane).links)
    switch = {
        "compute": "nvidia-qm9700",
        "storage": "nvidia-sn4600",
        "management": "generic-mgmt-48p-10g",
        "oob": "generic-mgmt-48p-10g",
    }[plane]
    spine = {"storage": "nvidia-sn5600", "management": "nvidia-sn4600", "oob": "nvidia-sn4600"}
    request = FabricRequest(
        plane=plane,
        switch=switch,
        spine_switch=spine.get(plane),
        topology="rail" if plane == "compute" else "auto",
        ports_per_host=2 if plane == "storage" else None,
    )
    plan = plan_fabric(design, catalog, request)
    assert design == before
    applied = ops.apply(design, plan.batch)
    assert plan.removed.links >= count
    assert len(plane_structure(design, plane).links) == count
    links_valid(design)
    errors = [f for f in check_design(design) if f.severity is Severity.ERROR]
    assert errors == []
    # Every device with a management-only port is still on the OOB plane.
    assert len(plane_structure(design, "oob").hosts) == len(plane_structure(before, "oob").hosts)
    ops.apply(design, applied.inverse)
    assert design == before and index_problems(design) == []


def test_tries_sharing_a_hosts_memo_read_the_hosts_once(catalog, monkeypatch) -> None:
    """The access fabrics try 1, 2, 4 and 8 racks per switch; a failed try leaves the
    design as it was, so the hosts are read once for all tries (issue 21: each try
    re-scanned a million hosts)."""
    from workbench.planning.fabric import generator as fabric_generator

    calls = []
    real = fabric_generator.plane_hosts

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(fabric_generator, "plane_hosts", counted)
    design = dgx(catalog, 12)
    request = FabricRequest(
        plane="management", switch="generic-mgmt-48p-10g", spine_switch="nvidia-sn4600"
    )
    memo: dict = {}
    first, applied = generate_fabric(design, catalog, request, hosts_memo=memo)
    ops.apply(design, applied.inverse)  # as a failed try leaves it
    second, _ = generate_fabric(
        design, catalog, replace(request, racks_per_access_switch=2), hosts_memo=memo
    )
    assert len(calls) == 1
    assert second.shape.leaves < first.shape.leaves
    links_valid(design)


def test_network_racks_without_a_model_get_pdus(catalog) -> None:
    """Before issue 24: racks an action created without a model rack to copy had no
    PDU (no rule noticed, the BOM counted none).  With the design's network rack gone,
    the generator's new racks get an A- and a B-side PDU sized to their budget."""
    from workbench.planning.rack_pdus import PDU_CONTINUOUS_SHARE, pdu_capacity_kw
    from workbench.rules import check_design

    design = dgx(catalog, 32)
    for rack in network_racks(design):
        ops.apply(design, ops.RemoveRack(rack.id))
    before = {r.id for r in design.iter_racks()}
    generate_fabric(design, catalog, RAIL)
    new = [r for r in design.iter_racks() if r.id not in before]
    assert new
    for rack in new:
        pdus = [d for d in rack.devices if design.device_types[d.device_type].kind == "pdu"]
        for side in ("a", "b"):
            mine = [d for d in pdus if d.name.removeprefix(f"pdu-{rack.name.lower()}-")[0] == side]
            rated = sum(pdu_capacity_kw(design.device_types[d.device_type]) or 0 for d in mine)
            # Each side alone carries the whole budget at 80 % (a 50 kW rear-door rack
            # takes two 45 kW PDUs a side).
            assert mine and rated * PDU_CONTINUOUS_SHARE >= rack.power_limit_kw
    flagged = {o for f in check_design(design) if f.rule == "RACK-PDU" for o in f.objects}
    assert not flagged & {r.id for r in new}


def test_a_try_that_fails_before_placing_reads_no_network_racks(catalog, monkeypatch) -> None:
    """Sizing refuses a fabric before any switch is placed: the network racks (a walk of
    every rack, asked by each of a template's ten tries) are not read for it, and a try
    that places reads them once (issue 21)."""
    from workbench.planning.fabric import placement

    calls = []
    real = placement.network_racks

    def counted(design):
        calls.append(1)
        return real(design)

    monkeypatch.setattr(placement, "network_racks", counted)
    big = dgx(catalog, 9000)
    with pytest.raises(FabricError, match="4 tiers"):
        generate_fabric(big, catalog, RAIL)
    assert calls == []
    generate_fabric(dgx(catalog, 64), catalog, RAIL)
    assert calls == [1]
