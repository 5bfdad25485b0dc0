"""Write the as-built capture samples from the 256-GPU SuperPOD template.  Run once; commit.

Each folder holds what installers capture in one real format, taken on the cluster the
template ``dgx-h100-superpod`` (gpus=256) designs, with one cabling fault of every kind
put in on purpose; ``expected.json`` lists, per folder, the design links (by device
names and ports) that must come out as something other than correct, and how many
captured links the design lacks.

    .venv/bin/python tests/data/captures/make_captures.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from workbench.templates import build_template  # noqa: E402

DESIGN = ("dgx-h100-superpod", {"gpus": 256})


def design_links() -> dict[tuple[str, str], tuple[str, str, float]]:
    """(device name, port) → (far device name, far port, speed) for every link end."""
    design = build_template(DESIGN[0], **DESIGN[1])
    name = {d.id: d.name for _, d in design.iter_devices()}
    ends: dict[tuple[str, str], tuple[str, str, float]] = {}
    for link in design.links:
        a, b = (name[link.a_device], link.a_port), (name[link.b_device], link.b_port)
        ends[a] = (*b, link.speed_gbps or 0.0)
        ends[b] = (*a, link.speed_gbps or 0.0)
    return ends


def guid(kind: str, n: int) -> str:
    base = 0xB83FD20300A10000 if kind == "S" else 0x0C42A10300120000
    return f"{base + n * 16:016x}"


def ibnetdiscover(ends: dict) -> tuple[str, list]:
    """The compute fabric: 8 rail leaves, 4 spines, 32 DGX H100 with 8 HCAs each."""
    switches = sorted({d for d, p in ends if d.startswith("cmp-")})
    hosts = sorted({d for d, p in ends if d.startswith("gpu") and p.startswith("compute")})
    s_guid = {s: guid("S", i + 1) for i, s in enumerate(switches)}
    h_guid = {(h, k): guid("H", i * 16 + k + 1) for i, h in enumerate(hosts) for k in range(12)}
    # The cables as built: (host, hca) <-> (switch, port), and switch <-> switch.
    cables: dict[tuple[str, str], tuple[str, str]] = {}
    rate: dict[tuple[str, str], str] = {}
    for (dev, port), (far, far_port, _speed) in ends.items():
        if dev in hosts and port.startswith("compute"):
            cables[(dev, f"mlx5_{int(port[7:])}")] = (far, far_port)
    faults = []
    # swapped on the host: gpu00002's first two HCAs crossed.
    a, b = cables[("gpu00002", "mlx5_0")], cables[("gpu00002", "mlx5_1")]
    cables[("gpu00002", "mlx5_0")], cables[("gpu00002", "mlx5_1")] = b, a
    faults += [("gpu00002", "compute0", "swapped"), ("gpu00002", "compute1", "swapped")]
    # swapped on the leaf: gpu00003 and gpu00004 rail-0 cables crossed at the leaf.
    a, b = cables[("gpu00003", "mlx5_0")], cables[("gpu00004", "mlx5_0")]
    cables[("gpu00003", "mlx5_0")], cables[("gpu00004", "mlx5_0")] = b, a
    faults += [("gpu00003", "compute0", "swapped"), ("gpu00004", "compute0", "swapped")]
    # wrong port: gpu00005's rail-3 cable is in its spare adapter mlx5_10 (storage2).
    cables[("gpu00005", "mlx5_10")] = cables.pop(("gpu00005", "mlx5_3"))
    faults.append(("gpu00005", "compute3", "wrong-port"))
    # wrong speed: gpu00006 mlx5_2 trained at HDR.
    rate[("gpu00006", "mlx5_2")] = "4xHDR"
    faults.append(("gpu00006", "compute2", "wrong-speed"))
    # missing: gpu00007 mlx5_7 never came up.
    del cables[("gpu00007", "mlx5_7")]
    faults.append(("gpu00007", "compute7", "missing"))
    # unexpected: gpu00009's spare adapter cabled to a lab switch the design lacks.
    cables[("gpu00009", "mlx5_11")] = ("ib-lab-01", "1")
    s_guid["ib-lab-01"] = guid("S", 99)
    by_switch: dict[str, dict[int, tuple]] = {s: {} for s in s_guid}
    for (host, hca), (sw, sp) in cables.items():
        n = int(sp.removeprefix("p"))
        by_switch[sw][n] = ("H", host, hca, rate.get((host, hca), "4xNDR"))
    for (dev, port), (far, far_port, _s) in ends.items():
        if dev in switches and far in switches:
            by_switch[dev][int(port[1:])] = ("S", far, int(far_port[1:]), "4xNDR")
    lid = {s: i + 1 for i, s in enumerate(s_guid)}
    hlid = {k: 100 + i for i, k in enumerate(sorted(h_guid))}
    out = ["#", "# Topology file: generated on Tue Mar 11 09:41:27 2025", "#",
           f"# Initiated from node {h_guid[('gpu00001', 0)]} port {h_guid[('gpu00001', 0)]}", ""]  # fmt: skip
    for sw in s_guid:
        g = s_guid[sw]
        out += ["vendid=0x2c9", "devid=0xd2f0", f"sysimgguid=0x{g}", f"switchguid=0x{g}({g})",
                f'Switch\t64 "S-{g}"\t\t# "MF0;{sw}:MQM9700/U1" enhanced port 0 lid {lid[sw]} lmc 0']  # fmt: skip
        for n, (kind, far, far_port, r) in sorted(by_switch[sw].items()):
            if kind == "H":
                k = int(far_port[5:])
                hg = h_guid[(far, k)]
                out.append(f'[{n}]\t"H-{hg}"[1]({hg[1:] if hg.startswith("0") else hg}) '
                           f'\t\t# "{far} {far_port}" lid {hlid[(far, k)]} {r}')  # fmt: skip
            else:
                out.append(f'[{n}]\t"S-{s_guid[far]}"[{far_port}]\t\t# "MF0;{far}:MQM9700/U1" '
                           f"lid {lid[far]} {r}")  # fmt: skip
        out.append("")
    for (host, k), hg in sorted(h_guid.items()):
        hca = f"mlx5_{k}"
        if (host, hca) not in cables:
            continue
        sw, sp = cables[(host, hca)]
        n = int(sp.removeprefix("p"))
        r = rate.get((host, hca), "4xNDR")
        out += ["vendid=0x2c9", "devid=0x1021", f"sysimgguid=0x{h_guid[(host, 0)]}",
                f"caguid=0x{hg}", f'Ca\t1 "H-{hg}"\t\t# "{host} {hca}"',
                f'[1]({hg[1:]}) \t"S-{s_guid[sw]}"[{n}]\t\t# lid {hlid[(host, k)]} lmc 0 '
                f'"MF0;{sw}:MQM9700/U1" lid {lid[sw]} {r}', ""]  # fmt: skip
    return "\n".join(out), faults


def neighbours_of(ends: dict, switch: str) -> dict[str, tuple[str, str, float]]:
    return {p: far for (d, p), far in ends.items() if d == switch}


def host_port(name: str, port: str) -> str:
    """What a DGX's lldpd sends as its port: the Linux name of the NIC."""
    linux = {"storage0": "enp170s0f0np0", "storage1": "enp41s0f0np0", "mgmt0": "eno3"}
    return linux.get(port, port)


