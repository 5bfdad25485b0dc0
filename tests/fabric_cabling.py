"""Cable a template design by hand, for the Fabric view's tests and benchmark.

The templates place the fabric switches (``ib-leaf-*``, ``ib-spine-*``, ``ib-core-*``,
``stor-leaf-*``, ``stor-spine-*``, the management switches) but, until the generator
builds their fabrics, draw no links.  This helper draws the textbook wiring on them so
the view has something real to show:

* compute: rail-optimized scalable units of 32 eight-GPU nodes (GPU *i* of every node
  of a unit to rail leaf *i* of the unit: NVIDIA DGX SuperPOD H100 reference
  architecture, "compute fabric"), each leaf half down and half up; two tiers with
  every leaf spread evenly over every spine, or, when the template sized three tiers,
  pods of ``k/2`` leaves and ``k/2`` spines with spine *j* of every pod to core group
  *j* (the k-ary fat tree of Al-Fares et al., SIGCOMM 2008);
* storage: every GPU node's ``storage0`` and ``storage1`` and the storage appliances'
  first two ports to the storage leaves in turn (appliances whose ports cannot run on
  the leaf's, the 100G object nodes on 800G ports, are left out), the leaves spread
  over the spines;
* management: each compute rack's switch takes its rack's ``mgmt0`` ports, and its
  last two ports go to a pair of aggregation switches.

It appends to ``design.links`` directly (a builder making a design, not an edit) and
reindexes.  Every link is checked with :func:`workbench.model.ports.link_problem`, so
the wiring is one the model accepts.
"""

from __future__ import annotations

from collections import defaultdict

from workbench.model import Design, Device, Link
from workbench.model.ports import link_problem, ports_of

SU_NODES = 32


class _Cabler:
    def __init__(self, design: Design):
        self.design = design
        self.next_port: dict[str, int] = defaultdict(int)
        self.links: list[Link] = []
        self.n = len(design.links)
        self._ports: dict[str, list[str]] = {}
        self._checked: dict[tuple[str, str, str, str], str | None] = {}

    def data_ports(self, device: Device) -> list[str]:
        ports = self._ports.get(device.device_type)
        if ports is None:
            item = self.design.device_types[device.device_type]
            ports = self._ports[device.device_type] = [
                p.name for p in ports_of(item) if not p.mgmt_only
            ]
        return ports

    def take(self, device: Device) -> str:
        ports = self.data_ports(device)
        i = self.next_port[device.id]
        self.next_port[device.id] = i + 1
        return ports[i]

    def link(self, a: Device, a_port: str, b: Device, b_port: str, network: str) -> None:
        types = self.design.device_types
        key = (a.device_type, a_port, b.device_type, b_port)
        if key not in self._checked:
            self._checked[key] = link_problem(
                types[a.device_type], a_port, types[b.device_type], b_port
            )
        problem = self._checked[key]
        assert problem is None, f"{a.name} {a_port} – {b.name} {b_port}: {problem}"
        self.n += 1
        self.links.append(Link(f"l{self.n:06d}", a.id, a_port, b.id, b_port, network))

    def mesh(self, lower: list[Device], upper: list[Device], uplinks: int, network: str) -> None:
        """Each lower switch spreads ``uplinks`` links evenly over ``upper`` (starting
        where the previous one stopped, so every upper switch gets its share)."""
        for i, switch in enumerate(lower):
            for j in range(uplinks):
                top = upper[(i * uplinks + j) % len(upper)]
                self.link(switch, self.take(switch), top, self.take(top), network)


def _named(design: Design, prefix: str) -> list[Device]:
    return [d for _r, d in design.iter_devices() if d.name.startswith(prefix)]


def cable_template(design: Design) -> Design:
    """Wire the template's switches (see the module docstring); returns ``design``."""
    cabler = _Cabler(design)
    gpu_nodes = [
        d for _r, d in design.iter_devices() if design.device_types[d.device_type].gpu_count
    ]
    _compute(cabler, gpu_nodes)
    _storage(cabler, gpu_nodes)
    _management(cabler)
    design.links.extend(cabler.links)
    design.reindex()
    return design


