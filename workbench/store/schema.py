"""The layout of a ``.dcwb`` file and the migrations between its versions.

A project file is one SQLite database.  Two header fields identify it without reading
any table: ``PRAGMA application_id`` holds :data:`APPLICATION_ID` (so another program's
SQLite file is recognised as "not a project") and ``PRAGMA user_version`` holds the
schema version.

The schema is *defined* by :data:`MIGRATIONS`: ``MIGRATIONS[i]`` upgrades a database at
version ``i`` to ``i + 1``, and version 0 is an empty database.  A new file is written
by running every migration from 0, and an older file is upgraded by running the ones it
lacks, so there is exactly one description of each version and a new version is one
appended function (the roadmap adds tables for the version matrix, observed versions,
acceptance results and the fabric).  Migrations only ever run on a fresh file being
written or on an in-memory copy of a file being opened; a user's file is never
upgraded in place.

Every table has a ``seq`` column: the object's position in its list, so a design comes
back in exactly the order it was saved.  Children point at their parent's ``seq``
rather than its ``id``, which keeps the file lossless even if two objects ever share an
id.  Nested values (a workload's model config, a stack's components, the catalog
snapshot) are JSON text; nothing is ever pickled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # sqlite_utils costs 0.1 s to import: loaded by what writes
    import sqlite_utils

from workbench.store import acceptance_table, capture_table, version_tables

#: The schema version this workbench writes and the newest it can read.
SCHEMA_VERSION = 12

#: ``PRAGMA application_id`` of every project file: the ASCII bytes ``DCWB``.
APPLICATION_ID = 0x44435742

#: The suffix of project files.
FILE_SUFFIX = ".dcwb"

#: What a project's recovery copy adds to its name (``.site-a.dcwb.autosave``; see
#: :mod:`workbench.store.autosave`).  Here, with the file suffix, because the sweep of
#: interrupted saves (:mod:`workbench.store.temps`) recognises both.
AUTOSAVE_SUFFIX = ".autosave"

# The version-1 tables, column name -> SQLite type.  Frozen: version 2 must not edit
# this literal but append a migration, because files written by version 1 exist.
_V1_TABLES: dict[str, dict[str, type]] = {
    "meta": {"key": str, "value": str},
    "sites": {"seq": int, "id": str, "name": str},
    "rows": {"seq": int, "site_seq": int, "id": str, "name": str},
    "racks": {
        "seq": int,
        "row_seq": int,
        "id": str,
        "name": str,
        "rack_type": str,
        "cooling": str,
        "power_limit_kw": float,
    },
    "devices": {
        "seq": int,
        "rack_seq": int,
        "id": str,
        "name": str,
        "device_type": str,
        "position": int,
        "face": str,
        "serial": str,
        "asset_tag": str,
        "software_stack": str,
        "notes": str,
    },
    "networks": {
        "seq": int,
        "id": str,
        "name": str,
        "plane": str,
        "technology": str,
        "speed_gbps": float,
        "mtu": int,
        "vlan": int,
    },
    "links": {
        "seq": int,
        "id": str,
        "a_device": str,
        "a_port": str,
        "b_device": str,
        "b_port": str,
        "network": str,
        "cable_type": str,
        "length_m": float,
    },
    "storage_tiers": {
        "seq": int,
        "id": str,
        "name": str,
        "tier": str,
        "filesystem": str,
        "device_ids": str,
    },
    "workloads": {
        "seq": int,
        "id": str,
        "name": str,
        "kind": str,
        "model": str,
        "params": float,
        "model_config": str,
        "tokens": float,
        "precision": str,
        "mfu": float,
        "recompute": str,
        "tp": int,
        "pp": int,
        "zero": int,
        "micro_batch": int,
        "seq_len": int,
        "gpus": int,
        "gpu_type": str,
        "context": int,
        "concurrency": int,
        "kv_precision": str,
    },
    "software_stacks": {"seq": int, "id": str, "name": str, "components": str, "revision": int},
    "catalog_snapshot": {"seq": int, "slug": str, "kind": str, "raw": str},
}

# Columns that may hold NULL (an optional field of the model); all others are NOT NULL.
_V1_NULLABLE: dict[str, set[str]] = {
    "devices": {"position", "software_stack"},
    "networks": {"vlan"},
    "links": {"network", "cable_type", "length_m"},
    "workloads": {"params", "model_config", "gpus", "gpu_type"},
}

# Child -> (parent table, column holding the parent's seq).
_V1_PARENTS: dict[str, tuple[str, str]] = {
    "rows": ("sites", "site_seq"),
    "racks": ("rows", "row_seq"),
    "devices": ("racks", "rack_seq"),
}


def _create_v1(db: sqlite_utils.Database) -> None:
    """Version 0 (an empty database) -> 1: the first layout."""
    for table, columns in _V1_TABLES.items():
        pk = "key" if table == "meta" else "seq"
        nullable = _V1_NULLABLE.get(table, set())
        parent = _V1_PARENTS.get(table)
        db.create_table(
            table,
            columns,
            pk=pk,
            not_null=[c for c in columns if c not in nullable and c != pk],
            foreign_keys=[(parent[1], parent[0], "seq")] if parent else None,
        )
        if parent:
            # Open groups children by parent; the index also keeps future queries
            # ("devices in rack 12") fast.
            db.table(table).create_index([parent[1]])


def _add_device_role(db: sqlite_utils.Database) -> None:
    """1 -> 2: a device may say what it does (a storage switch on a compute model).

    Empty means "the catalog item's role", which is what every version-1 device meant.
    """
    db.table("devices").add_column("role", str, not_null_default="")


# The table version 3 added.  Frozen, like the version-1 literal.
_V3_WAIVERS: dict[str, type] = {
    "seq": int,
    "rule": str,
    "object_id": str,
    "note": str,
    "created_at": str,
}


def _add_waivers_and_target_days(db: sqlite_utils.Database) -> None:
    """2 -> 3: accepted findings (waivers), and a training job's business window.

    A version-2 design has no waivers and no target, which is what an empty table and a
    NULL ``target_days`` say.
    """
    db.create_table(
        "waivers",
        _V3_WAIVERS,
        pk="seq",
        not_null=[c for c in _V3_WAIVERS if c != "seq"],
    )
    db.table("workloads").add_column("target_days", float)


# The rack columns version 4 added (all may be NULL but facing).  Frozen.
_V4_RACK_COLUMNS: dict[str, type] = {
    "cooling_limit_kw": float,
    "max_weight_kg": float,
    "feed_a_voltage": float,
    "feed_a_phases": int,
    "feed_a_breaker_a": float,
    "feed_b_voltage": float,
    "feed_b_phases": int,
    "feed_b_breaker_a": float,
    "floor_x_mm": float,
    "floor_y_mm": float,
}


def _add_rack_budgets_feeds_and_floor(db: sqlite_utils.Database) -> None:
    """3 -> 4: a rack's own cooling limit and weight rating, its A/B feeds, and where it
    stands on the hall floor.

    A version-3 rack has none of them: NULL means "from the cooling and rack types",
    "feed unknown" and "lay out automatically", which is what those racks meant; racks
    faced south (the drawing had no plan).
    """
    racks = db.table("racks")
    for name, kind in _V4_RACK_COLUMNS.items():
        racks.add_column(name, kind)
    racks.add_column("facing", str, not_null_default="south")


# The workload columns version 5 added (all may be NULL).  Frozen.
_V5_WORKLOAD_COLUMNS: dict[str, type] = {
    "dataset_tier": str,
    "checkpoint_tier": str,
    "checkpoint_interval_min": float,
}


def _add_fabric_and_storage_fields(db: sqlite_utils.Database) -> None:
    """4 -> 5: what the fabric and storage designer needs.

    A network's subnet (empty: not planned yet), a link's own speed (NULL: the speed its
    ports share), and which tiers a job reads its dataset from and writes checkpoints to,
    with the interval between saves (NULL: the first hot tier, the rules' default).
    That is what a version-4 design meant.
    """
    db.table("networks").add_column("subnet", str, not_null_default="")
    db.table("links").add_column("speed_gbps", float)
    workloads = db.table("workloads")
    for name, kind in _V5_WORKLOAD_COLUMNS.items():
        workloads.add_column(name, kind)


# The workload columns version 9 added: nullable ones, then those with a default.  Frozen.
_V9_WORKLOAD_COLUMNS: dict[str, type] = {
    "global_batch": int,
    "goodput": float,
    "nic_gbps": float,
}
_V9_WORKLOAD_DEFAULTS: dict[str, tuple[type, object]] = {
    "virtual_stages": (int, 1),
    # JSON text, like every boolean the reader decodes ("true"/"false").
    "sequence_parallel": (str, "false"),
    "flash_attention": (str, "true"),
}


def _add_step_time_fields(db: sqlite_utils.Database) -> None:
    """8 -> 9: what the step-time model reads from a training job.

    The MFU may now be NULL ("predict it from the design"), so the column loses its
    NOT NULL; an older file's figure was typed or accepted by its user and stays as
    given.  Global batch, goodput and NIC override NULL mean "the documented default";
    a version-8 job ran without sequence parallelism (the calculators had it off) and
    with one virtual stage, which is what the defaults of its rows say.  FlashAttention
    is on: the old "no recompute" memory assumed stored attention scores, which no
    current training stack keeps.
    """
    workloads = db.table("workloads")
    workloads.transform(not_null={"mfu": False})
    for name, kind in _V9_WORKLOAD_COLUMNS.items():
        workloads.add_column(name, kind)
    sql_types = {int: "INTEGER", str: "TEXT"}
    for name, (kind, default) in _V9_WORKLOAD_DEFAULTS.items():
        # Quoted by hand: sqlite-utils writes DEFAULT false, which SQLite reads as 0.
        literal = f"'{default}'" if kind is str else f"{int(default)}"  # type: ignore[call-overload]
        db.execute(
            f"ALTER TABLE workloads ADD COLUMN {name} {sql_types[kind]} NOT NULL DEFAULT {literal}"
        )


# The workload columns version 10 added: nullable ones, then those with a default.  Frozen.
_V10_WORKLOAD_COLUMNS: dict[str, type] = {
    "grad_precision": str,
    "measured_step_s": float,
}
_V10_WORKLOAD_DEFAULTS: dict[str, tuple[type, object]] = {
    "framework": (str, ""),
    "cp": (int, 1),
    "plan_at_30": (str, "false"),
}


def _add_stack_fields(db: sqlite_utils.Database) -> None:
    """9 -> 10: the software stack and calibration of a training job (issue 25).

    Gradient precision and measured step NULL mean "the documented default" (fp32 main
    gradients, no calibration); a version-9 job named no stack (the generic profile),
    ran without context parallelism and was not planned at 30 %, which the defaults say.
    """
    workloads = db.table("workloads")
    for name, kind in _V10_WORKLOAD_COLUMNS.items():
        workloads.add_column(name, kind)
    sql_types = {int: "INTEGER", str: "TEXT"}
    for name, (kind, default) in _V10_WORKLOAD_DEFAULTS.items():
        literal = f"'{default}'" if kind is str else f"{int(default)}"  # type: ignore[call-overload]
        db.execute(
            f"ALTER TABLE workloads ADD COLUMN {name} {sql_types[kind]} NOT NULL DEFAULT {literal}"
        )


# The tier columns and the teams table version 11 added.  Frozen.
_V11_TIER_COLUMNS: dict[str, type] = {
    "metadata_servers": int,
    "small_file_iops": float,
    "dataset_tb": float,
    "concurrent_jobs": int,
}
_V11_TEAMS: dict[str, type] = {
    "seq": int,
    "id": str,
    "name": str,
    "gpus": int,
    "share": float,
    "priority": int,
}


def _add_teams_and_tier_planning(db: sqlite_utils.Database) -> None:
    """10 -> 11: the teams sharing the cluster, and a storage tier's planning figures
    (issue 24): metadata servers, small-file IOPS, dataset size and concurrent jobs.

    A version-10 design had no teams (the handoffs made one "default" team) and said
    none of the tier figures, which an empty table and NULL columns say.
    """
    tiers = db.table("storage_tiers")
    for name, kind in _V11_TIER_COLUMNS.items():
        tiers.add_column(name, kind)
    db.create_table(
        "teams",
        _V11_TEAMS,
        pk="seq",
        not_null=[c for c in _V11_TEAMS if c not in ("seq", "gpus", "share")],
    )


# The tier column version 12 added.  Frozen.
_V12_TIER_COLUMNS: dict[str, type] = {"gpudirect_storage": str}


def _add_tier_gpudirect(db: sqlite_utils.Database) -> None:
    """11 -> 12: whether the nodes read a storage tier with GPUDirect Storage (issue 24).

    A version-11 tier did not say, which NULL says (JSON ``true``/``false`` otherwise).
    """
    tiers = db.table("storage_tiers")
    for name, kind in _V12_TIER_COLUMNS.items():
        tiers.add_column(name, kind)


#: ``MIGRATIONS[i]`` upgrades a database from schema version ``i`` to ``i + 1``.
MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [
    _create_v1,
    _add_device_role,
    _add_waivers_and_target_days,
    _add_rack_budgets_feeds_and_floor,
    _add_fabric_and_storage_fields,
    version_tables.create_tables,
    acceptance_table.create_tables,
    capture_table.create_tables,
    _add_step_time_fields,
    _add_stack_fields,
    _add_teams_and_tier_planning,
    _add_tier_gpudirect,
]

#: The columns of each table in the current schema.  Update with each migration that
#: changes a table.  The writer and reader address columns by name (see
#: :mod:`workbench.store.binding`), so a file whose columns stand in another order (a
#: table rebuilt by hand, a column added by a migration) reads the same.
COLUMNS: dict[str, tuple[str, ...]] = {t: tuple(c) for t, c in _V1_TABLES.items()}
COLUMNS["devices"] += ("role",)
COLUMNS["waivers"] = tuple(_V3_WAIVERS)
COLUMNS["workloads"] += ("target_days",)
COLUMNS["racks"] += (*_V4_RACK_COLUMNS, "facing")
COLUMNS["networks"] += ("subnet",)
COLUMNS["links"] += ("speed_gbps",)
COLUMNS["workloads"] += tuple(_V5_WORKLOAD_COLUMNS)
COLUMNS.update(version_tables.COLUMNS)
COLUMNS.update(acceptance_table.COLUMNS)
COLUMNS.update(capture_table.COLUMNS)
COLUMNS["workloads"] += (*_V9_WORKLOAD_COLUMNS, *_V9_WORKLOAD_DEFAULTS)
COLUMNS["workloads"] += (*_V10_WORKLOAD_COLUMNS, *_V10_WORKLOAD_DEFAULTS)
COLUMNS["storage_tiers"] += tuple(_V11_TIER_COLUMNS)
COLUMNS["teams"] = tuple(_V11_TEAMS)
COLUMNS["storage_tiers"] += tuple(_V12_TIER_COLUMNS)


def migrate(db: sqlite_utils.Database, from_version: int, to_version: int | None = None) -> None:
    """Run the migrations from ``from_version`` up to ``to_version`` (default: current).

    ``user_version`` is bumped after each step, so a failure part-way leaves a
    database that says truthfully which version it reached.  Callers only ever pass a
    fresh file or an in-memory copy.
    """
    target = SCHEMA_VERSION if to_version is None else to_version
    if len(MIGRATIONS) < target:
        raise RuntimeError(f"no migration to schema version {target}")
    for version in range(from_version, target):
        MIGRATIONS[version](db)
        db.execute(f"PRAGMA user_version = {version + 1:d}")
