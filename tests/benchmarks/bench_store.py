"""How fast a big design saves and opens, next to plain sqlite3 doing the same inserts.

    .venv/bin/python tests/benchmarks/bench_store.py [--quick] [--runs N] [--file PATH ...]

Designs are built from dataclasses here (not from the templates) so the numbers measure
the project file alone: DGX-style 8-GPU servers four to a rack with a management switch
per rack, 1G management links, and a rail-optimised compute fabric (scalable units of 32
servers, eight leaf switches each, one 400G link per GPU), leaves sixteen to a rack.

Baselines, on the same rows in one transaction on a fresh file:
  * ``sqlite3 executemany``: the floor for writing the devices and links tables;
  * ``sqlite-utils insert_all``: why the writer uses executemany for bulk tables;
  * ``sqlite3 SELECT``: the floor for reading them back;
  * ``raw read``: plain sqlite3 fetching every row of every table of the saved project
    file (what ``tests/benchmarks/bench_cli_scale.py`` compares with too), and
    ``open/raw``, the open's ratio to it (min and median of the runs, each open paired
    with the raw read just after it); the goal is 1.5x or less.

``--file`` measures only that pairing, on saved project files (a 1,000,000-GPU design
from ``workbench new --gpus 1000000`` is too big to build here twice over).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from workbench.catalog import parse_item
from workbench.model.design import (
    Design,
    Device,
    Link,
    Network,
    Rack,
    Row,
    Site,
    SoftwareStack,
    Workload,
)
from workbench.store import open_design, save_design
from workbench.store.schema import COLUMNS
from workbench.store.writer import design_rows

SERVERS_PER_RACK = 4
RACKS_PER_ROW = 16
SERVERS_PER_SU = 32
RAILS = 8

CATALOG = [
    {
        "slug": "rack-48u",
        "kind": "rack",
        "manufacturer": "Generic",
        "model": "48U",
        "u_height": 48,
        "props": {"cooling": "liquid", "cooling_limit_kw": 120},
    },
    {
        "slug": "h100-sxm",
        "kind": "gpu",
        "manufacturer": "NVIDIA",
        "model": "H100 SXM",
        "hbm_gb": 80,
        "tflops": {"bf16": 989.4},
        "max_power_w": 700,
    },
    {
        "slug": "dgx-h100",
        "kind": "server",
        "manufacturer": "NVIDIA",
        "model": "DGX H100",
        "u_height": 8,
        "gpu": "h100-sxm",
        "gpu_count": 8,
        "max_power_w": 10200,
        "interfaces": [{"name": f"osfp{i}", "type": "400gbase-x-osfp"} for i in range(8)]
        + [{"name": "bmc", "type": "1000base-t", "mgmt_only": True}],
    },
    {
        "slug": "mgmt-48",
        "kind": "switch",
        "manufacturer": "Generic",
        "model": "48x1G",
        "u_height": 1,
        "max_power_w": 150,
        "interfaces": [{"name": f"ge{i}", "type": "1000base-t"} for i in range(1, 49)],
    },
    {
        "slug": "leaf-64",
        "kind": "switch",
        "manufacturer": "NVIDIA",
        "model": "QM9700",
        "u_height": 1,
        "max_power_w": 1720,
        "interfaces": [{"name": f"p{i}", "type": "400gbase-x-osfp"} for i in range(1, 65)],
    },
]


def build_design(gpus: int) -> Design:
    """A rail-optimised cluster of ``gpus`` GPUs, as dataclasses."""
    servers = -(-gpus // RAILS)
    racks: list[Rack] = []
    links: list[Link] = []
    for n in range(servers):
        if n % SERVERS_PER_RACK == 0:
            r = len(racks)
            mgmt = Device(f"mgmt-{r}", f"mgmt-sw-{r:04d}", "mgmt-48", position=42)
            racks.append(Rack(f"rack-{r}", f"R{r:04d}", "rack-48u", "liquid", 45.0, [mgmt]))
        rack = racks[-1]
        slot = n % SERVERS_PER_RACK
        node = Device(
            f"node-{n}",
            f"gpu-{n:05d}",
            "dgx-h100",
            position=2 + 9 * slot,
            serial=f"SN{n:08d}",
            software_stack="base",
        )
        rack.devices.append(node)
        links.append(
            Link(
                f"m-{n}",
                node.id,
                "bmc",
                rack.devices[0].id,
                f"ge{slot + 1}",
                network="oob",
                cable_type="utp",
                length_m=2.0,
            )
        )
        su = n // SERVERS_PER_SU
        for rail in range(RAILS):
            links.append(
                Link(
                    f"c-{n}-{rail}",
                    node.id,
                    f"osfp{rail}",
                    f"leaf-{su}-{rail}",
                    f"p{n % SERVERS_PER_SU + 1}",
                    network="compute",
                    cable_type="aoc",
                    length_m=15.0,
                )
            )
    leaves = [
        Device(f"leaf-{su}-{rail}", f"leaf-{su:03d}-{rail}", "leaf-64", position=1 + i % 16)
        for i, (su, rail) in enumerate(
            (su, rail) for su in range(-(-servers // SERVERS_PER_SU)) for rail in range(RAILS)
        )
    ]
    for start in range(0, len(leaves), 16):
        r = len(racks)
        racks.append(
            Rack(f"rack-{r}", f"N{r:04d}", "rack-48u", "air", 12.0, leaves[start : start + 16])
        )
    rows = [
        Row(f"row-{i}", f"Row {i + 1}", racks[i : i + RACKS_PER_ROW])
        for i in range(0, len(racks), RACKS_PER_ROW)
    ]
    items = [parse_item(m, source_file="bench") for m in CATALOG]
    return Design(
        name=f"{gpus} GPU benchmark",
        sites=[Site("hall-1", "Hall 1", rows)],
        device_types={i.slug: i for i in items},
        networks=[
            Network("compute", "IB NDR"),
            Network("oob", "OOB", "oob", "ethernet", 1.0, 1500),
        ],
        links=links,
        workloads=[Workload("w", "pretrain", gpus=gpus)],
        # The stack every node names: a file naming one it does not hold is refused.
        software_stacks=[SoftwareStack("base", "Base image", {"driver": "550.54.14"})],
        properties={"benchmark": "yes"},
    )


def timings(runs: int, fn: Callable[[], object]) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def best_of(runs: int, fn: Callable[[], object]) -> float:
    return min(timings(runs, fn))


def raw_read(path: Path) -> None:
    """Every row of every table of ``path`` through sqlite3 alone: the open's floor."""
    conn = sqlite3.connect(path)
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    for name in names:
        conn.execute(f'SELECT * FROM "{name}"').fetchall()
    conn.close()


