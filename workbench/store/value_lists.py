"""Value checks of the design's flat lists: networks, links, storage tiers, workloads,
software stacks and waivers, and the design's GPU total.

See :mod:`workbench.store.values` for where the line between a refused file and a
finding is drawn and why.  Each check here calls the rule's own home: the network,
link and tier checks of :mod:`workbench.model.net_ops` (what the fabric designer
applies), and for workloads the calculators' vocabularies and
:func:`workbench.calc.errors.number` (the workload form leaves ranges to the
calculators, so only types, finiteness and the form's choices are checked here).
"""

from __future__ import annotations

from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

from workbench.calc.errors import MAX_GPUS, InputError, number
from workbench.calc.memory import (
    BYTES_PER_ELEMENT,
    GRADIENT_PRECISIONS,
    RECOMPUTE_MODES,
    ZERO_STAGES,
)
from workbench.calc.presets import PRESETS
from workbench.model.design import Design, Link
from workbench.model.net_ops import (
    NETWORK_FIELDS,
    TIER_AMOUNTS,
    TIER_COUNTS,
    check_link_values,
    check_network_value,
    check_tier_value,
)
from workbench.model.parts import WORKLOAD_KINDS
from workbench.model.team_ops import check_team_value
from workbench.store.errors import ProjectFileError
from workbench.store.value_table import (
    NUMBER,
    OPT_NUMBER,
    OPT_TEXT,
    OPT_WHOLE,
    TEXT,
    WHOLE,
    Check,
    NoneType,
    Table,
    edit_rule,
    one_of,
    shown,
)
from workbench.text_rules import field_problem

# -- networks, links, tiers -------------------------------------------------------------

#: How each network field is typed in a file (``check_network_value`` then judges it).
_NETWORK_TYPES: dict[str, tuple[type, ...]] = {
    "name": TEXT,
    "plane": TEXT,
    "technology": TEXT,
    "speed_gbps": NUMBER,
    "mtu": WHOLE,
    "vlan": OPT_WHOLE,
    "subnet": TEXT,
}


def check_networks(networks: Table) -> set[str]:
    """Returns the network ids."""
    networks.texts("name")
    for name in sorted(NETWORK_FIELDS):
        rule = edit_rule(partial(check_network_value, name))
        networks.typed(name, _NETWORK_TYPES.get(name, TEXT), rule)
    return networks.distinct("id")


#: A design with no devices: ``check_link_values`` then judges a link's speed, media and
#: length alone (whether its ports can run that speed is FABRIC-PORT's business).
_NO_DEVICES = Design()
_NO_ENDS = Link("", "", "", "", "")


def _link_rule(field: str) -> Check:
    def rule(value: Any) -> None:
        check_link_values(_NO_DEVICES, _NO_ENDS, {field: value})

    return edit_rule(rule)


def check_links(links: Table, devices: set[str], networks: set[str]) -> None:
    """Every end is a device (held as text, so a known id proves the type too); ids
    were checked first, with every table's (:func:`values.check_values`)."""
    for end in ("a", "b"):
        if f"{end}_device" not in links.known_ends:  # the reader found each end's device
            links.refers(f"{end}_device", devices, "device")
        links.texts(f"{end}_port")
    links.refers("network", networks, "network", optional=True)
    links.typed("cable_type", OPT_TEXT, _link_rule("cable_type"))
    links.typed("length_m", OPT_NUMBER, _link_rule("length_m"))
    links.typed("speed_gbps", OPT_NUMBER, _link_rule("speed_gbps"))


def check_storage_tiers(tiers: Table, devices: set[str]) -> None:
    tiers.texts("name")
    tiers.texts("filesystem")
    for name in ("name", "tier", "filesystem"):
        tiers.typed(name, TEXT, edit_rule(partial(check_tier_value, name)))
    tiers.typed(
        "device_ids", (list,), _text_items, edit_rule(partial(check_tier_value, "device_ids"))
    )
    for name in TIER_COUNTS:
        tiers.typed(name, OPT_WHOLE, edit_rule(partial(check_tier_value, name)))
    for name in TIER_AMOUNTS:
        tiers.typed(name, OPT_NUMBER, edit_rule(partial(check_tier_value, name)))
    tiers.typed("gpudirect_storage", (bool, NoneType))
    for i, listed in enumerate(tiers.values("device_ids")):
        missing = [d for d in listed if d not in devices]
        if missing:
            tiers.refuse(
                i, "device_ids", f"lists device {shown(missing[0])}, which the file does not hold"
            )


def _text_items(value: list[Any]) -> str | None:
    bad = [v for v in value if not isinstance(v, str)]
    return None if not bad else f"must list device ids as text, got {shown(bad[0])}"


# -- workloads ------------------------------------------------------------------------

#: Workload numbers the form passes on as typed (any finite number; the calculators
#: judge the range and the rules report it), with whether they may be empty.
_WORKLOAD_NUMBERS: dict[str, bool] = {
    "params": True,
    "tokens": False,
    "mfu": True,
    "tp": False,
    "pp": False,
    "micro_batch": False,
    "seq_len": False,
    "gpus": True,
    "context": False,
    "concurrency": False,
    "target_days": True,
    "checkpoint_interval_min": True,
    "goodput": True,
    "nic_gbps": True,
    "measured_step_s": True,
}

