"""Each node's effective versions: what its baseline expects, what it reported, where
they differ.  The version checks, the Versions view and ``workbench versions show`` all
read this one shape, so they cannot disagree about a node.

For a node (a device *name*, as the reports know it):

* ``expected``: the current revision of the baseline whose assignment matches the node
  last (assignments are fnmatch globs; the last match wins); a node no assignment
  matches falls back to the software stack its device record names
  (``Device.software_stack``: what a template or a NetBox import gives each server),
  so a design that only ever set stacks still hands its pins to the inventory, the
  checklist and the health check;
* ``observed``: per layer, the newest observation (by ``observed_at``; a later row wins a
  tie, so a re-import of the same file is the current one), with its file and line;
* ``drift``: the pinned layers whose reported value does not satisfy the pin
  (:func:`~workbench.versions.compare.matches`: ``12.4`` is met by ``12.4.1``);
* ``effective``: the observed value where the node reported one, else the expected one:
  what the compatibility checks judge.

Observations are append-only (``workbench/model/versions.py``), which is what lets the
per-node index be reused from one check to the next while the list only grew (see
:func:`_observation_index`); baselines and assignments are few and read afresh.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import translate
from typing import Any, cast

from workbench.catalog.item import is_gpu_server
from workbench.model import Design, Device, SoftwareStack
from workbench.model.versions import (
    LAYER_KEYS,
    Assignment,
    Baseline,
    BaselineRevision,
    Observation,
    VersionMatrix,
)
from workbench.versions.compare import matches

#: How a report writes the distinct values of one layer within one node (a node with
#: two GPU models): the report parsers join them so (reports/base.py MIXED_JOIN).
MIXED_SEPARATOR = " + "


def where(observation: Observation) -> str:
    """``file:line`` of an observation (the file alone when the line is unknown)."""
    if observation.line is None:
        return observation.source
    return f"{observation.source}:{observation.line}"


def observation_json(observation: Observation) -> dict[str, Any]:
    """The parts of an observation a view or an export shows."""
    return {
        "value": observation.value,
        "source": observation.source,
        "line": observation.line,
        "observed_at": observation.observed_at,
        "import_id": observation.import_id,
    }


@dataclass(frozen=True)
class Drift:
    """A pinned layer whose report does not meet the pin."""

    layer: str
    expected: str
    observed: Observation

    def to_json(self) -> dict[str, Any]:
        return {
            "layer": self.layer,
            "expected": self.expected,
            "observed": observation_json(self.observed),
        }


@dataclass(slots=True)
class NodeVersions:
    """The version story of one node (see the module docstring).

    ``device_id`` is None for a node that reported but is not in the design (a renamed
    or removed device; its reports stay as they were).  ``observed`` maps each layer to
    the node's newest :class:`~workbench.model.versions.Observation` (shared with the
    index: read it, do not change it).  ``gpu_models`` holds the distinct GPU models of
    the node's newest GPU report, in report order.
    """

    node: str
    device_id: str | None = None
    baseline_id: str | None = None
    baseline_name: str = ""
    revision: int | None = None
    expected: dict[str, str] = field(default_factory=dict)
    observed: dict[str, Observation] = field(default_factory=dict)
    drift: list[Drift] = field(default_factory=list)
    gpu_models: tuple[str, ...] = ()
    #: The winning assignment names a baseline the design does not have (deleted).
    baseline_missing: bool = False

    @property
    def reported(self) -> bool:
        return bool(self.observed)

    def effective(self, layer: str) -> str | None:
        """What the node runs as far as the design knows: reported, else expected."""
        seen = self.observed.get(layer)
        return seen.value if seen is not None else self.expected.get(layer)

    def effective_source(self, layer: str) -> str:
        """Where :meth:`effective` comes from, for a message: a file, or the baseline."""
        seen = self.observed.get(layer)
        if seen is not None:
            return f"reported in {where(seen)}"
        return f"from baseline {self.baseline_name!r} r{self.revision}"

    def to_json(self) -> dict[str, Any]:
        """Plain data for ``versions show --json`` and exports (stable keys)."""
        return {
            "node": self.node,
            "device_id": self.device_id,
            "baseline": (
                {"id": self.baseline_id, "name": self.baseline_name, "revision": self.revision}
                if self.baseline_id is not None
                else None
            ),
            "expected": dict(self.expected),
            "observed": {k: observation_json(v) for k, v in self.observed.items()},
            "drift": [d.to_json() for d in self.drift],
            "gpu_models": list(self.gpu_models),
            "baseline_missing": self.baseline_missing,
        }


# -- the observation index, reused while the list only grows ------------------------------


@dataclass
class _ObservationIndex:
    newest: dict[str, dict[str, Observation]]
    gpu_values: dict[str, list[str]]


#: The last index built: (its matrix, the list, its length, its last row, the index).
#: Holding the list keeps its identity from being reused while it is cached; the matrix
#: is held weakly and the entry dropped when it goes, so a closed design is not kept.
_OBS_CACHE: list[
    tuple[weakref.ref[VersionMatrix], list[Observation], int, Observation | None, _ObservationIndex]
] = []


def _observation_index(matrix: VersionMatrix) -> _ObservationIndex:
    """Node → layer → newest observation, built in one pass over the observations.

    Reused while the design holds the same list object with the same length and the
    same last row: observations are only appended (an undone import removes its rows
    from the end), so such a list holds the same rows.
    """
    rows = matrix.observations
    last = rows[-1] if rows else None
    if _OBS_CACHE:
        owner, held, length, held_last, index = _OBS_CACHE[0]
        if owner() is matrix and held is rows and length == len(rows) and held_last is last:
            return index
    newest: dict[str, dict[str, Observation]] = {}
    gpu_rows: list[Observation] = []
    for row in rows:
        layers = newest.get(row.node)
        if layers is None:
            layers = newest[row.node] = {}
        best = layers.get(row.layer)
        if best is None or row.observed_at >= best.observed_at:
            layers[row.layer] = row
        if row.layer == "gpu_model":
            gpu_rows.append(row)
    # A node's GPU models are those of its newest GPU report: every gpu_model row of
    # that import (one per file, or one per GPU, however the parser wrote them).
    gpu_values: dict[str, list[str]] = {}
    for row in gpu_rows:
        if newest[row.node]["gpu_model"].import_id == row.import_id:
            gpu_values.setdefault(row.node, []).append(row.value)
    index = _ObservationIndex(newest, gpu_values)
    owner = weakref.ref(matrix, lambda _gone: _OBS_CACHE.clear())
    _OBS_CACHE[:] = [(owner, rows, len(rows), last, index)]  # one design at a time
    return index


class _Resolver:
    """Device name → the assignment that wins for it, cached per name.

    Exact names are one dict lookup; globs are compiled once.  The answer for a name is
    kept as long as the assignments are the same, so a check after an edit costs a
    lookup per node, not a glob scan over every assignment.
    """

    def __init__(self, assignments: Iterable[Assignment]):
        self.baseline_ids: list[str] = []
        self.exact: dict[str, int] = {}  # name → order of the last exact assignment
        self.globs: list[tuple[int, re.Pattern[str]]] = []
        for order, a in enumerate(assignments):
            self.baseline_ids.append(a.baseline_id)
            if any(c in a.pattern for c in "*?["):
                self.globs.append((order, re.compile(translate(a.pattern))))
            else:
                self.exact[a.pattern] = order
        self.cache: dict[str, str | None] = {}

    def baseline_of(self, name: str) -> str | None:
        if name in self.cache:
            return self.cache[name]
        best = self.exact.get(name, -1)
        for order, regex in reversed(self.globs):
            if order <= best:
                break
            if regex.match(name):
                best = order
                break
        found = self.baseline_ids[best] if best >= 0 else None
        self.cache[name] = found
        return found


_RESOLVERS: dict[tuple[tuple[str, str], ...], _Resolver] = {}


def _resolver(assignments: list[Assignment]) -> _Resolver:
    key = tuple((a.pattern, a.baseline_id) for a in assignments)
    found = _RESOLVERS.get(key)
    if found is None:
        _RESOLVERS.clear()
        found = _RESOLVERS[key] = _Resolver(assignments)
    return found


class VersionIndex:
    """Lazily built :class:`NodeVersions` for one state of a design's version matrix.

    The rules make one per check (``RuleContext.memo``) and ask it node by node, so a
    re-check of one edited device builds one node, not 12,500.
    """

    def __init__(self, design: Design):
        matrix = design.versions
        self.matrix = matrix
        self.any_reports = bool(matrix.observations)
        self._obs = _observation_index(matrix)
        self._resolver = _resolver(matrix.assignments)
        self._baselines: dict[str, tuple[Baseline, BaselineRevision | None]] = {
            b.id: (b, b.current) for b in matrix.baselines
        }
        self._nodes: dict[tuple[str, str | None], object] = {}
        self._pins: dict[int, dict[str, str]] = {}
        self._design = design
        self._stacks = {s.id: s for s in design.software_stacks}

    def node(self, name: str, device_id: str | None = None) -> NodeVersions | None:
        """The node's versions; None when it has neither a baseline nor a report."""
        key = (name, device_id)
        found = self._nodes.get(key, _UNBUILT)
        if found is _UNBUILT:
            found = self._nodes[key] = self._build(name, device_id)
        return cast("NodeVersions | None", found)

    def _expected(self, revision: BaselineRevision) -> dict[str, str]:
        """The revision's pins in layer order (messages read top-down), one dict per
        revision shared by its nodes (read it, do not change it)."""
        found = self._pins.get(id(revision))
        if found is None:
            found = {k: revision.versions[k] for k in LAYER_KEYS if k in revision.versions}
            self._pins[id(revision)] = found
        return found

    def _stack_of(self, device_id: str | None) -> SoftwareStack | None:
        """The software stack the device record names, if the design has it."""
        if device_id is None or not self._stacks:
            return None
        found = self._design.find_device(device_id)
        if found is None or not found[1].software_stack:
            return None
        return self._stacks.get(found[1].software_stack)

    def _stack_pins(self, stack: SoftwareStack) -> dict[str, str]:
        """A stack's components that are layers of the matrix, in layer order (one dict
        per stack, shared by its nodes)."""
        found = self._pins.get(id(stack))
        if found is None:
            found = {k: stack.components[k] for k in LAYER_KEYS if stack.components.get(k)}
            self._pins[id(stack)] = found
        return found

    def reported_nodes(self) -> Iterable[str]:
        return self._obs.newest.keys()

    def has_reports(self, name: str) -> bool:
        return name in self._obs.newest

    def _build(self, name: str, device_id: str | None) -> NodeVersions | None:
        layers = self._obs.newest.get(name)
        baseline_id = self._resolver.baseline_of(name)
        stack = self._stack_of(device_id) if baseline_id is None else None
        if layers is None and baseline_id is None and stack is None:
            return None
        found = self._baselines.get(baseline_id) if baseline_id is not None else None
        baseline_name, revision, expected = "", None, _NO_PINS
        if stack is not None:
            baseline_id, baseline_name, revision = stack.id, stack.name, stack.revision
            expected = self._stack_pins(stack)
        if found is not None:
            baseline, current = found
            baseline_name = baseline.name
            if current is not None:
                revision, expected = current.revision, self._expected(current)
        drift: list[Drift] = []
        gpus: tuple[str, ...] = ()
        if layers:
            for layer, pin in expected.items():
                seen = layers.get(layer)
                if seen is not None and not matches(pin, seen.value):
                    drift.append(Drift(layer, pin, seen))
            gpu_values = self._obs.gpu_values.get(name)
            if gpu_values:
                gpus = _distinct_models(gpu_values)
        return NodeVersions(
            node=name,
            device_id=device_id,
            baseline_id=baseline_id,
            baseline_name=baseline_name,
            revision=revision,
            expected=expected,
            observed=layers or {},
            drift=drift,
            gpu_models=gpus,
            baseline_missing=baseline_id is not None and found is None and stack is None,
        )


