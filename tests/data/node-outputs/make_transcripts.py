"""Write the DGX H100 transcripts of ``dgx-h100/`` that repeat per GPU or per port.

Run once and commit the output; the hand-written files (chronyc, dcgmi, fio, ...) sit
beside them.  The layout is the DGX H100's (NVIDIA DGX H100 User Guide): GPUs at PCI
buses 1b 43 52 61 9d c3 d1 df, eight single-port ConnectX-7 compute NICs at 18 40 4f
5e 9a c0 ce dc (ibp24s0 ... ibp220s0, mlx5_0..7), two dual-port ConnectX-7 storage/
in-band cards at 29 and aa (mlx5_8..11), two sockets of 56 cores.  README.md names the
source of each format.
"""

from __future__ import annotations

from pathlib import Path

OUT = Path(__file__).parent / "dgx-h100"
GPU_BUS = ["1b", "43", "52", "61", "9d", "c3", "d1", "df"]
IB_BUS = ["18", "40", "4f", "5e", "9a", "c0", "ce", "dc"]
ETH = [("29", 0), ("29", 1), ("aa", 0), ("aa", 1)]  # (bus, function)
SERIAL0 = 1654023011200


def query_gpu() -> str:
    # nvidia-smi --query-gpu=index,driver_version,vbios_version,persistence_mode,
    #   power.limit,temperature.gpu --format=csv,noheader,nounits
    temps = [33, 35, 32, 36, 34, 33, 37, 35]
    return "".join(
        f"{i}, 550.127.08, 96.00.99.00.01, Enabled, 700.00, {t}\n" for i, t in enumerate(temps)
    )


def q_memory() -> str:
    out = [
        "",
        "==============NVSMI LOG==============",
        "",
        "Timestamp                                 : Thu Nov  5 09:14:02 2026",
        "Driver Version                            : 550.127.08",
        "CUDA Version                              : 12.4",
        "",
        "Attached GPUs                             : 8",
    ]
    for bus in GPU_BUS:
        out += [
            f"GPU 00000000:{bus.upper()}:00.0",
            "    FB Memory Usage",
            "        Total                             : 81559 MiB",
            "        Reserved                          : 551 MiB",
            "        Used                              : 0 MiB",
            "        Free                              : 81007 MiB",
            "    BAR1 Memory Usage",
            "        Total                             : 131072 MiB",
            "        Used                              : 1 MiB",
            "        Free                              : 131071 MiB",
            "    Conf Compute Protected Memory Usage",
            "        Total                             : 0 MiB",
            "        Used                              : 0 MiB",
            "        Free                              : 0 MiB",
            "",
        ]
    return "\n".join(out) + "\n"


def topo() -> str:
    nics = 12
    head = "\t" + "\t".join(f"GPU{i}" for i in range(8))
    head += "\t" + "\t".join(f"NIC{i}" for i in range(nics))
    head += "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"
    rows = [head]
    socket_of_nic = [0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1]
    for g in range(8):
        sock = 0 if g < 4 else 1
        cells = ["X" if h == g else "NV18" for h in range(8)]
        for n in range(nics):
            if n == g:
                cells.append("PIX")
            elif socket_of_nic[n] == sock:
                cells.append("NODE")
            else:
                cells.append("SYS")
        cpus = "0-55,112-167" if sock == 0 else "56-111,168-223"
        rows.append(f"GPU{g}\t " + "\t".join(cells) + f"\t{cpus}\t{sock}\t\tN/A")
    for n in range(nics):
        sock = socket_of_nic[n]
        cells = []
        for g in range(8):
            gs = 0 if g < 4 else 1
            cells.append("PIX" if g == n else ("NODE" if gs == sock else "SYS"))
        for m in range(nics):
            if m == n:
                cells.append("X")
            elif n >= 8 and m >= 8 and n // 2 == m // 2:
                cells.append("PIX")
            else:
                cells.append("NODE" if socket_of_nic[m] == sock else "SYS")
        rows.append(f"NIC{n}\t" + "\t".join(cells))
    legend = [
        "",
        "Legend:",
        "",
        "  X    = Self",
        "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA "
        "nodes (e.g., QPI/UPI)",
        "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host "
        "Bridges within a NUMA node",
        "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
        "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe "
        "Host Bridge)",
        "  PIX  = Connection traversing at most a single PCIe bridge",
        "  NV#  = Connection traversing a bonded set of # NVLinks",
        "",
        "NIC Legend:",
        "",
    ]
    legend += [f"  NIC{n}: mlx5_{n}" for n in range(nics)]
    return "\n".join(rows + legend) + "\n"


