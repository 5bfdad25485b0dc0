"""The acceptance items of a node, with the expected values the design implies.

One list serves three exports so they cannot disagree: the checklist workbook shows
the items to sign, ``health_check.sh`` runs them (its ``expected.csv`` is this list)
and the results it writes come back in by item id (:mod:`workbench.export.acceptance`).

The layers follow the seeds and the domain brief §6 and §8: BIOS/OS preflight, devices
and firmware against the node's baseline revision, single-GPU compute, multi-GPU and
multi-node bandwidth, storage, the container layer, the scheduler, then the business
checks (:data:`LAYERS`).  The preflight, firmware and container items live in
:mod:`workbench.export.acceptance_preflight`; this module holds the rest and the
pass marks, each a named factor with its source:

- GEMM: :data:`FP16_FRACTION` (60 %) of the GPU's **dense** FP16 tensor TFLOPS (the
  domain brief §8: 60–80 % is normal, below 50 % means a power cap or cooling);
- one-node all-reduce bus bandwidth: :data:`NVLINK_FRACTION` (70 %) of the GPU's NVLink
  bandwidth in one direction (catalog ``nvlink_gbs`` is both directions).  The NCCL
  maintainers give ~370 GB/s of H100's 450 GB/s with the ring (≈ 82 %, ~20 % protocol
  overhead) and ~480 GB/s with NVLink SHARP (NVIDIA/nccl-tests#212), so 70 % passes
  both and fails a node with an NVLink or NVSwitch down;
- two-node all-reduce bus bandwidth: :data:`NIC_BUSBW_FRACTION` (92 %) of the node's
  compute rails (ports × line rate / 8, in GB/s), run with ``NCCL_ALGO=Ring``.  The NCCL
  maintainers: "for NDR @ 400 Gbps you should see 46–48 GB/s per NIC" on two H100
  nodes with the ring (NVIDIA/nccl-tests#290), and 192 GB/s on DGX A100's 8 × 200 Gb/s
  (NVIDIA/nccl#812, 96 %); 46 of 50 GB/s is the lower end, so 8 × 400 Gb/s gives
  ≥ 368 GB/s and a node with one rail down (~322 GB/s) fails;
- ``ib_write_bw``: :data:`WIRE_FRACTION` (90 %) of each compute port's line rate (the
  lowest port counts: every rail is measured against its peer);
- ``fio`` sequential read per client with ``--direct=1`` (no page cache):
  :data:`FIO_FRACTION` (80 %) of the node's storage line rate, capped by its share of
  the hot tiers' read bandwidth;
- the short training run: :data:`TRAIN_MFU_FRACTION` (90 %) of the model TFLOP/s per GPU
  the design predicts for its first training job (predicted MFU × dense peak).

Comparison kinds (``op``) are few, and ``health_check.sh`` implements the same ones:
``eq`` (text or number equal), ``ge``/``le`` (numbers), ``version`` (``12.4`` is met by
``12.4.1``), ``oneof`` (``|``-separated), ``record`` (measured and recorded, not judged:
the design states no value, e.g. no VBIOS pinned; PASS once a value is read) and
``manual`` (a person judges).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from workbench.catalog.item import power_figure_w
from workbench.export.ip_plan import IpPlan, plan_addresses
from workbench.export.roce import roce_check_items
from workbench.export.slurm import node_partitions
from workbench.model.design import Design, Device
from workbench.text_rules import node_hostname
from workbench.versions.matrix import effective_versions, is_node

FP16_FRACTION = 0.6
NVLINK_FRACTION = 0.7
NIC_BUSBW_FRACTION = 0.92
WIRE_FRACTION = 0.9
FIO_FRACTION = 0.8
TRAIN_MFU_FRACTION = 0.9
#: Hottest GPU allowed when idle-to-warm (°C); slowdown starts in the high 80s.
MAX_GPU_TEMP_C = 80

OPS = ("eq", "ge", "le", "version", "oneof", "record", "manual")
#: Layers in checklist order: (key, title).
LAYERS = (
    ("preflight", "1. BIOS / OS preflight"),
    ("devices", "2. Devices, driver and firmware"),
    ("compute", "3. Single-GPU compute"),
    ("bandwidth", "4. Multi-GPU / multi-node bandwidth"),
    ("storage", "5. Storage throughput"),
    ("container", "6. Containers"),
    ("scheduler", "7. Scheduler"),
    ("business", "8. Business"),
)
#: Every item id, in checklist order (an item a node's hardware lacks is left out).
ITEM_IDS = (
    "bios.aspm", "bios.above4g", "bios.rebar", "bios.numa", "bios.sriov",
    "os.iommu", "os.hugepages", "os.max_map_count", "os.nouveau", "os.swap", "os.memlock",
    "os.chrony", "os.disk_mirror", "os.secure_boot", "os.release", "os.kernel",
    "os.kernel_pinned", "os.dkms",
    "gpu.count", "gpu.driver", "gpu.vbios", "gpu.power_limit", "gpu.persistence",
    "gpu.temperature", "gpu.pcie_link", "gpu.nvlink", "gpu.nvlink_links", "nic.rate",
    "nic.mtu", "nic.firmware", "roce.pfc", "roce.trust", "roce.ecn", "roce.mtu_bond",
    "storage.nic_rate", "storage.gds", "bios.version", "bmc.firmware", "bmc.address",
    "gpu.fp16_matmul", "gpu.dcgm_diag",
    "net.allreduce_node", "net.allreduce_2node", "net.ib_write_bw", "storage.fio_read",
    "ctr.toolkit", "ctr.gpus", "ctr.nccl", "ctr.nccl_version",
    "sched.sinfo", "sched.gres", "sched.k8s_gpus", "sched.srun_world",
    "biz.train_mfu", "biz.train_converges", "biz.infer_p99",
)  # fmt: skip
#: Where each expected value comes from, as the checklist's "Pass marks" sheet shows it
#: (item id → the rule and its source).  Items not listed expect what their title says.
PASS_MARK_SOURCES = {
    "bios.rebar": "BAR1 must map the whole GPU memory (catalog hbm_total_mib) for GPUDirect "
    "RDMA; nvidia-smi -q reports BAR1 in MiB",
    "bios.numa": "sockets from the catalog's cpu; GPUs NUMA-local (domain brief §6 BIOS baseline)",
    "os.max_map_count": "domain brief §6 OS baseline (vm.max_map_count = 262144)",
    "os.chrony": "≤ 1 ms: logs and NCCL timeouts compare timestamps across nodes; chrony on a "
    "LAN holds tens of microseconds",
    "gpu.driver": "the node's baseline revision (version matrix assignment, else the software "
    "stack its device names)",
    "gpu.power_limit": "the GPU's maximum power (catalog max_power_w): a lower limit is a cap",
    "gpu.temperature": f"≤ {MAX_GPU_TEMP_C} °C idle-to-warm; slowdown starts in the high 80s",
    "gpu.nvlink": "every GPU pair on NVLink: GPUs × (GPUs − 1) NV# cells in nvidia-smi topo -m",
    "nic.rate": "compute ports and line rate of the node's compute links in the design",
    "storage.nic_rate": "storage ports and line rate of the node's storage links in the design",
    "bmc.address": "the IP plan's out-of-band address of the node",
    "storage.gds": "a storage tier is read with GPUDirect Storage: the nvidia-fs module must be "
    "loaded (seed 004: cat /sys/module/nvidia_fs/version; without it reads fall back to POSIX)",
    "gpu.fp16_matmul": f"{FP16_FRACTION:.0%} of the catalog's dense FP16 TFLOPS (domain brief §8: "
    "60–80 % is normal, below 50 % a power cap or cooling)",
    "net.allreduce_node": f"{NVLINK_FRACTION:.0%} of one direction of the GPU's NVLink; NCCL "
    "maintainers: ~370 of H100's 450 GB/s with the ring, ~480 GB/s peak with NVLink SHARP "
    "(NVIDIA/nccl-tests#212)",
    "net.allreduce_2node": f"compute ports × line rate / 8 × {NIC_BUSBW_FRACTION:.0%} with "
    "NCCL_ALGO=Ring; NCCL maintainers: 46–48 GB/s per NDR 400 Gb/s NIC on two H100 nodes "
    "(NVIDIA/nccl-tests#290), 192 GB/s on DGX A100's 8 × 200 Gb/s (NVIDIA/nccl#812)",
    "net.ib_write_bw": f"{WIRE_FRACTION:.0%} of the compute port's line rate, lowest rail",
    "storage.fio_read": f"{FIO_FRACTION:.0%} of the node's storage ports × line rate, capped by "
    "its share of the hot tiers' read bandwidth; direct I/O (no page cache)",
    "ctr.nccl": "the one-node all-reduce mark: a container must not cost bandwidth",
    "ctr.nccl_version": "the node's baseline NCCL: jobs run the container's NCCL, not the host's",
    "sched.srun_world": "2 nodes × GPUs per node ranks (--ntasks-per-node = GPUs per node)",
    "biz.train_mfu": f"{TRAIN_MFU_FRACTION:.0%} of the design's predicted MFU × the GPU's dense "
    "peak for its first training job (workbench estimate)",
}

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


def num(value: float) -> str:
    """A figure as the checklist and ``expected.csv`` write it: one decimal at most."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