_UNBUILT = object()

#: The pins of a node without a baseline revision (shared, never changed).
_NO_PINS: dict[str, str] = {}


def _distinct_models(values: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for value in values:
        for part in value.split(MIXED_SEPARATOR):
            part = part.strip()
            if part:
                seen.setdefault(part, None)
    return tuple(seen)


def is_node(design: Design, device: Device) -> bool:
    """Whether ``device`` is a node of the version matrix: a server holding GPUs (or,
    see the callers, any device that reported versions: what it runs is then a fact).

    The one definition, read by the rules, the Versions view and the command line.  The
    matrix tracks the GPU stack (framework, CUDA, driver, kernel, firmware), so
    switches, PDUs, storage appliances and CPU-only servers are not rows, even when a
    broad glob (``*``, the command line's default) matches their names.  A device of a
    type missing from the snapshot is not a node either (CATALOG-MISSING reports it).
    """
    return is_gpu_server(design.device_types.get(device.device_type))


def effective_versions(design: Design) -> dict[str, NodeVersions]:
    """Every node the version matrix knows, by node name, in design order.

    A node is a GPU server (:func:`is_node`) whose name an assignment matches, or any
    device that reported; reports of a name no device has come last, with
    ``device_id`` None.  The result is plain data (:meth:`NodeVersions.to_json`),
    rebuilt on each call.
    """
    index = VersionIndex(design)
    result: dict[str, NodeVersions] = {}
    for _rack, device in design.iter_devices():
        if not isinstance(device.name, str) or device.name in result:
            continue  # a name that is not text (a script's slip) names no node
        if is_node(design, device) or index.has_reports(device.name):
            found = index.node(device.name, device.id)
            if found is not None:
                result[device.name] = found
    for name in index.reported_nodes():
        if name not in result:
            found = index.node(name)
            if found is not None:
                result[name] = found
    return result
