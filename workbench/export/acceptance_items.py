"""The acceptance items of a node, with the expected values the design implies.

One list serves three exports so they cannot disagree: the checklist workbook shows
the items to sign, ``health_check.sh`` runs them (its ``expected.csv`` is this list)
and the results it writes come back in by item id (:mod:`workbench.export.acceptance`).

The items follow the four layers of the domain brief §8 (devices visible, single-GPU
compute, multi-GPU / multi-node bandwidth, storage throughput), then the scheduler and
business checks, with the commands from the field notes.  Expected values come from the
design; the factors that turn a datasheet figure into a pass mark are here, named:

- FP16 matmul: :data:`FP16_FRACTION` (60 %) of the GPU's dense FP16 TFLOPS (60–80 %
  is normal; below 50 % means a power cap or cooling problem);
- one-node all-reduce bus bandwidth: :data:`NVLINK_FRACTION` (70 %) of the GPU's
  NVLink bandwidth in one direction (catalog ``nvlink_gbs`` is both directions);
- two-node all-reduce bus bandwidth: :data:`NIC_FRACTION` (80 %) of the compute line
  rate per GPU (compute ports × speed / 8 / GPUs, in GB/s): half of it means the
  traffic went over PCIe instead of the NIC;
- ``ib_write_bw``: :data:`WIRE_FRACTION` (90 %) of one compute port's line rate;
- ``fio`` sequential read per client: :data:`FIO_FRACTION` (80 %) of the node's
  storage line rate, capped by its share of the hot tiers' read bandwidth.

Comparison kinds (``op``) are few, and ``health_check.sh`` implements the same ones:
``eq`` (text or number equal), ``ge``/``le`` (numbers), ``version`` (``12.4`` is met by
``12.4.1``), ``oneof`` (``|``-separated), ``record`` (measured, not judged: the design
states no expectation, e.g. no driver pinned) and ``manual`` (a person judges).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from workbench.export.ip_plan import IpPlan, plan_addresses
from workbench.model.design import Design, Device
from workbench.versions.matrix import effective_versions, is_node

FP16_FRACTION = 0.6
NVLINK_FRACTION = 0.7
NIC_FRACTION = 0.8
WIRE_FRACTION = 0.9
FIO_FRACTION = 0.8
#: Hottest GPU allowed when idle-to-warm (°C); slowdown starts in the high 80s.
MAX_GPU_TEMP_C = 80

OPS = ("eq", "ge", "le", "version", "oneof", "record", "manual")
#: Layers in checklist order: (key, title).
LAYERS = (
    ("devices", "1. Devices visible"),
    ("compute", "2. Single-GPU compute"),
    ("bandwidth", "3. Multi-GPU / multi-node bandwidth"),
    ("storage", "4. Storage throughput"),
    ("scheduler", "5. Scheduler"),
    ("business", "6. Business"),
)
#: Every item id, in checklist order (an item a node's hardware lacks is left out).
ITEM_IDS = (
    "gpu.count", "gpu.driver", "gpu.power_limit", "gpu.persistence", "gpu.temperature",
    "gpu.nvlink", "nic.rate", "nic.mtu", "bmc.address", "gpu.fp16_matmul", "gpu.dcgm_diag",
    "net.allreduce_node", "net.allreduce_2node", "net.ib_write_bw", "storage.fio_read",
    "sched.sinfo", "sched.srun_world", "biz.train_converges", "biz.infer_p99",
)  # fmt: skip
#: A node name the script can use as a host name and a CSV field without quoting.
HOST_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

_MATMUL = (
    'python3 -c "import time,torch; r=[]\n'
    "for i in range(torch.cuda.device_count()):\n"
    " a=torch.randn(16384,16384,dtype=torch.float16,device=i); b=torch.randn_like(a)\n"
    " [torch.matmul(a,b) for _ in range(3)]; torch.cuda.synchronize(i); t=time.time()\n"
    " [torch.matmul(a,b) for _ in range(10)]; torch.cuda.synchronize(i)\n"
    ' r.append(10*2*16384**3/(time.time()-t)/1e12)\nprint(round(min(r),1))"'
)


@dataclass(frozen=True)
class CheckItem:
    """One row of a node's checklist: what to run and what the design expects."""

    id: str
    layer: str
    title: str
    command: str
    op: str
    expected: str
    unit: str = ""
    #: What ``health_check.sh`` needs besides the expectation (a rate, an MTU, a count).
    param: str = ""

    @property
    def expected_text(self) -> str:
        """The expectation as a person reads it: ``= 8``, ``≥ 593.7 TFLOPS``."""
        unit = f" {self.unit}" if self.unit else ""
        if self.op == "eq":
            return f"= {self.expected}{unit}"
        if self.op == "ge":
            return f"≥ {self.expected}{unit}"
        if self.op == "le":
            return f"≤ {self.expected}{unit}"
        if self.op == "version":
            return f"{self.expected} (or a patch release of it)"
        if self.op == "oneof":
            return "one of " + ", ".join(self.expected.split("|"))
        if self.op == "record":
            return "record (the design sets no value)"
        return self.expected or "judged by the signer"


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