@dataclass
class _Ports:
    count: int = 0
    gbps: float = 0.0


class Facts:
    """What the items read from the design, computed once for all nodes."""

    def __init__(self, design: Design, plan: IpPlan | None):
        self.design = design
        self.plan = plan if plan is not None else plan_addresses(design)
        self.versions = effective_versions(design)
        #: device id → its partition in the Slurm export (the 2-node srun asks for it)
        self.partitions = node_partitions(design)
        #: whether a tier is read with GPUDirect Storage (each GPU node needs nvidia-fs)
        self.gds = any(tier.gpudirect_storage for tier in design.storage_tiers)
        plane_of = {n.id: n for n in design.networks}
        self.compute = next((n for n in design.networks if n.plane == "compute"), None)
        self.storage = next((n for n in design.networks if n.plane == "storage"), None)
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
        self.train_tflops = _predicted_train_tflops(design) if nodes else None

    def node_ports(self, device: Device, plane: str) -> _Ports:
        found = self.ports.get((device.id, plane))
        if found is not None:
            return found
        item = self.design.device_types[device.device_type]
        net = next((n for n in self.design.networks if n.plane == plane), None)
        count = sum(1 for i in item.interfaces if i.name.startswith(plane))
        return _Ports(count, net.speed_gbps if net is not None else 0.0)

    def pins(self, device: Device) -> dict[str, str]:
        """The node's baseline pins (layer → version); empty when none is assigned."""
        node = self.versions.get(device.name)
        return node.expected if node is not None else {}


