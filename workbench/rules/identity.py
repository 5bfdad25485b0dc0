"""Rules on what identifies a thing: duplicate device names, asset tags and serials,
GPU servers whose names no scheduler takes, and baselines with nothing decided.

The edits refuse each of these as it is made (:mod:`workbench.model.unique`,
:mod:`workbench.text_rules`); a file from an older workbench, a hand-edited one or an
import may still hold them, and the design opens (refusing it would cost a user the
design over a name), so ``workbench check`` and the window's Checks list them here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator, Iterator
from collections.abc import Set as AbstractSet
from typing import cast

from workbench.calc.steps import chunks, drain
from workbench.catalog.item import is_gpu_server
from workbench.model import Change, Design, Device
from workbench.model.unique import clashes
from workbench.rules.context import RuleContext
from workbench.rules.registry import Finding, Rule, Severity, rule
from workbench.text_rules import HOSTNAME_MAPPING_WORDS, node_hostname


def clash_possible(design: Design, change: Change) -> bool:
    """Whether ``change`` can make a clash: a device it names (and did not remove)
    carries a name another device also carries, or an asset tag or serial.  A GPU
    server dropped under a fresh name can do neither, so the drop does not walk 30,000
    devices (renames and label edits re-run the rule when a finding names the object,
    and refuse a new clash in the model).  A removal makes no clash and ends only those
    naming what went: the engine re-runs the rule then (``ended_by_removal``)."""
    if change.everything or change.design:
        return True
    index = design.index
    names = index.device_names
    for device_id in change.devices - change.removed:
        found = index.devices.get(device_id)
        if found is None:
            return True
        device = found[1]
        if names.get(device.name, 0) > 1 or device.serial or device.asset_tag:
            return True
    return False


@rule(
    "NAME-DUPLICATE",
    title="Two devices share a name, asset tag or serial",
    severity=Severity.ERROR,
    scope="design",
    looks_at={"device", "design"},
    depends=clash_possible,
    ended_by_removal=True,
    quotes_racks=True,
    source=(
        "NetBox keeps device names unique per site and asset tags globally; Slurm, "
        "Kubernetes and the version and acceptance imports name a node by its device name"
    ),
)
def name_duplicate(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    for clash in clashes(design):
        where = ", ".join(f"“{d.name}” in rack “{r.name}”" for r, d in clash.holders[:4])
        more = f" and {len(clash.holders) - 4} more" if len(clash.holders) > 4 else ""
        yield me.finding(
            f"{len(clash.holders)} devices share the {clash.what} {clash.value!r} "
            f"({where}{more}); it must identify one of them: rename or clear the others.",
            *(d.id for _r, d in clash.holders),
        )


def _holders(ctx: RuleContext) -> dict[str, list[Device]]:
    """Host name → the GPU servers mapping to it, in design order, for the host names
    more than one device's name maps to (none, usually: then nothing is walked)."""

    def walk() -> dict[str, list[Device]]:
        design = ctx.design
        shared = {host for host, count in design.index.host_names.items() if count > 1}
        holders: dict[str, list[Device]] = {}
        if not shared:
            return holders
        types = design.device_types
        for _rack, device in design.iter_devices():
            host = node_hostname(device.name) if isinstance(device.name, str) else None
            if host in shared and is_gpu_server(types.get(device.device_type)):
                holders.setdefault(host, []).append(device)
        return holders

    return cast(dict[str, list[Device]], ctx.memo("names:host-holders", "", walk))


def _same_host(ctx: RuleContext, device_ids: AbstractSet[str]) -> set[str]:
    """The GPU servers whose names map to the host name of one of ``device_ids``."""
    index = ctx.design.index
    counts = index.host_names
    out: set[str] = set()
    for device_id in device_ids:
        found = index.devices.get(device_id)
        name = found[1].name if found is not None else None
        host = node_hostname(name) if isinstance(name, str) else None
        if host is not None and counts.get(host, 0) > 1:
            out.update(d.id for d in _holders(ctx).get(host, ()))
    return out


