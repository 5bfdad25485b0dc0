"""ibnetdiscover on switches whose ports are split: the port numbers name breakout lanes.

A split InfiniBand switch numbers each port's lanes one after the other (a published
capture of a split MQM9700, ``tests/data/captures/real``: four NDR200 hosts of one cage
at ports 1..4), so port ``N`` is lane ``(N-1) % 2 + 1`` of catalog port ``ceil(N/2)``
(:func:`workbench.asbuilt.mapping.ib_split_ways`).  The captures below are written here,
from the design, by that published numbering (not by the mapping under test), the way
``tests/data/captures/make_captures.py`` writes the samples.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workbench import asbuilt
from workbench.asbuilt.mapping import PortMap, ib_split_ways
from workbench.catalog import load_catalog
from workbench.model import ops
from workbench.model.design import Link
from workbench.model.field_ops import RenameDevice
from workbench.model.ports import ports_of
from workbench.planning.fabric.generator import FabricRequest, generate_fabric
from workbench.templates.builder import build_nodes

REAL = Path(__file__).parent / "data" / "captures" / "real"
NOW = "2026-04-02T08:00:00Z"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _fabric(catalog, switch: str, nodes: int, **request):
    design = build_nodes("nvidia-dgx-h100", nodes, catalog)
    generate_fabric(
        design, catalog, FabricRequest(plane="compute", switch=switch, topology="rail", **request)
    )
    return design


def _ib_links(design) -> list:
    """The links ibnetdiscover sees: those on the InfiniBand networks."""
    ib = {n.id for n in design.networks if n.technology == "infiniband"}
    return [lk for lk in design.links if lk.network in ib]


def _numbers(design) -> dict[tuple[str, str], int]:
    """(switch id, catalog port or lane) -> its ibnetdiscover port number: lanes of a
    split port one after the other, a whole port on an unsplit switch its catalog place."""
    out: dict[tuple[str, str], int] = {}
    ends = [(lk.a_device, lk.a_port) for lk in _ib_links(design)]
    ends += [(lk.b_device, lk.b_port) for lk in _ib_links(design)]
    by_switch: dict[str, set[str]] = {}
    for dev, port in ends:
        if design.item(design.index.devices[dev][1].device_type).kind == "switch":
            by_switch.setdefault(dev, set()).add(port)
    for dev, ports in by_switch.items():
        item = design.item(design.index.devices[dev][1].device_type)
        data = [p.name for p in ports_of(item) if not p.mgmt_only]
        split = any("/" in p for p in ports)
        for port in ports:
            head, _, lane = port.partition("/")
            assert not lane or int(lane) <= 2, port
            place = data.index(head)
            out[(dev, port)] = 2 * place + int(lane or 1) if split else place + 1
    return out


def _ibnetdiscover(design, *, moved: dict | None = None) -> str:
    """The IB fabric as ibnetdiscover prints it; ``moved`` puts a host cable (host,
    compute port) into another switch port number instead."""
    moved = moved or {}
    name = {d.id: d.name for _, d in design.iter_devices()}
    number = _numbers(design)
    kind = {d.id: design.item(d.device_type).kind for _, d in design.iter_devices()}
    guid = {dev: f"{0xB83FD20300A10000 + 16 * i:016x}" for i, dev in enumerate(sorted(name))}
    blocks: dict[str, list[str]] = {}
    lids = {dev: i + 1 for i, dev in enumerate(sorted(name))}

    def hca(dev: str, port: str) -> tuple[str, str]:
        k = int(port.removeprefix("compute"))
        return f"{int(guid[dev], 16) + k:016x}", f"mlx5_{k}"

    for lk in _ib_links(design):
        (a, ap), (b, bp) = (lk.a_device, lk.a_port), (lk.b_device, lk.b_port)
        if kind[a] == "switch" and kind[b] != "switch":
            (a, ap), (b, bp) = (b, bp), (a, ap)
        rate = f"{int(lk.speed_gbps // 100)}xNDR"
        if kind[a] != "switch":  # host -> switch
            g, adapter = hca(a, ap)
            n = moved.get((name[a], ap), number[(b, bp)])
            blocks.setdefault(b, []).append(
                f'[{n}]\t"H-{g}"[1]({g}) \t\t# "{name[a]} {adapter}" lid {lids[a]} {rate}'
            )
            blocks.setdefault(f"ca:{g}", []).extend([
                "vendid=0x2c9", "devid=0x1021", f"caguid=0x{g}",
                f'Ca\t1 "H-{g}"\t\t# "{name[a]} {adapter}"',
                f'[1]({g}) \t"S-{guid[b]}"[{n}]\t\t# lid {lids[a]} lmc 0 '
                f'"MF0;{name[b]}:MQM9700/U1" lid {lids[b]} {rate}', "",
            ])  # fmt: skip
        else:  # switch <-> switch, listed under both
            for (x, xp), (y, yp) in (((a, ap), (b, bp)), ((b, bp), (a, ap))):
                blocks.setdefault(x, []).append(
                    f'[{number[(x, xp)]}]\t"S-{guid[y]}"[{number[(y, yp)]}]\t\t'
                    f'# "MF0;{name[y]}:MQM9700/U1" lid {lids[y]} {rate}'
                )
    out = ["#", "# Topology file: generated on Tue Mar 11 09:41:27 2025", "#", ""]
    for key, lines in blocks.items():
        if key.startswith("ca:"):
            out += lines
            continue
        g = guid[key]
        ports = max(n for (dev, _), n in number.items() if dev == key)
        out += ["vendid=0x2c9", "devid=0xd2f0", f"sysimgguid=0x{g}", f"switchguid=0x{g}({g})",
                f'Switch\t{ports + 1} "S-{g}"\t\t# "MF0;{name[key]}:MQM9700/U1" enhanced port 0 '
                f"lid {lids[key]} lmc 0", *lines, ""]  # fmt: skip
    return "\n".join(out) + "\n"


def _check(design, tmp_path: Path, text: str) -> dict[str, asbuilt.Verdict]:
    folder = tmp_path / "capture"
    folder.mkdir(exist_ok=True)
    (folder / "fabric.txt").write_text(text)
    read = asbuilt.read_folder(folder, who="tester", now=NOW)
    return {v.link_id: v for v in asbuilt.check(design, read.captures) if v.link_id}


def test_split_xdr_fabric_capture_names_every_lane(catalog, tmp_path: Path) -> None:
    """The Q3400-RA fabric the large templates build cables every port as two 400G
    lanes (p1/1, p1/2 ...): its capture comes back with no wrong-port link."""
    design = _fabric(catalog, "nvidia-q3400-ra", 32)
    lanes = [lk for lk in design.links if "/" in lk.b_port]
    assert len(lanes) == len(design.links) > 256
    verdicts = _check(design, tmp_path, _ibnetdiscover(design))
    assert len(verdicts) == len(design.links)
    assert {v.verdict for v in verdicts.values()} == {"correct"}


def test_split_fabric_faults_still_show(catalog, tmp_path: Path) -> None:
    """A host cable moved to a free lane is a wrong port named by that lane; the numbers
    of a crossed pair of lanes make both swapped."""
    design = _fabric(catalog, "nvidia-q3400-ra", 32)
    name = {d.id: d.name for _, d in design.iter_devices()}
    host = {(name[lk.a_device], lk.a_port): lk for lk in design.links}
    first, second = host[("gpu00001", "compute0")], host[("gpu00002", "compute0")]
    assert (first.b_port, second.b_port) == ("p1/1", "p1/2")
    # The leaf's management port is cabled too (as every template cables it): it is
    # whole, on another network, and says nothing of how the InfiniBand ports split.
    gpu = next(d.id for _, d in design.iter_devices() if d.name == "gpu00005")
    ops.apply(design, ops.AddLink(Link("l-mgmt", first.b_device, "mgmt0", gpu, "mgmt0")))
    item = design.item(design.index.devices[first.b_device][1].device_type)
    free = 2 * ([p.name for p in ports_of(item)].index("p40") + 1)  # p40/2
    moved = {("gpu00001", "compute0"): 2, ("gpu00002", "compute0"): 1,
             ("gpu00003", "compute0"): free}  # fmt: skip
    verdicts = _check(design, tmp_path, _ibnetdiscover(design, moved=moved))
    assert verdicts[first.id].verdict == verdicts[second.id].verdict == "swapped"
    wrong = verdicts[host[("gpu00003", "compute0")].id]
    assert wrong.verdict == "wrong-port" and wrong.detail.endswith("cmp-leaf-su01-r1 p40/2")
    faulted = {first.id, second.id, wrong.link_id, "l-mgmt"}
    assert {v.verdict for i, v in verdicts.items() if i not in faulted} == {"correct"}


def test_split_quantum2_whole_capture(catalog, tmp_path: Path) -> None:
    """NDR200 hosts on QM9700 lanes: the split switch's 128 numbers name every lane."""
    design = _fabric(catalog, "nvidia-qm9700", 64, speed_gbps=200.0)
    assert {lk.b_port for lk in design.links if lk.a_port == "compute0"} >= {"p1/1", "p1/2"}
    verdicts = _check(design, tmp_path, _ibnetdiscover(design))
    assert {v.verdict for v in verdicts.values()} == {"correct"}