def cumulus(port: str) -> str:
    """A catalog port as Cumulus Linux names it (swp1/2 -> swp1s1)."""
    head, _, lane = port.partition("/")
    return f"{head}s{int(lane) - 1}" if lane else head


def nvue(ends: dict) -> tuple[str, list]:
    rows = dict(neighbours_of(ends, "sto-leaf-001"))
    rows.pop("mgmt0")
    faults = []
    rows["swp3"], rows["swp4"] = rows["swp4"], rows["swp3"]
    faults += [("gpu00003", "storage0", "swapped"), ("gpu00004", "storage0", "swapped")]
    rows["swp60"] = rows.pop("swp5")
    faults.append(("gpu00005", "storage0", "wrong-port"))
    speed = {"swp6": "100G"}
    faults.append(("gpu00006", "storage0", "wrong-speed"))
    del rows["swp7"]
    faults.append(("gpu00007", "storage0", "missing"))
    rows["swp61"] = ("install-laptop", "enx00e04c680001", 1.0)
    speed["swp61"] = "1G"
    lines = ["cumulus@sto-leaf-001:mgmt:~$ nv show interface --view=lldp", "",
             "Interface  Speed  Type      Remote Host     Remote Port",
             "---------  -----  --------  --------------  -------------------"]  # fmt: skip
    lines.append(f"{'eth0':<9}  {'1G':<5}  {'eth':<8}  {'':<14}  ")
    lines.append(f"{'lo':<9}  {'':<5}  {'loopback':<8}")
    for port in sorted(rows, key=lambda p: int(p[3:])):
        far, far_port, s = rows[port]
        remote = cumulus(far_port) if far.startswith("sto-") else host_port(far, far_port)
        if far == "gpu00008":
            remote = "mac:94:6d:ae:12:00:08"  # lldpd's default port id: the MAC
        text = speed.get(port, f"{s:g}G")
        lines.append(f"{port:<9}  {text:<5}  {'swp':<8}  {far:<14}  {remote}")
    return "\n".join(lines) + "\n", faults


