"""The rules engine: the findings of one design, re-checked incrementally after edits.

:class:`Checker` keeps the findings of one design and, after an edit, re-runs only the
rules that look at what the :class:`~workbench.model.change.Change` names, for only the
objects concerned: moving one server re-checks its two racks, not 3,500.  A rule of the
whole design may say more precisely what it depends on (``depends``: the storage rules
read only storage appliances, GPU nodes, tiers and links, so a switch dropped into a rack
does not re-read the storage plane), and a rename or a new serial (``Change.labels``)
re-runs a design-wide rule only when one of its findings names the object, since no
verdict depends on a name, only the words of the finding.

What a rule is lives in :mod:`workbench.rules.registry`, what it reads in
:mod:`workbench.rules.context`, and the full check (every rule on every object, in one
go or in steps) in :mod:`workbench.rules.full_check`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from workbench.model import Change, Design
from workbench.model.index import DesignIndex
from workbench.rules.context import RuleContext
from workbench.rules.full_check import run_everywhere, run_in_steps, run_rule, scope_sizes
from workbench.rules.registry import Finding, Rule, all_rules

#: How often an edit may restart one rule's pass in :meth:`Checker.recheck_in_steps`
#: before the pass runs to its end in one step.
RESTARTS_IN_STEPS = 3


@dataclass
class Checker:
    """The findings of one design, kept current edit by edit.

    ``update(change)`` re-runs what the change can have moved (see the module
    docstring); ``findings()`` returns them all in rule order, then object order.
    """

    design: Design
    ctx: RuleContext | None = None
    rules: Mapping[str, Rule] = field(default_factory=all_rules)
    #: rule id → object id → its findings (only non-empty entries are kept)
    _by_rule: dict[str, dict[str, list[Finding]]] = field(default_factory=dict)
    #: Bumped whenever any finding differs, or a device a finding names moved (the
    #: rack it marks changed), so views can skip redrawing.
    version: int = 0
    #: False: the caller runs the first full check itself, in steps
    #: (:meth:`recheck_in_steps`), and reads nothing before it is done.
    check_now: bool = True
    #: Edits made while :meth:`recheck_in_steps` runs (see :meth:`edited`).
    _edits: int = 0

    def __post_init__(self) -> None:
        if self.ctx is None:
            self.ctx = RuleContext(self.design)
        if self.check_now:
            self.recheck_all()

    def recheck_in_steps(self, chunk: int = 2000) -> Iterator[float]:
        """:meth:`recheck_all` in steps of about ``chunk`` objects, yielding the fraction
        done after each, so a window can keep answering input during the first check of
        a 100,000-GPU design and show its progress.

        The design may be edited between steps; the caller says so with :meth:`edited`
        and applies the edits' change with :meth:`update` once the steps are done.  The
        rules already finished are then brought forward as after any edit; the rule in
        progress cannot be (its pass may have read half the links before the edit and
        half after), so it starts again on the edited design.  After
        :data:`RESTARTS_IN_STEPS` such restarts it runs to its end in one step, so a
        stream of edits cannot keep the check from ending."""
        assert self.ctx is not None
        self.ctx.forget(types=True)
        self._by_rule = {}
        sizes = scope_sizes(self.design)
        total = max(1, sum(sizes[r.scope] for r in self.rules.values()))
        before = 0
        for registered in self.rules.values():
            restarts = 0
            while True:
                table: dict[str, list[Finding]] = {}
                self._by_rule[registered.id] = table
                edits = self._edits
                step = chunk if restarts < RESTARTS_IN_STEPS else 0
                for done in run_in_steps(self.ctx, registered, table, step):
                    yield min(1.0, (before + done) / total)
                    if self._edits != edits:
                        break  # edited meanwhile: this rule's pass starts again
                else:
                    break
                restarts += 1
            before += sizes[registered.scope]
            yield min(1.0, before / total)
        self.version += 1

    def edited(self, change: Change) -> None:
        """Say the design was edited (by ``change``) while :meth:`recheck_in_steps`
        runs: the steps still to come must not read figures the edit moved, and the
        rule under way starts again (see there).  ``change`` itself is applied with
        :meth:`update` once the steps are done."""
        assert self.ctx is not None
        self.ctx.forget(types=change.design or bool(change.types))
        self._edits += 1

    def recheck_all(self) -> None:
        """Run every rule on every object (a new design, or a change of unknown extent)."""
        assert self.ctx is not None
        self.ctx.forget(types=True)
        self._by_rule = {}
        for registered in self.rules.values():
            self._by_rule[registered.id] = run_everywhere(self.ctx, registered)
        self.version += 1

    def findings(self) -> list[Finding]:
        return [f for table in self._by_rule.values() for found in table.values() for f in found]

    def filed(self) -> Iterator[tuple[Rule, str, list[Finding]]]:
        """(rule, the object its findings are filed under, the findings): a rack rule
        files under the rack, a device rule under the device, a workload rule under the
        workload, a design rule under ``""``."""
        for rule_id, table in self._by_rule.items():
            registered = self.rules[rule_id]
            for object_id, found in table.items():
                yield registered, object_id, found

    def findings_of(self, object_id: str) -> list[Finding]:
        """Findings whose objects include ``object_id``."""
        return [f for f in self.findings() if object_id in f.objects]

    def update(self, change: Change) -> bool:
        """Re-check what ``change`` touched; True when any finding differs."""
        assert self.ctx is not None
        if change.everything:
            before = self.findings()
            self.recheck_all()
            return before != self.findings()
        if change.labels and not change.beyond_labels and not change.structural:
            return self._relabel(change)
        touched_kinds = _kinds_touched(change)
        self.ctx.forget(
            types=change.design or bool(change.types),
            only_workloads=touched_kinds == {"workload"} and not change.types,
        )
        self.ctx.forget_names()
        index = self.design.index
        relinked = _relinked_only(change, index)
        racks = set(change.racks)
        for device_id in change.devices:
            if device_id in relinked:
                continue  # no rack rule reads links: its rack's verdicts stand
            rack = index.rack_of(device_id)
            if rack is not None:
                racks.add(rack.id)
        gone = change.removed
        differs = False
        far_ends: dict[str, set[str]] | None = None  # worked out once, when first needed
        for registered in self.rules.values():
            table = self._by_rule.setdefault(registered.id, {})
            if registered.everywhere is not None and registered.everywhere(self.design, change):
                differs |= self._rerun_all(registered, table)
                continue
            if registered.quotes_racks and _names_any(table, change.moved):
                differs |= self._rerun_all(registered, table)
                continue
            if not touched_kinds & registered.looks_at:
                continue
            # Whether the change reaches what a design-wide verdict depends on.
            wide = registered.depends is None or registered.depends(self.design, change)
            ended = registered.ended_by_removal and _names_any(table, gone)
            if registered.scope == "design" and not wide and not ended:
                continue
            if (
                registered.scope == "design"
                or (
                    registered.scope == "workload"
                    and wide
                    and touched_kinds & (registered.looks_at - {"workload"})
                )
                # A version-matrix edit names no object: its rules re-run everywhere.
                or ("versions" in touched_kinds and "versions" in registered.looks_at)
            ):
                differs |= self._rerun_all(registered, table)
                continue
            ids: AbstractSet[str]
            if registered.scope == "workload":
                ids = change.workloads
            elif registered.scope == "rack":
                ids = racks if {"rack", "device"} & registered.looks_at else set()
            else:
                device_ids = set(change.devices)
                if relinked and "link" not in registered.looks_at:
                    device_ids -= relinked
                if "rack" in registered.looks_at:
                    device_ids |= {
                        d.id for rid in racks if (r := index.racks.get(rid)) for d in r[1].devices
                    }
                ids = self._with_related(registered, table, device_ids, gone)
            # Devices without a finding that only lost or gained links: the links they
            # gained are read, not every link they have (see Rule.relinked).
            brought: dict[str, AbstractSet[str]] = {}
            if registered.relinked is not None:
                for object_id in ids:
                    if object_id not in table:
                        links = self._links_brought(object_id, change)
                        if links is not None:
                            brought[object_id] = links
            if change.types and registered.scope == "device" and registered.quotes_others:
                if far_ends is None:
                    far_ends = self._far_ends(change)
                ids = self._with_far_ends(registered, table, ids, far_ends, brought)
            for object_id in gone:
                if table.pop(object_id, None) is not None:
                    differs = True
            for object_id in ids:
                links = brought.get(object_id)
                if links is not None and not links:
                    continue  # only links went: it stays clean
                obj = self._object(registered.scope, object_id)
                old = table.pop(object_id, None)
                found = (
                    run_rule(self.ctx, registered, obj, object_id, links) if obj is not None else []
                )
                if found:
                    table[object_id] = found
                differs |= (old or []) != found
        if differs or self._names_moved(change):
            self.version += 1
        return differs

    def _names_moved(self, change: Change) -> bool:
        """Whether a finding names a device ``change`` moved: its words may stay the same
        (a port finding names no rack), but the rack it marks is now another, so the
        views that place findings (a rack's mark, the Checks list) must read them again
        (:attr:`version`).  One pass over the findings, only after a move."""
        moved = change.moved
        return bool(moved) and any(_names_any(table, moved) for table in self._by_rule.values())

    def _relabel(self, change: Change) -> bool:
        """A rename or new label of ``change.labels``: the rack and device rules re-run
        on those objects (their messages carry names, and the version rules find a node's
        reports by name); a rule of the design or the workloads re-runs only when one of
        its findings names one of them."""
        assert self.ctx is not None
        index = self.design.index
        labelled = change.labels
        differs = False
        forgotten = False
        self.ctx.forget_names()
        for registered in self.rules.values():
            table = self._by_rule.setdefault(registered.id, {})
            if registered.scope in ("rack", "device"):
                ids = {
                    i
                    for i in labelled
                    if (i in index.racks if registered.scope == "rack" else i in index.devices)
                }
                if registered.scope == "rack":
                    ids |= _racks_naming(table, index, labelled)
                if registered.scope == "device" and "rack" in registered.looks_at:
                    ids |= {
                        d.id for i in labelled if (r := index.racks.get(i)) for d in r[1].devices
                    }
                if registered.scope == "device":
                    ids = set(self._with_related(registered, table, ids, frozenset()))
                for object_id in ids:
                    obj = self._object(registered.scope, object_id)
                    old = table.pop(object_id, None)
                    found = run_rule(self.ctx, registered, obj, object_id) if obj else []
                    if found:
                        table[object_id] = found
                    differs |= (old or []) != found
                continue
            quoted = labelled
            if registered.quotes_racks:  # and the devices of a renamed rack
                quoted = labelled | {
                    d.id for i in labelled if (r := index.racks.get(i)) for d in r[1].devices
                }
            named = _names_any(table, quoted) or bool(
                table and registered.renames and registered.renames(self.design, labelled)
            )
            if named:
                if not forgotten:  # memoised figures may hold the old names
                    self.ctx.forget()
                    forgotten = True
                differs |= self._rerun_all(registered, table)
        if differs:
            self.version += 1
        return differs

    def _links_brought(self, device_id: str, change: Change) -> AbstractSet[str] | None:
        """The links ``change`` brought to the device, when it touched the device only
        by taking links away or bringing new ones (possibly none); None when it may
        have touched more: the device came, went or moved, a link it has now was edited
        (among the change's links, not added), its rack is named (an edit of the
        device's own fields, its type included, names its rack; a rename is a label,
        and a device without findings carries no name to update), or a catalog type
        changed (its item may have)."""
        if change.types or device_id in change.added or device_id in change.moved:
            return None
        index = self.design.index
        rack = index.rack_of(device_id)
        if rack is None or rack.id in change.racks:
            return None
        links = change.links.intersection(index.device_links.get(device_id, ()))
        return links if links <= change.added else None

    def _far_ends(self, change: Change) -> dict[str, set[str]]:
        """The other ends of the links of the devices whose catalog items ``change``
        replaced, added or removed (``change.types``), when those are the links' ``a``
        ends, each with those links: a rule that files a link's problem under its ``a``
        end (:attr:`Rule.quotes_others`) can find one there now, though that device's
        own item did not change.  Read from the devices' own links only."""
        index = self.design.index
        links = index.links
        out: dict[str, set[str]] = {}
        for device_id in change.devices:
            placed = index.devices.get(device_id)
            if placed is None or placed[1].device_type not in change.types:
                continue
            for link_id in index.device_links.get(device_id, ()):
                link = links[link_id]
                if link.b_device == device_id and link.a_device != device_id:
                    out.setdefault(link.a_device, set()).add(link_id)
        return out

    @staticmethod
    def _with_far_ends(
        registered: Rule,
        table: dict[str, list[Finding]],
        ids: AbstractSet[str],
        far_ends: Mapping[str, AbstractSet[str]],
        brought: dict[str, AbstractSet[str]],
    ) -> AbstractSet[str]:
        """``ids`` and the far ends of :meth:`_far_ends`; one not in ``ids`` that has no
        finding is asked only about its links to the replaced items' devices (noted in
        ``brought``, see :attr:`Rule.relinked`): its own ports and item did not change,
        so only those links can have become wrong."""
        if not far_ends:
            return ids
        out = set(ids)
        for device_id, links in far_ends.items():
            if device_id in out:
                continue
            out.add(device_id)
            if registered.relinked is not None and device_id not in table:
                brought[device_id] = links
        return out

    def _with_related(
        self,
        registered: Rule,
        table: dict[str, list[Finding]],
        ids: AbstractSet[str],
        gone: AbstractSet[str],
    ) -> AbstractSet[str]:
        """``ids`` and, for a rule with :attr:`Rule.related`, the devices whose verdicts
        they can move; for it and a rule that :attr:`Rule.quotes_others`, those whose
        findings name one of them or a removed one."""
        if registered.related is None and not registered.quotes_others:
            return ids
        assert self.ctx is not None
        touched = set(ids) | set(gone)
        out = set(ids)
        if registered.related is not None:
            out |= registered.related(self.ctx, ids)
        for object_id, found in table.items():
            if any(not touched.isdisjoint(f.objects) for f in found):
                out.add(object_id)
        return out

    def _rerun_all(self, registered: Rule, table: dict[str, list[Finding]]) -> bool:
        assert self.ctx is not None
        fresh = run_everywhere(self.ctx, registered)
        differs = fresh != table
        self._by_rule[registered.id] = fresh
        return differs

    def _object(self, scope: str, object_id: str) -> Any:
        index = self.design.index
        if scope == "rack":
            placed = index.racks.get(object_id)
            return placed[1] if placed else None
        if scope == "device":
            found = index.devices.get(object_id)
            return found[1] if found else None
        return index.workloads.get(object_id)


def _relinked_only(change: Change, index: DesignIndex) -> frozenset[str]:
    """The devices of ``change`` it reached only through links they lost or gained
    (the far ends of a link edit, of a cabled node taken out or put back).

    Why: every rack rule, and the device rules that read no link, re-ran for them and
    for their racks (a removed node's leaf, spine and management switches: ~4 racks,
    ~60 devices re-checked at 100,000 GPUs, ~1 ms of the removal and of its undo),
    though no verdict of theirs reads a link.  A device edited in any other way is
    named otherwise: it came, went or moved, its name or a label changed, or its rack
    is in ``change.racks`` (an edit of a device's own fields names its rack, see
    :mod:`workbench.model.field_ops`); a catalog type change (``types``) may reach any
    device, so none is set aside then."""
    if change.types or not change.links:
        return frozenset()
    named = change.added | change.removed | change.moved | change.labels
    out = set()
    for device_id in change.devices:
        if device_id in named:
            continue
        rack = index.rack_of(device_id)
        if rack is not None and rack.id not in change.racks:
            out.add(device_id)
    return frozenset(out)


def _racks_naming(
    table: dict[str, list[Finding]], index: DesignIndex, labelled: AbstractSet[str]
) -> set[str]:
    """The racks whose findings of a rack rule (``table``) name a device of ``labelled``
    in them: they quote its name (two devices overlapping), so its rename re-checks
    its rack, not every rack."""
    out = set()
    for object_id in labelled:
        rack = index.rack_of(object_id)
        if (
            rack is not None
            and rack.id != object_id
            and any(object_id in f.objects for f in table.get(rack.id, ()))
        ):
            out.add(rack.id)
    return out


def _names_any(table: dict[str, list[Finding]], ids: AbstractSet[str]) -> bool:
    """Whether a finding of ``table`` names one of ``ids``."""
    return bool(ids) and any(
        not ids.isdisjoint(f.objects) for found in table.values() for f in found
    )


def _kinds_touched(change: Change) -> set[str]:
    """The kinds of object ``change`` touched, as rules declare them in ``looks_at``.

    Devices that only moved (a drag in the rack view) touch their racks, not "device":
    no device-wide or design-wide verdict depends on where a device hangs, and the rack
    rules re-run for both racks.  That keeps a drag on a 100,000-GPU design from
    re-running the storage and fabric rules.
    """
    kinds = set()
    if change.racks:
        kinds.add("rack")
    moves_only = (
        change.devices
        and not (change.added or change.removed or change.layout or change.types)
        and change.devices <= change.moved
    )
    if (change.devices or change.racks) and not moves_only:
        kinds.add("device")
    if change.workloads:
        kinds.add("workload")
    if change.tiers:
        kinds.add("tier")
    if change.links:
        kinds.add("link")
    if change.networks:
        # A network's plane, speed or MTU changes what every link on it means.
        kinds.update(("network", "link"))
    if change.design:
        kinds.add("design")
    if change.versions:  # baselines, assignments or observations
        kinds.add("versions")
    return kinds