def test_unsplit_quantum2_keeps_plain_numbers(catalog, tmp_path: Path) -> None:
    """A QM9700 left whole numbers its 64 ports in catalog order (p1 = 1, p2 = 2: cage 1)."""
    design = _fabric(catalog, "nvidia-qm9700", 64)
    assert not any("/" in lk.b_port for lk in design.links)
    verdicts = _check(design, tmp_path, _ibnetdiscover(design))
    assert {v.verdict for v in verdicts.values()} == {"correct"}


def _real_capture() -> str:
    """The published capture with its redacted GUIDs filled in (a different one per
    line, as three hosts share the same redacted text) and the author's cut dropped."""
    lines = []
    published = (REAL / "qm9700-split-ibnetdiscover.txt").read_text()
    for number, line in enumerate(published.splitlines()):
        if line.startswith("..."):
            continue
        if line.startswith("["):
            line = line.replace("<redacted>", f"{number:012x}")
        lines.append(line.replace("<redacted>", "00000000aaaa"))
    return "\n".join(lines) + "\n"


def test_real_split_quantum2_capture(catalog, tmp_path: Path) -> None:
    """The published split MQM9700: hosts at ports 1, 2, 3, 4, 6 are lanes p1/1, p1/2,
    p2/1, p2/2, p3/2 of the switch, on the hosts' third adapters (mlx5_2)."""
    design = _fabric(catalog, "nvidia-qm9700", 8, speed_gbps=200.0, ports_per_host=3)
    name = {d.id: d.name for _, d in design.iter_devices()}
    ends = {(name[lk.a_device], lk.a_port): lk for lk in design.links}
    leaf = ends[("gpu00001", "compute2")].b_device
    rename = {leaf: "CNTSN-POD229-QM97-IB-02"}
    hosts = {"gpu00001": "005", "gpu00002": "004", "gpu00003": "006", "gpu00004": "007",
             "gpu00006": "009"}  # fmt: skip
    rename |= {d.id: f"tj01-4090-node{hosts[d.name]}" for _, d in design.iter_devices()
               if d.name in hosts}  # fmt: skip
    for device_id, new in rename.items():
        ops.apply(design, RenameDevice(device_id, new))
    verdicts = _check(design, tmp_path, _real_capture())
    lanes = {"gpu00001": "p1/1", "gpu00002": "p1/2", "gpu00003": "p2/1", "gpu00004": "p2/2",
             "gpu00006": "p3/2"}  # fmt: skip
    for host, lane in lanes.items():
        link = ends[(host, "compute2")]
        assert link.b_port == lane
        assert verdicts[link.id].verdict == "correct", verdicts[link.id]
        assert verdicts[link.id].found_gbps == 200.0  # 2xNDR
    assert not {v.verdict for v in verdicts.values()} & {"wrong-port", "swapped", "unexpected"}