def sonic(ends: dict) -> tuple[str, list]:
    rows = dict(neighbours_of(ends, "sto-leaf-002"))
    rows.pop("mgmt0")
    faults = []
    rows["swp3"], rows["swp4"] = rows["swp4"], rows["swp3"]
    faults += [("gpu00003", "storage1", "swapped"), ("gpu00004", "storage1", "swapped")]
    rows["swp62"] = rows.pop("swp9")
    faults.append(("gpu00009", "storage1", "wrong-port"))
    del rows["swp6"]
    faults.append(("gpu00006", "storage1", "missing"))
    rows["swp61"] = ("mystery-host", "eth0", 1.0)
    lines = ["admin@sto-leaf-002:~$ show lldp table",
             "Capability codes: (R) Router, (B) Bridge, (O) Other",
             "LocalPort    RemoteDevice    RemotePortID       Capability    RemotePortDescr",
             "-----------  --------------  -----------------  ------------  -----------------"]  # fmt: skip
    for port in sorted(rows, key=lambda p: int(p[3:])):
        far, far_port, _s = rows[port]
        local = f"Ethernet{(int(port[3:]) - 1) * 4}"
        if far.startswith("sto-"):  # the spine runs SONiC too: 8 lanes per OSFP cage
            head, _, lane = far_port.partition("/")
            pid = f"Ethernet{(int(head[3:]) - 1) * 8 + (int(lane) - 1) * 2}"
            cap, descr = "BR", pid
        else:
            mac = sum(map(ord, far)) % 256
            pid, cap, descr = f"94:6d:ae:12:{mac:02x}:01", "O", host_port(far, far_port)
        lines.append(f"{local:<11}  {far:<14}  {pid:<17}  {cap:<12}  {descr}")
    lines += ["-" * 50, f"Total entries displayed:  {len(rows)}"]
    return "\n".join(lines) + "\n", faults


def nclu(ends: dict) -> tuple[str, list]:
    rows = dict(neighbours_of(ends, "mgt-tor-a01"))
    rows.pop("mgmt0")
    faults = []
    # Cumulus names the 48 RJ45 ports swp1..swp48 and the uplinks swp49..swp52.
    names = {f"eth{i}": f"swp{i}" for i in range(1, 49)} | {
        f"uplink{i}": f"swp{48 + i}" for i in range(1, 5)
    }
    rows["eth3"], rows["eth4"] = rows["eth4"], rows["eth3"]
    faults += [("gpu00003", "mgmt0", "swapped"), ("gpu00004", "mgmt0", "swapped")]
    speed = {"eth2": "1G"}
    faults.append(("gpu00002", "mgmt0", "wrong-speed"))
    rows["uplink3"] = rows.pop("uplink1")
    faults.append(("mgt-tor-a01", "uplink1", "wrong-port"))
    del rows["uplink2"]
    faults.append(("mgt-tor-a01", "uplink2", "missing"))
    rows["eth30"] = ("printer-01", "00:1b:a9:00:00:01", 1.0)
    speed["eth30"] = "100M"
    lines = ["cumulus@mgt-tor-a01:mgmt-vrf:~$ net show lldp", "",
             "LocalPort  Speed  Mode          RemoteHost     RemotePort",
             "---------  -----  ------------  -------------  -----------------"]  # fmt: skip
    for port in sorted(rows, key=lambda p: int(names[p][3:])):
        far, far_port, s = rows[port]
        remote = cumulus(far_port) if far.startswith("mgt-") else host_port(far, far_port)
        mode = "Interface/L3" if far.startswith("mgt-") else "Access/L2"
        lines.append(
            f"{names[port]:<9}  {speed.get(port, f'{s:g}G'):<5}  {mode:<12}  {far:<13}  {remote}"
        )
    return "\n".join(lines) + "\n", faults