def paired_open(path: Path, runs: int) -> tuple[list[float], list[float]]:
    """Seconds of each open of ``path`` and of the raw read just after it."""
    opened: list[Design] = []
    loads: list[float] = []
    raws: list[float] = []
    for _ in range(runs):  # interleaved, so both see the same machine load
        loads += timings(1, lambda: opened.append(open_design(path)))
        opened.clear()  # one design in memory at a time, as in the window
        raws += timings(1, lambda: raw_read(path))
    return loads, raws


def open_vs_raw(path: Path, runs: int) -> None:
    """The open of a saved file beside the raw read of it, paired run by run."""
    loads, raws = paired_open(path, runs)
    ratios = [o / r for o, r in zip(loads, raws, strict=True)]
    print(
        f"{path} ({path.stat().st_size / 1e6:.0f} MB): open min/med "
        f"{min(loads):.2f}/{statistics.median(loads):.2f}s, raw read "
        f"{min(raws):.2f}/{statistics.median(raws):.2f}s, open/raw min/med "
        f"{min(ratios):.2f}x/{statistics.median(ratios):.2f}x"
    )


def _fresh(folder: Path, name: str) -> Path:
    path = folder / name
    path.unlink(missing_ok=True)
    return path


def plain_executemany(folder: Path, tables: dict[str, list[tuple]]) -> None:
    """The same device and link rows through sqlite3 alone, default settings, one commit."""
    conn = sqlite3.connect(_fresh(folder, "plain.db"))
    for table, rows in tables.items():
        cols = COLUMNS[table]
        conn.execute(f'CREATE TABLE "{table}" ({", ".join(cols)})')
        conn.executemany(f'INSERT INTO "{table}" VALUES ({", ".join("?" * len(cols))})', rows)
    conn.commit()
    conn.close()


def plain_insert_all(folder: Path, tables: dict[str, list[tuple]]) -> None:
    """The same rows through sqlite-utils insert_all (list mode), one transaction."""
    db = sqlite_utils.Database(_fresh(folder, "utils.db"))
    with db.conn:
        for table, rows in tables.items():
            db[table].insert_all([COLUMNS[table], *rows], batch_size=1000)
    db.close()


def plain_select(folder: Path, tables: dict[str, list[tuple]]) -> None:
    conn = sqlite3.connect(folder / "plain.db")
    for table in tables:
        conn.execute(f'SELECT * FROM "{table}"').fetchall()
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="16,384 GPUs only, one run each")
    parser.add_argument("--runs", type=int, help="runs of each (default 3; 1 with --quick)")
    parser.add_argument("--file", type=Path, nargs="+", help="time opening these files only")
    args = parser.parse_args()
    if args.file:
        for path in args.file:
            open_vs_raw(path, args.runs or 3)
        return
    sizes = [16_384] if args.quick else [16_384, 100_000]
    runs = args.runs or (1 if args.quick else 3)
    print(
        f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, "
        f"{os.cpu_count()} CPUs, best of {runs}"
    )
    header = (
        f"{'GPUs':>8} {'devices':>8} {'links':>8} {'MB':>6} {'save':>7} {'open':>7} "
        f"{'sqlite3 em':>10} {'su ins_all':>10} {'sqlite3 sel':>11} {'raw read':>8} "
        f"{'open/raw min/med':>16}"
    )
    print(header)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for gpus in sizes:
            design = build_design(gpus)
            tables = {t: list(rows) for t, rows in design_rows(design) if t in ("devices", "links")}
            path = folder / f"bench-{gpus}.dcwb"
            save = best_of(runs, lambda: save_design(design, path))  # noqa: B023
            loads, raws = paired_open(path, runs)
            load = min(loads)
            ratios = [o / r for o, r in zip(loads, raws, strict=True)]
            assert open_design(path) == design, "round trip changed the design"
            em = best_of(runs, lambda: plain_executemany(folder, tables))  # noqa: B023
            ins = best_of(runs, lambda: plain_insert_all(folder, tables))  # noqa: B023
            sel = best_of(runs, lambda: plain_select(folder, tables))  # noqa: B023
            print(
                f"{gpus:>8,} {len(tables['devices']):>8,} {len(tables['links']):>8,} "
                f"{path.stat().st_size / 1e6:>6.1f} {save:>6.2f}s {load:>6.2f}s "
                f"{em:>9.2f}s {ins:>9.2f}s {sel:>10.2f}s {min(raws):>7.2f}s "
                f"{min(ratios):>9.2f}x/{statistics.median(ratios):.2f}x"
            )


if __name__ == "__main__":
    main()
