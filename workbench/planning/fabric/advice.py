"""What a fabric request that cannot be built is told: why, with the numbers, and what
would work (a bigger switch, an oversubscription, larger scalable units, four tiers).

The numbers are worked out, never written down: the smallest radix that would do is
searched with the same capacity formulas the sizing uses
(:mod:`workbench.planning.fabric.formulas`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from workbench.planning.fabric.formulas import (
    MAX_RADIX,
    FabricError,
    Radix,
    SwitchOption,
    ceil_div,
    leaf_split,
    uplinks_for,
)


def ratio(oversubscription: float) -> str:
    return f"{oversubscription:.3g}:1"


def leaf_fits(leaf: Radix, d: int, u: int, oversubscription: float, what: str) -> None:
    """FabricError with the numbers when ``d`` downlinks and ``u`` uplinks do not fit
    ("needs 40 downlinks and 40 uplinks …; the switch has 32 free ports")."""
    if leaf.uplinks is None:
        if d + u <= leaf.ports:
            return
        free = max(0, leaf.ports - d)
        most, _ = leaf_split(leaf.ports, oversubscription)
        fixes = [f"at most {most} hosts per leaf at {ratio(oversubscription)}"]
        if free:
            fixes.append(f"an oversubscription of at least {d / free:.3g}:1")
        fixes.append(f"a switch with at least {d + u} ports")
        raise FabricError(
            f"{what} needs {d} downlinks and {u} uplinks at {ratio(oversubscription)}; "
            f"{leaf.name} has {free} free ports after the downlinks ({leaf.ports} at "
            f"{leaf.speed_gbps:g}G). Use {join(fixes)}."
        )
    if d > leaf.ports:
        raise FabricError(f"{what} needs {d} host ports; {leaf.name} has {leaf.ports}.")
    if u > (leaf.uplinks or 0):
        raise FabricError(
            f"{what} needs {u} uplinks at {leaf.up_gbps:g}G for {ratio(oversubscription)}; "
            f"{leaf.name} has {leaf.uplinks} uplink ports. Use a higher oversubscription "
            "or fewer hosts per switch."
        )


def smallest_radix(enough: Callable[[int], bool], start: int = 2) -> int | None:
    for k in range(start, MAX_RADIX + 1):
        if enough(k):
            return k
    return None


def join(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _options_text(options: Sequence[SwitchOption], need: int | None) -> str:
    fit = [o for o in options if need is not None and o.ports >= need]
    if not fit:
        return "none in the catalog"
    return "the catalog has " + ", ".join(
        f"{o.slug}, {o.ports} ports" + (f" {o.note}" if o.note else "") for o in fit[:2]
    )


def too_big_leaf_spine(
    host_ports: int,
    leaf: Radix,
    spine_ports: int,
    oversubscription: float,
    spine_name: str,
    options: Sequence[SwitchOption],
) -> str:
    d_max, _ = leaf.leaf(oversubscription)
    pod_leaves = spine_ports // 2
    most = spine_ports * pod_leaves * d_max
    same = leaf.uplinks is None and leaf.ports == spine_ports
    if same and oversubscription == 1.0:
        formula = f"k³/4 = {most:,}"
    else:
        formula = f"{spine_ports} pods × {pod_leaves} leaves × {d_max} = {most:,}"
    k = leaf.ports
    name = f"{k}-port switches" if same else f"{leaf.name} leaves and {spine_name} spines"
    need = smallest_radix(
        lambda r: r * (r // 2) * leaf_split(r, oversubscription)[0] >= host_ports, k + 1
    )
    text = (
        f"{host_ports:,} host ports at {ratio(oversubscription)} need more than a 3-tier "
        f"fat tree of {name} gives ({formula}). Use 4 tiers (not generated here), a switch "
        f"with at least {need} ports at {leaf.speed_gbps:g}G ({_options_text(options, need)})"
    )
    d = ceil_div(host_ports, spine_ports * pod_leaves)
    if leaf.uplinks is None and d < leaf.ports:
        u = leaf.ports - d
        text += f", or an oversubscription of at least {d / u:.3g}:1 ({d} down, {u} up per leaf)"
    return text + "."


def too_big_rail(
    nodes: int,
    rails: int,
    su_nodes: int,
    leaf: Radix,
    spine_ports: int,
    oversubscription: float,
    options: Sequence[SwitchOption],
) -> str:
    per_pod = (spine_ports // 2) // rails
    most_sus = spine_ports * per_pod
    sus = ceil_div(nodes, su_nodes)

    def holds(k: int) -> bool:
        if su_nodes + uplinks_for(su_nodes, oversubscription, 1, 1) > k:
            return False
        return k * ((k // 2) // rails) * su_nodes >= nodes

    need = smallest_radix(holds, spine_ports + 1)
    text = (
        f"{nodes * rails:,} host ports in {sus:,} SUs of {su_nodes} nodes need more than a "
        f"3-tier rail-optimized fabric of {spine_ports}-port switches holds ({spine_ports} "
        f"pods × {per_pod} SUs = {most_sus:,} SUs, {most_sus * su_nodes:,} nodes, "
        f"{most_sus * su_nodes * rails:,} host ports). Use 4 tiers (not generated here), a "
        f"switch with at least {need} ports at {leaf.speed_gbps:g}G "
        f"({_options_text(options, need)})"
    )
    d = ceil_div(nodes, most_sus) if most_sus else 0
    if leaf.uplinks is None and 0 < d < leaf.ports:
        u = leaf.ports - d
        text += (
            f", or SUs of at least {d} nodes at an oversubscription of at least "
            f"{d / u:.3g}:1 ({d} down, {u} up per leaf)"
        )
    return text + "."