def nvlink_s() -> str:
    out = []
    for i in range(8):
        out.append(
            f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i:08x}-6a3e-1f2b-9c4d-0242ac1100{i:02d})"
        )
        out += [f"\t Link {k}: 26.562 GB/s" for k in range(18)]
    return "\n".join(out) + "\n"


def ibstatus() -> str:
    out = []
    for n in range(12):
        ib = n < 8
        out += [
            f"Infiniband device 'mlx5_{n}' port 1 status:",
            f"\tdefault gid:\t fe80:0000:0000:0000:946d:ae03:004f:1a{0x20 + 8 * n:02x}",
            f"\tbase lid:\t 0x{0x64 + n:x}" if ib else "\tbase lid:\t 0x0",
            "\tsm lid:\t\t 0x1" if ib else "\tsm lid:\t\t 0x0",
        ]
        if ib:
            out += [
                "\tstate:\t\t 4: ACTIVE",
                "\tphys state:\t 5: LinkUp",
                "\trate:\t\t 400 Gb/sec (4X NDR)",
                "\tlink_layer:\t InfiniBand",
                "",
            ]
        elif n in (10, 11):
            out += [
                "\tstate:\t\t 4: ACTIVE",
                "\tphys state:\t 5: LinkUp",
                "\trate:\t\t 200 Gb/sec (4X HDR)",
                "\tlink_layer:\t Ethernet",
                "",
            ]
        else:
            out += [
                "\tstate:\t\t 1: DOWN",
                "\tphys state:\t 3: Disabled",
                "\trate:\t\t 40 Gb/sec (4X QDR)",
                "\tlink_layer:\t Ethernet",
                "",
            ]
    return "\n".join(out)


def ibstat() -> str:
    out = []
    for n in range(12):
        ib = n < 8
        guid = f"0x946dae03004f1a{0x20 + 8 * n:02x}"
        up = ib or n in (10, 11)
        out += [
            f"CA 'mlx5_{n}'",
            "\tCA type: MT4129",
            "\tNumber of ports: 1",
            "\tFirmware version: 28.39.2048",
            "\tHardware version: 0",
            f"\tNode GUID: {guid}",
            f"\tSystem image GUID: {guid}",
            "\tPort 1:",
            f"\t\tState: {'Active' if up else 'Down'}",
            f"\t\tPhysical state: {'LinkUp' if up else 'Disabled'}",
            f"\t\tRate: {400 if ib else (200 if up else 40)}",
            f"\t\tBase lid: {100 + n if ib else 0}",
            "\t\tLMC: 0",
            f"\t\tSM lid: {1 if ib else 0}",
            f"\t\tCapability mask: {'0xa751e848' if ib else '0x00010000'}",
            f"\t\tPort GUID: {guid if ib else '0x966daefffe4f1a' + format(0x20 + 8 * n, '02x')}",
            f"\t\tLink layer: {'InfiniBand' if ib else 'Ethernet'}",
        ]
    return "\n".join(out) + "\n"


def ibv_devinfo() -> str:
    out = []
    for n in range(12):
        ib = n < 8
        up = ib or n in (10, 11)
        guid = f"946d:ae03:004f:1a{0x20 + 8 * n:02x}"
        out += [
            f"hca_id:\tmlx5_{n}",
            "\ttransport:\t\t\tInfiniBand (0)",
            "\tfw_ver:\t\t\t\t28.39.2048",
            f"\tnode_guid:\t\t\t{guid}",
            f"\tsys_image_guid:\t\t\t{guid}",
            "\tvendor_id:\t\t\t0x02c9",
            "\tvendor_part_id:\t\t\t4129",
            "\thw_ver:\t\t\t\t0x0",
            "\tboard_id:\t\t\tMT_0000000838" if ib else "\tboard_id:\t\t\tMT_0000000891",
            "\tphys_port_cnt:\t\t\t1",
            "\t\tport:\t1",
            f"\t\t\tstate:\t\t\t{'PORT_ACTIVE (4)' if up else 'PORT_DOWN (1)'}",
            "\t\t\tmax_mtu:\t\t4096 (5)",
            f"\t\t\tactive_mtu:\t\t{'4096 (5)' if up else '1024 (3)'}",
            f"\t\t\tsm_lid:\t\t\t{1 if ib else 0}",
            f"\t\t\tport_lid:\t\t{100 + n if ib else 0}",
            "\t\t\tport_lmc:\t\t0x00",
            f"\t\t\tlink_layer:\t\t{'InfiniBand' if ib else 'Ethernet'}",
            "",
        ]
    return "\n".join(out)


