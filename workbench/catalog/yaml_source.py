"""Read one catalog YAML file and remember the line of every field.

PyYAML's ``safe_load`` throws line numbers away, yet users need "line 12, field
u_height" to fix a file.  So the file is *composed* into YAML nodes first (nodes carry
their start marks), the line of every key and list entry is recorded under its path,
and the plain Python data is then constructed from those same nodes.  Only the safe
constructors are used: a catalog from a stranger is data, never code.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from workbench.catalog.errors import CatalogError, display_path

try:  # libyaml makes the whole shipped catalog load several times faster
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

#: A field's position inside a document: mapping keys and list indexes.
Path_ = tuple[Any, ...]


class LineMap:
    """Lines of the fields of one document, viewed from inside one sub-mapping.

    ``line(path)`` gives the line of the field at ``path`` below the view's prefix,
    falling back to the nearest enclosing entry, so a *missing* field still gets the
    line where its entry starts.
    """

    __slots__ = ("_lines", "_prefix")

    def __init__(self, lines: dict[Path_, int] | None = None, prefix: Path_ = ()):
        self._lines = lines if lines is not None else {}
        self._prefix = prefix

    def sub(self, *path: Any) -> LineMap:
        """The view of the entry at ``path`` (for one item of an ``items:`` list)."""
        return LineMap(self._lines, self._prefix + path)

    def line(self, *path: Any) -> int | None:
        """1-based line of ``path``, or of the closest enclosing node that has one."""
        full = self._prefix + path
        while True:
            found = self._lines.get(full)
            if found is not None:
                return found
            if not full:
                return None
            full = full[:-1]


def read_yaml(path: Path) -> tuple[Any, LineMap]:
    """Parse ``path`` into plain data and its :class:`LineMap`.

    Raises CatalogError naming the file (and the line, when YAML reports one) for
    unreadable files, text that is not UTF-8, syntax errors and duplicate keys.
    """
    shown = display_path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CatalogError(f"cannot read file: {exc.strerror or exc}", file=shown) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CatalogError(
            f"not UTF-8 text (bad byte at offset {exc.start}); is this a YAML file?", file=shown
        ) from None
    return parse_yaml_text(text, shown)


def parse_yaml_text(text: str, shown: str) -> tuple[Any, LineMap]:
    """Like :func:`read_yaml` for text already in memory; ``shown`` names it in errors."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, shown) from None
    except yaml.YAMLError as exc:
        raise CatalogError(f"YAML error: {exc}", file=shown) from None
    if node is None:
        return None, LineMap()
    lines: dict[Path_, int] = {}
    _record_lines(node, (), lines, shown)
    try:
        value = _Loader("").construct_document(node)
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, shown) from None
    except (ValueError, OverflowError) as exc:  # e.g. an integer of thousands of digits
        raise CatalogError(f"unreadable value: {exc}", file=shown) from None
    return value, LineMap(lines)


def _syntax_error(exc: yaml.MarkedYAMLError, shown: str) -> CatalogError:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark is not None else None
    problem = exc.problem or "invalid YAML"
    if exc.context:
        problem = f"{exc.context}: {problem}"
    return CatalogError(f"YAML syntax error: {problem}", file=shown, line=line)


def _record_lines(node: yaml.Node, path: Path_, lines: dict[Path_, int], shown: str) -> None:
    """Walk the node tree iteratively (deep files must not hit the recursion limit)."""
    stack: list[tuple[yaml.Node, Path_]] = [(node, path)]
    lines.setdefault(path, node.start_mark.line + 1)
    while stack:
        current, where = stack.pop()
        for child_path, child, line in _children(current, where, shown):
            lines[child_path] = line
            stack.append((child, child_path))


def _children(node: yaml.Node, where: Path_, shown: str) -> Iterator[tuple[Path_, yaml.Node, int]]:
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            line = key_node.start_mark.line + 1
            if key is None:
                continue  # complex keys are rejected later as "field names must be text"
            if key in seen:
                raise CatalogError(
                    f"duplicate key {key!r} (first given on line {seen[key]})",
                    file=shown,
                    line=line,
                    field=key,
                )
            seen[key] = line
            yield where + (key,), value_node, line
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield where + (index,), item, item.start_mark.line + 1
