"""Seeded corruptions of a saved design: what a stranger's project file may hold.

Used by ``tests/test_fuzz_project.py`` (a few hundred cases in the default run), by
``tests/benchmarks/bench_fuzz_project.py`` (thousands), and meant for opening every
accepted case in the real window.  Each :class:`Case` is a recipe: ``case.build(original,
scratch)`` returns the corrupted bytes of ``original`` (a saved ``.dcwb``), or None when
the recipe does not apply (no row to edit; SQLite refuses the edit), and never touches
anything but the ``scratch`` folder.

Families:

* ``truncate``: the file cut at a random byte or page boundary;
* ``bitflip``: one to eight random bits flipped anywhere;
* ``page``: one database page overwritten with random bytes, zeros or another page;
* ``header``: the schema version or application id set to odd numbers;
* ``value``: one cell of one row of any column of any table set, with SQLite, to one of
  :data:`VALUE_MUTATIONS` (NULL, negative, zero, huge, inf and NaN as text, wrong types,
  unknown words, control characters, another row's value, an id of another kind, a
  reference to nothing), or for JSON columns one of :data:`JSON_MUTATIONS`;
* ``snapshot``: one field of one catalog snapshot item's stored mapping changed.

The sample design is the bundled one (:func:`workbench.templates.sample_design`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.store import save_design
from workbench.store.binding import BINDINGS, UNBOUND_COLUMNS
from workbench.store.schema import COLUMNS, SCHEMA_VERSION

#: The seed of the default test run; the benchmark uses others.
BASE_SEED = 20261201

#: Values one cell may be set to (Python values, bound as SQLite parameters).  SQLite
#: applies its column affinity: text that looks like a number becomes one in a REAL or
#: INTEGER column, which is why the text forms of NaN and infinity are tried too.
VALUE_MUTATIONS: dict[str, Any] = {
    "null": None,
    "negative": -5,
    "negative-real": -0.5,
    "zero": 0,
    "huge-int": 2**63 - 1,
    "huge-real": 1e308,
    "inf": float("inf"),
    "-inf": float("-inf"),
    "nan-text": "NaN",
    "inf-text": "Infinity",
    "text": "abc",
    "half": 2.5,
    "blob": b"\x00\xff",
    "word": "wizard",
    "blank": "",
    "spaces": "   ",
    "control": "gpu\n01",
    "bidi": "gpu-\u202e10",
    "long": "x" * 1000,
    "ghost": "ghost-0001",
    # Filled in per case: another row's value of the same column, and an id of an
    # object of another kind (a device id in the racks table ...).
    "dup": None,
    "other-kind-id": None,
}

#: Extra values for columns holding JSON text.
JSON_MUTATIONS: dict[str, str] = {
    "json-list": '[1, "a"]',
    "json-map": '{"a": 1}',
    "json-null": "null",
    "json-text": '"x"',
    "json-ghosts": '["ghost-0001"]',
    "json-nan": "NaN",
    "json-deep": "[" * 5000 + "]" * 5000,
    "json-broken": '{"a": ',
}

#: Catalog item fields a snapshot edit changes, and JSON values tried for them.
SNAPSHOT_FIELDS: tuple[str, ...] = (
    "slug",
    "kind",
    "u_height",
    "gpu",
    "gpu_count",
    "max_power_w",
    "typical_power_w",
    "weight",
    "tflops",
    "hbm_gb",
    "interfaces",
    "power-ports",
    "props",
    "is_full_depth",
)
SNAPSHOT_VALUES: dict[str, Any] = {
    "null": None,
    "negative": -5,
    "zero": 0,
    "huge-int": 10**12,
    "huge-real": 1e308,
    "text": "abc",
    "word": "wizard",
    "half": 2.5,
    "list": [1, "a"],
    "map": {"a": 1},
    "bool": True,
}

#: The columns holding JSON text (meta values hold JSON too).
JSON_COLUMNS: dict[str, frozenset[str]] = {
    **{t: b.json for t, b in BINDINGS.items() if b.json},
    "meta": frozenset({"value"}),
    "catalog_snapshot": frozenset({"raw"}),
}
#: The tables whose ids share one namespace (what ``other-kind-id`` draws from).
SHARED_ID_TABLES = ("sites", "rows", "racks", "devices", "links", "workloads")


@dataclass(frozen=True)
class Case:
    """One corruption recipe.  ``ident`` names it in failure messages and reports."""

    ident: str
    family: str
    table: str | None = None
    column: str | None = None
    mutation: str | None = None
    seed: int = 0
    params: tuple[Any, ...] = field(default=(), compare=False)

    def build(self, original: bytes, scratch: Path) -> bytes | None:
        """The corrupted bytes, or None when the recipe does not apply to ``original``."""
        return _BUILDERS[self.family](self, original, scratch)

    @property
    def rng(self) -> random.Random:
        return random.Random(f"{self.seed}:{self.ident}")


# -- the original -----------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def sample_bytes() -> bytes:
    """The bundled sample design, saved (built once per process).

    Two waivers are added, as a planner would (``ops.AddWaiver``), so that the waivers
    table, empty in the sample, has rows to corrupt too.
    """
    from workbench.model import ops
    from workbench.model.design import Waiver
    from workbench.templates import sample_design

    design = sample_design()
    racks = [rack.id for rack in design.iter_racks()][:2]
    for rack_id in racks:
        waiver = Waiver(
            "RACK-POWER", rack_id, "accepted by facilities", "2026-12-01T00:00:00+00:00"
        )
        ops.apply(design, ops.AddWaiver(waiver))
    with tempfile.TemporaryDirectory(prefix="fuzz-sample-") as folder:
        path = Path(folder) / "sample.dcwb"
        save_design(design, path)
        return path.read_bytes()


# -- the cases ---------------------------------------------------------------------------


def all_value_cases(seed: int) -> list[Case]:
    """Every (table, column, mutation) value edit, in a fixed order."""
    out = []
    for table, columns in {**COLUMNS, **UNBOUND_COLUMNS}.items():
        for column in columns:
            if column == "seq":
                continue  # the rowid: SQLite refuses most edits, the rest renumber rows
            mutations = list(VALUE_MUTATIONS)
            if column in JSON_COLUMNS.get(table, ()):
                mutations += list(JSON_MUTATIONS)
            for mutation in mutations:
                ident = f"value:{table}.{column}:{mutation}"
                out.append(Case(ident, "value", table, column, mutation, seed))
    return out


def all_snapshot_cases(seed: int) -> list[Case]:
    return [
        Case(f"snapshot:{name}:{value}", "snapshot", "catalog_snapshot", name, value, seed)
        for name in SNAPSHOT_FIELDS
        for value in SNAPSHOT_VALUES
    ]


def _rank(seed: int, ident: str) -> bytes:
    """A case's place in the draw of ``seed``: stable whatever other cases exist."""
    return hashlib.sha256(f"{seed}:{ident}".encode()).digest()


