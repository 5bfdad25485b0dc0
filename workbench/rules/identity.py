"""Rules on what identifies a thing: duplicate device names, asset tags and serials,
GPU servers whose names no scheduler takes, and baselines with nothing decided.

The edits refuse each of these as it is made (:mod:`workbench.model.unique`,
:mod:`workbench.text_rules`); a file from an older workbench, a hand-edited one or an
import may still hold them, and the design opens (refusing it would cost a user the
design over a name), so ``workbench check`` and the window's Checks list them here.
"""

from __future__ import annotations

from collections.abc import Iterator

from workbench.catalog.item import is_gpu_server
from workbench.model import Design, Device
from workbench.model.unique import clashes
from workbench.rules.engine import Finding, Rule, RuleContext, Severity, rule
from workbench.text_rules import NODE_NAME_WORDS, node_name_refusals


@rule(
    "NAME-DUPLICATE",
    title="Two devices share a name, asset tag or serial",
    severity=Severity.ERROR,
    scope="design",
    looks_at={"device", "design"},
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


@rule(
    "NODE-HOSTNAME",
    title="A GPU server's name is no host name a scheduler takes",
    severity=Severity.WARNING,
    scope="device",
    looks_at={"device"},
    source="slurm.conf(5) NodeName; Kubernetes object names (RFC 1123 DNS subdomain)",
)
def node_hostname(ctx: RuleContext, me: Rule, device: Device) -> Iterator[Finding]:
    if not is_gpu_server(ctx.design.device_types.get(device.device_type)):
        return
    refused = node_name_refusals(device.name)
    if refused:
        words = "; ".join(f"{s}: {NODE_NAME_WORDS[s]}" for s in refused)
        yield me.finding(
            f"{device.name!r} is the host name of a GPU server, but the "
            f"{' and '.join(refused)} export{'s' if len(refused) > 1 else ''} refuse"
            f"{'' if len(refused) > 1 else 's'} it ({words}); rename it to the node's real "
            "host name.",
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
