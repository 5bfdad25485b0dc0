"""Version checks: each node's effective stack against the compatibility knowledge base,
its baseline, and the one-layer-at-a-time rule.

A node's *effective* versions (:mod:`workbench.versions.matrix`) are what it reported,
else what its baseline expects, so a design is checked before any node is installed and
again once the reports come in.  The figures come from the knowledge base
(:mod:`workbench.versions.compat`) and each finding names the row's source.

Speed: the node rules are device rules, so an edit to one device re-checks one node.
What they share is built once per check (``RuleContext.memo``): the version index
(whose per-node observations are reused between checks while the list only grows), and
each rule's verdict on each distinct stack (:func:`_emit`): 12,500 nodes on one baseline
are judged once, and only their names and the origin of their values differ per message.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from workbench.model import Design, Device
from workbench.rules.context import RuleContext
from workbench.rules.nodes import gpu_models
from workbench.rules.registry import Finding, Rule, Severity, rule
from workbench.rules.sources import planning
from workbench.versions.compare import NotAVersionError, Version, cuda_version, short, try_version
from workbench.versions.compat import (
    Architecture,
    CompatError,
    KnowledgeBase,
    framework_key,
    shipped_kb,
)
from workbench.versions.matrix import NodeVersions, VersionIndex, is_node, where

#: What a change to which re-runs the node rules: the device (its name decides its
#: baseline, its type its GPUs) and the version matrix.
NODE_LOOKS = frozenset({"device", "versions"})
_KB_FILES = "catalogs/compat/"


def _index(ctx: RuleContext) -> VersionIndex:
    return ctx.memo("versions", "", functools.partial(VersionIndex, ctx.design))


def _node(ctx: RuleContext, device: Device) -> NodeVersions | None:
    """The device's versions, or None when the matrix knows nothing of it.  Called for
    every device by every node rule, so it is kept to a few lookups."""
    versions = ctx.design.versions
    if not versions.assignments and not versions.observations:
        return None  # no matrix at all: nothing to build, nothing to say
    if not isinstance(device.name, str):
        return None  # a name that is not text names no node (the names rule says so)
    index = ctx.memo("versions", "", functools.partial(VersionIndex, ctx.design))
    if not is_node(ctx.design, device) and not index.has_reports(device.name):
        return None  # a switch or PDU a broad glob happens to match
    return index.node(device.name, device.id)


def _kb(ctx: RuleContext, me: Rule) -> KnowledgeBase | None:
    """The shipped knowledge base; when it cannot be read, the first node of each rule
    raises (one internal-error finding naming the file and line) and the rest skip."""
    state: dict[str, Any] = ctx.memo("versions-kb", "", _load_kb)
    error = state.get("error")
    if error is None:
        return state["kb"]
    if me.id not in state["raised"]:
        state["raised"].add(me.id)
        raise error
    return None


def _load_kb() -> dict[str, Any]:
    try:
        return {"kb": shipped_kb()}
    except CompatError as exc:
        return {"error": exc, "raised": set()}


class Verdict(NamedTuple):
    """What a rule says about one stack, before it is said about a node: the text (no
    node name, no closing full stop), the layers whose origin the message names, and
    the knowledge-base source it rests on."""

    severity: Severity
    text: str
    cite: tuple[str, ...] = ()
    source: str = ""


def _emit(
    ctx: RuleContext,
    me: Rule,
    device: Device,
    nv: NodeVersions,
    key: tuple[Any, ...],
    judge: Callable[[KnowledgeBase], list[Verdict]],
) -> Iterator[Finding]:
    """The findings of ``judge`` for this node, judged once per distinct ``key``.

    Thousands of nodes share a stack; the verdict on the stack is computed once per
    check and only the node's name and the origin of its values differ per message.
    """
    cache: dict[tuple[Any, ...], list[Verdict]] = ctx.memo("versions-verdicts", me.id, dict)
    verdicts = cache.get(key)
    if verdicts is None:
        kb = _kb(ctx, me)
        if kb is None:
            return
        verdicts = cache[key] = judge(kb)
    for verdict in verdicts:
        text = f"{device.name}: {verdict.text}"
        if verdict.cite:
            text += (
                f" ({'; '.join(f'{layer} {nv.effective_source(layer)}' for layer in verdict.cite)})"
            )
        text += "."
        if verdict.source:
            text += f" Source: {verdict.source}."
        yield me.finding(text, device.id, severity=verdict.severity)


def _cuda(text: str | None) -> Version | None:
    if text is None:
        return None
    try:
        return cuda_version(text)
    except NotAVersionError:
        return None


def driver_verdict(kb: KnowledgeBase, driver: Version, cuda: Version, what: str) -> Verdict | None:
    """Whether ``driver`` runs ``what`` (a CUDA runtime, a framework build) of ``cuda``.

    None when it does natively; a warning when only minor version compatibility lets
    it run (what that gives up, and which driver removes the warning); an error when it
    cannot run at all; info when the knowledge base has no row for that CUDA.
    """
    row = kb.toolkit_driver(cuda)
    if row is None:
        return Verdict(
            Severity.INFO,
            f"the knowledge base has no row for CUDA {short(cuda)}, so driver {driver} was "
            f"not checked against {what} {cuda} (add it to {_KB_FILES}cuda-drivers.yaml)",
        )
    if driver >= row.driver:
        return None
    compat = kb.minor_compat(cuda)
    if compat is None or driver < compat.driver:
        floor = (
            f"CUDA {cuda.major}.x needs at least driver {compat.driver} even through minor "
            "version compatibility, and "
            if compat is not None
            else ""
        )
        return Verdict(
            Severity.ERROR,
            f"driver {driver} cannot run {what} {cuda}: {floor}CUDA {row.release} ships with "
            f"driver {row.driver}; programs stop with an insufficient-driver error. Install "
            f"driver {row.driver} or newer",
            source=row.source.cite(),
        )
    return Verdict(
        Severity.WARNING,
        f"driver {driver} is older than {row.driver}, the driver of CUDA {row.release}, so "
        f"{what} {cuda} runs only through minor version compatibility (any driver from "
        f"{compat.driver} runs CUDA {cuda.major}.x): PTX newer than the driver cannot be "
        "JIT-compiled (CUDA_ERROR_UNSUPPORTED_PTX_VERSION) and APIs that need the newer "
        f"driver are unavailable. Driver {row.driver} or newer removes this warning",
        source=row.source.cite(),
    )


@rule(
    "VERSION-DRIVER",
    title="NVIDIA driver older than the CUDA runtime needs",
    severity=Severity.ERROR,
    scope="device",
    looks_at=NODE_LOOKS,
    source=(
        "NVIDIA CUDA Toolkit Release Notes, 'CUDA Toolkit and Corresponding Driver "
        "Versions'; NVIDIA CUDA Compatibility, minor version compatibility "
        f"(rows in {_KB_FILES}cuda-drivers.yaml)"
    ),
)
def version_driver(ctx: RuleContext, me: Rule, device: Device) -> Iterator[Finding]:
    nv = _node(ctx, device)
    if nv is None:
        return
    driver_text, cuda_text = nv.effective("driver"), nv.effective("cuda")
    if driver_text is None or cuda_text is None:
        return

    def judge(kb: KnowledgeBase) -> list[Verdict]:
        driver, cuda = try_version(driver_text), _cuda(cuda_text)
        if driver is None or cuda is None:
            return []
        found = driver_verdict(kb, driver, cuda, "CUDA runtime")
        return [] if found is None else [found._replace(cite=("driver", "cuda"))]

    yield from _emit(ctx, me, device, nv, (driver_text, cuda_text), judge)


def _framework_verdicts(
    kb: KnowledgeBase,
    text: str,
    declared_text: str | None,
    runtime_text: str | None,
    driver_text: str | None,
) -> list[Verdict]:
    framework = try_version(text)
    if framework is None:
        return [
            Verdict(
                Severity.INFO,
                f"framework {text!r} is not a version; it was not checked",
                ("framework",),
            )
        ]
    name = framework_key(framework.name)
    label = "PyTorch" if name == "pytorch" else framework.name
    tagged, declared = framework.local_cuda, _cuda(declared_text)
    found = []
    if tagged is not None and declared is not None and tagged.major_minor != declared.major_minor:
        found.append(
            Verdict(
                Severity.ERROR,
                f"framework {framework} is the CUDA {short(tagged)} build, but its CUDA build "
                f"layer says {declared}; one of the two is wrong",
                ("framework", "framework_cuda"),
            )
        )
    build = declared or tagged
    if build is None:
        return found
    row = kb.framework_builds(name, framework)
    if row is None:
        if name == "pytorch":
            found.append(
                Verdict(
                    Severity.INFO,
                    f"the knowledge base has no row for {label} {short(framework)}; its CUDA "
                    f"builds were not checked (add it to {_KB_FILES}frameworks.yaml)",
                )
            )
    elif not framework.is_prerelease and build.major_minor not in {
        b.major_minor for b in row.cuda_builds
    }:
        found.append(
            Verdict(
                Severity.WARNING,
                f"{label} {short(framework)} was published for CUDA {row.builds_text()}; a "
                f"build for CUDA {short(build)} is not one of them (a source or vendor build, "
                "or a mistyped layer)",
                source=row.source.cite(),
            )
        )
    runtime = _cuda(runtime_text)
    if runtime is not None and build.major_minor > runtime.major_minor:
        found.append(
            Verdict(
                Severity.WARNING,
                f"{label} is built for CUDA {short(build)} but the node's CUDA runtime is "
                f"{runtime}; a build that loads the system's CUDA libraries needs "
                f"{short(build)} there (pip wheels bring their own)",
            )
        )
    driver = try_version(driver_text) if driver_text is not None else None
    if driver is not None and (runtime is None or build.major_minor != runtime.major_minor):
        verdict = driver_verdict(kb, driver, build, f"the {label} build for CUDA")
        if verdict is not None:
            found.append(verdict._replace(cite=("driver",)))
    return found


@rule(
    "VERSION-FRAMEWORK",
    title="Framework built for a CUDA the node cannot run",
    severity=Severity.ERROR,
    scope="device",
    looks_at=NODE_LOOKS,
    source=(
        "PyTorch RELEASE.md release compatibility matrix; NVIDIA CUDA Toolkit Release "
        f"Notes driver table (rows in {_KB_FILES}frameworks.yaml and cuda-drivers.yaml)"
    ),
)
def version_framework(ctx: RuleContext, me: Rule, device: Device) -> Iterator[Finding]:
    nv = _node(ctx, device)
    if nv is None:
        return
    text = nv.effective("framework")
    if text is None:
        return
    key = (text, nv.effective("framework_cuda"), nv.effective("cuda"), nv.effective("driver"))
    yield from _emit(ctx, me, device, nv, key, lambda kb: _framework_verdicts(kb, *key))


def _catalog_gpus(ctx: RuleContext, kb: KnowledgeBase, slug: str) -> list[tuple[str, Any]]:
    """(label, architecture or None) of the GPUs a catalog type fits."""
    design: Design = ctx.design
    item = design.device_types.get(slug)
    if item is None or item.kind != "server":
        return []
    found = []
    for gpu_slug in gpu_models(design, item):
        gpu = design.device_types.get(gpu_slug)
        label = gpu.model if gpu is not None else gpu_slug
        arch = kb.arch_of(gpu_slug) or (kb.arch_of(gpu.model) if gpu is not None else None)
        found.append((label, arch))
    return found


def _gpu_problems(
    arch: Architecture,
    driver: Version | None,
    runtime: Version | None,
    build: Version | None,
) -> list[str]:
    problems = []
    if arch.min_driver is not None and driver is not None and driver < arch.min_driver:
        problems.append(f"needs driver {arch.min_driver} or newer, the node has {driver}")
    for what, cuda in (("CUDA runtime", runtime), ("framework's CUDA build", build)):
        if cuda is None:
            continue
        if arch.min_cuda is not None and cuda < arch.min_cuda:
            problems.append(f"has native code from CUDA {arch.min_cuda} on, the {what} is {cuda}")
        if arch.last_cuda_major is not None and cuda.major > arch.last_cuda_major:
            problems.append(
                f"is not built for after CUDA {arch.last_cuda_major}.x, the {what} is {cuda}"
            )
    return problems


def _gpu_verdicts(
    ctx: RuleContext,
    kb: KnowledgeBase,
    slug: str,
    observed: tuple[str, ...],
    values: tuple[str | None, ...],
) -> list[Verdict]:
    driver_text, runtime_text, declared_text, framework_text = values
    driver = try_version(driver_text) if driver_text is not None else None
    runtime, declared = _cuda(runtime_text), _cuda(declared_text)
    framework = try_version(framework_text) if framework_text is not None else None
    build = declared or (framework.local_cuda if framework is not None else None)
    gpus = _catalog_gpus(ctx, kb, slug) + [(model, kb.arch_of(model)) for model in observed]
    problems: list[str] = []
    unknown: list[str] = []
    sources: list[str] = []
    seen: set[tuple[str, str]] = set()
    for label, arch in gpus:
        if arch is None:
            unknown.append(label)
        elif arch.vendor == "nvidia" and (label, arch.arch) not in seen:
            seen.add((label, arch.arch))
            found = _gpu_problems(arch, driver, runtime, build)
            if found:
                what = f"{label} ({arch.name}, compute capability {arch.compute_capability})"
                problems.append(f"{what} {'; '.join(found)}")
                if arch.source.cite() not in sources:
                    sources.append(arch.source.cite())
    verdicts = []
    if problems:
        verdicts.append(Verdict(Severity.ERROR, ". ".join(problems), source="; ".join(sources)))
    if unknown:
        verdicts.append(
            Verdict(
                Severity.INFO,
                f"GPU {', '.join(sorted(set(unknown)))} is not in the compatibility knowledge "
                "base, so its driver and CUDA support were not checked (add it to "
                f"{_KB_FILES}gpu-architectures.yaml)",
            )
        )
    return verdicts


@rule(
    "VERSION-GPU",
    title="GPU not supported by the node's driver or CUDA",
    severity=Severity.ERROR,
    scope="device",
    looks_at=NODE_LOOKS,
    source=(
        "NVIDIA architecture compatibility guides, the Blackwell migration guide and the "
        f"CUDA GPUs list (rows in {_KB_FILES}gpu-architectures.yaml)"
    ),
)
def version_gpu(ctx: RuleContext, me: Rule, device: Device) -> Iterator[Finding]:
    nv = _node(ctx, device)
    if nv is None:
        return
    values = tuple(
        nv.effective(layer) for layer in ("driver", "cuda", "framework_cuda", "framework")
    )
    if all(v is None for v in values):
        return
    key = (device.device_type, nv.gpu_models, values)
    yield from _emit(
        ctx,
        me,
        device,
        nv,
        key,
        lambda kb: _gpu_verdicts(ctx, kb, device.device_type, nv.gpu_models, values),
    )


@rule(
    "VERSION-ONE-LAYER",
    title="Baseline revision changes more than one layer",
    severity=Severity.WARNING,
    scope="design",
    looks_at={"versions"},
    source=planning(
        "upgrade one layer at a time and re-run acceptance between changes (domain brief §6)"
    ),
)
def version_one_layer(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    for baseline in design.versions.baselines:
        current = baseline.current
        previous = baseline.previous(current.revision) if current is not None else None
        if current is None or previous is None:
            continue
        layers = list(dict.fromkeys([*previous.versions, *current.versions]))
        changed = [
            f"{layer} {previous.versions.get(layer, '(none)')} → "
            f"{current.versions.get(layer, '(none)')}"
            for layer in layers
            if previous.versions.get(layer) != current.versions.get(layer)
        ]
        if len(changed) > 1:
            yield me.finding(
                f"Baseline {baseline.name!r} r{current.revision} changes {len(changed)} layers "
                f"at once compared with r{previous.revision}: {'; '.join(changed)}. Change one "
                "layer at a time and run acceptance in between, or a regression cannot be "
                "traced to one change.",
                baseline.id,
            )


@rule(
    "VERSION-DRIFT",
    title="Node differs from its baseline",
    severity=Severity.WARNING,
    scope="device",
    looks_at=NODE_LOOKS,
    source=planning(
        "track BIOS, BMC, VBIOS, NIC firmware, OS, kernel, driver, CUDA, NCCL, container "
        "runtime and framework per node against one baseline (domain brief §6)"
    ),
)
def version_drift(ctx: RuleContext, me: Rule, device: Device) -> Iterator[Finding]:
    nv = _node(ctx, device)
    if nv is None or nv.baseline_id is None:
        return
    if nv.baseline_missing:
        yield me.finding(
            f"{device.name}: its assignment names baseline {nv.baseline_id!r}, which the design "
            "does not have; the node is not compared with any baseline.",
            device.id,
            severity=Severity.INFO,
        )
        return
    if not nv.reported:
        if _index(ctx).any_reports:
            yield me.finding(
                f"{device.name}: follows baseline {nv.baseline_name!r} r{nv.revision} but no "
                "imported report names it (not collected yet, or reported under another "
                "host name).",
                device.id,
                severity=Severity.INFO,
            )
        return
    if nv.drift:
        parts = [
            f"{d.layer} expected {d.expected}, reported {d.observed.value} ({where(d.observed)})"
            for d in nv.drift
        ]
        yield me.finding(
            f"{device.name} differs from baseline {nv.baseline_name!r} r{nv.revision} in "
            f"{len(parts)} layer{'s' if len(parts) > 1 else ''}: {'; '.join(parts)}.",
            device.id,
        )


@rule(
    "VERSION-MIXED-GPU",
    title="Node reports more than one GPU model",
    severity=Severity.ERROR,
    scope="device",
    looks_at=NODE_LOOKS,
    source=planning("do not mix GPU models inside a node or a partition"),
)
def version_mixed_gpu(ctx: RuleContext, me: Rule, device: Device) -> Iterator[Finding]:
    nv = _node(ctx, device)
    if nv is None or len(nv.gpu_models) < 2:
        return
    report = nv.observed.get("gpu_model")
    place = f" in {where(report)}" if report is not None else ""
    yield me.finding(
        f"{device.name} reports {len(nv.gpu_models)} GPU models{place}: "
        f"{', '.join(nv.gpu_models)}. Collective operations run at the pace of the slowest "
        "card, and the scheduler cannot treat the GPUs alike.",
        device.id,
    )