@dataclass
class _Ports:
    count: int = 0
    gbps: float = 0.0


class _Facts:
    """What the items read from the design, computed once for all nodes."""

    def __init__(self, design: Design, plan: IpPlan | None):
        self.design = design
        self.plan = plan if plan is not None else plan_addresses(design)
        self.versions = effective_versions(design)
        plane_of = {n.id: n for n in design.networks}
        self.compute = next((n for n in design.networks if n.plane == "compute"), None)
        ports: dict[tuple[str, str], set[str]] = {}
        speed: dict[tuple[str, str], float] = {}
        for link in design.links:
            net = plane_of.get(link.network or "")
            if net is None or net.plane not in ("compute", "storage"):
                continue
            gbps = link.speed_gbps or net.speed_gbps
            for dev, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
                key = (dev, net.plane)
                ports.setdefault(key, set()).add(port)
                speed[key] = max(speed.get(key, 0.0), gbps)
        self.ports = {k: _Ports(len(v), speed[k]) for k, v in ports.items()}
        nodes = acceptance_nodes(design)
        hot = [t for t in design.storage_tiers if t.tier == "hot"]
        read = 0.0
        for tier in hot:
            for device_id in tier.device_ids:
                found = design.find_device(device_id)
                if found is not None:
                    item = design.device_types.get(found[1].device_type)
                    read += float((item.props.get("read_gbs") or 0) if item else 0)
        self.hot_share_gbs = read / len(nodes) if nodes and read > 0 else None

    def node_ports(self, device: Device, plane: str) -> _Ports:
        found = self.ports.get((device.id, plane))
        if found is not None:
            return found
        item = self.design.device_types[device.device_type]
        net = next((n for n in self.design.networks if n.plane == plane), None)
        count = sum(1 for i in item.interfaces if i.name.startswith(plane))
        return _Ports(count, net.speed_gbps if net is not None else 0.0)


def acceptance_nodes(design: Design) -> list[Device]:
    """The devices that get a checklist: the GPU servers (the version matrix's nodes)."""
    return [d for _r, d in design.iter_devices() if is_node(design, d)]


