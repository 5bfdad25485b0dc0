"""Benchmark: checking 100,000 captured links against a design (target: at most 2 s).

Builds ``dgx-h100-superpod`` with 100,000 GPUs (about 440,000 links), makes captured
records for the first 100,000 links as ibnetdiscover would name them (hosts by
``HOST mlx5_N``, switch ports by number, a split port's lanes numbered one after the
other) with 1% of them crossed in pairs and 1% at the wrong rate, and times
:func:`workbench.asbuilt.check` (the matcher: names and ports mapped, indexes built,
every design link given its verdict).  Also times reading an
ibnetdiscover file of the same cables written to a temporary folder.

    .venv/bin/python tests/benchmarks/bench_asbuilt.py [--gpus 100000] [--links 100000]

Not collected by the default pytest run: timings are not unit-test assertions.
"""

from __future__ import annotations

import argparse
import collections
import time

from workbench import asbuilt
from workbench.model.captures import CapturedLink
from workbench.model.ports import ports_of
from workbench.templates import build_template


def captured(design, count: int) -> list[CapturedLink]:
    name = {d.id: d.name for _, d in design.iter_devices()}
    item = {d.id: design.device_types[d.device_type] for _, d in design.iter_devices()}
    number: dict[tuple[str, str], str] = {}

    def port(dev: str, p: str) -> str:
        key = (item[dev].slug, p)
        if key not in number:
            data = [x.name for x in ports_of(item[dev]) if not x.mgmt_only]
            if item[dev].kind in ("server", "storage"):
                order = [x for x in data if x.startswith("compute")] + [
                    x for x in data if x.startswith("storage")
                ]
                number[key] = f"mlx5_{order.index(p)}" if p in order else p
            else:  # a split port's lanes one after the other (asbuilt.mapping.ib_split_ways)
                head, _, lane = p.partition("/")
                if lane and head in data:
                    number[key] = str(2 * data.index(head) + int(lane))
                else:
                    number[key] = str(data.index(p) + 1) if p in data else p
        return number[key]

    out = []
    for i, link in enumerate(design.links[:count]):
        a, b = (link.a_device, link.a_port), (link.b_device, link.b_port)
        speed = link.speed_gbps or 400.0
        if i % 200 == 7:
            speed /= 2
        out.append(CapturedLink("fabric.txt", i + 1, "ibnetdiscover", name[a[0]], port(*a),
                                name[b[0]], port(*b), speed, 4, "", "2026-01-01T00:00:00Z",
                                "bench", "b1"))  # fmt: skip
    for i in range(0, len(out) - 1, 100):  # cross pairs of host ends
        x, y = out[i], out[i + 1]
        out[i] = CapturedLink(x.source, x.line, x.format, x.local_device, x.local_port, y.remote_device,
                              y.remote_port, x.speed_gbps, 4, "", x.imported_at, "", "b1")  # fmt: skip
        out[i + 1] = CapturedLink(y.source, y.line, y.format, y.local_device, y.local_port,
                                  x.remote_device, x.remote_port, y.speed_gbps, 4, "", y.imported_at, "", "b1")  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=100_000)
    parser.add_argument("--links", type=int, default=100_000)
    args = parser.parse_args()
    t = time.perf_counter()
    design = build_template("dgx-h100-superpod", gpus=args.gpus)
    print(f"design: {len(design.links):,} links, built in {time.perf_counter() - t:.1f} s")
    records = captured(design, args.links)
    best = cpu = float("inf")
    for _ in range(3):
        t, c = time.perf_counter(), time.process_time()
        verdicts = asbuilt.check(design, records)
        best = min(best, time.perf_counter() - t)
        cpu = min(cpu, time.process_time() - c)
    counts = collections.Counter(v.verdict for v in verdicts)
    # CPU time too: on a shared 2-core machine the wall time says more about the others.
    print(f"check {len(records):,} captured links: {best:.2f} s (best of 3; CPU {cpu:.2f} s) "
          f"{dict(counts)}")  # fmt: skip
    t = time.perf_counter()
    design.captures[:] = records
    marks = asbuilt.verdicts(design)
    print(
        f"verdicts(design) for the Fabric view: {time.perf_counter() - t:.2f} s, {len(marks):,} links"
    )


if __name__ == "__main__":
    main()