def test_split_ways_from_the_catalog(catalog) -> None:
    """How many numbers a port takes comes from the item's ports and breakouts."""
    qm, xdr = catalog["nvidia-qm9700"], catalog["nvidia-q3400-ra"]
    assert [ib_split_ways(qm, n) for n in (0, 6, 64, 65, 128)] == [1, 1, 1, 2, 2]
    assert ib_split_ways(qm, 6, lambda: 2) == 2  # low ports only, the design splits them all
    assert [ib_split_ways(xdr, n) for n in (144, 145, 288)] == [1, 2, 2]
    assert ib_split_ways(qm, 300) == 0  # more than any split: the numbers name nothing
    assert ib_split_ways(catalog["nvidia-sn5600"], 300) == 1  # Ethernet: not numbered so
    ports = PortMap()
    assert ports.candidates(qm, "3", 2) == (("p2/1", 2), ("p2", None))
    assert ports.candidates(qm, "4", 2) == (("p2/2", 2),)
    assert ports.candidates(qm, "3")[0] == ("p3", None)  # whole: the third port
    assert ports.candidates(qm, "130", 2) == (("130", None),)


def test_plain_numbers_on_a_whole_switch_match_the_published_labels(catalog) -> None:
    """IB port N of a QM9700 is its cage ceil(N/2), port (N-1)%2+1 (the switch's own
    IB1/<cage>/<port> labels), which is catalog port pN: cage c holds p(2c-1), p(2c)."""
    qm = catalog["nvidia-qm9700"]
    assert qm.props.get("ports_per_cage") == 2
    data = [p.name for p in ports_of(qm) if not p.mgmt_only]
    for n in (1, 2, 3, 38, 64):
        cage, port = (n + 1) // 2, (n - 1) % 2 + 1
        assert PortMap().candidates(qm, str(n))[0][0] == data[2 * (cage - 1) + port - 1]
        assert re.fullmatch(rf"p{n}", data[2 * (cage - 1) + port - 1])