def _compute(cabler: _Cabler, nodes: list[Device]) -> None:
    design = cabler.design
    leaves = _named(design, "ib-leaf-") or _named(design, "eth-leaf-")
    spines = _named(design, "ib-spine-") or _named(design, "eth-spine-")
    cores = _named(design, "ib-core-") or _named(design, "eth-core-")
    if not leaves:
        return
    half = len(cabler.data_ports(leaves[0])) // 2
    for su_start in range(0, len(nodes), SU_NODES):
        su = nodes[su_start : su_start + SU_NODES]
        rails = su_start // SU_NODES * 8
        for rail in range(8):
            leaf = leaves[rails + rail]
            for node in su:
                cabler.link(node, f"compute{rail}", leaf, cabler.take(leaf), "net-compute")
    if not cores:
        cabler.mesh(leaves, spines, half, "net-compute")
        return
    pods = [(leaves[p : p + half], spines[p : p + half]) for p in range(0, len(leaves), half)]
    for pod_leaves, pod_spines in pods:
        cabler.mesh(pod_leaves, pod_spines, half, "net-compute")
    group = max(1, len(cores) // half)
    for _pod_leaves, pod_spines in pods:
        for j, spine in enumerate(pod_spines):
            cabler.mesh([spine], cores[j * group : (j + 1) * group], half, "net-compute")


def _storage(cabler: _Cabler, nodes: list[Device]) -> None:
    design = cabler.design
    leaves, spines = _named(design, "stor-leaf-"), _named(design, "stor-spine-")
    if not leaves:
        return
    half = len(cabler.data_ports(leaves[0])) // 2
    appliances = [
        d for _r, d in design.iter_devices() if design.device_types[d.device_type].kind == "storage"
    ]
    ends = [(n, p) for n in nodes for p in ("storage0", "storage1")]
    ends += [(a, p) for a in appliances for p in ("storage0", "storage1")]
    types = design.device_types
    probe = types[leaves[0].device_type]
    fits = [
        (h, p)
        for h, p in ends
        if link_problem(types[h.device_type], p, probe, cabler.data_ports(leaves[0])[0]) is None
    ]
    for i, (host, port) in enumerate(fits[: len(leaves) * half]):
        leaf = leaves[i // half]
        cabler.link(host, port, leaf, cabler.take(leaf), "net-storage")
    if spines:
        cabler.mesh(leaves, spines, half, "net-storage")


def _management(cabler: _Cabler) -> None:
    design = cabler.design
    aggregation = _named(design, "mgmt-agg-")

    def access(rack) -> Device | None:
        return next(
            (
                d
                for d in rack.devices
                if d.name.startswith("mgmt-")
                and not d.name.startswith("mgmt-agg-")
                and design.device_types[d.device_type].kind == "switch"
            ),
            None,
        )

    racks = [(r, s) for r in design.iter_racks() if (s := access(r)) is not None]
    for i, (rack, switch) in enumerate(racks):
        for device in rack.devices:
            item = design.device_types[device.device_type]
            if device is not switch and any(p.name == "mgmt0" for p in ports_of(item)):
                cabler.link(device, "mgmt0", switch, cabler.take(switch), "net-mgmt")
        pair = aggregation[2 * (i // 40) : 2 * (i // 40) + 2]
        for k, agg in enumerate(pair):
            cabler.link(switch, f"eth{47 + k}", agg, cabler.take(agg), "net-mgmt")


def small_fabric(catalog) -> Design:
    """A fabric small enough to check by hand, on shipped catalog items.

    Four DGX H100 nodes, two per rack (``A01``: n1, n2; ``A02``: n3, n4), and a network
    rack ``N01`` with two QM9700 leaves, two QM9700 spines, one QM9700 nobody cabled
    yet and a management switch.  Ports ``compute0``–``compute3`` of every node go to
    leaf 1, ``compute4``–``compute7`` to leaf 2, filling each leaf's ``p1``–``p16``; each
    leaf has eight links to each spine (its ``p17``–``p32``; the spines' ``p1``–``p16``).
    So: 32 host links and 32 leaf–spine links, all on network ``net-compute``, eight
    links between every rack of nodes and every leaf and between every leaf and every
    spine.
    """
    from workbench.catalog import snapshot_for
    from workbench.model import Network, Rack, Row, Site

    def device(i: str, name: str, slug: str, u: int) -> Device:
        return Device(id=i, name=name, device_type=slug, position=u)

    a01 = Rack(
        "r1",
        "A01",
        "generic-rack-48u-rdhx",
        devices=[
            device("n1", "dgx-01", "nvidia-dgx-h100", 2),
            device("n2", "dgx-02", "nvidia-dgx-h100", 12),
        ],
    )
    a02 = Rack(
        "r2",
        "A02",
        "generic-rack-48u-rdhx",
        devices=[
            device("n3", "dgx-03", "nvidia-dgx-h100", 2),
            device("n4", "dgx-04", "nvidia-dgx-h100", 12),
        ],
    )
    n01 = Rack(
        "r3",
        "N01",
        "generic-rack-48u-rdhx",
        power_limit_kw=40.0,
        devices=[
            device("leaf1", "leaf-1", "nvidia-qm9700", 10),
            device("leaf2", "leaf-2", "nvidia-qm9700", 11),
            device("spine1", "spine-1", "nvidia-qm9700", 20),
            device("spine2", "spine-2", "nvidia-qm9700", 21),
            device("spare", "spare-1", "nvidia-qm9700", 30),
            device("mgmt", "mgmt-1", "generic-mgmt-48p-10g", 40),
        ],
    )
    slugs = ["generic-rack-48u-rdhx", "nvidia-dgx-h100", "nvidia-qm9700", "generic-mgmt-48p-10g"]
    design = Design(
        name="Small fabric",
        sites=[
            Site(
                "s1",
                "Hall 1",
                rows=[
                    Row("row1", "Row A", racks=[a01, a02]),
                    Row("row2", "Row N", racks=[n01]),
                ],
            )
        ],
        device_types=snapshot_for(catalog, slugs),
        networks=[Network("net-compute", "Compute fabric", "compute")],
    )
    links: list[Link] = []

    def link(a: str, a_port: str, b: str, b_port: str) -> None:
        links.append(Link(f"l{len(links) + 1:06d}", a, a_port, b, b_port, "net-compute"))

    for k, node in enumerate(("n1", "n2", "n3", "n4")):
        for port in range(8):
            leaf = "leaf1" if port < 4 else "leaf2"
            link(node, f"compute{port}", leaf, f"p{k * 4 + port % 4 + 1}")
    for leaf_no, leaf in enumerate(("leaf1", "leaf2")):
        for j in range(16):
            spine = ("spine1", "spine2")[j % 2]
            link(leaf, f"p{17 + j}", spine, f"p{leaf_no * 8 + j // 2 + 1}")
    design.links = links
    design.reindex()
    return design