def lldp_interface(port: str, far: str, far_port: str, mau: str, *, ifname: bool) -> dict:
    pid = (
        {"type": "ifname", "value": far_port}
        if ifname
        else {"type": "mac", "value": "1c:34:da:5a:00:01"}
    )
    return {port: {
        "via": "LLDP", "rid": "1", "age": "0 day, 02:14:07",
        "chassis": {far: {"id": {"type": "mac", "value": "1c:34:da:5a:00:00"},
                          "descr": "Cumulus Linux version 5.9.1 running on Nvidia SN4600",
                          "mgmt-ip": "10.10.0.11",
                          "capability": [{"type": "Bridge", "enabled": True},
                                         {"type": "Router", "enabled": True}]}},
        "port": {"id": pid, "descr": far_port, "ttl": "120", "mfs": "9216",
                 "auto-negotiation": {"supported": True, "enabled": True,
                                      "advertised": [], "current": mau}},
    }}  # fmt: skip


def lldpctl(ends: dict) -> tuple[dict[str, str], list]:
    """Host-side captures: gpu00001..gpu00004 and one switch (sto-leaf-003 has no host
    links in this design, so its file is a neighbour seen nowhere else)."""
    mau = {10.0: "10GbaseT - Four-pair Category 6A UTP, full duplex mode",
           200.0: "200GbaseCR4 - 200GBASE-R PCS/PMA over 4 lane shielded copper",
           100.0: "100GbaseCR4 - 100GBASE-R PCS/PMA over 4 lane shielded copper"}  # fmt: skip
    linux = {"mgmt0": "eno3", "storage0": "enp170s0f0np0", "storage1": "enp41s0f0np0"}
    files: dict[str, str] = {}
    faults = []
    for host in ("gpu00001", "gpu00002", "gpu00003", "gpu00004"):
        entries = []
        for port in ("mgmt0", "storage0", "storage1"):
            far, far_port, s = ends[(host, port)]
            speed = s
            if (host, port) == ("gpu00001", "storage1"):
                speed = 100.0
            if host == "gpu00003" and port == "mgmt0":
                far_port = "eth4"  # crossed with gpu00004's
            if host == "gpu00004" and port == "mgmt0":
                far_port = "eth3"
            if (host, port) == ("gpu00002", "storage1"):
                continue  # the NIC shows no neighbour: missing
            if (host, port) == ("gpu00002", "storage0"):
                far_port = "swp60"  # a free port of the leaf
            entries.append(lldp_interface(linux[port], far, far_port, mau[speed],
                                          ifname=far.startswith(("sto-", "mgt-"))))  # fmt: skip
        if host == "gpu00004":
            entries.append(
                lldp_interface("enp82s0f1np1", "lab-switch", "ge-0/0/7", mau[10.0], ifname=True)
            )
        body = entries if len(entries) > 1 else entries[0]
        files[f"{host}.json"] = json.dumps({"lldp": {"interface": body}}, indent=2) + "\n"
    files["gpu00005.json"] = json.dumps({"lldp": {"interface": lldp_interface(
        "eno3", "mgt-tor-a02", "eth1", mau[10.0], ifname=True)}}, indent=2) + "\n"  # fmt: skip
    faults += [("gpu00001", "storage1", "wrong-speed"),
               ("gpu00003", "mgmt0", "swapped"), ("gpu00004", "mgmt0", "swapped"),
               ("gpu00002", "storage1", "missing"), ("gpu00002", "storage0", "wrong-port")]  # fmt: skip
    return files, faults


if __name__ == "__main__":
    ends = design_links()
    expected: dict[str, dict] = {}

    def record(folder: str, faults: list, unexpected: int) -> None:
        expected[folder] = {
            "faults": [{"device": d, "port": p, "verdict": v} for d, p, v in faults],
            "unexpected": unexpected,
        }

    text, faults = ibnetdiscover(ends)
    (HERE / "ibnetdiscover").mkdir(exist_ok=True)
    (HERE / "ibnetdiscover" / "fabric.txt").write_text(text + "\n")
    record("ibnetdiscover", faults, 1)
    for folder, make, file in (("nvue-lldp", nvue, "sto-leaf-001.txt"), ("sonic-lldp", sonic, "sto-leaf-002.txt"),
                               ("nclu-lldp", nclu, "mgt-tor-a01.txt")):  # fmt: skip
        text, faults = make(ends)
        (HERE / folder).mkdir(exist_ok=True)
        (HERE / folder / file).write_text(text)
        record(folder, faults, 1)
    files, faults = lldpctl(ends)
    (HERE / "lldpctl-json").mkdir(exist_ok=True)
    for name, text in files.items():
        (HERE / "lldpctl-json" / name).write_text(text)
    record("lldpctl-json", faults, 1)
    (HERE / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(f"wrote {len(expected)} sample folders under {HERE}")