def _link(cap: str, width: str) -> list[str]:
    return [
        "\tCapabilities: [60] Express (v2) Endpoint, MSI 00",
        "\t\tDevCap:\tMaxPayload 512 bytes, PhantFunc 0, Latency L0s unlimited, L1 unlimited",
        "\t\t\tExtTag+ AttnBtn- AttnInd- PwrInd- RBE+ FLReset+ SlotPowerLimit 0W",
        "\t\tDevCtl:\tCorrErr- NonFatalErr+ FatalErr+ UnsupReq-",
        "\t\t\tRlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+ FLReset-",
        "\t\t\tMaxPayload 256 bytes, MaxReadReq 4096 bytes",
        "\t\tDevSta:\tCorrErr- NonFatalErr- FatalErr- UnsupReq- AuxPwr- TransPend-",
        f"\t\tLnkCap:\tPort #0, Speed {cap}, Width {width}, ASPM not supported",
        "\t\t\tClockPM- Surprise- LLActRep- BwNot- ASPMOptComp+",
        "\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk+",
        "\t\t\tExtSynch- ClockPM- AutWidDis- BWInt- AutBWInt-",
        f"\t\tLnkSta:\tSpeed {cap} (ok), Width {width} (ok)",
        "\t\t\tTrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-",
    ]


def lspci() -> str:
    out: list[str] = []
    for i, bus in enumerate(GPU_BUS):
        numa = 0 if i < 4 else 1
        base = 0x228000000000 + i * 0x4000000000
        out += [
            f"{bus}:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)",
            "\tSubsystem: NVIDIA Corporation GH100 [H100 SXM5 80GB]",
            "\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr+ Stepping- "
            "SERR+ FastB2B- DisINTx+",
            "\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- "
            "<MAbort- >SERR- <PERR- INTx-",
            "\tLatency: 0",
            f"\tInterrupt: pin A routed to IRQ {16 + i}",
            f"\tNUMA node: {numa}",
            f"\tIOMMU group: {29 + i}",
            f"\tRegion 0: Memory at {0xA4000000 + i * 0x2000000:x} (32-bit, non-prefetchable) "
            "[size=16M]",
            f"\tRegion 1: Memory at {base:x} (64-bit, prefetchable) [size=128G]",
            f"\tRegion 3: Memory at {base + 0x2000000000:x} (64-bit, prefetchable) [size=32M]",
            "\tCapabilities: [48] Power Management version 3",
            "\t\tFlags: PMEClk- DSI- D1- D2- AuxCurrent=0mA PME(D0-,D1-,D2-,D3hot-,D3cold-)",
            "\t\tStatus: D0 NoSoftRst+ PME-Enable- DSel=0 DScale=0 PME-",
            *_link("32GT/s", "x16"),
            "\tCapabilities: [b4] Vendor Specific Information: Len=14 <?>",
            "\tCapabilities: [100 v1] Virtual Channel",
            "\t\tCaps:\tLPEVC=0 RefClk=100ns PATEntryBits=1",
            "\tCapabilities: [bcc v1] Physical Resizable BAR",
            "\t\tBAR 1: current size: 128GB, supported: 64MB 128MB 256MB 512MB 1GB 2GB 4GB "
            "8GB 16GB 32GB 64GB 128GB",
            "\tKernel driver in use: nvidia",
            "\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia",
            "",
        ]
    # The BMC's VGA function: its ASPM is the board's business, not the GPUs' or NICs'.
    out += [
        "03:00.0 VGA compatible controller: ASPEED Technology, Inc. ASPEED Graphics Family "
        "(rev 52)",
        "\tSubsystem: ASPEED Technology, Inc. ASPEED Graphics Family",
        "\tRegion 0: Memory at 94000000 (32-bit, non-prefetchable) [size=64M]",
        "\tCapabilities: [80] Express (v2) Legacy Endpoint, MSI 00",
        "\t\tLnkCap:\tPort #0, Speed 2.5GT/s, Width x1, ASPM L0s L1, Exit Latency L0s <512ns",
        "\t\tLnkCtl:\tASPM L1 Enabled; RCB 64 bytes, Disabled- CommClk+",
        "\t\tLnkSta:\tSpeed 2.5GT/s (ok), Width x1 (ok)",
        "\tKernel driver in use: ast",
        "",
    ]
    nics = [(bus, 0, "Infiniband controller") for bus in IB_BUS]
    nics += [(bus, fn, "Ethernet controller") for bus, fn in ETH]
    for k, (bus, fn, cls) in enumerate(nics):
        out += [
            f"{bus}:00.{fn} {cls}: Mellanox Technologies MT2910 Family [ConnectX-7]",
            "\tSubsystem: Mellanox Technologies Device 0023"
            if k < 8
            else "\tSubsystem: Mellanox Technologies Device 0026",
            "\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- "
            "SERR+ FastB2B- DisINTx+",
            "\tLatency: 0, Cache Line Size: 64 bytes",
            f"\tNUMA node: {0 if bus < '80' else 1}",
            f"\tRegion 0: Memory at {0x20FFF8000000 + k * 0x4000000:x} (64-bit, prefetchable) "
            "[size=32M]",
            *_link("32GT/s", "x16"),
            "\tCapabilities: [180 v1] Single Root I/O Virtualization (SR-IOV)",
            "\t\tIOVCap:\tMigration- 10BitTagReq- Interrupt Message Number: 000",
            "\t\tIOVCtl:\tEnable- Migration- Interrupt- MSE- ARIHierarchy+ 10BitTagReq-",
            "\t\tIOVSta:\tMigration-",
            "\t\tInitial VFs: 16, Total VFs: 16, Number of VFs: 0, Function Dependency Link: "
            f"{fn:02x}",
            "\t\tVF offset: 2, stride: 1, Device ID: 101e",
            "\t\tSupported Page Size: 000007ff, System Page Size: 00000001",
            "\tKernel driver in use: mlx5_core",
            "\tKernel modules: mlx5_core",
            "",
        ]
    return "\n".join(out)


