"""Mending a project file the reader refuses, so no design is lost to one value.

The reader refuses a file holding a value the model cannot hold (one
:class:`ProjectFileError` naming table, row and field: a name with a line break from an
older workbench, a note with NUL, a snapshot item its parser refuses ...).  Rather than
leaving the user with a file nothing can open, :func:`plan_repairs` mends an in-memory
copy (the user's file is never touched) value by value until it opens, and says what
it did to each:

* **replaced**: a text judged by its rule in :data:`workbench.text_rules.STORED_TEXT`
  keeps what it can (control characters become spaces in a name, invisible and
  direction characters and broken surrogates are dropped) and is **truncated** to its
  limit; a name left blank becomes ``unnamed-<row>``;
* **cleared**: any other refused value of a column that may be empty is emptied, or
  set to the column's default (what a file from before the column meant);
* **dropped**: a row of a list whose rows stand alone (a link, a waiver, an observation,
  a catalog snapshot item the catalog can replace ...) is removed.

The window offers the mended design on opening such a file, and ``workbench repair FILE``
lists the repairs and, with ``--write`` or ``-o``, saves them; either way the original
stays as it was until the user saves.  What cannot be mended this way (a damaged
database, a value in a site, row or rack that is no text) stays a ProjectFileError.
"""

from __future__ import annotations

import ast
import re
import sqlite3
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.model.design import Design
from workbench.store import header
from workbench.store.errors import ProjectFileError
from workbench.store.reader import SlugLookup, design_from
from workbench.store.value_table import shown
from workbench.text_rules import STORED_TEXT, TextRule

#: Tables whose rows stand alone: dropping one leaves a design that still means what
#: it meant elsewhere (references to a dropped row are cleared or dropped in turn).
DROPPABLE: frozenset[str] = frozenset(
    {
        "devices",
        "links",
        "networks",
        "storage_tiers",
        "workloads",
        "software_stacks",
        "waivers",
        "catalog_snapshot",
        "baseline_revisions",
        "version_assignments",
        "observations",
        "acceptance_results",
        "captures",
        "teams",
    }
)

#: Most repairs tried on one file before giving up (each re-reads the design).
MAX_ROUNDS = 500

_ROW = re.compile(r"^(?P<table>[a-z_]+) row (?P<seq>-?\d+)(?: \(id .*?\))?, (?P<field>[a-z_]+):")
_SNAPSHOT = re.compile(
    r"^(?:catalog snapshot item |unreadable JSON in catalog_snapshot \()(?P<slug>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
)
_META_NAME = "meta, name:"
_JSON = re.compile(
    r"^unreadable JSON in (?P<table>[a-z_]+) \((?P<key>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\): "
)
#: Meta keys a repair may reset to a harmless value (the header carries the version).
_META_RESET = {"properties": "{}", "saved_at": '""', "app_version": '""'}


@dataclass(frozen=True)
class Repair:
    """One value mended: where, what was wrong, and what became of it."""

    table: str
    seq: int | None
    field: str
    #: "replaced", "truncated", "cleared" or "dropped".
    action: str
    problem: str
    old: str
    new: str = ""

    def line(self) -> str:
        """One line for a list: ``devices row 3, notes: <problem> -> replaced with '...'``."""
        where = f"{self.table} row {self.seq}" if self.seq is not None else self.table
        outcome = {
            "replaced": f"replaced with {self.new}",
            "truncated": f"truncated to {self.new}",
            "cleared": "cleared",
            "dropped": "row dropped",
        }[self.action]
        return f"{where}, {self.field}: {self.problem} -> {outcome}"


@dataclass(frozen=True)
class RepairPlan:
    """The mended design and the repairs that made it."""

    design: Design
    repairs: tuple[Repair, ...]


def plan_repairs(
    path: str | Path,
    catalog: SlugLookup | None = None,
    *,
    first_error: ProjectFileError | None = None,
) -> RepairPlan:
    """Mend an in-memory copy of ``path`` until it opens (see the module docstring).

    Returns the design and the repairs (none when the file opens as it is); raises the
    reader's ProjectFileError when a problem is not one a repair can mend.
    """
    file = Path(path)
    conn = header.load(file)
    repairs: list[Repair] = []
    try:
        conn.text_factory = _lenient
        try:
            header.check(file, conn)  # an older file's copy is migrated: mend today's columns
        except sqlite3.DatabaseError as exc:
            raise ProjectFileError(file, f"truncated or damaged: {exc}") from exc
        for _ in range(MAX_ROUNDS):
            try:
                design = design_from(file, _copy(conn), catalog)
            except ProjectFileError as exc:
                made = _mend(conn, exc)
                if not made:
                    raise
                repairs.extend(made)
                continue
            return RepairPlan(design, tuple(repairs))
    finally:
        conn.close()
    raise ProjectFileError(file, f"more than {MAX_ROUNDS} values need repair")