def _predicted_train_tflops(design: Design) -> tuple[float, float, float] | None:
    """(model TFLOP/s per GPU, MFU, peak) the design predicts for its first training job."""
    from workbench.calc.workload import evaluate_workload

    job = next((w for w in design.workloads if w.kind == "training"), None)
    if job is None:
        return None
    result = evaluate_workload(design, job)
    if not result.mfu or not result.peak_tflops_per_gpu:
        return None
    mfu, peak = float(result.mfu), float(result.peak_tflops_per_gpu)
    return mfu * peak, mfu, peak


def acceptance_nodes(design: Design) -> list[Device]:
    """The devices that get a checklist: the GPU servers (the version matrix's nodes)."""
    return [d for _r, d in design.iter_devices() if is_node(design, d)]


def node_host(device: Device) -> str:
    """The host name the node answers to: the one Slurm's and Kubernetes' exports give
    it (:func:`workbench.text_rules.node_hostname`), so the health check, its commands
    and the results it writes name the node as the scheduler does.  The design's name
    where the mapping carries none (the health-check export refuses such a node)."""
    return node_hostname(device.name) or device.name


def _device_items(facts: Facts, device: Device) -> Iterator[CheckItem]:
    design = facts.design
    item = design.device_types[device.device_type]
    gpu = design.device_types.get(item.gpu or "")
    n = item.gpu_count
    pins = facts.pins(device)
    smi = "nvidia-smi --query-gpu={} --format=csv,noheader"
    yield CheckItem("gpu.count", "devices", "GPU count equals the physical count",
                    smi.format("index") + " | wc -l", "eq", str(n))  # fmt: skip
    driver = pins.get("driver", "")
    yield CheckItem("gpu.driver", "devices", "Driver version of the node's baseline",
                    smi.format("driver_version") + " | sort -u",
                    "version" if driver else "record", driver)  # fmt: skip
    vbios = pins.get("vbios", "")
    yield CheckItem("gpu.vbios", "devices", "GPU VBIOS of the node's baseline (every GPU)",
                    smi.format("vbios_version") + " | sort -u",
                    "version" if vbios else "record", vbios)  # fmt: skip
    tdp = power_figure_w(gpu)
    yield CheckItem("gpu.power_limit", "devices", "Power limit not capped (lowest GPU)",
                    smi.format("power.limit") + ",nounits | sort -n | head -1",
                    "ge" if tdp else "record", num(tdp) if tdp else "", "W")  # fmt: skip
    yield CheckItem("gpu.persistence", "devices", "Persistence mode on (every GPU)",
                    smi.format("persistence_mode") + " | sort -u", "eq", "Enabled")  # fmt: skip
    yield CheckItem("gpu.temperature", "devices", "Hottest GPU temperature",
                    smi.format("temperature.gpu") + " | sort -n | tail -1",
                    "le", str(MAX_GPU_TEMP_C), "°C")  # fmt: skip
    if n:
        yield CheckItem("gpu.pcie_link", "devices",
                        "GPUs whose PCIe link runs at its full speed and width",
                        "lspci -vv -d 10de: | grep -E 'LnkCap|LnkSta'", "eq", str(n),
                        "GPUs")  # fmt: skip
    if gpu is not None and gpu.nvlink_gbs and n > 1:
        yield CheckItem("gpu.nvlink", "devices", "NVLink between every GPU pair (NV# cells)",
                        "nvidia-smi topo -m", "eq", str(n * (n - 1)))  # fmt: skip
        yield CheckItem("gpu.nvlink_links", "devices", "NVLink links inactive (every GPU)",
                        "nvidia-smi nvlink -s | grep -c inactive", "eq", "0", "links")  # fmt: skip
    compute = facts.node_ports(device, "compute")
    net = facts.compute
    if compute.count and net is not None:
        rate = num(compute.gbps)
        ib = net.technology == "infiniband"
        yield CheckItem("nic.rate", "devices", f"Compute ports active at ≥ {rate} Gb/s",
                        "ibstatus" if ib else "ethtool <port> | grep -E 'Speed|Link detected'",
                        "ge", str(compute.count), "ports", f"{'ib' if ib else 'eth'}:{rate}")  # fmt: skip
        mtu_cmd = "ibv_devinfo | grep -E 'active_mtu|link_layer'" if ib else (
            "ip -o link show | grep mtu")  # fmt: skip
        yield CheckItem("nic.mtu", "devices", f"Compute ports with MTU ≥ {net.mtu}", mtu_cmd,
                        "ge", str(compute.count), "ports", f"{'ib' if ib else 'eth'}:{net.mtu}")  # fmt: skip
        fw = pins.get("nic_firmware", "")
        yield CheckItem("nic.firmware", "devices", "NIC firmware of the node's baseline",
                        "ibstat | grep 'Firmware version' | sort -u",
                        "version" if fw else "record", fw)  # fmt: skip
    # The RoCE lossless baseline on the node's ports (export/roce.py), judged by a person.
    for check in roce_check_items(facts.design, device):
        yield CheckItem(check.id, "devices", check.title, check.command, "manual", check.expected)
    storage = facts.node_ports(device, "storage")
    if storage.count and facts.storage is not None:
        rate = num(storage.gbps)
        yield CheckItem("storage.nic_rate", "devices",
                        f"Storage Ethernet ports up at ≥ {rate} Gb/s",
                        "ethtool <port> | grep -E 'Speed|Link detected'", "ge",
                        str(storage.count), "ports", rate)  # fmt: skip
    if facts.gds and n:
        yield CheckItem("storage.gds", "devices",
                        "GPUDirect Storage: nvidia-fs module loaded",
                        "cat /sys/module/nvidia_fs/version", "record", "")  # fmt: skip
    bios = pins.get("bios", "")
    yield CheckItem("bios.version", "devices", "BIOS of the node's baseline",
                    "dmidecode -s bios-version", "version" if bios else "record", bios)  # fmt: skip
    bmc_fw = pins.get("bmc", "")
    yield CheckItem("bmc.firmware", "devices", "BMC firmware of the node's baseline",
                    "ipmitool mc info | grep 'Firmware Revision'",
                    "version" if bmc_fw else "record", bmc_fw)  # fmt: skip
    bmc = facts.plan.address_of(device.id, "oob")
    if bmc is not None:
        yield CheckItem("bmc.address", "devices", "BMC answers at its planned address",
                        "ipmitool lan print 1 | grep 'IP Address'", "eq", bmc)  # fmt: skip