#: Devices read per step by :func:`_hostname_suspects_in_steps` (~4 ms at 100,000 GPUs).
STEP_DEVICES = 1000


def _hostname_suspects_in_steps(
    ctx: RuleContext, chunk: int | None
) -> Generator[None, None, AbstractSet[str]]:
    """For a full check: the GPU servers NODE-HOSTNAME may find something on (a name
    that maps to no host name, or to one another device's name maps to as well),
    ``chunk`` devices per step (None: all in one).

    Why: asked device by device, the rule's first look-up builds the index's host-name
    counts over all 30,000 devices of a 100,000-GPU design in one go (~50 ms), which
    blocked input for that long in the window's first check.  The devices are counted
    as the check asks them (a device id used twice counts twice), so the answer may
    name more servers than have findings, never fewer."""
    design = ctx.design
    types = design.device_types
    counts: Counter[str] = Counter()
    servers: list[tuple[str, str | None]] = []
    devices = [d for _r, d in design.iter_devices()]
    for run in chunks(devices, chunk):
        if chunk:
            yield
        for device in run:
            name = device.name
            host = node_hostname(name) if isinstance(name, str) else None
            if host is not None:
                counts[host] += 1
            if is_gpu_server(types.get(device.device_type)):
                servers.append((device.id, host))
    return {d for d, host in servers if host is None or counts[host] > 1}


@rule(
    "NODE-HOSTNAME",
    title="A GPU server's name maps to no host name, or to another server's",
    severity=Severity.WARNING,
    scope="device",
    # "rack": a move changes which of two servers comes first in the design.
    looks_at={"device", "rack", "design"},
    everywhere=lambda _design, change: change.everything or bool(change.types),
    related=_same_host,
    suspects=lambda ctx: drain(_hostname_suspects_in_steps(ctx, None)),
    suspects_in_steps=lambda ctx: _hostname_suspects_in_steps(ctx, STEP_DEVICES),
    source="slurm.conf(5) NodeName; Kubernetes object names (RFC 1123 DNS subdomain)",
)
def node_hostname_rule(ctx: RuleContext, me: Rule, device: Device) -> Iterator[Finding]:
    """A device rule: the index counts the devices per host name, so a server whose
    host name is its own is done in one look-up; the servers sharing one are
    re-checked together (:attr:`~workbench.rules.registry.Rule.related`)."""
    # The exports map names with text_rules.node_hostname; this warns where they refuse.
    design = ctx.design
    if not is_gpu_server(design.device_types.get(device.device_type)):
        return
    host = node_hostname(device.name)
    if host is None:
        yield me.finding(
            f"{device.name!r} is the name of a GPU server, but no host name carries it "
            f"({HOSTNAME_MAPPING_WORDS}), so the Slurm and Kubernetes exports refuse it: "
            "rename it to the node's real host name.",
            device.id,
        )
        return
    if design.index.host_names.get(host, 0) < 2:
        return
    holders = _holders(ctx).get(host, [])
    first = holders[0] if holders else device
    if first.id != device.id:
        yield me.finding(
            f"GPU servers {first.name!r} and {device.name!r} both become the host name "
            f"{host!r} ({HOSTNAME_MAPPING_WORDS}), so the Slurm and Kubernetes exports "
            "refuse them: rename one.",
            first.id,
            device.id,
        )


@rule(
    "BASELINE-EMPTY",
    title="A baseline has no revision",
    severity=Severity.WARNING,
    scope="design",
    looks_at={"versions", "design"},
    source="a baseline says what its nodes should run; without a revision it says nothing",
)
def baseline_empty(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    for baseline in design.versions.baselines:
        if not baseline.revisions:
            yield me.finding(
                f"Baseline {baseline.name!r} has no revision, so the nodes assigned to it are "
                "compared with nothing: save a revision or remove the baseline.",
                baseline.id,
            )