def _copy(conn: sqlite3.Connection) -> sqlite3.Connection:
    """A copy to read (the reader closes what it reads, and migrates it)."""
    copy = sqlite3.connect(":memory:")
    conn.backup(copy)
    # Text that is not UTF-8 (another tool wrote it) is read with its bad bytes as lone
    # surrogates, which the text rules refuse by row and field, so they can be mended.
    copy.text_factory = _lenient
    return copy


def _lenient(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _mend(conn: sqlite3.Connection, exc: ProjectFileError) -> list[Repair]:
    """Repairs for the refusal ``exc``, applied to ``conn``; empty when none applies."""
    problem = exc.problem
    found = _ROW.match(problem)
    if found is not None:
        table, seq, field = found["table"], int(found["seq"]), found["field"]
        reason = problem[found.end() :].strip()
        return _mend_value(conn, table, seq, field, reason)
    if problem.startswith(_META_NAME):
        return _mend_meta_name(conn, problem[len(_META_NAME) :].strip())
    bad_json = _JSON.match(problem)
    if bad_json is not None and bad_json["table"] != "catalog_snapshot":
        return _mend_json(conn, bad_json["table"], ast.literal_eval(bad_json["key"]),
                          problem[bad_json.end() :])  # fmt: skip
    snap = _SNAPSHOT.match(problem)
    if snap is not None:
        slug = ast.literal_eval(snap["slug"])
        rows = conn.execute("SELECT seq FROM catalog_snapshot WHERE slug = ?", (slug,)).fetchall()
        conn.execute("DELETE FROM catalog_snapshot WHERE slug = ?", (slug,))
        reason = problem[snap.end() :].strip(" :)") or "refused"
        return [
            Repair("catalog_snapshot", seq, "raw", "dropped", f"item {slug!r} {reason}", slug)
            for (seq,) in rows
        ]
    return []


def _mend_json(conn: sqlite3.Connection, table: str, key: Any, reason: str) -> list[Repair]:
    """JSON text that does not parse: a meta entry reset, or the row dropped."""
    if table == "meta":
        if key not in _META_RESET:
            return []
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (_META_RESET[key], key))
        return [Repair("meta", None, str(key), "replaced", f"unreadable JSON ({reason})",
                       "", _META_RESET[key])]  # fmt: skip
    if table not in DROPPABLE:
        return []
    rows = conn.execute(f'SELECT seq FROM "{table}" WHERE id = ?', (key,)).fetchall()
    conn.execute(f'DELETE FROM "{table}" WHERE id = ?', (key,))
    return [Repair(table, seq, "id", "dropped", f"unreadable JSON ({reason})", shown(key))
            for (seq,) in rows]  # fmt: skip


def _mend_value(
    conn: sqlite3.Connection, table: str, seq: int, field: str, reason: str
) -> list[Repair]:
    columns = {row[1]: row for row in conn.execute(f'PRAGMA table_info("{table}")')}
    if field not in columns:
        return _drop(conn, table, seq, field, reason) if table in DROPPABLE else []
    rule = STORED_TEXT.get(f"{table}.{field}")
    if rule is not None:
        made = _mend_texts(conn, table, field, rule)
        if made:
            return made
    value = conn.execute(f'SELECT "{field}" FROM "{table}" WHERE seq = ?', (seq,)).fetchone()
    if value is None:
        return []
    nullable = columns[field][3] == 0
    if nullable and value[0] is not None:
        # Every row holding the same refused value is cleared at once (a link's network
        # that no longer exists, on thousands of links), not one re-read per row.
        alike = _alike(conn, table, field, value[0]) or [seq]
        conn.executemany(
            f'UPDATE "{table}" SET "{field}" = NULL WHERE seq = ?', [(s,) for s in alike]
        )
        return [Repair(table, s, field, "cleared", reason, shown(value[0])) for s in alike]
    default = columns[field][4]  # the schema's DEFAULT: what an older file meant
    if default is not None:
        conn.execute(f'UPDATE "{table}" SET "{field}" = {default} WHERE seq = ?', (seq,))
        new = conn.execute(f'SELECT "{field}" FROM "{table}" WHERE seq = ?', (seq,)).fetchone()
        if new is not None and new[0] != value[0]:
            return [Repair(table, seq, field, "replaced", reason, shown(value[0]), shown(new[0]))]
    if table in DROPPABLE:
        alike = [s for s in _alike(conn, table, field, value[0]) if s != seq]
        made = _drop(conn, table, seq, field, reason)
        for other in alike:  # the same refused value elsewhere: dropped with it
            made += _drop(conn, table, other, field, reason)
        return made
    return []


