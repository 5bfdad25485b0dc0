"""The BIOS/OS preflight and container items of a node's acceptance checklist.

The seeds give these layers whole sections because deliveries failed on them after
the GPUs looked fine: a node signed off on the host's ``nvidia-smi`` whose containers
could not see a GPU; a reboot into a new kernel that broke a driver built without
DKMS; a BIOS with ASPM on or Above 4G decoding off.  Each item names the command a
site engineer runs, what the design (or the domain brief §6 OS/BIOS baseline) expects
and what ``health_check.sh`` measures; :mod:`workbench.export.acceptance_items` puts
them in checklist order with the rest.

Expected values:

- firmware, OS, kernel and container toolkit come from the node's baseline revision
  (:meth:`Facts.pins`); a layer the baseline does not pin is ``record``;
- Resizable BAR: the smallest GPU BAR1 aperture must cover the GPU's memory (the
  catalog's ``hbm_total_mib``, else ``hbm_gb`` × 1024);
- NUMA: the GPUs' NUMA affinities span the node's CPU sockets (catalog ``cpu``);
- the OS baseline of the domain brief §6: ``iommu=pt``, hugepages reserved,
  ``vm.max_map_count`` ≥ :data:`MAX_MAP_COUNT`, nouveau blacklisted, swap off, memlock
  unlimited, chrony synchronised within :data:`MAX_CLOCK_OFFSET_MS`, the OS disk a
  healthy RAID 1, the kernel held and the driver's DKMS module installed for it;
- SR-IOV: no virtual functions (GPU nodes run bare metal; a design that virtualises
  its NICs is not one this checklist knows).
"""

from __future__ import annotations

from collections.abc import Iterator

from workbench.export.acceptance_items import CheckItem, Facts, num
from workbench.export.handoff import cpu_layout
from workbench.model.design import Device

#: ``vm.max_map_count`` of the domain brief's OS baseline (§6).
MAX_MAP_COUNT = 262144
#: Largest clock offset from NTP a node may have (ms): logs and NCCL timeouts compare
#: timestamps across nodes, and chrony on a LAN holds tens of microseconds.
MAX_CLOCK_OFFSET_MS = 1


def _pinned(item_id: str, layer: str, title: str, command: str, pin: str) -> CheckItem:
    return CheckItem(item_id, layer, title, command, "version" if pin else "record", pin)


def preflight_items(facts: Facts, device: Device) -> Iterator[CheckItem]:
    """BIOS settings, kernel parameters and OS settings, then the pinned OS layers."""
    design = facts.design
    item = design.device_types[device.device_type]
    gpu = design.device_types.get(item.gpu or "")
    n = item.gpu_count
    pins = facts.pins(device)
    yield CheckItem("bios.aspm", "preflight", "ASPM off on every GPU and NIC link",
                    "lspci -vv | grep 'LnkCtl:.*ASPM'", "eq", "0", "links with ASPM on")  # fmt: skip
    if n:
        yield CheckItem("bios.above4g", "preflight",
                        "Above 4G decoding: every GPU's BAR1 mapped above 4 GiB",
                        "lspci -vv -d 10de: | grep 'Region 1'", "eq", str(n), "GPUs")  # fmt: skip
        mib = None
        if gpu is not None:
            mib = gpu.props.get("hbm_total_mib") or (gpu.hbm_gb * 1024 if gpu.hbm_gb else None)
        yield CheckItem("bios.rebar", "preflight",
                        "Resizable BAR: smallest GPU BAR1 covers the GPU memory",
                        "nvidia-smi -q -d MEMORY | grep -A1 BAR1",
                        "ge" if mib else "record", num(float(mib)) if mib else "", "MiB")  # fmt: skip
        layout = cpu_layout(item)
        yield CheckItem("bios.numa", "preflight",
                        "NUMA on: the GPUs' NUMA nodes span the CPU sockets",
                        "nvidia-smi topo -m   (NUMA Affinity column)",
                        "eq" if layout else "record", str(layout.sockets) if layout else "",
                        "NUMA nodes")  # fmt: skip
    yield CheckItem("bios.sriov", "preflight", "SR-IOV virtual functions on the NICs",
                    "lspci -vv | grep 'Number of VFs'", "eq", "0", "VFs")  # fmt: skip
    yield CheckItem("os.iommu", "preflight", "IOMMU in pass-through (kernel parameter)",
                    "cat /proc/cmdline", "eq", "pt")  # fmt: skip
    yield CheckItem("os.hugepages", "preflight", "Hugepages reserved",
                    "sysctl vm.nr_hugepages", "ge", "1", "pages")  # fmt: skip
    yield CheckItem("os.max_map_count", "preflight", "vm.max_map_count",
                    "sysctl vm.max_map_count", "ge", str(MAX_MAP_COUNT))  # fmt: skip
    yield CheckItem("os.nouveau", "preflight", "nouveau blacklisted and not loaded",
                    "lsmod | grep nouveau; grep -r 'blacklist nouveau' /etc/modprobe.d",
                    "eq", "blacklisted")  # fmt: skip
    yield CheckItem("os.swap", "preflight", "Swap off", "swapon --show", "eq", "0",
                    "swap areas")  # fmt: skip
    yield CheckItem("os.memlock", "preflight", "Locked memory unlimited (RDMA)",
                    "ulimit -l", "eq", "unlimited")  # fmt: skip
    yield CheckItem("os.chrony", "preflight", "Clock synchronised (chrony)",
                    "chronyc tracking", "le", str(MAX_CLOCK_OFFSET_MS), "ms offset")  # fmt: skip
    yield CheckItem("os.disk_mirror", "preflight", "OS disk mirrored (RAID 1, all members up)",
                    "cat /proc/mdstat", "ge", "1", "healthy mirrors")  # fmt: skip
    yield CheckItem("os.secure_boot", "preflight",
                    "Secure Boot state (on: the DKMS driver's key must be enrolled)",
                    "mokutil --sb-state", "record", "")  # fmt: skip
    yield _pinned(
        "os.release",
        "preflight",
        "OS release of the node's baseline",
        "grep PRETTY_NAME /etc/os-release",
        pins.get("os", ""),
    )
    yield _pinned(
        "os.kernel",
        "preflight",
        "Running kernel of the node's baseline",
        "uname -r",
        pins.get("kernel", ""),
    )
    yield CheckItem("os.kernel_pinned", "preflight", "Kernel held (no upgrade on reboot)",
                    "apt-mark showhold | grep linux-image-$(uname -r)", "eq", "held")  # fmt: skip
    yield CheckItem("os.dkms", "preflight", "NVIDIA driver built by DKMS for the running kernel",
                    "dkms status nvidia", "eq", "installed")  # fmt: skip


def container_items(facts: Facts, device: Device) -> Iterator[CheckItem]:
    """The container runtime sees the GPUs (the NCCL-in-a-container item is with the
    bandwidth items: it shares their pass mark)."""
    item = facts.design.device_types[device.device_type]
    pins = facts.pins(device)
    yield _pinned(
        "ctr.toolkit",
        "container",
        "NVIDIA Container Toolkit of the baseline",
        "nvidia-ctk --version",
        pins.get("container_toolkit", ""),
    )
    if item.gpu_count:
        yield CheckItem("ctr.gpus", "container", "GPUs visible inside a container",
                        "docker run --rm --gpus all $CONTAINER_IMAGE nvidia-smi -L | wc -l "
                        "(or enroot start / ctr run)", "eq", str(item.gpu_count), "GPUs")  # fmt: skip