def _multi_plane_capture() -> str:
    """Two Quantum-X800 Q3400s as public tooling shows them: four ASIC nodes each
    (``NAME:Q3400_RA/U1`` .. ``/U4``), one front-port cable seen once per plane at
    ``1xXDR``, listed under both ends; and a host adapter on the leaf's first plane."""
    out = ["#", "# Topology file: generated", "#", ""]
    leaf = {k: f"{0xB8E9240300001000 + 16 * k:016x}" for k in range(1, 5)}
    spine = {k: f"{0xB8E9240300002000 + 16 * k:016x}" for k in range(1, 5)}
    for name, mine, other, port, far, far_name in (
        ("xdr-leaf", leaf, spine, 5, 9, "xdr-spine"),
        ("xdr-spine", spine, leaf, 9, 5, "xdr-leaf"),
    ):
        for k in range(1, 5):
            g = mine[k]
            out += ["vendid=0x2c9", "devid=0xd2f4", f"sysimgguid=0x{mine[1]}",
                    f"switchguid=0x{g}({g})",
                    f'Switch\t257 "S-{g}"\t\t# "MF0;{name}:Q3400_RA/U{k}" enhanced port 0 '
                    f"lid {k} lmc 0",
                    f'[{port}]\t"S-{other[k]}"[{far}]\t\t# "MF0;{far_name}:Q3400_RA/U{k}" '
                    f"lid {10 + k} 1xXDR"]  # fmt: skip
            if name == "xdr-leaf" and k == 1:
                out.append('[1]\t"H-0c42a10300120011"[1](c42a10300120011) \t\t# "gb-001 mlx5_0" '
                           "lid 100 4xNDR")  # fmt: skip
            out.append("")
    return "\n".join(out) + "\n"


def test_multi_plane_switch_cable_is_one_record(tmp_path: Path) -> None:
    """The four plane records of one 800G cable fold into one 4x, 800G record."""
    folder = tmp_path / "xdr"
    folder.mkdir()
    (folder / "fabric.txt").write_text(_multi_plane_capture())
    read = asbuilt.read_folder(folder, who="t", now=NOW)
    cables = {(c.local_device, c.local_port, c.remote_device, c.remote_port): c
              for c in read.captures}  # fmt: skip
    assert len(read.captures) == 2, read.captures
    cable = cables[("xdr-leaf", "5", "xdr-spine", "9")]
    assert (cable.width, cable.speed_gbps) == (4, 800.0)
    host = cables[("xdr-leaf", "1", "gb-001", "mlx5_0")]
    assert (host.width, host.speed_gbps) == (4, 400.0)


def test_same_plane_twice_is_not_folded(tmp_path: Path) -> None:
    """Two records between the same names on the same plane are two cables (two
    switches that share a name), never added up."""
    text = _multi_plane_capture().replace("Q3400_RA/U2", "Q3400_RA/U1")
    folder = tmp_path / "dup"
    folder.mkdir()
    (folder / "fabric.txt").write_text(text)
    read = asbuilt.read_folder(folder, who="t", now=NOW)
    leaf_spine = [c for c in read.captures if c.local_port in ("5", "9")]
    assert sorted((c.width, c.speed_gbps) for c in leaf_spine) == [(1, 200.0), (3, 600.0)]