#: The workload form's choices, from the calculators that define them.
_WORKLOAD_WORDS: dict[str, tuple[Any, ...]] = {
    "kind": WORKLOAD_KINDS,
    "model": (*PRESETS, "custom"),
    "precision": tuple(BYTES_PER_ELEMENT),
    "recompute": RECOMPUTE_MODES,
    "kv_precision": tuple(BYTES_PER_ELEMENT),
}


def _calculator_number(field: str) -> Check:
    def check(value: Any) -> str | None:
        try:
            number(field, value)
        except InputError as exc:
            return exc.reason
        return None

    return check


def check_workloads(workloads: Table) -> None:
    workloads.texts("name")
    for name, words in _WORKLOAD_WORDS.items():
        workloads.typed(name, TEXT, one_of(words))
    workloads.typed("zero", WHOLE, one_of(ZERO_STAGES, "one of the ZeRO stages"))
    for name, optional in _WORKLOAD_NUMBERS.items():
        workloads.typed(name, OPT_NUMBER if optional else NUMBER, _calculator_number(name))
    workloads.typed("model_config", (dict, type(None)))
    for name in ("sequence_parallel", "flash_attention", "plan_at_30"):
        workloads.typed(name, (bool,))
    workloads.typed("cp", WHOLE, _at_least_one)
    workloads.typed("grad_precision", OPT_TEXT, one_of(tuple(GRADIENT_PRECISIONS)))
    workloads.texts("framework")
    # Whole numbers the step-time model takes as counts (it judges the range).
    workloads.typed("virtual_stages", WHOLE, _at_least_one)
    workloads.typed("global_batch", OPT_WHOLE, _at_least_one)
    for name in ("gpu_type", "dataset_tier", "checkpoint_tier"):
        workloads.typed(name, OPT_TEXT)


def _at_least_one(value: int) -> str | None:
    return None if 1 <= value <= 1_000_000_000 else f"must be 1 to 1,000,000,000, got {value}"


# -- software stacks and waivers ----------------------------------------------------------


def check_software_stacks(stacks: Table) -> set[str]:
    """Returns the stack ids (devices name them)."""
    stacks.texts("name")
    stacks.typed("components", (dict,), _versions, _component_texts)
    stacks.typed("revision", WHOLE, _revision)
    return stacks.distinct("id")


def _versions(value: dict[str, Any]) -> str | None:
    bad = [(k, v) for k, v in value.items() if not isinstance(v, str)]
    if not bad:
        return None
    return f"the version of {shown(bad[0][0])} must be text, got {shown(bad[0][1])}"


def _component_texts(value: dict[str, Any]) -> str | None:
    for key, version in value.items():
        problem = field_problem("software_stacks.components[]", version)
        if problem is not None:
            return f"the version of {shown(key)} {problem}"
    return None


def _revision(value: int) -> str | None:
    return None if value >= 1 else f"must be 1 or more, got {value}"


def check_waivers(waivers: Table) -> None:
    waivers.texts("rule")
    waivers.texts("object_id")
    waivers.texts("note")
    waivers.texts("created_at")
    keys = list(zip(waivers.values("rule"), waivers.values("object_id"), strict=True))
    if len(set(keys)) != len(keys):
        seen: set[tuple[str, str]] = set()
        for i, key in enumerate(keys):
            if key in seen:
                waivers.refuse(i, "rule", f"{key[0]} on {shown(key[1])} is waived twice")
            seen.add(key)


# -- the design's GPUs ---------------------------------------------------------------------


def check_gpu_total(file: Path, devices: Table, design: Design) -> None:
    """The design's GPUs, counted from its catalog items, stay within what the
    calculators accept (:data:`MAX_GPUS`): beyond it every estimate fails, and the
    command line used to blame a ``--gpus`` option nobody gave.  The message names the
    item that contributes most."""
    types = design.device_types
    per_slug: Counter[str] = Counter()
    for slug, count in Counter(devices.values("device_type")).items():
        item = types.get(slug)
        if item is not None and item.gpu_count:
            per_slug[slug] = count * item.gpu_count
    total = sum(per_slug.values())
    if total <= MAX_GPUS:
        return
    slug, gpus = per_slug.most_common(1)[0]
    item = types[slug]
    raise ProjectFileError(
        file,
        f"catalog snapshot item {slug!r}: gpu_count {item.gpu_count:,} gives the design "
        f"{total:,} GPUs ({gpus:,} of them in devices of this type), more than the "
        f"{MAX_GPUS:,} the calculators plan for",
    )


def check_teams(teams: Table) -> None:
    """Each team as the edits allow it (:mod:`workbench.model.team_ops`)."""
    teams.texts("name")
    teams.typed("name", TEXT, edit_rule(partial(check_team_value, "name")))
    teams.typed("gpus", OPT_WHOLE, edit_rule(partial(check_team_value, "gpus")))
    teams.typed("share", OPT_NUMBER, edit_rule(partial(check_team_value, "share")))
    teams.typed("priority", WHOLE, edit_rule(partial(check_team_value, "priority")))
    teams.unique("name", "team name")
    for i, (gpus, share) in enumerate(
        zip(teams.values("gpus"), teams.values("share"), strict=True)
    ):
        if (gpus is None) == (share is None):
            teams.refuse(i, "gpus", "a team has its GPUs or its share of the cluster, one")