def _performance_items(facts: Facts, device: Device) -> Iterator[CheckItem]:
    design = facts.design
    item = design.device_types[device.device_type]
    gpu = design.device_types.get(item.gpu or "")
    n = item.gpu_count
    fp16 = gpu.tflops.get("fp16") if gpu is not None else None
    yield CheckItem("gpu.fp16_matmul", "compute",
                    f"FP16 GEMM ≥ {FP16_FRACTION:.0%} of the dense datasheet peak"
                    " (slowest GPU)", _MATMUL,
                    "ge" if fp16 else "record", num(fp16 * FP16_FRACTION) if fp16 else "",
                    "TFLOPS")  # fmt: skip
    yield CheckItem("gpu.dcgm_diag", "compute", "DCGM diagnostic level 2", "dcgmi diag -r 2",
                    "eq", "Pass")  # fmt: skip
    node_mark = None
    if gpu is not None and gpu.nvlink_gbs and n > 1:
        node_mark = num(gpu.nvlink_gbs / 2 * NVLINK_FRACTION)
        yield CheckItem("net.allreduce_node", "bandwidth",
                        f"All-reduce bus bandwidth on {n} GPUs (NVLink)",
                        f"all_reduce_perf -b 8G -e 8G -f 2 -g {n}", "ge",
                        node_mark, "GB/s", str(n))  # fmt: skip
    compute = facts.node_ports(device, "compute")
    if compute.count and n:
        rails = compute.count * compute.gbps / 8
        yield CheckItem("net.allreduce_2node", "bandwidth",
                        f"All-reduce bus bandwidth, 2 nodes × {n} GPUs over "
                        f"{compute.count} × {num(compute.gbps)} Gb/s rails",
                        f"NCCL_ALGO=Ring srun -N 2 -w {node_host(device)},$PEER "
                        f"--ntasks-per-node={n} --gpus-per-node={n} --mpi=pmix "
                        "all_reduce_perf -b 8G -e 8G -f 2 -g 1", "ge",
                        num(rails * NIC_BUSBW_FRACTION), "GB/s", str(n))  # fmt: skip
        yield CheckItem("net.ib_write_bw", "bandwidth",
                        "RDMA write bandwidth, lowest compute port",
                        "ssh $PEER ib_write_bw -d <dev> --report_gbits & "
                        "ib_write_bw -d <dev> --report_gbits $PEER   (each port)", "ge",
                        num(compute.gbps * WIRE_FRACTION), "Gb/s")  # fmt: skip
    storage = facts.node_ports(device, "storage")
    if storage.count:
        target = storage.count * storage.gbps / 8 * FIO_FRACTION
        if facts.hot_share_gbs is not None:
            target = min(target, facts.hot_share_gbs)
        yield CheckItem("storage.fio_read", "storage",
                        "Sequential read per client (fio, direct I/O)",
                        "fio --name=read --directory=$FIO_DIR --rw=read --bs=1M --size=8G "
                        "--numjobs=8 --direct=1 --ioengine=libaio --iodepth=16 "
                        "--group_reporting --output-format=json", "ge", num(target), "GB/s")  # fmt: skip
    if node_mark is not None:
        yield CheckItem("ctr.nccl", "container",
                        f"All-reduce bus bandwidth on {n} GPUs inside a container",
                        "docker run --rm --gpus all --ipc=host --ulimit memlock=-1 "
                        f"$NCCL_IMAGE all_reduce_perf -b 8G -e 8G -f 2 -g {n}", "ge",
                        node_mark, "GB/s", str(n))  # fmt: skip
        nccl = facts.pins(device).get("nccl", "")
        yield CheckItem("ctr.nccl_version", "container",
                        "NCCL in the container is the baseline's",
                        "the run above with NCCL_DEBUG=VERSION: 'NCCL version …'",
                        "version" if nccl else "record", nccl, "", str(n))  # fmt: skip


