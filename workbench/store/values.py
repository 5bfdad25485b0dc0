"""Every value a project file holds is checked before the design reaches anyone.

Project files travel between teams on USB sticks: input from strangers.  The reader
(:mod:`workbench.store.reader`) checks a file's structure; this module checks what the
rows say, against the rules the edit functions apply to what a user types, taken from
their one home (names from :mod:`workbench.model.names`, rack fields from
:mod:`workbench.model.rack_fields`, networks, links and tiers from
:mod:`workbench.model.net_ops`, vocabularies from :mod:`workbench.catalog.vocabulary`
and the calculators, catalog items from the catalog's parser).

Where the line is drawn
-----------------------
**Refused** (one :class:`ProjectFileError` line naming file, table, row, id and field;
the file is never touched): what the model cannot hold or the window cannot show.

* a wrong type: text where a number belongs, a fractional rack unit, NULL in a column
  that was rebuilt without NOT NULL, a list where a mapping belongs;
* NaN or infinity anywhere, and numbers the edit functions refuse: a rack budget,
  breaker or voltage of 0 or below, phases other than 1 or 3, a VLAN outside 1–4094, an
  MTU outside 576–65535, a network or link speed outside (0, 3200] Gb/s, a cable
  length outside (0, 10 km];
* a rack unit below U1 or above U100 (the tallest racks are about 58U; see
  :data:`workbench.model.placement.MAX_RACK_UNIT`);
* an unknown word where the model has a vocabulary: cooling, facing, face, role, plane,
  technology, tier kind, cable media, and the workload form's choices (kind, model
  preset, precision, recompute, ZeRO stage, KV precision);
* a name or label that :func:`~workbench.model.names.text_problem` refuses;
* an id used twice (sites, rows, racks, devices, links and workloads share one
  namespace, as :class:`~workbench.model.index.DesignIndex` requires; networks, tiers
  and software stacks are unique among their own kind), a waiver given twice;
* a reference to nothing: a link end, a link's network, a tier member or a device's
  software stack that the file does not hold (the edits never leave one behind);
* a device whose catalog type is not something mounted in a rack (a GPU, a rack, a
  cable), a rack whose type is not a rack; a catalog slug that is not a slug;
* a catalog snapshot item the catalog's parser refuses (it also bounds heights, GPU
  counts and magnitudes: :mod:`workbench.catalog.limits`), one stored under another
  item's slug, and a design whose GPUs exceed what the calculators accept
  (:data:`workbench.calc.errors.MAX_GPUS`).

**Opened, and reported by the rules** (``workbench check --rules``): what is
representable but wrong for the design.  Overlapping or stacked devices at plausible
units (RACK-OVERLAP, RACK-DEPTH), a device above its rack's height or with no unit
(RACK-OUTSIDE), budgets exceeded (RACK-POWER, -COOLING, -WEIGHT, -FEED), a catalog slug
neither snapshot nor catalog knows (CATALOG-MISSING), links on missing or incompatible
ports or at speeds the ports cannot run (FABRIC-PORT), and workload numbers: the
workload form passes any finite number on and leaves ranges to the calculators (MFU
above 1, TP −8, tokens −1 are WORKLOAD-INPUT or WORKLOAD-PARALLEL findings), and a
workload's tiers may name a tier since removed (STORAGE-POOLS).  Refusing those would
make a file the window itself saved impossible to reopen.

Free text (device notes, waiver and revision notes) may hold line breaks and tabs; its
rule, like every stored text's, is in :data:`workbench.text_rules.STORED_TEXT`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from workbench.catalog.item import RACKABLE_KINDS
from workbench.catalog.parse import is_valid_slug
from workbench.catalog.vocabulary import DEVICE_ROLES, FACES
from workbench.model.design import Design
from workbench.model.placement import rack_unit_problem
from workbench.model.rack_fields import RACK_FIELDS, check_value
from workbench.store import schema, value_lists
from workbench.store.errors import ProjectFileError
from workbench.store.value_table import (
    NUMBER,
    OPT_TEXT,
    OPT_WHOLE,
    TEXT,
    WHOLE,
    Check,
    Rows,
    Table,
    edit_rule,
    found_in,
    increasing,
    one_of,
    runs_of,
    shown,
)
from workbench.text_rules import field_problem

# A device's unit: placement.rack_unit_problem, the bound the device edits apply too.
# Up to the tallest rack a catalog may describe a unit is representable (above its own
# rack's height it is a RACK-OUTSIDE finding); beyond it the file is damaged: every view
# would have to draw it, and the placement checks' unit masks grow with it.

#: What the reader made of each table (see :class:`~workbench.store.value_table.Rows`).
Order = dict[str, Rows]

#: The tables whose ids share one namespace (what the window selects by id), with the
#: word for one of their objects.
SHARED_IDS: dict[str, str] = {
    "sites": "site",
    "rows": "row",
    "racks": "rack",
    "devices": "device",
    "links": "link",
    "workloads": "workload",
}


def check_values(
    file: Path, design: Design, order: Order, proven: Mapping[str, int] | None = None
) -> None:
    """Refuse the first value of ``design`` (read from ``file``) that the model cannot
    hold, with a :class:`ProjectFileError` naming table, row, id and field.

    ``order`` holds each table's rows and the objects made from them; ``design`` is
    what the reader built of them, its catalog snapshot complete.  ``proven``: what
    SQLite proved of the same rows' ids (:func:`proven_ids`).
    """
    tables = {name: Table(file, name, rows) for name, rows in order.items()}
    _check_meta(file, design)
    _check_ids(tables, proven or {})  # first: a duplicated id would make every reference ambiguous
    for name in ("sites", "rows"):
        tables[name].texts("name")
    _check_racks(tables["racks"], design)
    stacks = value_lists.check_software_stacks(tables["software_stacks"])
    _check_devices(tables["devices"], design, stacks)
    devices = tables["devices"].distinct("id")
    networks = value_lists.check_networks(tables["networks"])
    value_lists.check_links(tables["links"], devices, networks)
    value_lists.check_storage_tiers(tables["storage_tiers"], devices)
    value_lists.check_workloads(tables["workloads"])
    value_lists.check_waivers(tables["waivers"])
    value_lists.check_teams(tables["teams"])
    value_lists.check_gpu_total(file, tables["devices"], design)


def _check_meta(file: Path, design: Design) -> None:
    problem = field_problem("meta.name", design.name)
    if problem is not None:
        raise ProjectFileError(file, f"meta, name: the design's name {problem}")
    for key, value in design.properties.items():
        if not isinstance(value, str):
            raise ProjectFileError(
                file, f"meta, properties: {shown(key)} must hold text, got {shown(value)}"
            )


#: How each kind of rack field (``RackField.kind``) is typed in a file; the values then
#: go through :func:`workbench.model.rack_fields.check_value`, the inspector's check.
_RACK_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "number": NUMBER,
    "phases": WHOLE,
    "cooling": TEXT,
    "facing": TEXT,
}


def _check_racks(racks: Table, design: Design) -> None:
    for name, spec in RACK_FIELDS.items():
        if spec.kind == "text":
            racks.texts(name)
        elif spec.kind == "rack_type":
            racks.typed(name, TEXT, slug_check, _kind_check(design, ("rack",), "a rack model"))
        else:
            types = _RACK_FIELD_TYPES.get(spec.kind, TEXT)
            if spec.optional:
                types = (*types, type(None))
            racks.typed(name, types, edit_rule(partial(check_value, design, name)))


def _check_devices(devices: Table, design: Design, stacks: set[str]) -> None:
    devices.texts("name")
    devices.typed(
        "device_type",
        TEXT,
        slug_check,
        _kind_check(design, RACKABLE_KINDS, "something mounted in a rack"),
    )
    devices.typed("position", OPT_WHOLE, rack_unit_problem)
    devices.typed("face", TEXT, one_of(FACES))
    devices.texts("serial")
    devices.texts("asset_tag")
    devices.typed("software_stack", OPT_TEXT)
    devices.refers("software_stack", stacks, "software stack", optional=True)
    devices.texts("notes")
    devices.typed("role", TEXT, _role)


def slug_check(value: str) -> str | None:
    """A catalog slug (NetBox's convention, as the catalog's parser requires)."""
    return None if is_valid_slug(value) else f"{shown(value)} is not a catalog slug"


def _kind_check(design: Design, kinds: Any, what: str) -> Check:
    """The slug's item, when the design knows it, is of one of ``kinds``.  An unknown
    slug passes: the design opens and CATALOG-MISSING reports it."""
    types = design.device_types

    def check(slug: str) -> str | None:
        item = types.get(slug)
        if item is None or item.kind in kinds:
            return None
        return f"{shown(slug)} is a {item.kind} in the design's catalog, not {what}"

    return check


def _role(value: str) -> str | None:
    """Empty (the catalog item's role) or one of the roles the drawing has a colour for."""
    if not value:
        return None
    return one_of(DEVICE_ROLES, "empty (the catalog's role) or one of")(value)


#: The tables whose ids are unique among their own kind only, with the word for one.
OWN_IDS: dict[str, str] = {
    "networks": "network",
    "storage_tiers": "storage tier",
    "software_stacks": "software stack",
    "teams": "team",
}


def _check_ids(tables: dict[str, Table], proven: Mapping[str, int]) -> None:
    """Every id is text a message can show, and unique: sites, rows, racks, devices,
    links and workloads never share one (the window selects them by id).

    Ids in increasing order (:func:`~workbench.store.value_table.increasing`, as the
    workbench numbers them) are unique without a set of them; otherwise each table's
    ids are put in a set.  Then the smaller tables are compared with the largest (the
    links, at scale) and with each other, so no set of 440,000 ids is copied, nor
    made when the links' ids are in order: their ids found among the others' are.

    A table whose ids SQLite found in increasing order (``proven``, by
    :func:`proven_ids`, beside the read) and that are printable ASCII is not walked
    again here: 4.2 million link ids at 1,000,000 GPUs, ~0.8 s of the open's own CPU.
    Anything else goes the way above, so every refusal is made, and worded, as it
    always was.
    """
    ordered: dict[str, dict[int, tuple[int, int]]] = {}
    for name, word in {**SHARED_IDS, **OWN_IDS}.items():
        table = tables[name]
        if proven.get(name) == len(table):
            # In order if printable ASCII (the test texts() begins with, in C), and
            # then the lengths of the runs are those texts() would be given.
            proven_runs = runs_of(table.column("id"))
            if table.plain("id", proven_runs.keys()):
                ordered[name] = proven_runs
                continue
        runs = increasing(table.column("id"))
        if runs is not None:
            ordered[name] = runs
            table.texts("id", lengths=runs.keys())
        else:
            # Listed first, the set is made from that list instead of a second row
            # walk (443,000 link ids: 135 -> ~100 ms).
            table.texts("id")
            table.unique("id", word)
    largest_name = max(SHARED_IDS, key=lambda name: len(tables[name]))
    sets = [(name, tables[name].distinct("id")) for name in SHARED_IDS if name != largest_name]
    others: set[Any] = set().union(*(ids for _, ids in sets))
    # The largest table's ids that another table holds too (usually none).
    if largest_name in ordered:
        column = tables[largest_name].column("id")
        largest = found_in(column, ordered[largest_name], others)
    else:
        largest = others & tables[largest_name].distinct("id")
    owner: dict[Any, str] = {}
    for name, ids in sets:
        common = ids & largest
        taken = {ident for ident in ids if ident in owner}
        for ident in common or taken:
            other = largest_name if ident in common else owner[ident]
            word = SHARED_IDS[other]
            tables[name].refuse_value("id", ident, f"{shown(ident)} is the id of a {word} too")
        owner.update(dict.fromkeys(ids, name))


def proven_ids(conn: sqlite3.Connection) -> dict[str, int]:
    """The id tables whose ids SQLite finds in increasing order as
    :func:`~workbench.store.value_table.increasing` means it (so no two are equal),
    each with its number of rows; asked of the file's own copy in the thread of its
    integrity check (:class:`workbench.store.header.Integrity`), where SQLite works
    beside the reading on a second core.  It is a proof for ids of printable ASCII
    only: SQLite's length() stops at a NUL, and UTF-8 bytes order as code points do,
    but :func:`_check_ids` takes it only for such ids (whose test, in C, costs a
    tenth of a walk comparing neighbours in Python).

    Each row is compared with the one whose rowid follows it, which is the next in
    ``seq`` order when ``seq`` is the rowid in every row and the rowids run without a
    gap, and every id is text (the reader has made sure each ``seq`` is a distinct whole number); any
    other table is left out, as are all of them when the copy is not of the current
    schema (the reader's is migrated), not UTF-8, or SQLite cannot answer.  Leaving a
    table out only means checking it in Python."""
    if conn.execute("PRAGMA user_version").fetchone()[0] != schema.SCHEMA_VERSION:
        return {}
    if conn.execute("PRAGMA encoding").fetchone()[0] != "UTF-8":
        return {}
    selects = []
    for name in {**SHARED_IDS, **OWN_IDS}:
        table = f'"{name}"'
        selects.append(
            f"SELECT '{name}', count(*), min(rowid), max(rowid), "
            f"(SELECT count(*) FROM {table} WHERE typeof(seq) != 'integer' OR seq IS NOT rowid"
            " OR typeof(id) != 'text')"
            f" + (SELECT count(*) FROM {table} AS a JOIN {table} AS b ON b.rowid = a.rowid + 1"
            " WHERE NOT (length(b.id) > length(a.id) OR length(b.id) = length(a.id)"
            f" AND b.id > a.id COLLATE BINARY)) FROM {table}"
        )
    try:
        found = conn.execute(" UNION ALL ".join(selects)).fetchall()
    except sqlite3.Error:  # a damaged or foreign table: the Python checks will tell
        return {}
    return {
        name: count
        for name, count, low, high, bad in found
        if bad == 0 and (count == 0 or high - low + 1 == count)
    }
