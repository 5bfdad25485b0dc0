"""The scenario wizard's planning: the common variants of a design in one step.

A variant is the design rebuilt by the template builder with one or more building
blocks swapped: another GPU node type, another cooling (air, rear-door, direct liquid),
another compute switch, or the other compute topology (two-tier leaf-spine against
rail-optimized).  Rebuilding, rather than editing devices in place, is what re-packs
the racks: the builder fills each compute rack only as far as the new rack's power and
cooling limits allow (:func:`workbench.model.rack_fields.built_limit_kw` and the
budget rules it asks), and cables the fabric with the fabric generator
(:func:`workbench.planning.fabric.cluster.cable_cluster`).  The GPU count and the
design's jobs (by name) are kept, so the comparison matches them.  Every variant is
then checked with the rules, and what breaks is listed.

What a rebuild does not carry: hand edits to the base design beyond its jobs (moved
devices, renamed racks, waivers).  A variant is a proposal to compare, not a merge.

Several variants in one step (:class:`VariantChoices`, :func:`plan_variants`): the
wizard and ``workbench scenario`` take several values per building block and make one
variant per combination.  The plan is checked before anything is built (every value
known, at most :data:`MAX_VARIANTS`, no two variants saved under one name), since each
rebuild of a 100,000-GPU design takes seconds and a plan that fails half-way would
leave half a set of files.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.calc.summary import summarize
from workbench.catalog import Catalog, load_catalog
from workbench.catalog.item import is_compute_switch, is_gpu_server
from workbench.catalog.vocabulary import COOLING_TYPES
from workbench.model.design import Design
from workbench.model.rack_fields import built_cooling
from workbench.planning.scenarios import scenario_path
from workbench.rules.context import RuleContext
from workbench.rules.full_check import check_design, waived_keys
from workbench.rules.registry import REGISTRY, Finding, Severity
from workbench.templates.builder import TemplateError, build_spec
from workbench.templates.specs import (
    MAX_VARIANTS,
    SAMPLE_TEMPLATE,
    TEMPLATES,
    TOPOLOGIES,
    TemplateSpec,
)


@dataclass(frozen=True)
class VariantRequest:
    """What to change; None keeps the base design's choice."""

    node_type: str | None = None
    cooling: str | None = None
    compute_switch: str | None = None
    topology: str | None = None

    def label(self) -> str:
        """A short label for the scenario file ("dgx-b200 liquid two-tier")."""
        parts = [
            (self.node_type or "").removeprefix("nvidia-"),
            self.cooling or "",
            (self.compute_switch or "").removeprefix("nvidia-"),
            self.topology or "",
        ]
        return " ".join(p for p in parts if p) or "copy"


@dataclass
class Variant:
    """A variant design and what the rules say about it."""

    request: VariantRequest
    design: Design
    #: "ERROR RULE: message" lines of every unwaived error and warning.
    broken: list[str] = field(default_factory=list)
    #: Every finding of the rules (info and waived ones too) and the context they were
    #: found in: the saved variant's figures are computed from them
    #: (:func:`workbench.planning.scenarios.figures.keep_figures_of_saved`), so the
    #: rules are not run on it a second time.
    findings: list[Finding] | None = field(default=None, repr=False)
    context: RuleContext | None = field(default=None, repr=False)

    @property
    def passes(self) -> bool:
        """True when no unwaived error is left (warnings are listed, not failing)."""
        return not any(line.startswith("error") for line in self.broken)

    def _groups(self) -> dict[str, list[str]]:
        """:attr:`broken` by "severity RULE", in its order (errors first)."""
        groups: dict[str, list[str]] = {}
        for line in self.broken:
            head, _sep, _rest = line.partition(":")
            groups.setdefault(head, []).append(line)
        return groups

    def brief(self) -> list[str]:
        """:attr:`broken` with one line per rule: an air variant of a dense design
        breaks the cooling rule in every rack, and 128 like lines hide the other rules.
        A rule found more than once reads "error RACK-COOLING (128 times), first: …"."""
        out = []
        for head, lines in self._groups().items():
            if len(lines) == 1:
                out.append(lines[0])
            else:
                out.append(f"{head} ({len(lines)} times), first:{lines[0].partition(':')[2]}")
        return out

    def verdict(self) -> str:
        """One line: "passes the rules", with the warnings' rules, or "breaks RACK-COOLING
        ×128, RACK-POWER ×128" (the rules and how often, errors first)."""

        def rules(severity: str) -> str:
            return ", ".join(
                head.split(" ", 1)[1] + (f" ×{len(lines)}" if len(lines) > 1 else "")
                for head, lines in self._groups().items()
                if head.startswith(severity + " ")
            )

        errors, warnings = rules("error"), rules("warning")
        if errors:
            return f"breaks {errors}" + (f"; warnings: {warnings}" if warnings else "")
        return "passes the rules" + (f" (warnings: {warnings})" if warnings else "")