def _alike(conn: sqlite3.Connection, table: str, field: str, value: Any) -> list[int]:
    """The rows of ``table`` whose ``field`` holds ``value`` (of the same type)."""
    rows = conn.execute(f'SELECT seq, "{field}" FROM "{table}" WHERE "{field}" IS ?', (value,))
    return [seq for seq, held in rows if type(held) is type(value)]


def _drop(conn: sqlite3.Connection, table: str, seq: int, field: str, reason: str) -> list[Repair]:
    ident = ""
    if "id" in {row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}:
        found = conn.execute(f'SELECT id FROM "{table}" WHERE seq = ?', (seq,)).fetchone()
        ident = shown(found[0]) if found else ""
    if conn.execute(f'DELETE FROM "{table}" WHERE seq = ?', (seq,)).rowcount == 0:
        return []
    return [Repair(table, seq, field, "dropped", reason, ident)]


def _mend_texts(conn: sqlite3.Connection, table: str, field: str, rule: TextRule) -> list[Repair]:
    """Every value of the column its rule refuses, mended in one pass (a file from an
    older workbench may hold thousands of one kind)."""
    made: list[Repair] = []
    rows = conn.execute(f'SELECT seq, "{field}" FROM "{table}"').fetchall()
    # A mended name must not become another's ("gpu\n1" and "gpu\t1" both "gpu 1"):
    # names identify devices, racks and rows.
    taken = {value for _seq, value in rows} if field == "name" else set()
    for seq, value in rows:
        problem = rule.problem(value)
        if problem is None:
            continue
        new, action = mended_text(value, rule, f"unnamed-{seq}")
        if new in taken:
            tag = f" ({seq})"
            new, action = new[: rule.limit - len(tag)].rstrip() + tag, "replaced"
        taken.add(new)
        conn.execute(f'UPDATE "{table}" SET "{field}" = ? WHERE seq = ?', (new, seq))
        made.append(Repair(table, seq, field, action, problem, shown(value), shown(new)))
    return made


def _mend_meta_name(conn: sqlite3.Connection, reason: str) -> list[Repair]:
    import json

    row = conn.execute("SELECT value FROM meta WHERE key = 'name'").fetchone()
    try:
        old = json.loads(row[0]) if row else ""
    except (TypeError, ValueError):
        old = ""
    new, action = mended_text(old, STORED_TEXT["meta.name"], "Repaired design")
    conn.execute("UPDATE meta SET value = ? WHERE key = 'name'", (json.dumps(new),))
    return [Repair("meta", None, "name", action, reason.removeprefix("the design's name "),
                   shown(old), shown(new))]  # fmt: skip


def mended_text(value: Any, rule: TextRule, fallback: str) -> tuple[str, str]:
    """``value`` as ``rule`` would keep it, and whether it was "replaced" or only
    "truncated": what can be kept is (see the module docstring)."""
    if isinstance(value, bytes):
        text = value.decode("utf-8", "replace")
    elif isinstance(value, str):
        text = value
    else:
        text = "" if value is None else str(value)
    kept = "".join(_kept(char, rule.multiline) for char in text).strip()
    if not rule.multiline:
        kept = " ".join(kept.split(" "))
    action = (
        "replaced" if kept != text[: len(kept)] or not kept.startswith(text.strip()[:1]) else ""
    )
    if len(kept) > rule.limit:
        kept = kept[: rule.limit].rstrip()
        action = action or "truncated"
    if not kept and not rule.blank_ok:
        kept = fallback[: rule.limit]
    if rule.problem(kept) is not None:  # not expected; a blank name is always safe to say
        kept = fallback[: rule.limit]
    return kept, action or "replaced"


def _kept(char: str, multiline: bool) -> str:
    if char.isprintable() or char in "\u200c\u200d":
        return char
    if multiline and char in "\t\n\r":
        return char
    category = unicodedata.category(char)
    if category in ("Cc", "Zs", "Zl", "Zp"):
        return " "  # a line break or tab in a name: a space keeps the words apart
    return ""  # surrogates, direction and other invisible characters, unassigned ones
