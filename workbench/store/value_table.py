"""The means of checking one table's values: whole columns at a time, and one-line blame.

A 100,000-GPU design has ~440,000 links and ~30,000 devices, and opening it must stay
fast, so nothing here walks rows one by one in Python when the common case can be
settled by a C-level operation on a whole column:

* **types** are checked on ``set(map(type, column))``;
* **values** of a vocabulary or a range are checked once per *distinct* value (a column
  of 440,000 link speeds holds a handful), only after the types are known to be right,
  so ``2`` and ``2.0`` folding into one set element cannot hide a float in a column of
  whole numbers;
* **names** are checked by :func:`workbench.model.names.text_problem`, except that a
  column that is entirely short, non-blank, printable ASCII (which ``text_problem``
  always accepts) is recognised with one ``isascii``/``isprintable`` call on the joined
  text; anything else goes through ``text_problem`` itself, value by value;
* **references** are a set difference.

Only when a check fails is the column walked to find the first offending row, whose
``seq`` and id go into the message: ``devices row 12 (id 'd000012'), position: ...``.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import islice
from operator import attrgetter, itemgetter, lt
from pathlib import Path
from typing import Any, NoReturn

from workbench.model.errors import EditError
from workbench.store.errors import ProjectFileError
from workbench.text_rules import STORED_TEXT

#: A value check: why ``value`` cannot be stored, or None when it can.
Check = Callable[[Any], "str | None"]

NoneType = type(None)
#: Column types, as the model's fields declare them.
TEXT: tuple[type, ...] = (str,)
OPT_TEXT: tuple[type, ...] = (str, NoneType)
WHOLE: tuple[type, ...] = (int,)
OPT_WHOLE: tuple[type, ...] = (int, NoneType)
NUMBER: tuple[type, ...] = (int, float)
OPT_NUMBER: tuple[type, ...] = (int, float, NoneType)


def shown(value: Any) -> str:
    """``value`` quoted for a one-line message, cut short (a 1 MB name stays readable)."""
    try:
        text = repr(value)
    except ValueError:  # an integer too long to print
        return f"<{type(value).__name__} too long to show>"
    return text if len(text) <= 60 else text[:57] + "..."


def sentence(exc: Exception) -> str:
    """An edit function's message as the tail of ours: no trailing full stop."""
    return str(exc).rstrip(".")


def edit_rule(rule: Callable[[Any], object]) -> Check:
    """A :data:`Check` from a model function that raises EditError for a bad value.

    This is how the edit functions' own checks (``check_network_value``,
    ``check_value`` of the rack fields ...) judge what a file holds.
    """

    def check(value: Any) -> str | None:
        try:
            rule(value)
        except EditError as exc:
            return sentence(exc)
        return None

    return check


def finite(value: Any) -> str | None:
    """A number that is finite (SQLite REAL can hold inf; JSON can hold NaN)."""
    try:
        ok = math.isfinite(value)
    except OverflowError:  # an integer too large for a float
        ok = False
    return None if ok else f"must be a finite number, got {shown(value)}"


def one_of(options: Collection[Any], what: str = "one of") -> Check:
    """A vocabulary check listing the words a value may be."""

    def check(value: Any) -> str | None:
        if value in options:
            return None
        return f"must be {what} {', '.join(str(o) for o in options)}; got {shown(value)}"

    return check


def _type_words(types: tuple[type, ...]) -> str:
    words = {str: "text", int: "a whole number", float: "a number", dict: "a mapping"}
    kinds = [t for t in types if t is not NoneType]
    if float in kinds:
        kinds = [t for t in kinds if t is not int]
    text = " or ".join(words.get(t, t.__name__) for t in kinds)
    return f"{text} or empty" if NoneType in types else text


