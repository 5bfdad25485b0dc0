"""Read one catalog YAML file, within limits, and remember the line of every field.

PyYAML's ``safe_load`` throws line numbers away, yet users need "line 12, field
u_height" to fix a file.  And catalog files come from strangers, so loading must stay
bounded whatever a file holds.  Both needs are met by building the values straight
from the parser's event stream (libyaml's, when available) in one loop:

* the line of every key and list entry is recorded under its path as it goes by;
* aliases (``*name``) are refused where they appear.  An alias repeats a value without
  repeating its text, so nine nested aliases make a billion values ("billion laughs")
  and ``&x [1, *x]`` an endless one; a catalog never needs them;
* only the standard plain tags are accepted (text, numbers, true/false, null, dates,
  lists, mappings; dates are kept as the text written): a stranger's catalog is data,
  never code, and ``!!python/...`` or a custom ``!foo`` is refused with its line;
* nesting depth, the number of values, text and number lengths, and number magnitudes
  are checked as each value arrives, so a hostile file stops at the first value over a
  limit (see :mod:`workbench.catalog.limits`), long before anything is expanded;
* the file's size is checked before it is read.

Nothing is composed into a node tree or constructed afterwards, so there is no
second pass that a crafted file could make expensive.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import yaml

from workbench.bounded_read import ReadRefused, read_bounded
from workbench.catalog import limits
from workbench.catalog.errors import CatalogError, display_path, printable_text

try:  # libyaml makes the whole shipped catalog load several times faster
    _Loader: type = yaml.CSafeLoader
    _BYTE_OFFSETS = True  # libyaml reports reader errors at offsets into the UTF-8 bytes
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader
    _BYTE_OFFSETS = False

#: A field's position inside a document: mapping keys and list indexes.
Path_ = tuple[Any, ...]

_TAG = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT = _TAG + "str", _TAG + "int", _TAG + "float"
_NULL, _BOOL, _TIMESTAMP = _TAG + "null", _TAG + "bool", _TAG + "timestamp"
_SEQ, _MAP, _VALUE = _TAG + "seq", _TAG + "map", _TAG + "value"
#: Scalar tags a catalog may use, resolved or written out (``!!str 123``).
_SCALAR_TAGS = frozenset({_STR, _INT, _FLOAT, _NULL, _BOOL, _TIMESTAMP, _VALUE})
#: Scalars kept as the text written.  A date (``2024-01-01``) stays text: as a Python
#: date it would come back from a design's JSON snapshot as a string, so the item
#: re-read from the snapshot would differ from the one loaded.  ``value`` is what a
#: lone ``=`` resolves to.
_TEXT_TAGS = frozenset({_STR, _TIMESTAMP, _VALUE})


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


def read_catalog_bytes(path: Path) -> bytes:
    """The bytes of ``path``, refusing what is not a plain file or is over the size cap.

    The size is checked with ``fstat`` before anything is read, and the read stops one
    byte past the cap, so a file that grows meanwhile cannot get round it.  Opening
    does not block on a FIFO.  OS problems are raised as OSError (callers word them);
    a folder is an IsADirectoryError, as opening it for reading would be elsewhere.
    """
    shown = display_path(path)
    try:
        return read_bounded(path, limits.MAX_FILE_BYTES)
    except ReadRefused as exc:
        if "limit" in str(exc):
            size = os.stat(path).st_size
            raise _too_big(
                size if size > limits.MAX_FILE_BYTES else limits.MAX_FILE_BYTES + 1, shown
            ) from None
        raise CatalogError("not a plain file (a pipe, socket or device)", file=shown) from None


def _too_big(size: int, shown: str) -> CatalogError:
    return CatalogError(
        f"file is {size:,} bytes; catalog files may be at most {limits.MAX_FILE_BYTES:,} "
        "bytes (a device type is rarely over 100 KB)",
        file=shown,
    )


def read_yaml(path: Path, data: bytes | None = None) -> tuple[Any, LineMap]:
    """Parse ``path`` (or ``data``, read from it already) into plain data and its
    :class:`LineMap`.

    Raises CatalogError naming the file (and the line, when there is one) for
    unreadable or oversized files, text that is not UTF-8, syntax errors, duplicate
    keys, aliases, tags other than the plain ones, and values over a limit.
    """
    shown = display_path(path)
    if data is None:
        try:
            data = read_catalog_bytes(path)
        except OSError as exc:
            raise CatalogError(f"cannot read file: {exc.strerror or exc}", file=shown) from None
    elif len(data) > limits.MAX_FILE_BYTES:
        raise _too_big(len(data), shown)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CatalogError(
            f"not UTF-8 text (bad byte at offset {exc.start}); is this a YAML file?",
            file=shown,
            line=data.count(b"\n", 0, exc.start) + 1,
        ) from None
    return parse_yaml_text(text, shown)


def parse_yaml_text(text: str, shown: str) -> tuple[Any, LineMap]:
    """Like :func:`read_yaml` for text already in memory; ``shown`` names it in errors.

    ``text`` is not size-checked here: callers that take it from outside check it.
    """
    loader = None
    try:
        loader = _Loader(text)
        value, lines = _Builder(loader, shown).build()
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, shown) from None
    except yaml.reader.ReaderError as exc:
        raise _reader_error(exc, text, shown) from None
    except yaml.YAMLError as exc:
        raise CatalogError(f"YAML error: {' '.join(str(exc).split())}", file=shown) from None
    except UnicodeError:  # text with lone surrogates, which only a caller can pass
        raise CatalogError("text that cannot be written as UTF-8", file=shown) from None
    finally:
        if loader is not None:
            loader.dispose()
    return value, LineMap(lines)


def _syntax_error(exc: yaml.MarkedYAMLError, shown: str) -> CatalogError:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark is not None else None
    problem = exc.problem or "invalid YAML"
    if exc.context:
        problem = f"{exc.context}: {problem}"
    return CatalogError(f"YAML syntax error: {problem}", file=shown, line=line)


def _reader_error(exc: yaml.reader.ReaderError, text: str, shown: str) -> CatalogError:
    """A character YAML does not allow (NUL, most control characters), with its line."""
    position = max(0, int(exc.position))
    if _BYTE_OFFSETS:
        line = text.encode("utf-8", "surrogatepass")[:position].count(b"\n") + 1
    else:
        line = text[:position].count("\n") + 1
    character = f"U+{exc.character:04X}" if isinstance(exc.character, int) else "a character"
    return CatalogError(
        f"{character} is not allowed in a YAML file (control characters cannot be written "
        "unquoted); is this a YAML file?",
        file=shown,
        line=line,
    )


class _Frame:
    """A list or mapping being filled; ``key`` is the mapping key awaiting its value."""

    __slots__ = ("container", "is_map", "key", "key_line", "path")

    def __init__(self, container: Any, path: Path_):
        self.container = container
        self.is_map = isinstance(container, dict)
        self.path = path
        self.key: Any = _NO_KEY
        self.key_line = 0


_NO_KEY = object()

#: Path parts named in an error; a deeper field is shown cut (``props[0][0]...``).
_SHOWN_DEPTH = 6


class _Builder:
    """Turns one document's events into plain values and their lines, within limits."""

    def __init__(self, loader: Any, shown: str):
        self.loader = loader
        self.shown = shown
        self.lines: dict[Path_, int] = {}
        self.stack: list[_Frame] = []
        self.count = 0
        self.root: Any = None

    def error(self, message: str, event: Any, field: Path_ | None = None) -> CatalogError:
        line = event.start_mark.line + 1 if event.start_mark is not None else None
        path = self._current_path() if field is None else field
        name = field_name(path[:_SHOWN_DEPTH]) + ("..." if len(path) > _SHOWN_DEPTH else "")
        return CatalogError(message, self.shown, line, _cut(name, 120) or None)

    def _current_path(self) -> Path_:
        """Where the value now arriving goes: what an error about it should name."""
        if not self.stack:
            return ()
        top = self.stack[-1]
        if not top.is_map:
            return top.path + (len(top.container),)
        return top.path if top.key is _NO_KEY else top.path + (top.key,)

    def build(self) -> tuple[Any, dict[Path_, int]]:
        get_event = self.loader.get_event
        documents = 0
        while True:
            event = get_event()
            kind = type(event)
            if kind is yaml.ScalarEvent:
                self.add(self.scalar(event), event, collection=False)
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                self.start(event, kind is yaml.MappingStartEvent)
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                self.stack.pop()
            elif kind is yaml.AliasEvent:
                raise self.error(
                    f"YAML alias *{_cut(event.anchor)} is not allowed in catalog files: an "
                    "alias repeats a value without its text and can expand without bound "
                    "(or refer to itself); write the value out",
                    event,
                )
            elif kind is yaml.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise self.error(
                        "YAML syntax error: a second document ('---') in the file; a catalog "
                        "file holds one device type or one 'items:' list",
                        event,
                        field=(),
                    )
            elif kind is yaml.StreamEndEvent:
                return self.root, self.lines

    def count_value(self, event: Any) -> None:
        self.count += 1
        if self.count > limits.MAX_VALUES_PER_FILE:
            raise self.error(
                f"more than {limits.MAX_VALUES_PER_FILE:,} values in one file; "
                "split it or check it is a catalog file",
                event,
            )

    def start(self, event: Any, is_map: bool) -> None:
        self.count_value(event)
        if len(self.stack) >= limits.MAX_NESTING_DEPTH:
            raise self.error(
                f"lists and mappings nested more than {limits.MAX_NESTING_DEPTH} deep",
                event,
            )
        tag = event.tag
        expected = _MAP if is_map else _SEQ
        if tag is not None and tag != "!" and tag != expected:
            raise self.error(_tag_problem(tag, "mapping" if is_map else "list"), event)
        container: Any = {} if is_map else []
        path = self.add(container, event, collection=True)
        self.stack.append(_Frame(container, path))

    def add(self, value: Any, event: Any, *, collection: bool) -> Path_:
        """Put ``value`` where it belongs and record its line; returns its path."""
        line = event.start_mark.line + 1
        if not self.stack:
            self.root = value
            self.lines[()] = line
            return ()
        top = self.stack[-1]
        if not top.is_map:
            path = top.path + (len(top.container),)
            top.container.append(value)
            self.lines[path] = line
            return path
        if top.key is _NO_KEY:  # ``value`` is a key
            if collection:
                raise self.error(
                    "field names must be plain text, not a list or mapping", event, top.path
                )
            if value in top.container:
                first = self.lines.get(top.path + (value,))
                raise self.error(
                    f"duplicate key {_cut(repr(value))} (first given on line {first})",
                    event,
                    top.path + (value,),
                )
            top.key, top.key_line = value, line
            return top.path
        path = top.path + (top.key,)
        top.container[top.key] = value
        self.lines[path] = top.key_line
        top.key = _NO_KEY
        return path

    def scalar(self, event: Any) -> Any:
        """The Python value of one scalar, after its tag, length and magnitude checks."""
        self.count_value(event)
        value: str = event.value
        is_key = bool(self.stack) and self.stack[-1].is_map and self.stack[-1].key is _NO_KEY
        cap = limits.MAX_KEY_CHARS if is_key else limits.MAX_STRING_CHARS
        if len(value) > cap:
            what = "field name" if is_key else "text"
            raise self.error(f"{what} of {len(value):,} characters; at most {cap:,}", event)
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, value, event.implicit)
        if tag in _TEXT_TAGS:
            return value
        if tag not in _SCALAR_TAGS:
            if is_key and tag == _TAG + "merge":
                raise self.error(
                    "merge keys ('<<') are not supported in catalog files; write the fields out",
                    event,
                )
            raise self.error(_tag_problem(tag, "value"), event)
        if tag == _NULL:
            return None
        if tag in (_INT, _FLOAT) and len(value) > limits.MAX_NUMBER_CHARS:
            raise self.error(
                f"unreadable value: a number written with {len(value):,} characters is too "
                f"large; catalog figures are at most {limits.MAX_NUMBER_MAGNITUDE:g}",
                event,
            )
        node = yaml.ScalarNode(tag, value, event.start_mark, event.end_mark)
        try:
            result = self.loader.yaml_constructors[tag](self.loader, node)
        except (ArithmeticError, LookupError, ValueError, TypeError, AttributeError):
            raise self.error(
                f"unreadable value: {_cut(repr(value))} is not a valid {_short_tag(tag)}", event
            ) from None
        if tag in (_INT, _FLOAT):
            self.check_number(result, value, event)
        return result

    def check_number(self, number: float, written: str, event: Any) -> None:
        if not math.isfinite(number):
            raise self.error(f"expected a finite number, got {_cut(written)}", event)
        if abs(number) > limits.MAX_NUMBER_MAGNITUDE:
            raise self.error(
                f"number {_cut(written)} is too large; catalog figures are at most "
                f"{limits.MAX_NUMBER_MAGNITUDE:g} in size",
                event,
            )


def _tag_problem(tag: str, what: str) -> str:
    # The words "YAML syntax error" keep the message what it was before tags were
    # checked here, when the constructor refused them.
    return (
        f"YAML syntax error: the tag {_short_tag(tag)} is not allowed on a {what} in a "
        "catalog file; only plain text, numbers, true/false, dates, lists and mappings are"
    )


def _short_tag(tag: str) -> str:
    """``tag:yaml.org,2002:python/object`` → ``!!python/object``, cut to a line."""
    return _cut("!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag)


def _cut(text: str, limit: int = 60) -> str:
    """``text`` from the file made fit for a one-line message: escaped and cut short."""
    text = printable_text(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def field_name(path: Path_) -> str:
    """``("power-ports", 2, "maximum_draw")`` → ``power-ports[2].maximum_draw``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
