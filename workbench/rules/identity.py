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
from workbench.model import Design
from workbench.model.unique import clashes
from workbench.rules.engine import Finding, Rule, RuleContext, Severity, rule
from workbench.text_rules import HOSTNAME_MAPPING_WORDS, node_hostname


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
    title="A GPU server's name maps to no host name, or to another server's",
    severity=Severity.WARNING,
    scope="design",
    looks_at={"device", "design"},
    source="slurm.conf(5) NodeName; Kubernetes object names (RFC 1123 DNS subdomain)",
)
def node_hostname_rule(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    # The exports map names with text_rules.node_hostname; this warns where they refuse.
    first: dict[str, tuple[str, str]] = {}
    for _rack, device in design.iter_devices():
        if not is_gpu_server(design.device_types.get(device.device_type)):
            continue
        host = node_hostname(device.name)
        if host is None:
            yield me.finding(
                f"{device.name!r} is the name of a GPU server, but no host name carries it "
                f"({HOSTNAME_MAPPING_WORDS}), so the Slurm and Kubernetes exports refuse it: "
                "rename it to the node's real host name.",
                device.id,
            )
        elif host in first:
            other_id, other_name = first[host]
            yield me.finding(
                f"GPU servers {other_name!r} and {device.name!r} both become the host name "
                f"{host!r} ({HOSTNAME_MAPPING_WORDS}), so the Slurm and Kubernetes exports "
                "refuse them: rename one.",
                other_id,
                device.id,
            )
        else:
            first[host] = (device.id, device.name)


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
