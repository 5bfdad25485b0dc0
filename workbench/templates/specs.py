"""The design templates a user can start from, as data.

A template names the building blocks (GPU server, rack, fabric switch ...) and the
budget rules; :mod:`workbench.templates.builder` turns it into a design of any size.
Keeping the specs as data means ``workbench templates`` can list them and a later
"template editor" can add more without new code.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TemplateSpec:
    """What a template is made of.

    ``rack_fill`` is the share of a rack's cooling limit that compute may use: a planner
    keeps headroom for the management switch, PDUs and transients (and the A/B feed
    failover case), so racks are never packed to 100 % of the limit.
    """

    name: str
    title: str
    description: str
    server: str
    compute_rack: str
    compute_switch: str
    storage_switch: str
    management_switch: str
    network_rack: str
    storage_rack: str
    pdu: str
    default_gpus: int
    rack_fill: float = 0.9
    racks_per_row: int = 8
    compute_technology: str = "infiniband"
    compute_speed_gbps: float = 400.0
    #: Hot-tier read bandwidth to plan per GPU node, GB/s; the design never goes below
    #: the 50 GB/s floor of the domain brief §4 for clusters above 40 GPUs.
    read_gbs_per_node: float = 2.0
    #: Nodes per scalable unit of the rail-optimized compute fabric (NVIDIA DGX
    #: SuperPOD reference architectures: 32 DGX per SU).
    su_nodes: int = 32
    #: The storage fabric's spines (None: the storage leaf model).
    storage_spine_switch: str | None = None
    #: Spines of the management and out-of-band planes: the access switches' 100G
    #: QSFP28 uplinks land on its 200G ports broken out 2 × 100G.
    management_spine_switch: str = "nvidia-sn4600"
    #: The compute switch used when ``compute_switch`` cannot build a non-blocking
    #: 3-tier fabric of the requested size (a QM9700 fat tree ends at 65,536 ports);
    #: the design's properties say why it was chosen.
    large_compute_switch: str | None = None
    #: Rail-optimized compute fabric (True), two-tier leaf-spine (False), or None: rails
    #: for servers of 8 GPUs or more (a scenario picks the topology it compares).
    rail_optimized: bool | None = None


TEMPLATES: dict[str, TemplateSpec] = {
    spec.name: spec
    for spec in (
        TemplateSpec(
            name="dgx-h100-superpod",
            title="DGX H100 SuperPOD-style cluster",
            description="NVIDIA DGX H100 (8 × H100 SXM, 10.2 kW) four to a 48U rack with "
            "rear-door heat exchangers, NDR InfiniBand compute fabric (QM9700), "
            "Ethernet storage and management planes, an all-flash hot tier.",
            server="nvidia-dgx-h100",
            compute_rack="generic-rack-48u-rdhx",
            compute_switch="nvidia-qm9700",
            storage_switch="nvidia-sn4600",
            management_switch="generic-mgmt-48p-10g",
            network_rack="generic-rack-48u-rdhx",
            storage_rack="generic-rack-42u-air",
            pdu="generic-pdu-3ph-415v-63a",
            default_gpus=1024,
            storage_spine_switch="nvidia-sn5600",
            large_compute_switch="nvidia-q3400-ra",
        ),
        TemplateSpec(
            name="dgx-b200-liquid",
            title="DGX B200 direct-liquid cluster",
            description="NVIDIA DGX B200 (8 × B200, 14.3 kW) in direct liquid-cooled 48U "
            "racks, QM9700 compute fabric, all-flash hot tier.",
            server="nvidia-dgx-b200",
            compute_rack="generic-rack-48u-liquid",
            compute_switch="nvidia-qm9700",
            storage_switch="nvidia-sn4600",
            management_switch="generic-mgmt-48p-10g",
            network_rack="generic-rack-48u-rdhx",
            storage_rack="generic-rack-42u-air",
            pdu="generic-pdu-3ph-415v-63a",
            default_gpus=512,
            storage_spine_switch="nvidia-sn5600",
            large_compute_switch="nvidia-q3400-ra",
        ),
        TemplateSpec(
            name="hgx-h100-air",
            title="Air-cooled 8-GPU HGX H100 servers",
            description="Generic 8-GPU HGX H100 servers in ordinary air-cooled 42U racks "
            "(12 kW each, so one server per rack), RoCE compute fabric on SN5600.",
            server="generic-hgx-h100-8gpu",
            compute_rack="generic-rack-42u-air",
            compute_switch="nvidia-sn5600",
            storage_switch="nvidia-sn4600",
            management_switch="generic-mgmt-48p-10g",
            network_rack="generic-rack-48u-rdhx",
            storage_rack="generic-rack-42u-air",
            pdu="generic-pdu-3ph-415v-32a",
            default_gpus=64,
            compute_technology="roce",
        ),
        TemplateSpec(
            name="l40s-inference",
            title="L40S inference pool",
            description="4-GPU PCIe L40S servers in air-cooled 42U racks for serving, "
            "Ethernet fabric on SN4600.",
            server="generic-pcie-4gpu-l40s",
            compute_rack="generic-rack-42u-air",
            compute_switch="nvidia-sn4600",
            storage_switch="nvidia-sn4600",
            management_switch="generic-mgmt-48p-10g",
            network_rack="generic-rack-42u-air",
            storage_rack="generic-rack-42u-air",
            pdu="generic-pdu-3ph-415v-32a",
            default_gpus=64,
            compute_technology="roce",
            compute_speed_gbps=200.0,
            read_gbs_per_node=1.0,
            large_compute_switch="nvidia-sn5600",
        ),
    )
}

#: The template ``workbench`` opens when started without a file.
SAMPLE_TEMPLATE = "dgx-h100-superpod"


#: The topologies a scenario variant can ask for (None keeps the template's choice).
#: Here, with the specs, rather than in :mod:`workbench.templates.variants`: the
#: command line's ``scenario --help`` names them, and every command builds that parser,
#: so importing the variants (the rules, the scenario store) cost every command ~0.1 s.
TOPOLOGIES = {"rail-optimized": True, "two-tier": False}

#: The most variants one step makes: each is a full rebuild and rule check (seconds on
#: a 100,000-GPU design), and a comparison takes at most four at a time anyway.
MAX_VARIANTS = 8