class TooManyVariants(TemplateError):
    """More combinations asked for than :data:`MAX_VARIANTS`."""


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    """``values`` without blanks and repeats, in the order given."""
    return tuple(dict.fromkeys(v.strip() for v in values if v and v.strip()))


@dataclass(frozen=True)
class VariantChoices:
    """Several values per building block; an empty one keeps the base design's."""

    node_types: tuple[str, ...] = ()
    coolings: tuple[str, ...] = ()
    switches: tuple[str, ...] = ()
    topologies: tuple[str, ...] = ()

    def axes(self) -> list[tuple[str, tuple[str, ...]]]:
        """(what it is, its values) of each building block asked to change."""
        named = [
            ("node type", _unique(self.node_types)),
            ("cooling", _unique(self.coolings)),
            ("switch", _unique(self.switches)),
            ("topology", _unique(self.topologies)),
        ]
        return [(what, values) for what, values in named if values]

    def count(self) -> int:
        """How many variants the choices ask for (0 when nothing is to change)."""
        axes = self.axes()
        total = 1
        for _what, values in axes:
            total *= len(values)
        return total if axes else 0

    def requests(self) -> list[VariantRequest]:
        """One request per combination, node type varying slowest (unchecked)."""
        if not self.axes():
            return []
        keep: tuple[str | None, ...] = (None,)
        return [
            VariantRequest(*combo)
            for combo in itertools.product(
                _unique(self.node_types) or keep,
                _unique(self.coolings) or keep,
                _unique(self.switches) or keep,
                _unique(self.topologies) or keep,
            )
        ]

    def describe(self) -> str:
        """How the count comes about, for messages ("2 node types × 3 coolings")."""
        return " × ".join(
            f"{len(values)} " + (what if len(values) == 1 else _PLURAL.get(what, what + "s"))
            for what, values in self.axes()
        )


_PLURAL = {"switch": "switches", "topology": "topologies"}


def plan_variants(
    design: Design, choices: VariantChoices, catalog: Catalog | None = None
) -> list[VariantRequest]:
    """The requests ``choices`` ask for, every value checked against the catalog and
    the builder before anything is built; TemplateError for nothing to change or an
    unknown value, TooManyVariants past :data:`MAX_VARIANTS`."""
    n = choices.count()
    if n == 0:
        raise TemplateError("say what to change: a node type, cooling, switch or topology")
    if n > MAX_VARIANTS:
        raise TooManyVariants(
            f"{n} variants asked for ({choices.describe()}); at most {MAX_VARIANTS} are "
            "made in one step: choose fewer"
        )
    catalog = catalog if catalog is not None else load_catalog(include_user=False, strict=True)
    spec = base_spec(design)
    requests = choices.requests()
    for request in requests:
        variant_spec(spec, request, catalog)
    return requests