def make_cases(count: int, seed: int = BASE_SEED) -> list[Case]:
    """``count`` cases drawn by ``seed``: about half value edits, the rest spread over
    truncations, bit flips, page overwrites, header and snapshot edits."""
    rng = random.Random(seed)
    values = all_value_cases(seed)
    snapshots = all_snapshot_cases(seed)
    # Ordered by a hash of the seed and the case's name rather than shuffled: a column
    # a new schema version adds slots its cases in without reshuffling every other
    # case, so the default run's mix does not change wholesale with each migration.
    values.sort(key=lambda c: _rank(seed, c.ident))
    snapshots.sort(key=lambda c: _rank(seed, c.ident))
    shares = {"value": 0.5, "snapshot": 0.1, "truncate": 0.12, "bitflip": 0.12, "page": 0.12}
    out: list[Case] = []
    n_values = min(len(values), round(count * shares["value"]))
    out += values[:n_values]
    out += snapshots[: min(len(snapshots), round(count * shares["snapshot"]))]
    headers = [
        Case(f"header:user_version:{v}", "header", mutation="user_version", params=(v,))
        for v in (-1, 0, -(2**31), SCHEMA_VERSION + 1, 99, 2**31 - 1)
    ] + [Case("header:application_id:0", "header", mutation="application_id", params=(0,))]
    out += headers
    left = count - len(out)
    for i in range(max(0, left)):
        family = rng.choices(["truncate", "bitflip", "page"], k=1)[0]
        out.append(Case(f"{family}:{i}", family, seed=seed))
    return out[:count] if len(out) > count else out


# -- builders ----------------------------------------------------------------------------