def _scheduler_items(facts: Facts, device: Device) -> Iterator[CheckItem]:
    item = facts.design.device_types[device.device_type]
    n = item.gpu_count
    yield CheckItem("sched.sinfo", "scheduler", "Node in service in Slurm",
                    f"sinfo -h -n {node_host(device)} -o %t", "oneof", "idle|mix|alloc")  # fmt: skip
    if n:
        yield CheckItem("sched.gres", "scheduler", "Slurm GRES GPUs of the node",
                        f"scontrol show node {node_host(device)} | grep Gres", "eq", str(n), "GPUs")  # fmt: skip
        yield CheckItem("sched.k8s_gpus", "scheduler",
                        "Kubernetes device plugin: allocatable GPUs",
                        f"kubectl get node {node_host(device)} "
                        "-o jsonpath='{.status.allocatable.nvidia\\.com/gpu}'", "eq", str(n),
                        "GPUs")  # fmt: skip
        partition = facts.partitions[device.id]
        yield CheckItem("sched.srun_world", "scheduler",
                        "2-node job sees every GPU (rank and master address set)",
                        f"srun -p {partition} -N 2 --ntasks-per-node={n} --gpus-per-node={n} "
                        "with RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR from Slurm: "
                        "torch.distributed world size", "eq", str(2 * n), "",
                        f"{partition}:{n}")  # fmt: skip
    train = facts.train_tflops
    if train is not None:
        tflops, mfu, peak = train
        yield CheckItem("biz.train_mfu", "business",
                        f"Short training run: model TFLOP/s per GPU ≥ {TRAIN_MFU_FRACTION:.0%}"
                        f" of the predicted MFU {mfu:.1%} × {num(peak)}",
                        "$TRAIN_CMD (e.g. 50 steps of the planned job, logging throughput "
                        "per GPU)", "ge", num(tflops * TRAIN_MFU_FRACTION), "TFLOP/s/GPU",
                        num(peak))  # fmt: skip
    yield CheckItem("biz.train_converges", "business",
                    "Short training run (tens of steps) converges", "the run above",
                    "manual", "loss falls steadily; throughput near the benchmark")  # fmt: skip
    yield CheckItem("biz.infer_p99", "business", "Inference P99 latency on sample data",
                    "the serving benchmark on a sample of production data", "manual",
                    "P99 within the service's target")  # fmt: skip


def node_checklists(
    design: Design, plan: IpPlan | None = None
) -> list[tuple[Device, list[CheckItem]]]:
    """Every acceptance node with its items, in checklist order (see the module
    docstring).

    ``plan`` saves planning the addresses again when the caller has one; an exhausted
    subnet raises the IP plan's ExportError.
    """
    from workbench.export.acceptance_preflight import container_items, preflight_items

    facts = Facts(design, plan)
    order = {item_id: k for k, item_id in enumerate(ITEM_IDS)}
    result = []
    for device in acceptance_nodes(design):
        items = [
            *preflight_items(facts, device),
            *_device_items(facts, device),
            *_performance_items(facts, device),
            *container_items(facts, device),
            *_scheduler_items(facts, device),
        ]
        items.sort(key=lambda i: order[i.id])
        result.append((device, items))
    return result