def variant_paths(design_path: Path, requests: Sequence[VariantRequest]) -> list[Path]:
    """The sibling file each request's variant is saved as (from the design's name and
    the variant's label); TemplateError when two would share one file."""
    paths = [scenario_path(design_path, r.label()) for r in requests]
    seen: dict[Path, VariantRequest] = {}
    for path, request in zip(paths, requests, strict=True):
        if path in seen:
            raise TemplateError(
                f"{seen[path].label()!r} and {request.label()!r} would both be saved as {path.name}"
            )
        seen[path] = request
    return paths


def base_spec(design: Design) -> TemplateSpec:
    """The template a design was built from (the sample's when it does not say)."""
    return TEMPLATES.get(design.properties.get("template", ""), TEMPLATES[SAMPLE_TEMPLATE])


def rack_for_cooling(catalog: Catalog, cooling: str, like: str) -> str:
    """The catalog rack built for ``cooling``, the one of ``like``'s height first."""
    if cooling not in COOLING_TYPES:
        raise TemplateError(
            f"unknown cooling {cooling!r}; known: {', '.join(sorted(COOLING_TYPES))}"
        )
    height = catalog[like].u_height if like in catalog else None
    racks = [i for i in catalog if i.kind == "rack" and built_cooling(i) == cooling]
    if not racks:
        raise TemplateError(f"the catalog has no rack built for {cooling} cooling")
    racks.sort(key=lambda i: (i.u_height != height, -float(i.u_height or 0), i.slug))
    return racks[0].slug


def variant_spec(spec: TemplateSpec, request: VariantRequest, catalog: Catalog) -> TemplateSpec:
    """``spec`` with the building blocks ``request`` names swapped; TemplateError for a
    node type, switch or topology the catalog or the builder does not know."""
    changes: dict[str, object] = {}
    if request.node_type is not None:
        item = catalog.get(request.node_type)
        if not is_gpu_server(item):
            raise TemplateError(f"{request.node_type!r} is not a GPU server in the catalog")
        changes["server"] = request.node_type
    if request.cooling is not None:
        changes["compute_rack"] = rack_for_cooling(catalog, request.cooling, spec.compute_rack)
    if request.compute_switch is not None:
        item = catalog.get(request.compute_switch)
        if not is_compute_switch(item):
            raise TemplateError(
                f"{request.compute_switch!r} is not a compute switch in the catalog"
            )
        changes["compute_switch"] = request.compute_switch
    if request.topology is not None:
        if request.topology not in TOPOLOGIES:
            raise TemplateError(
                f"unknown topology {request.topology!r}; known: {', '.join(TOPOLOGIES)}"
            )
        changes["rail_optimized"] = TOPOLOGIES[request.topology]
    return dataclasses.replace(spec, **changes)  # type: ignore[arg-type]


def make_variant(
    design: Design, request: VariantRequest, catalog: Catalog | None = None
) -> Variant:
    """The variant of ``design`` that ``request`` asks for, checked with the rules."""
    catalog = catalog if catalog is not None else load_catalog(include_user=False, strict=True)
    spec = variant_spec(base_spec(design), request, catalog)
    gpus = summarize(design).gpus or spec.default_gpus
    variant = build_spec(spec, gpus, catalog)
    variant.name = f"{design.name} — {request.label()}"
    if design.workloads:
        variant.workloads = copy.deepcopy(design.workloads)
        variant.reindex()
    context = RuleContext(variant)
    findings = check_design(variant, context)
    return Variant(request, variant, broken_rules(variant, findings), findings, context)


def broken_rules(design: Design, findings: list[Finding] | None = None) -> list[str]:
    """Every unwaived error and warning of ``design``, errors first, one line each;
    ``findings``: the rules' findings on it when already in hand."""
    waived = waived_keys(design)
    if findings is None:
        findings = check_design(design)
    found = [f for f in findings if f.key not in waived and f.severity >= Severity.WARNING]
    found.sort(key=lambda f: (-f.severity, f.rule))
    return [
        f"{f.severity.label} {f.rule}: {f.message}"
        + (f" ({REGISTRY[f.rule].title})" if f.rule in REGISTRY else "")
        for f in found
    ]