def _ranks(host_of: list[str], pid0: int) -> list[str]:
    return [
        f"#  Rank {r:2d} Group  0 Pid {pid0 + r:6d} on {host:>10} device  {r % 8} "
        f"[0x{GPU_BUS[r % 8]}] NVIDIA H100 80GB HBM3"
        for r, host in enumerate(host_of)
    ]


def nccl(host_of: list[str], ngpus: int, busbw: float, pid0: int, version: bool = False) -> str:
    size = 8589934592
    n = len(host_of)
    alg = busbw / (2 * (n - 1) / n)
    t = size / (alg * 1e9) * 1e6
    out = [
        f"# nThread 1 nGpus {ngpus} minBytes {size} maxBytes {size} step: 2(factor) warmup iters: 5 "
        "iters: 20 agg iters: 1 validation: 1 graph: 0",
        "#",
        "# Using devices",
        *_ranks(host_of, pid0),
        # NCCL_DEBUG=VERSION: NCCL prints its version once, at the first communicator
        *(["NCCL version 2.21.5+cuda12.4"] if version else []),
        "#",
        "#                                                              out-of-place          "
        "             in-place          ",
        "#       size         count      type   redop    root     time   algbw   busbw #wrong "
        "    time   algbw   busbw #wrong",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)        "
        "    (us)  (GB/s)  (GB/s)       ",
        f"  {size}    {size // 4}     float     sum      -1  {t:7.0f}  {alg:6.2f}  {busbw:6.2f}"
        f"      0  {t * 1.001:7.0f}  {alg / 1.001:6.2f}  {busbw / 1.001:6.2f}      0",
        "# Out of bounds values : 0 OK",
        f"# Avg bus bandwidth    : {busbw * (1 + 1 / 1.001) / 2:.3f} ",
        "#",
        "",
    ]
    return "\n".join(out)


def main() -> None:
    OUT.mkdir(exist_ok=True)
    files = {
        "nvidia-smi-query-gpu.csv": query_gpu(),
        "nvidia-smi-q-d-memory.txt": q_memory(),
        "nvidia-smi-topo-m.txt": topo(),
        "nvidia-smi-nvlink-s.txt": nvlink_s(),
        "ibstatus.txt": ibstatus(),
        "ibstat.txt": ibstat(),
        "ibv_devinfo.txt": ibv_devinfo(),
        "lspci-vv.txt": lspci(),
        "all_reduce_perf-g8.txt": nccl(["gpu00001"] * 8, 8, 448.56, 41234),
        "all_reduce_perf-2node.txt": nccl(["gpu00001"] * 8 + ["gpu00002"] * 8, 1, 371.20, 52110),
        "docker-all_reduce_perf.txt": nccl(["gpu00001"] * 8, 8, 446.91, 1, version=True),
    }
    for name, text in files.items():
        (OUT / name).write_text(text)


if __name__ == "__main__":
    main()
