"""Baseline stack files (``layer: version``) and the edit that records one.

Teams keep their stacks in version control as small YAML files::

    name: H100 training          # optional: the baseline's name
    note: driver to R550 for CUDA 12.4
    driver: 550.54.14
    cuda: "12.4"
    framework: 2.4.0

Versions are read as the text written, never as YAML numbers: unquoted ``cuda: 12.10``
is the float 12.1 to YAML, which would silently pin the wrong release.  So the file is
composed into nodes and each scalar's source text is kept.  The file is small by nature;
anything above :data:`MAX_STACK_BYTES`, aliases, tags and nested values other than an
optional ``versions:`` mapping are refused with the line.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from workbench.bounded_read import ReadRefused, read_bounded
from workbench.model import ops
from workbench.model.design import Design
from workbench.model.errors import EditError
from workbench.model.version_ops import (
    AddAssignment,
    AddBaseline,
    AddRevision,
    check_versions,
    layers_changed,
)
from workbench.model.versions import LAYER_LABELS, Assignment, Baseline, BaselineRevision
from workbench.versions.matrix import is_node

#: A stack is a few dozen lines; 64 KiB leaves room for comments and stops a wrong file.
MAX_STACK_BYTES = 64 * 1024
_META = ("name", "note")
_PLAIN_TAGS = frozenset(
    f"tag:yaml.org,2002:{t}"
    for t in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")
)

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML without libyaml
    _Loader = yaml.SafeLoader


class StackFileError(Exception):
    """A stack file that cannot be read; the message names the file (and line)."""


@dataclass(frozen=True)
class StackFile:
    versions: dict[str, str]
    name: str = ""
    note: str = ""


def read_stack_file(path: Path) -> StackFile:
    """The stack in ``path``; StackFileError naming the file and line otherwise."""
    try:
        text = read_bounded(path, MAX_STACK_BYTES).decode("utf-8-sig")
    except ReadRefused as exc:
        raise StackFileError(
            f"{path}: {exc}; a stack file is at most {MAX_STACK_BYTES:,} bytes"
        ) from None
    except OSError as exc:
        raise StackFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise StackFileError(f"{path}: not UTF-8 text (bad byte at offset {exc.start})") from None
    return parse_stack_text(text, str(path))


def parse_stack_text(text: str, shown: str) -> StackFile:
    """Like :func:`read_stack_file` for text in memory; ``shown`` names it in errors."""
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                at = f":{event.start_mark.line + 1}" if event.start_mark is not None else ""
                raise StackFileError(f"{shown}{at}: anchors and aliases are not allowed")
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise StackFileError(f"{shown}{where}: YAML syntax error: {problem}") from None
    if not isinstance(node, yaml.MappingNode):
        raise StackFileError(f"{shown}: expected `layer: version` lines")
    pairs = _scalars(node, shown)
    nested = pairs.pop("versions", None)
    meta = {key: pairs.pop(key)[0] for key in _META if key in pairs}
    if isinstance(nested, dict):
        pairs.update(nested)
    versions = {key: value for key, (value, _line) in pairs.items()}
    lines = {key: line for key, (_value, line) in pairs.items()}
    try:
        clean = check_versions(versions, "The stack")
    except EditError as exc:  # name the line of the offending layer
        bad = next((k for k in versions if k in str(exc)), None)
        where = f":{lines[bad]}" if bad in lines else ""
        raise StackFileError(f"{shown}{where}: {exc}") from None
    if not clean:
        raise StackFileError(f"{shown}: names no layer; give lines like `driver: 550.54.14`")
    return StackFile(clean, meta.get("name", ""), meta.get("note", ""))


def _scalars(node: yaml.MappingNode, shown: str, nested: bool = False) -> dict[str, Any]:
    """key → (source text, line) for a mapping of scalars, with one nested
    ``versions:`` mapping allowed at the top."""
    out: dict[str, Any] = {}
    for key_node, value_node in node.value:
        line = key_node.start_mark.line + 1
        if not isinstance(key_node, yaml.ScalarNode):
            raise StackFileError(f"{shown}:{line}: layer names must be plain text")
        key = key_node.value
        if key in out:
            raise StackFileError(f"{shown}:{line}: {key!r} is given twice")
        if value_node.tag not in _PLAIN_TAGS:
            raise StackFileError(f"{shown}:{line}: the tag {value_node.tag} is not allowed here")
        if key == "versions" and not nested and isinstance(value_node, yaml.MappingNode):
            out[key] = {k: v for k, v in _scalars(value_node, shown, nested=True).items()}
            continue
        if not isinstance(value_node, yaml.ScalarNode):
            raise StackFileError(f"{shown}:{line}: {key} must be one version, like 550.54.14")
        out[key] = (value_node.value, line)
    return out


@dataclass
class BaselineEdit:
    """What ``versions baseline`` does: a new baseline or revision, and an assignment."""

    name: str
    baseline_id: str
    revision: int
    pattern: str
    op: ops.Batch | None
    changed: list[str] = field(default_factory=list)
    new_baseline: bool = False
    assigned: bool = False

    def nodes(self, design: Design) -> list[str]:
        """GPU nodes the pattern covers (the nodes this baseline now governs, unless a
        later assignment claims them)."""
        return [
            d.name
            for _, d in design.iter_devices()
            if is_node(design, d) and fnmatch.fnmatchcase(d.name, self.pattern)
        ]

    def lines(self, design: Design) -> list[str]:
        if self.op is None:
            return [f"Baseline {self.name!r} r{self.revision} already says this; nothing changed."]
        what = "new baseline" if self.new_baseline else f"revision {self.revision}"
        changed = ", ".join(LAYER_LABELS.get(k, k) for k in self.changed) or "no layer"
        out = [f"Baseline {self.name!r}: {what} (changes {changed})."]
        if len(self.changed) > 1 and not self.new_baseline:
            out.append(
                "Warning: more than one layer changes at once; the one-layer-at-a-time rule "
                "(domain brief §6) asks for one change per revision, with acceptance between."
            )
        if self.assigned:
            out.append(
                f"Assigned to {len(self.nodes(design)):,} GPU nodes matching {self.pattern!r}."
            )
        return out

    def to_json(self, design: Design) -> dict[str, Any]:
        return {
            "baseline": {"id": self.baseline_id, "name": self.name, "revision": self.revision},
            "changed": self.op is not None,
            "new_baseline": self.new_baseline,
            "layers_changed": self.changed,
            "pattern": self.pattern,
            "assigned": self.assigned,
            "nodes": len(self.nodes(design)),
        }


def baseline_edit(
    design: Design,
    name: str,
    versions: dict[str, str],
    pattern: str = "*",
    *,
    note: str = "",
    author: str = "",
    created: str = "",
) -> BaselineEdit:
    """The edit that records ``versions`` as baseline ``name``'s next revision (or a new
    baseline) and assigns it to ``pattern``; ``op`` None when nothing would change."""
    matrix = design.versions
    baseline = next((b for b in matrix.baselines if b.name == name), None)
    steps: list[Any] = []
    if baseline is None:
        baseline_id = matrix.new_id("bl")
        revision = BaselineRevision(1, dict(versions), note, author, created)
        steps.append(AddBaseline(Baseline(baseline_id, name, [revision])))
        changed, number, new = list(versions), 1, True
    else:
        baseline_id, current, new = baseline.id, baseline.current, False
        number = 1 if current is None else current.revision + 1
        revision = BaselineRevision(number, dict(versions), note, author, created)
        changed = layers_changed(current, revision)
        if changed:
            steps.append(AddRevision(baseline_id, revision))
        else:
            number = current.revision if current is not None else 0
    assigned = not any(
        a.baseline_id == baseline_id and a.pattern == pattern for a in matrix.assignments
    ) or bool(matrix.assignments and matrix.assignments[-1].baseline_id != baseline_id)
    if assigned:
        steps.append(AddAssignment(Assignment(matrix.new_id("as"), baseline_id, pattern)))
    op = ops.Batch(tuple(steps)) if steps else None
    return BaselineEdit(name, baseline_id, number, pattern, op, changed, new, assigned)