def _truncate(case: Case, original: bytes, scratch: Path) -> bytes:
    rng = case.rng
    page = int.from_bytes(original[16:18], "big") or 65536
    if rng.random() < 0.3:
        cut = page * rng.randrange(1, max(2, len(original) // page))
    else:
        cut = rng.randrange(0, len(original))
    return original[:cut]


def _bitflip(case: Case, original: bytes, scratch: Path) -> bytes:
    rng = case.rng
    data = bytearray(original)
    for _ in range(rng.randint(1, 8)):
        bit = rng.randrange(len(data) * 8)
        data[bit // 8] ^= 1 << (bit % 8)
    return bytes(data)


def _page(case: Case, original: bytes, scratch: Path) -> bytes:
    rng = case.rng
    size = int.from_bytes(original[16:18], "big") or 65536
    pages = len(original) // size
    data = bytearray(original)
    victim = rng.randrange(pages)
    how = rng.choice(["random", "zeros", "copy"])
    if how == "random":
        content = rng.randbytes(size)
    elif how == "zeros":
        content = bytes(size)
    else:
        other = rng.randrange(pages)
        content = bytes(data[other * size : (other + 1) * size])
    data[victim * size : (victim + 1) * size] = content
    return bytes(data)


def _with_db(
    original: bytes, scratch: Path, edit: Callable[[sqlite3.Connection], bool]
) -> bytes | None:
    """Apply ``edit`` to a copy of ``original`` in ``scratch``; None when it does not
    apply (returns False) or SQLite refuses it."""
    path = scratch / "edit.dcwb"
    path.write_bytes(original)
    conn = sqlite3.connect(path)
    try:
        if not edit(conn):
            return None
        conn.commit()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    data = path.read_bytes()
    path.unlink()
    return data


def _header(case: Case, original: bytes, scratch: Path) -> bytes | None:
    (value,) = case.params

    def edit(conn: sqlite3.Connection) -> bool:
        conn.execute(f"PRAGMA {case.mutation} = {int(value)}")
        return True

    return _with_db(original, scratch, edit)


def _value(case: Case, original: bytes, scratch: Path) -> bytes | None:
    table, column, mutation = case.table, case.column, case.mutation
    assert table and column and mutation
    rng = case.rng
    key = "key" if table == "meta" else "seq"

    def edit(conn: sqlite3.Connection) -> bool:
        keys = [r[0] for r in conn.execute(f'SELECT {key} FROM "{table}" ORDER BY {key}')]
        if not keys:
            return False
        row = rng.choice(keys)
        if mutation in JSON_MUTATIONS:
            value: Any = JSON_MUTATIONS[mutation]
        elif mutation == "dup":
            others = [k for k in keys if k != row]
            if not others:
                return False
            other = rng.choice(others)
            value = conn.execute(
                f'SELECT "{column}" FROM "{table}" WHERE {key} = ?', (other,)
            ).fetchone()[0]
        elif mutation == "other-kind-id":
            choices = [t for t in SHARED_ID_TABLES if t != table]
            donor = rng.choice(choices)
            ids = [r[0] for r in conn.execute(f'SELECT id FROM "{donor}" ORDER BY seq')]
            if not ids:
                return False
            value = rng.choice(ids)
        else:
            value = VALUE_MUTATIONS[mutation]
        conn.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE {key} = ?', (value, row))
        return True

    return _with_db(original, scratch, edit)


def _snapshot(case: Case, original: bytes, scratch: Path) -> bytes | None:
    name, choice = case.column, case.mutation
    assert name and choice
    rng = case.rng

    def edit(conn: sqlite3.Connection) -> bool:
        rows = conn.execute("SELECT seq, raw FROM catalog_snapshot ORDER BY seq").fetchall()
        if not rows:
            return False
        seq, raw = rng.choice(rows)
        mapping = json.loads(raw)
        mapping[name] = SNAPSHOT_VALUES[choice]
        conn.execute(
            "UPDATE catalog_snapshot SET raw = ? WHERE seq = ?", (json.dumps(mapping), seq)
        )
        return True

    return _with_db(original, scratch, edit)


_BUILDERS: dict[str, Callable[[Case, bytes, Path], bytes | None]] = {
    "truncate": _truncate,
    "bitflip": _bitflip,
    "page": _page,
    "header": _header,
    "value": _value,
    "snapshot": _snapshot,
}


def iter_built(cases: list[Case], original: bytes, scratch: Path) -> Iterator[tuple[Case, bytes]]:
    """Each case with its bytes, skipping those that do not apply."""
    for case in cases:
        data = case.build(original, scratch)
        if data is not None:
            yield case, data