@dataclass(frozen=True)
class Rows:
    """What the reader made of one table: its rows as selected (``columns`` name their
    values; ``seq`` leads), and the object made from each row, in the same order.

    With ``seqs`` given, the rows themselves are not kept (``rows`` is empty): every
    field is read off the objects, which hold each column's value as SQLite gave it,
    and ``seq`` from ``seqs`` (the reader keeps no row tuples beside a design of
    millions of links).
    """

    columns: tuple[str, ...]
    rows: Sequence[Sequence[Any]]
    objects: Sequence[Any]
    #: Fields decoded from JSON: their values are read off the objects, not the rows.
    decoded: frozenset[str] = frozenset()
    #: Each object's ``seq``, when the rows are not kept.
    seqs: Sequence[int] | None = None
    #: The distinct values of columns the reader already knows them of (those whose
    #: repeated values it shared: each exactly the set of the column's values).
    distinct: Mapping[str, set[Any]] | None = None
    #: Columns naming devices whose every value the reader found among the design's
    #: device ids (its pool of them grew by none): ``refers`` to them is proven.
    known_ends: frozenset[str] = frozenset()
    #: Columns the reader listed as it read them (the ids), each exactly
    #: ``[getattr(obj, column) for obj in objects]``.
    listed: Mapping[str, list[Any]] | None = None


class Table:
    """One table's values, read column by column, with the means to blame one row."""

    def __init__(self, file: Path, name: str, rows: Rows):
        self.file = file
        self.name = name
        self.rows = rows.rows
        self.objects = rows.objects
        self._decoded = rows.decoded
        self._seqs = rows.seqs
        self.known_ends = rows.known_ends
        self._position = {column: i for i, column in enumerate(rows.columns)}
        self._distinct: dict[str, set[Any]] = dict(rows.distinct or {})
        self._listed: dict[str, list[Any]] = dict(rows.listed or {})

    def __len__(self) -> int:
        return len(self.rows) if self._seqs is None else len(self._seqs)

    def values(self, field: str) -> Iterator[Any]:
        """The values of ``field``, one per row, without building a list."""
        if self._seqs is not None:
            return iter(self._seqs) if field == "seq" else map(attrgetter(field), self.objects)
        if field in self._decoded:
            return map(attrgetter(field), self.objects)
        return map(itemgetter(self._position[field]), self.rows)

    def column(self, field: str) -> list[Any]:
        """The values of ``field`` as a list, made once: a column of ids is walked by
        the text check and hashed into :meth:`distinct` from the same list."""
        found = self._listed.get(field)
        if found is None:
            found = self._listed[field] = list(self.values(field))
        return found

    def distinct(self, field: str) -> set[Any]:
        """The distinct values of ``field`` (a column of 440,000 link speeds holds a
        handful); only for columns read from SQLite, whose values are hashable.  Made
        from the listed column when there is one (cheaper than a second walk of the
        rows: 443,000 link ids hash from a list in ~45 ms, from the rows in ~65 ms)."""
        found = self._distinct.get(field)
        if found is None:
            listed = self._listed.get(field)
            found = set()
            for chunk in _chunks(self.values(field) if listed is None else listed):
                found.update(chunk)
            self._distinct[field] = found
        return found

    def where(self, i: int) -> str:
        """``devices row 12 (id 'd000012')``: the row as a message names it."""
        if i < len(self.objects):
            ident = getattr(self.objects[i], "id", None)
        else:  # rows about to be written: no objects were made from them
            at = self._position.get("id")
            ident = self.rows[i][at] if at is not None else None
        label = "" if ident is None else f" (id {shown(ident)})"
        seq = self.rows[i][0] if self._seqs is None else self._seqs[i]
        return f"{self.name} row {shown(seq)}{label}"

    def refuse(self, i: int, field: str, problem: str) -> NoReturn:
        raise ProjectFileError(self.file, f"{self.where(i)}, {field}: {problem}")

    def refuse_value(self, field: str, value: Any, problem: str) -> NoReturn:
        """Refuse the first row whose ``field`` holds ``value``."""
        self.refuse(_first(self.column(field), value), field, problem)

    # -- whole-column checks -----------------------------------------------------------
    def typed(self, field: str, types: tuple[type, ...], *checks: Check) -> None:
        """Every value of ``field`` is of ``types`` (exactly: a bool is no number) and
        passes each check, which is asked once per distinct value."""
        if field in self._decoded:
            values: Iterable[Any] = self.column(field)
            kinds = _types(values)
        elif int in types and float not in types:
            # 2.0 == 2 would hide a float in a set of whole numbers: type every row.
            kinds = _types(self.values(field))
            values = self.distinct(field)
        else:
            values = self.distinct(field)
            kinds = _types(values)
        if not kinds <= set(types):
            for value in self.column(field):
                if type(value) not in types:
                    words = _type_words(types)
                    if value is None:
                        self.refuse_value(field, value, f"is empty (NULL) but must be {words}")
                    self.refuse_value(field, value, f"must be {words}, got {shown(value)}")
        for check in checks:
            for value in values:
                if value is not None:
                    problem = check(value)
                    if problem is not None:
                        self.refuse_value(field, value, problem)

    def texts(self, field: str, *, lengths: Collection[int] | None = None) -> None:
        """Every value of ``field`` passes its rule in
        :data:`~workbench.text_rules.STORED_TEXT` (names, labels, notes, ids): the rule
        the edits apply to what a user types.

        ``lengths``: the values are known to be distinct, of these lengths (ids in
        increasing order, :func:`increasing`), so the whole-column test walks the
        column and no set of them is made unless it fails (4.2 million link ids at
        1,000,000 GPUs hash into a set in ~0.7 s), nor their lengths measured again."""
        rule = STORED_TEXT[f"{self.name}.{field}"]
        limit, blank_ok = rule.limit, rule.blank_ok
        if lengths is not None:
            if self.plain(field, lengths):
                return
        else:
            # A set of the values only where one is made already (a set is quicker to
            # walk when it is small) or spaces need the blank test: the writer checks
            # every column of 4.4 million links at 1,000,000 GPUs, and hashing their
            # ids and ends into sets to tell an empty one cost ~1 s of the save.
            # The column is listed only when walked: the links' port names, whose few
            # distinct values the reader hands over, are not (2 x ~0.1 s at 1,000,000).
            known = self._distinct.get(field)
            walk = known if known is not None and 2 * len(known) < len(self) else self.column(field)
            if _plain_texts(walk, known or partial(self.distinct, field), limit, blank_ok):
                return
        values = self.distinct(field)
        for value in values:
            if value is None:
                self.refuse_value(field, value, "is empty (NULL)")
            problem = rule.problem(value)
            if problem is not None:
                self.refuse_value(field, value, problem)

    def plain(self, field: str, lengths: Collection[int]) -> bool:
        """True when every value of ``field`` (distinct, of these ``lengths``) is
        printable ASCII its rule accepts, as :meth:`texts` first asks, in C; False
        only means "ask the rule"."""
        rule = STORED_TEXT[f"{self.name}.{field}"]
        column = self.column(field)
        return _plain_texts(column, column, rule.limit, rule.blank_ok, lengths)

    def refers(self, field: str, known: set[Any], what: str, optional: bool = False) -> None:
        """Every value of ``field`` (but None, when ``optional``) is one of ``known``."""
        if optional:  # mostly empty or a few names: judge the distinct values
            if self.distinct(field) - {None} <= known:
                return
        elif all(all(map(known.__contains__, c)) for c in _chunks(self.values(field))):
            return
        allowed = known | {None} if optional else known
        for value in self.column(field):
            if value not in allowed:
                self.refuse_value(
                    field, value, f"names {what} {shown(value)}, which the file does not hold"
                )

    def unique(self, field: str, what: str) -> None:
        """No two rows share a value of ``field`` (the ids of one kind)."""
        if len(self.distinct(field)) == len(self):
            return
        seen: set[Any] = set()
        for i, value in enumerate(self.values(field)):
            if value in seen:
                self.refuse(i, field, f"{shown(value)} is the id of another {what} as well")
            seen.add(value)


