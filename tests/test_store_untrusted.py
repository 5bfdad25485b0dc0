"""Project files from strangers: every value is checked, and what cannot be held is
refused with one line naming file, table, row and field, the file left untouched; what
is representable but wrong opens and is reported by the rules.

Each case named in the fuzzing report that started this (issue 9) has a test here:
U positions -5, 0, 2^63-1 and 'abc'; 10,000 devices stacked at U2; power limits -10,
0, inf and 'lots'; cooling 'plasma'; face 'top'; role 'wizard'; duplicate ids; a
device whose type is a GPU or a rack; MFU 5, TP -8, tokens -1; links to devices that do
not exist; NULL names in tables rebuilt without NOT NULL; a snapshot gpu_count of 1e12;
schema versions -1 and -2147483648; and the temporary files of interrupted saves.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_designs import full_design, snapshot

from workbench.catalog.item import CatalogItem
from workbench.catalog.vocabulary import COOLING_TYPES, DEVICE_ROLES, FACES
from workbench.model.design import FACINGS, Design, Device, Link, Rack, Row, Site, Workload
from workbench.model.names import text_problem
from workbench.model.net_ops import TECHNOLOGIES
from workbench.rules import check_design
from workbench.store import (
    ProjectFileError,
    discard_temp,
    open_design,
    recover_temp,
    save_design,
    sweep_temps,
)
from workbench.store import temps as temps_module
from workbench.store.schema import SCHEMA_VERSION
from workbench.store.value_table import _plain_texts, found_in, increasing

# -- helpers ----------------------------------------------------------------------------


def _saved(folder: Path, design: Design | None = None, name: str = "site-a.dcwb") -> Path:
    path = folder / name
    save_design(full_design() if design is None else design, path)
    return path


def _edited(folder: Path, *sql: str, design: Design | None = None) -> Path:
    """The full test design saved, then changed with SQL (as a stranger's tool would)."""
    path = _saved(folder, design)
    conn = sqlite3.connect(path)
    for statement in sql:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path


def _refused(path: Path, *expected: str) -> str:
    """Opening ``path`` raises one line naming it and each of ``expected``; nothing
    changes in its folder."""
    before = path.read_bytes()
    listing = sorted(p.name for p in path.parent.iterdir())
    with pytest.raises(ProjectFileError) as caught:
        open_design(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert "\n" not in message
    for text in expected:
        assert text in message, message
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == listing
    return message


def _new_findings(path: Path) -> list:
    """Findings of the opened file that the unedited design does not have."""
    base = {(f.rule, f.message) for f in check_design(full_design())}
    return [f for f in check_design(open_design(path)) if (f.rule, f.message) not in base]


# -- refused: one line naming file, table, row (seq and id) and field --------------------

# Devices in seq order: d0-0, d0-1, m0 (rack0), d1-0, d1-1, m1 (rack1).
REFUSED: dict[str, tuple[list[str], list[str]]] = {
    "U -5": (
        ["UPDATE devices SET position = -5 WHERE id = 'd0-1'"],
        ["devices row 2 (id 'd0-1'), position: must be a rack unit from 1 to 100, got -5"],
    ),
    "U 0": (["UPDATE devices SET position = 0 WHERE id = 'd0-1'"], ["position", "got 0"]),
    "U 2^63-1": (
        [f"UPDATE devices SET position = {2**63 - 1} WHERE id = 'd0-1'"],
        ["position", str(2**63 - 1)],
    ),
    "U 'abc'": (
        ["UPDATE devices SET position = 'abc' WHERE id = 'd0-1'"],
        ["devices row 2 (id 'd0-1'), position: must be a whole number or empty, got 'abc'"],
    ),
    "U 2.5": (["UPDATE devices SET position = 2.5 WHERE id = 'm0'"], ["row 3", "got 2.5"]),
    "U 101": (["UPDATE devices SET position = 101 WHERE id = 'm0'"], ["from 1 to 100"]),
    "power -10": (
        ["UPDATE racks SET power_limit_kw = -10 WHERE id = 'rack1'"],
        ["racks row 2 (id 'rack1'), power_limit_kw: Power budget must be a number above 0"],
    ),
    "power 0": (["UPDATE racks SET power_limit_kw = 0"], ["power_limit_kw", "above 0"]),
    "power inf": (
        ["UPDATE racks SET power_limit_kw = 9e999"],
        ["power_limit_kw: Power budget must be a finite number, got inf"],
    ),
    "power 'lots'": (
        ["UPDATE racks SET power_limit_kw = 'lots'"],
        ["power_limit_kw: must be a number, got 'lots'"],
    ),
    "power 'NaN'": (["UPDATE racks SET power_limit_kw = 'NaN'"], ["got 'NaN'"]),
    "cooling 'plasma'": (
        ["UPDATE racks SET cooling = 'plasma' WHERE id = 'rack0'"],
        ["racks row 1 (id 'rack0'), cooling: Unknown cooling type 'plasma'"],
    ),
    "face 'top'": (
        ["UPDATE devices SET face = 'top' WHERE id = 'm1'"],
        ["devices row 6 (id 'm1'), face: must be one of front, rear; got 'top'"],
    ),
    "role 'wizard'": (
        ["UPDATE devices SET role = 'wizard' WHERE id = 'm1'"],
        ["role: must be empty (the catalog's role) or one of gpu-server"],
    ),
    "facing 'up'": (["UPDATE racks SET facing = 'up'"], ["facing: Facing must be one of"]),
    "phases 2": (["UPDATE racks SET feed_a_phases = 2"], ["Feed A phases must be 1"]),
    "duplicate device id": (
        ["UPDATE devices SET id = 'd0-0' WHERE id = 'd1-0'"],
        ["devices row 4 (id 'd0-0'), id: 'd0-0' is the id of another device as well"],
    ),
    "duplicate rack id": (
        ["UPDATE racks SET id = 'rack0' WHERE id = 'rack1'"],
        ["racks row 2 (id 'rack0'), id:", "another rack"],
    ),
    "duplicate workload id": (
        ["UPDATE workloads SET id = 'w1'"],
        ["workloads row 2 (id 'w1'), id:", "another workload"],
    ),
    "device id used by a rack": (
        ["UPDATE devices SET id = 'rack1' WHERE id = 'm1'"],
        ["racks row 2 (id 'rack1'), id: 'rack1' is the id of a device too"],
    ),
    "duplicate network id": (["UPDATE networks SET id = 'n1'"], ["another network"]),
    "device of a GPU type": (
        ["UPDATE devices SET device_type = 'h100-sxm' WHERE id = 'd0-0'"],
        ["device_type: 'h100-sxm' is a gpu in the design's catalog, not something mounted"],
    ),
    "device of a rack type": (
        ["UPDATE devices SET device_type = 'rack-42u' WHERE id = 'd0-0'"],
        ["'rack-42u' is a rack in the design's catalog"],
    ),
    "rack of a server type": (
        ["UPDATE racks SET rack_type = 'dgx-h100'"],
        ["rack_type: 'dgx-h100' is a server in the design's catalog, not a rack model"],
    ),
    "device type not a slug": (
        ["UPDATE devices SET device_type = 'Not A Slug'"],
        ["'Not A Slug' is not a catalog slug"],
    ),
    "link to a missing device": (
        ["UPDATE links SET b_device = 'ghost' WHERE id = 'l2'"],
        ["links row 2 (id 'l2'), b_device: names device 'ghost', which the file does not hold"],
    ),
    "link on a missing network": (
        ["UPDATE links SET network = 'ghost' WHERE id = 'l1'"],
        ["network: names network 'ghost'"],
    ),
    "tier of a missing device": (
        ["""UPDATE storage_tiers SET device_ids = '["d1-1", "ghost"]'"""],
        ["storage_tiers row 1 (id 't1'), device_ids: lists device 'ghost'"],
    ),
    "tier members not a list": (
        ["""UPDATE storage_tiers SET device_ids = '{"d1-1": 1}'"""],
        ["device_ids: must be list"],
    ),
    "missing software stack": (
        ["UPDATE devices SET software_stack = 'ghost' WHERE id = 'd0-1'"],
        ["software_stack: names software stack 'ghost'"],
    ),
    "name with a line break": (
        ["UPDATE racks SET name = 'a' || char(10) || 'b' WHERE id = 'rack0'"],
        ["racks row 1 (id 'rack0'), name: may not contain tabs, line breaks"],
    ),
    "name with a direction override": (
        ["UPDATE devices SET name = 'gpu-' || char(8238) || '01' WHERE id = 'd0-0'"],
        ["name: contains the invisible direction control U+202E"],
    ),
    "blank site name": (["UPDATE sites SET name = '  '"], ["sites row 1 (id 's1'), name: cannot"]),
    "serial too long": (
        [f"UPDATE devices SET serial = '{'S' * 65}' WHERE id = 'd0-0'"],
        ["serial: is 65 characters long; at most 50"],
    ),
    "VLAN 5000": (["UPDATE networks SET vlan = 5000"], ["vlan: A VLAN id is a whole number"]),
    "plane 'wizard'": (["UPDATE networks SET plane = 'wizard'"], ["plane: A plane is one of"]),
    "cable length -3": (["UPDATE links SET length_m = -3"], ["length_m: A cable length"]),
    "cable 'wizard'": (["UPDATE links SET cable_type = 'wizard'"], ["Cable media is one of"]),
    "link speed inf": (["UPDATE links SET speed_gbps = 9e999"], ["speed_gbps: A link's speed"]),
    "workload kind 'wizard'": (
        ["UPDATE workloads SET kind = 'wizard' WHERE id = 'w1'"],
        ["workloads row 1 (id 'w1'), kind: must be one of training, inference"],
    ),
    "unknown model": (["UPDATE workloads SET model = 'gpt-9'"], ["model: must be one of"]),
    "ZeRO 7": (["UPDATE workloads SET zero = 7"], ["zero: must be one of the ZeRO stages"]),
    "tokens 'abc'": (["UPDATE workloads SET tokens = 'abc'"], ["tokens: must be a number"]),
    "MFU inf": (["UPDATE workloads SET mfu = 9e999"], ["mfu: must be a finite number"]),
    "two waivers of one finding": (
        ["UPDATE waivers SET rule = 'RACK-POWER', object_id = 'rack0'"],
        ["waivers row 2, rule: RACK-POWER on 'rack0' is waived twice"],
    ),
    "design name with a tab": (
        ["""UPDATE meta SET value = '"a\\tb"' WHERE key = 'name'"""],
        ["meta, name: the design's name may not contain tabs"],
    ),
    "property that is no text": (
        ["""UPDATE meta SET value = '{"customer": 5}' WHERE key = 'properties'"""],
        ["meta, properties: 'customer' must hold text, got 5"],
    ),
    "deeply nested JSON": (
        [f"UPDATE software_stacks SET components = '{'[' * 100_000}{']' * 100_000}'"],
        ["unreadable JSON in software_stacks ('base')"],
    ),
    "snapshot item under another slug": (
        ["UPDATE catalog_snapshot SET slug = 'rack-48u' WHERE slug = 'rack-42u'"],
        ["catalog snapshot item 'rack-48u' holds the item 'rack-42u'"],
    ),
    "schema -1": (["PRAGMA user_version = -1"], ["schema version -1 is not one a workbench"]),
    "schema -2^31": (
        ["PRAGMA user_version = -2147483648"],
        [
            f"damaged header: schema version -2147483648 is not one a workbench writes (1 to {SCHEMA_VERSION})"
        ],
    ),
    "schema 0 with tables": (["PRAGMA user_version = 0"], ["schema version 0 is not one"]),
    "schema of a newer workbench": (
        [f"PRAGMA user_version = {SCHEMA_VERSION + 1}"],
        ["saved by a newer workbench"],
    ),
    "non-integer schema in meta": (
        ["UPDATE meta SET value = '4.5' WHERE key = 'schema_version'"],
        ["the meta table's schema_version 4.5 is not a whole number"],
    ),
    "meta schema disagrees": (
        ["UPDATE meta SET value = '3' WHERE key = 'schema_version'"],
        [f"the header says schema {SCHEMA_VERSION} but the meta table says 3"],
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_value_that_cannot_be_held_is_refused(tmp_path: Path, case: str) -> None:
    sql, expected = REFUSED[case]
    _refused(_edited(tmp_path, *sql), *expected)


def _rebuilt_without_constraints(path: Path, table: str) -> None:
    """Rebuild ``table`` as a stranger's tool might: same columns, no NOT NULL, no key."""
    conn = sqlite3.connect(path)
    conn.execute(f"CREATE TABLE copy AS SELECT * FROM {table}")
    conn.execute(f"DROP TABLE {table}")
    conn.execute(f"ALTER TABLE copy RENAME TO {table}")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("table", ["sites", "rows", "racks", "devices", "networks", "workloads"])
def test_null_name_in_a_rebuilt_table_is_refused(tmp_path: Path, table: str) -> None:
    path = _saved(tmp_path)
    _rebuilt_without_constraints(path, table)
    conn = sqlite3.connect(path)
    conn.execute(f"UPDATE {table} SET name = NULL WHERE seq = 1")
    conn.commit()
    conn.close()
    _refused(path, f"{table} row 1 (id ", "), name: is empty (NULL)")


def test_rebuilt_table_with_two_rows_of_one_seq_is_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    _rebuilt_without_constraints(path, "links")
    conn = sqlite3.connect(path)
    conn.execute("UPDATE links SET seq = 1")
    conn.commit()
    conn.close()
    _refused(path, "damaged: links has two rows with seq 1")


def test_rebuilt_table_that_is_fine_opens(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    _rebuilt_without_constraints(path, "devices")
    assert open_design(path) == full_design()


def test_snapshot_gpu_count_of_1e12_names_the_file_and_item(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not ``--gpus``: the command line used to blame an option nobody gave."""
    from workbench.cli.main import main

    path = _saved(tmp_path)
    conn = sqlite3.connect(path)
    query = "SELECT raw FROM catalog_snapshot WHERE slug = 'dgx-h100'"
    raw = json.loads(conn.execute(query).fetchone()[0])
    raw["gpu_count"] = 10**12
    conn.execute("UPDATE catalog_snapshot SET raw = ? WHERE slug = 'dgx-h100'", (json.dumps(raw),))
    conn.commit()
    conn.close()
    message = _refused(path, "catalog snapshot item 'dgx-h100'", "gpu_count")
    assert "--gpus" not in message
    assert main(["report", str(path)]) != 0
    err = capsys.readouterr().err
    assert str(path) in err and "'dgx-h100'" in err and "--gpus" not in err


def test_more_gpus_than_the_calculators_plan_for_names_the_item(tmp_path: Path) -> None:
    big = CatalogItem(
        slug="giant-node", kind="server", manufacturer="X", model="G", u_height=1,
        gpu="h100-sxm", gpu_count=1024, max_power_w=1000.0,
    )  # fmt: skip
    types = {**snapshot(), "giant-node": big}
    devices = [Device(f"g{i}", f"g{i}", "giant-node", position=1) for i in range(9800)]
    rack = Rack("k", "K", "rack-42u", devices=devices)
    design = Design(sites=[Site("s", "S", [Row("r", "R", [rack])])], device_types=types)
    _refused(
        _saved(tmp_path, design),
        "catalog snapshot item 'giant-node': gpu_count 1,024 gives the design 10,035,200 GPUs",
        "more than the 10,000,000 the calculators plan for",
    )


def test_schema_text_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute(
        "UPDATE sqlite_master SET sql = CAST(X'435245415445205441424c452073697465732028c12029' AS TEXT)"
        " WHERE name = 'rows'"
    )
    conn.commit()
    conn.close()
    _refused(path, "truncated or damaged")


# -- opened, and reported by the rules -----------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "rule", "text"),
    [
        ("UPDATE workloads SET mfu = 5 WHERE id = 'w1'", "WORKLOAD-INPUT", "mfu: must be a fraction"),
        ("UPDATE workloads SET tp = -8 WHERE id = 'w1'", "WORKLOAD-PARALLEL", "at least 1, got -8"),
        ("UPDATE workloads SET tokens = -1 WHERE id = 'w1'", "WORKLOAD-INPUT", "tokens: must be"),
        ("UPDATE workloads SET tp = 2.5 WHERE id = 'w1'", "WORKLOAD-PARALLEL", "whole number"),
        ("UPDATE devices SET position = 40 WHERE id = 'd1-0'", "RACK-OUTSIDE", "U40–U47"),
        ("UPDATE devices SET position = 2 WHERE id = 'd0-1'", "RACK-OVERLAP", "overlaps"),
        ("UPDATE racks SET power_limit_kw = 0.5", "RACK-POWER", "power budget"),
        ("UPDATE workloads SET dataset_tier = 'gone'", "STORAGE-POOLS", "'gone' is not a storage"),
        ("UPDATE devices SET device_type = 'ghost-box'", "CATALOG-MISSING", "ghost-box"),
        ("UPDATE workloads SET tp = 1, zero = 0 WHERE id = 'w1'", "WORKLOAD-MEMORY", "per GPU"),
    ],
    ids=["MFU 5", "TP -8", "tokens -1", "TP 2.5", "above the rack", "overlap", "over budget",
         "removed tier", "unknown slug", "does not fit"],
)  # fmt: skip
def test_representable_but_wrong_opens_and_is_reported(
    tmp_path: Path, sql: str, rule: str, text: str
) -> None:
    path = _edited(tmp_path, sql)
    before = path.read_bytes()
    found = [f for f in _new_findings(path) if f.rule == rule]
    assert any(text in f.message for f in found), [f.message for f in _new_findings(path)]
    assert path.read_bytes() == before


def test_ten_thousand_devices_stacked_at_u2_open_as_overlaps(tmp_path: Path) -> None:
    devices = [Device(f"d{i}", f"switch-{i}", "mgmt-switch-48", position=2) for i in range(10_000)]
    rack = Rack("k", "Rack 1", "rack-42u", devices=devices)
    design = Design(sites=[Site("s", "S", [Row("r", "R", [rack])])], device_types=snapshot())
    path = _saved(tmp_path, design)
    opened = open_design(path)
    overlaps = [f for f in check_design(opened) if f.rule == "RACK-OVERLAP"]
    assert len(overlaps) == 9_999
    assert overlaps[0].objects[:2] == ("d1", "d0")


def test_a_design_the_window_could_save_always_reopens(tmp_path: Path) -> None:
    """The workload form leaves ranges to the calculators: whatever finite numbers it
    passes on, the file must open again (and the rules say what is wrong)."""
    design = full_design()
    design.workloads[0] = Workload("w1", "pretrain", mfu=5.0, tp=-8, tokens=-1.0, pp=0)
    path = _saved(tmp_path, design)
    assert open_design(path) == design


# -- ids in increasing order are proven unique without a set of them -------------------


def _many_links(link_ids: list[str], device_ids: tuple[str, str] = ("d1", "d2")) -> Design:
    """One rack of two devices joined by a link per id: the links are the largest table."""
    from store_designs import one_rack_design

    a, b = device_ids
    design = one_rack_design(
        snapshot(), [Device(a, "node-1", "dgx-h100", position=1), Device(b, "sw", "dgx-h100")]
    )
    design.links = [Link(i, a, f"osfp{n % 8}", b, f"osfp{n % 8}") for n, i in enumerate(link_ids)]
    return design


@pytest.mark.parametrize(
    ("link_ids", "device_ids", "expected"),
    [
        # In order by length then text (l9 before l10): a device holding one is named.
        (
            [f"l{n}" for n in range(1, 21)],
            ("d1", "l12"),
            "devices row 2 (id 'l12'), id: 'l12' is the id of a link too",
        ),
        # Not in order: the same found with a set.
        (
            [f"l{n}" for n in range(20, 0, -1)],
            ("l7", "d2"),
            "devices row 1 (id 'l7'), id: 'l7' is the id of a link too",
        ),
        # Shorter after longer hides a repeat from a walk of neighbours alone.
        (["b", "aa", "b", *(f"x{n:02d}" for n in range(10))], ("d1", "d2"), "another link"),
        (["l1", "l2", "l2", *(f"x{n:02d}" for n in range(10))], ("d1", "d2"), "another link"),
    ],
    ids=["ordered, device holds a link id", "unordered", "b aa b", "repeat"],
)
def test_link_ids_are_unique_and_their_own(
    tmp_path: Path, link_ids: list[str], device_ids: tuple[str, str], expected: str
) -> None:
    path = tmp_path / "links.dcwb"
    save_design(_many_links(link_ids, device_ids), path)
    _refused(path, expected)


def test_ordered_link_ids_open(tmp_path: Path) -> None:
    design = _many_links([f"l{n}" for n in range(1, 1200)])
    path = tmp_path / "links.dcwb"
    save_design(design, path)
    assert open_design(path) == design


_IDS = st.sampled_from(["", "a", "b", "aa", "ab", "ba", "l9", "l10", "é"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_IDS, max_size=7), st.lists(_IDS, max_size=4))
def test_increasing_ids_never_repeat_and_are_found(values: list[str], wanted: list[str]) -> None:
    runs = increasing(values)
    if runs is not None:
        assert len(set(values)) == len(values)
        assert values == sorted(values, key=lambda v: (len(v), v))
        assert found_in(values, runs, wanted) == set(wanted) & set(values)


def test_increasing_is_none_for_what_cannot_be_ordered() -> None:
    assert increasing(["l8", "l9", "l10", "l11"]) == {2: (0, 2), 3: (2, 4)}
    assert increasing([]) == {}
    assert increasing(["l9", "l10", "l9"]) is None
    assert increasing(["a", 1]) is None
    assert increasing([None, None]) is None
    assert increasing([1, 2]) is None  # whole numbers have no length: a set decides


# -- the fast path for names agrees with text_problem --------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=8) | st.sampled_from(["", " ", "x" * 129, "a\tb"]), max_size=6))
def test_plain_text_shortcut_never_accepts_what_text_problem_refuses(values: list[str]) -> None:
    if _plain_texts(values, set(values), 128, False):
        assert all(text_problem(v) is None for v in values)
    if _plain_texts(set(values), set(values), 128, True):
        assert all(text_problem(v, blank_ok=True) is None for v in values)
    # Told the lengths of distinct values (ordered ids), the answer is the same.
    unique = list(dict.fromkeys(values))
    lengths = {len(v) for v in unique}
    for blank_ok in (False, True):
        told = _plain_texts(unique, unique, 4, blank_ok, lengths)
        assert told == _plain_texts(unique, set(unique), 4, blank_ok)


# -- designs of valid values round-trip exactly ----------------------------------------------

#: Printable text (no control, format, private or unassigned characters, no line or
#: paragraph separators) in any script, spaces included.
_chars = st.characters(blacklist_categories=("C", "Zl", "Zp"))
_name = st.text(_chars, min_size=1, max_size=16).filter(lambda s: text_problem(s) is None)
_label = st.text(_chars, max_size=12).filter(
    lambda s: text_problem(s, limit=50, blank_ok=True) is None
)
_positive = st.floats(min_value=1e-3, max_value=1e9)


@st.composite
def valid_designs(draw: st.DrawFn) -> Design:
    """Designs the edit functions could have made: every value passes the model's rules."""
    serial = iter(range(10**6))
    racks = []
    for _ in range(draw(st.integers(1, 3))):
        devices = [
            Device(
                f"hd{next(serial)}",
                draw(_name),
                draw(st.sampled_from(["dgx-h100", "mgmt-switch-48", "ghost-box"])),
                position=draw(st.none() | st.integers(1, 100)),
                face=draw(st.sampled_from(FACES)),
                serial=draw(_label),
                asset_tag=draw(_label),
                notes=draw(
                    st.text(max_size=20).filter(
                        lambda s: text_problem(s, blank_ok=True, multiline=True) is None
                    )
                ),
                role=draw(st.sampled_from(("", *DEVICE_ROLES))),
            )
            for _ in range(draw(st.integers(0, 4)))
        ]
        racks.append(
            Rack(
                f"hk{next(serial)}",
                draw(_name),
                draw(st.sampled_from(["rack-42u", "ghost-rack"])),
                cooling=draw(st.sampled_from(sorted(COOLING_TYPES))),
                power_limit_kw=draw(_positive),
                devices=devices,
                cooling_limit_kw=draw(st.none() | _positive),
                feed_a_phases=draw(st.none() | st.sampled_from([1, 3])),
                floor_x_mm=draw(st.none() | st.floats(-1e6, 1e6)),
                facing=draw(st.sampled_from(FACINGS)),
            )
        )
    design = full_design(draw(_name))
    design.sites.append(
        Site(f"hs{next(serial)}", draw(_name), [Row(f"hr{next(serial)}", "R", racks)])
    )
    ids = [d.id for r in racks for d in r.devices] + ["d0-0", "m0"]
    for _ in range(draw(st.integers(0, 3))):
        a, b = draw(st.sampled_from(ids)), draw(st.sampled_from(ids))
        design.links.append(
            Link(f"hl{next(serial)}", a, draw(_name), b, draw(_name), network="n1",
                 length_m=draw(st.none() | st.floats(0.1, 1e4)))
        )  # fmt: skip
    design.networks[0].technology = draw(st.sampled_from(TECHNOLOGIES))
    design.workloads[0].mfu = draw(st.floats(-1e6, 1e6))  # ranges: the calculators' call
    design.workloads[0].tp = draw(st.integers(-(2**63), 2**63 - 1) | st.floats(-1e9, 1e9))
    return design


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(design=valid_designs())
def test_every_valid_design_round_trips(tmp_path: Path, design: Design) -> None:
    path = tmp_path / "valid.dcwb"
    save_design(design, path)
    assert open_design(path) == design


# -- temporary files of interrupted saves ---------------------------------------------------


def _temp(folder: Path, target: str, pid: int | None, data: bytes, age_s: float) -> Path:
    """A leftover temp as an interrupted save leaves it, ``age_s`` seconds old."""
    middle = f"{pid}." if pid is not None else ""
    temp = folder / f".{target}.{middle}0123abcd.tmp"
    temp.write_bytes(data)
    stamp = time.time() - age_s
    os.utime(temp, (stamp, stamp))
    return temp


def _dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.skipif(os.name != "posix", reason="pids are only checked on POSIX")
def test_partial_temp_of_a_killed_save_is_removed_on_the_next_save(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    old = path.read_bytes()
    partial = _temp(tmp_path, path.name, _dead_pid(), old[: len(old) // 3], age_s=60)
    unrelated = tmp_path / ".notes.txt.1234.0123abcd.tmp"
    unrelated.write_bytes(b"not ours")
    sweep = save_design(full_design("again"), path)
    assert sweep.removed == (partial,)
    assert sweep.freed_bytes == len(old) // 3
    assert "removed 1 leftover temporary file" in sweep.summary()
    assert sorted(p.name for p in tmp_path.iterdir()) == [unrelated.name, path.name]


@pytest.mark.skipif(os.name != "posix", reason="pids are only checked on POSIX")
def test_a_save_killed_for_real_leaves_a_temp_that_the_sweep_removes(tmp_path: Path) -> None:
    """A child process starts saving, writes part of its file, and is SIGKILLed."""
    path = _saved(tmp_path)
    script = (
        "import os, signal, sys\n"
        "sys.path.insert(0, sys.argv[2])\n"
        "from store_designs import full_design\n"
        "from workbench.store import save_design, writer\n"
        "def write_half(design, tmp, progress=None):\n"
        "    tmp.write_bytes(b'SQLite format 3\\x00' + bytes(4000))\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "writer.write_database = write_half\n"
        "save_design(full_design(), sys.argv[1])\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", script, str(path), str(Path(__file__).parent)], timeout=60
    )
    assert child.returncode == -signal.SIGKILL
    left = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert len(left) == 1 and temps_module.target_of(left[0]) == path
    assert sweep_temps(path).in_use == tuple(left), "too fresh to judge"
    later = sweep_temps(path, now=time.time() + temps_module.SETTLE_S + 1)
    assert later.removed == tuple(left)
    assert open_design(path) == full_design()


def test_temp_of_a_save_running_now_is_left_alone(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    mine = _temp(tmp_path, path.name, os.getpid(), b"half a database", age_s=120)
    fresh = _temp(tmp_path, path.name, _dead_pid(), b"being written", age_s=1)
    legacy = _temp(tmp_path, path.name, None, b"no pid in the name", age_s=600)
    sweep = sweep_temps(path)
    assert set(sweep.in_use) == {mine, fresh, legacy}
    assert sweep.removed == ()
    assert all(p.exists() for p in (mine, fresh, legacy))


def test_temp_older_than_an_hour_is_removed_whoever_wrote_it(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    old = [
        _temp(tmp_path, path.name, os.getpid(), b"x", age_s=temps_module.ABANDONED_S + 5),
        _temp(tmp_path, path.name, None, b"y", age_s=temps_module.ABANDONED_S + 5),
    ]
    assert set(sweep_temps(tmp_path).removed) == set(old)


def test_complete_save_newer_than_the_file_is_offered_and_recovered(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    newer = tmp_path / "newer.dcwb"
    save_design(full_design("finished but never renamed"), newer)
    temp = _temp(tmp_path, path.name, _dead_pid(), newer.read_bytes(), age_s=0)
    newer.unlink()
    stamp = path.stat().st_mtime + 120  # written after the file, then left for a minute
    os.utime(temp, (stamp, stamp))
    sweep = sweep_temps(path, now=stamp + 60)
    assert sweep.recoverable == (temp,)
    assert "1 interrupted save(s) can be recovered" in sweep.summary()
    assert recover_temp(temp) == path
    assert open_design(path).name == "finished but never renamed"
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_incomplete_or_older_temp_is_not_offered(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    data = path.read_bytes()
    stamp = path.stat().st_mtime
    partial = _temp(tmp_path, path.name, _dead_pid(), data[:5000], age_s=0)
    os.utime(partial, (stamp + 120, stamp + 120))
    older = tmp_path / f".{path.name}.{_dead_pid()}.0badcafe.tmp"
    older.write_bytes(data)
    os.utime(older, (stamp - 120, stamp - 120))
    sweep = sweep_temps(path, now=stamp + 600)
    assert set(sweep.removed) == {partial, older}
    assert sweep.recoverable == ()
    with pytest.raises(ProjectFileError, match="not a temporary file of a project save"):
        recover_temp(path)


def test_discarding_an_offer(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    temp = _temp(tmp_path, path.name, _dead_pid(), path.read_bytes(), age_s=0)
    discard_temp(temp)
    discard_temp(temp)  # already gone: fine
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_another_files_possible_recovery_waits_for_that_file(tmp_path: Path) -> None:
    """Saving site-a never opens (or deletes) a temp that may be site-b's lost save."""
    a = _saved(tmp_path, name="site-a.dcwb")
    b = _saved(tmp_path, name="site-b.dcwb")
    os.utime(b, (time.time() - 600, time.time() - 600))
    b_temp = _temp(tmp_path, b.name, _dead_pid(), b.read_bytes(), age_s=300)  # stale, newer
    sweep = save_design(full_design(), a)
    assert b_temp.exists() and b_temp not in sweep.in_use + sweep.removed
    assert sweep_temps(b).recoverable == (b_temp,)


def test_temp_names_carry_the_writers_pid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench.store import atomic

    seen: list[Path] = []
    real = atomic.create_temp

    def spy(target: Path) -> Path:
        seen.append(real(target))
        return seen[-1]

    monkeypatch.setattr(atomic, "create_temp", spy)
    path = _saved(tmp_path)
    assert seen[0].name.startswith(f".{path.name}.{os.getpid()}.")
    assert temps_module.target_of(seen[0]) == path