def _items(facts: _Facts, device: Device) -> Iterator[CheckItem]:
    design = facts.design
    item = design.device_types[device.device_type]
    gpu = design.device_types.get(item.gpu or "")
    n = item.gpu_count
    smi = "nvidia-smi --query-gpu={} --format=csv,noheader"
    yield CheckItem("gpu.count", "devices", "GPU count equals the physical count",
                    smi.format("index") + " | wc -l", "eq", str(n))  # fmt: skip
    node = facts.versions.get(device.name)
    driver = node.expected.get("driver", "") if node is not None else ""
    yield CheckItem("gpu.driver", "devices", "Driver version of the node's baseline",
                    smi.format("driver_version") + " | sort -u",
                    "version" if driver else "record", driver)  # fmt: skip
    tdp = (gpu.max_power_w or gpu.typical_power_w) if gpu is not None else None
    yield CheckItem("gpu.power_limit", "devices", "Power limit not capped (lowest GPU)",
                    smi.format("power.limit") + ",nounits | sort -n | head -1",
                    "ge" if tdp else "record", _num(tdp) if tdp else "", "W")  # fmt: skip
    yield CheckItem("gpu.persistence", "devices", "Persistence mode on (every GPU)",
                    smi.format("persistence_mode") + " | sort -u", "eq", "Enabled")  # fmt: skip
    yield CheckItem("gpu.temperature", "devices", "Hottest GPU temperature",
                    smi.format("temperature.gpu") + " | sort -n | tail -1",
                    "le", str(MAX_GPU_TEMP_C), "°C")  # fmt: skip
    if gpu is not None and gpu.nvlink_gbs and n > 1:
        yield CheckItem("gpu.nvlink", "devices", "NVLink between every GPU pair (NV# cells)",
                        "nvidia-smi topo -m", "eq", str(n * (n - 1)))  # fmt: skip
    compute = facts.node_ports(device, "compute")
    net = facts.compute
    if compute.count and net is not None:
        rate = _num(compute.gbps)
        rdma = net.technology in ("infiniband", "roce")
        yield CheckItem("nic.rate", "devices", f"Active ports at ≥ {rate} Gb/s",
                        "ibstatus" if rdma else "ethtool <port> | grep Speed", "ge",
                        str(compute.count), "ports", f"{'ib' if rdma else 'eth'}:{rate}")  # fmt: skip
        mtu_cmd = "ibv_devinfo | grep active_mtu" if net.technology == "infiniband" else (
            "ip -o link show | grep mtu")  # fmt: skip
        kind = "ib" if net.technology == "infiniband" else "eth"
        yield CheckItem("nic.mtu", "devices", f"Ports with MTU ≥ {net.mtu}", mtu_cmd, "ge",
                        str(compute.count), "ports", f"{kind}:{net.mtu}")  # fmt: skip
    bmc = facts.plan.address_of(device.id, "oob")
    if bmc is not None:
        yield CheckItem("bmc.address", "devices", "BMC answers at its planned address",
                        "ipmitool lan print 1 | grep 'IP Address'", "eq", bmc)  # fmt: skip
    fp16 = gpu.tflops.get("fp16") if gpu is not None else None
    yield CheckItem("gpu.fp16_matmul", "compute",
                    f"FP16 matmul ≥ {FP16_FRACTION:.0%} of datasheet (slowest GPU)", _MATMUL,
                    "ge" if fp16 else "record", _num(fp16 * FP16_FRACTION) if fp16 else "",
                    "TFLOPS")  # fmt: skip
    yield CheckItem("gpu.dcgm_diag", "compute", "DCGM diagnostic level 2", "dcgmi diag -r 2",
                    "eq", "Pass")  # fmt: skip
    if gpu is not None and gpu.nvlink_gbs and n > 1:
        yield CheckItem("net.allreduce_node", "bandwidth",
                        f"All-reduce bus bandwidth on {n} GPUs (NVLink)",
                        f"all_reduce_perf -b 8G -e 8G -f 2 -g {n}", "ge",
                        _num(gpu.nvlink_gbs / 2 * NVLINK_FRACTION), "GB/s", str(n))  # fmt: skip
    if compute.count and n:
        per_gpu = compute.count * compute.gbps / 8 / n
        yield CheckItem("net.allreduce_2node", "bandwidth",
                        f"All-reduce bus bandwidth, 2 nodes × {n} GPUs (compute fabric)",
                        f"mpirun -np {2 * n} -H {device.name}:{n},$PEER:{n} "
                        "all_reduce_perf -b 8G -e 8G -f 2 -g 1", "ge",
                        _num(per_gpu * NIC_FRACTION), "GB/s", str(n))  # fmt: skip
        yield CheckItem("net.ib_write_bw", "bandwidth", "RDMA write bandwidth, one port",
                        "ib_write_bw --report_gbits -d <device> $PEER", "ge",
                        _num(compute.gbps * WIRE_FRACTION), "Gb/s")  # fmt: skip
    storage = facts.node_ports(device, "storage")
    if storage.count:
        target = storage.count * storage.gbps / 8 * FIO_FRACTION
        if facts.hot_share_gbs is not None:
            target = min(target, facts.hot_share_gbs)
        yield CheckItem("storage.fio_read", "storage", "Sequential read per client (fio)",
                        "fio --name=read --directory=$FIO_DIR --rw=read --bs=1M --size=8G "
                        "--numjobs=8 --group_reporting", "ge", _num(target), "GB/s")  # fmt: skip
    yield CheckItem("sched.sinfo", "scheduler", "Node in service in Slurm",
                    f"sinfo -h -n {device.name} -o %t", "oneof", "idle|mix|alloc")  # fmt: skip
    if n:
        yield CheckItem("sched.srun_world", "scheduler", "2-node job sees every GPU",
                        f"srun -p training -N 2 --gres=gpu:{n} python -c \"import torch; "
                        "torch.distributed.init_process_group(backend='nccl'); "
                        'print(torch.distributed.get_world_size())"', "eq",
                        str(2 * n), "", str(n))  # fmt: skip
    yield CheckItem("biz.train_converges", "business",
                    "Short training run (tens of steps) converges", "a small GPT on this node",
                    "manual", "loss falls steadily; throughput near the benchmark")  # fmt: skip
    yield CheckItem("biz.infer_p99", "business", "Inference P99 latency on sample data",
                    "the serving benchmark on a sample of production data", "manual",
                    "P99 within the service's target")  # fmt: skip


def node_checklists(
    design: Design, plan: IpPlan | None = None
) -> list[tuple[Device, list[CheckItem]]]:
    """Every acceptance node with its items, in design order (see the module docstring).

    ``plan`` saves planning the addresses again when the caller has one; an exhausted
    subnet raises the IP plan's ExportError.
    """
    facts = _Facts(design, plan)
    return [(device, list(_items(facts, device))) for device in acceptance_nodes(design)]