def increasing(column: Sequence[Any]) -> dict[int, tuple[int, int]] | None:
    """Where each length of value starts and ends in ``column`` (``{7: (0, 999999),
    8: (999999, 4160558)}``), when each value is longer than the one before it, or as
    long and after it in code-point order; None otherwise.

    No two values of such a column are equal, which a few walks of it tell in C
    without hashing a value (ids as the workbench numbers them, ``l999999`` then
    ``l1000000``: 4.2 million link ids in ~0.27 s, where a set of them takes ~0.7 s),
    and a value is found in it by bisecting the run of its length (:func:`found_in`).
    None also for values that cannot be ordered (a number among text, NULL): it only
    means "find out with a set"."""
    try:
        lengths = list(map(len, column))
        if sorted(lengths) != lengths:  # in C with no bool per pair: ~40 vs ~70 ms
            return None
        ordered = list(map(lt, column, islice(column, 1, None)))
    except TypeError:
        return None
    at = -1
    while True:  # where one is not before the next, it must be shorter
        try:
            at = ordered.index(False, at + 1)
        except ValueError:
            break
        if lengths[at] == lengths[at + 1]:
            return None
    return runs_of(column)


def runs_of(column: Sequence[str]) -> dict[int, tuple[int, int]]:
    """Where each length of value starts and ends in ``column``, whose values are
    known to be in increasing order as :func:`increasing` means it (by it, or by SQLite:
    :func:`workbench.store.values.proven_ids`): a bisection per length, so no value's
    length is measured but a few dozen."""
    runs: dict[int, tuple[int, int]] = {}
    start = 0
    while start < len(column):
        length = len(column[start])
        end = bisect_right(column, length, start, key=len)
        runs[length] = (start, end)
        start = end
    return runs


def found_in(
    column: Sequence[Any], runs: dict[int, tuple[int, int]], values: Iterable[Any]
) -> set[Any]:
    """Those of ``values`` that ``column`` (in order, its ``runs`` from
    :func:`increasing`) holds: each is compared with the ends of the run of its length,
    and bisected there only when it falls between them (ids of another kind rarely
    do), so the column's values are never hashed."""
    found = set()
    for value in values:
        run = runs.get(len(value)) if type(value) is str else None
        if run is None:
            continue
        lo, hi = run
        if value < column[lo] or column[hi - 1] < value:
            continue
        at = bisect_left(column, value, lo, hi)
        if at < hi and column[at] == value:
            found.add(value)
    return found


#: The most values one pass in C takes at a time (a set made, a column joined, typed or
#: looked up).  Why: the window checks a design's links on a thread beside its event
#: loop (``ui.shell.link_reading``), and the interpreter can hand the loop its turn only
#: between such passes: one pass over 443,216 link ids held it for 20-40 ms.
CHUNK = 1 << 15


def _chunks(values: Iterable[Any]) -> Iterator[list[Any]]:
    """``values`` in lists of at most :data:`CHUNK`, in order."""
    walk = iter(values)
    while chunk := list(islice(walk, CHUNK)):
        yield chunk


def _types(values: Iterable[Any]) -> set[type]:
    """The types of ``values``, a chunk at a time (see :data:`CHUNK`)."""
    kinds: set[type] = set()
    for chunk in _chunks(values):
        kinds.update(map(type, chunk))
    return kinds


def _first(column: Sequence[Any], value: Any) -> int:
    """Where ``value`` first stands in ``column`` (by identity first: NaN != NaN)."""
    for i, other in enumerate(column):
        if other is value:
            return i
    for i, other in enumerate(column):
        if type(other) is type(value) and other == value:
            return i
    return 0  # not reached: ``value`` came from ``column``


def _plain_texts(
    column: Collection[Any],
    distinct: Collection[Any] | Callable[[], Collection[Any]],
    limit: int,
    blank_ok: bool,
    lengths: Collection[int] | None = None,
) -> bool:
    """True when every value of ``column`` (whose distinct values are ``distinct``, or a
    function that makes them, asked only when a space needs the blank test; and
    their lengths ``lengths`` when known) is text that ``text_problem`` is certain to
    accept: non-blank (unless ``blank_ok``), at most ``limit`` characters, printable
    ASCII (so no control characters, surrogates or direction controls).  Decided in C
    for the whole column; False only means "ask ``text_problem`` value by value"."""
    if not column:
        return True
    spaced = False
    for chunk in _chunks(column):
        try:
            joined = "".join(chunk)  # raises for anything but text
        except TypeError:
            return False
        if not (joined.isascii() and joined.isprintable()):
            return False
        spaced = spaced or " " in joined
    if (max(map(len, column)) if lengths is None else max(lengths)) > limit:
        return False
    if blank_ok:
        return True
    # Printable ASCII is blank only when empty or all spaces.
    if not spaced:
        return "" not in column if lengths is None else 0 not in lengths
    return all(map(str.strip, distinct() if callable(distinct) else distinct))


def check_stored_texts(
    file: Path, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    """Refuse (ProjectFileError naming row and field) the first text of ``rows`` that
    its rule in :data:`~workbench.text_rules.STORED_TEXT` refuses.

    The writer calls this on every table before a byte is saved, with the rule the
    reader applies, so a design is never written that could not be reopened, and a
    value the model should never have taken (a lone surrogate in a note) is named
    instead of failing inside SQLite.
    """
    keyed = [c for c in columns if f"{table}.{c}" in STORED_TEXT]
    if not keyed or not rows:
        return
    values = Table(file, table, Rows(tuple(columns), rows, ()))
    for column in keyed:
        values.texts(column)
