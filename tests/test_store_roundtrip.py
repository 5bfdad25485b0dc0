"""Save then open gives back an equal design: examples and a hypothesis search."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_designs import full_design, one_rack_design, small_design, snapshot

from workbench.model import ops
from workbench.model.design import (
    Design,
    Device,
    Link,
    Network,
    Rack,
    Row,
    Site,
    SoftwareStack,
    StorageTier,
    Team,
    Waiver,
    Workload,
)
from workbench.model.versions import VersionMatrix
from workbench.store import SCHEMA_VERSION, ProjectFileError, open_design, save_design
from workbench.store.schema import APPLICATION_ID

TYPES = snapshot()

text = st.text(max_size=12)
opt_text = st.none() | text
# NaN is excluded because NaN != NaN makes equality meaningless, not because it is lost.
real = st.floats(allow_nan=False)
opt_real = st.none() | real
int64 = st.integers(-(2**63), 2**63 - 1)
opt_int = st.none() | int64
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | real | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)


def every_field(cls: type, **strategies: st.SearchStrategy) -> st.SearchStrategy:
    """``st.builds(cls, ...)`` by keyword, refusing to leave any field to its default:
    a field added to the model fails here, by name, until random designs draw it."""
    missing = [f.name for f in dataclasses.fields(cls) if f.init and f.name not in strategies]
    assert not missing, f"no strategy for {cls.__name__} fields {missing}"
    return st.builds(cls, **strategies)


@st.composite
def designs(draw: st.DrawFn) -> Design:
    slugs = draw(st.lists(st.sampled_from(sorted(TYPES)), min_size=1, unique=True))
    slug = st.sampled_from(slugs)
    devices = every_field(
        Device,
        id=text,
        name=text,
        device_type=slug,
        position=opt_int,
        face=text,
        serial=text,
        asset_tag=text,
        software_stack=opt_text,
        notes=text,
        role=text,
    )
    racks = every_field(
        Rack,
        id=text,
        name=text,
        rack_type=slug,
        cooling=text,
        power_limit_kw=real,
        devices=st.lists(devices, max_size=4),
        cooling_limit_kw=st.none() | real,
        max_weight_kg=st.none() | real,
        feed_a_voltage=st.none() | real,
        feed_a_phases=opt_int,
        feed_a_breaker_a=st.none() | real,
        feed_b_voltage=st.none() | real,
        feed_b_phases=opt_int,
        feed_b_breaker_a=st.none() | real,
        floor_x_mm=st.none() | real,
        floor_y_mm=st.none() | real,
        facing=text,
    )
    rows = every_field(Row, id=text, name=text, racks=st.lists(racks, max_size=3))
    sites = every_field(Site, id=text, name=text, rows=st.lists(rows, max_size=3))
    networks = every_field(
        Network,
        id=text,
        name=text,
        plane=text,
        technology=text,
        speed_gbps=real,
        mtu=int64,
        vlan=opt_int,
        subnet=text,
    )
    links = every_field(
        Link,
        id=text,
        a_device=text,
        a_port=text,
        b_device=text,
        b_port=text,
        network=opt_text,
        cable_type=opt_text,
        length_m=opt_real,
        speed_gbps=opt_real,
    )
    tiers = every_field(
        StorageTier,
        id=text,
        name=text,
        tier=text,
        filesystem=text,
        device_ids=st.lists(text, max_size=3),
        metadata_servers=opt_int,
        small_file_iops=opt_real,
        dataset_tb=opt_real,
        concurrent_jobs=opt_int,
        gpudirect_storage=st.none() | st.booleans(),
    )
    teams = every_field(Team, id=text, name=text, gpus=opt_int, share=opt_real, priority=int64)
    workloads = every_field(
        Workload,
        id=text,
        name=text,
        kind=text,
        model=text,
        params=opt_real,
        model_config=st.none() | st.dictionaries(text, json_values, max_size=4),
        tokens=real,
        precision=text,
        mfu=opt_real,
        recompute=text,
        tp=int64,
        pp=int64,
        zero=int64,
        micro_batch=int64,
        seq_len=int64,
        gpus=opt_int,
        gpu_type=opt_text,
        context=int64,
        concurrency=int64,
        kv_precision=text,
        target_days=opt_real,
        dataset_tier=opt_text,
        checkpoint_tier=opt_text,
        checkpoint_interval_min=opt_real,
        global_batch=opt_int,
        virtual_stages=int64,
        sequence_parallel=st.booleans(),
        flash_attention=st.booleans(),
        goodput=opt_real,
        nic_gbps=opt_real,
        cp=int64,
        grad_precision=opt_text,
        framework=text,
        measured_step_s=opt_real,
        plan_at_30=st.booleans(),
    )
    stacks = every_field(
        SoftwareStack,
        id=text,
        name=text,
        components=st.dictionaries(text, text, max_size=4),
        revision=int64,
    )
    waivers = every_field(Waiver, rule=text, object_id=text, note=text, created_at=text)
    # Snapshot order is part of the design too: shuffle it.
    order = draw(st.permutations(slugs))
    return draw(
        every_field(
            Design,
            name=text,
            sites=st.lists(sites, max_size=2),
            device_types=st.just({s: TYPES[s] for s in order}),
            networks=st.lists(networks, max_size=3),
            links=st.lists(links, max_size=4),
            storage_tiers=st.lists(tiers, max_size=2),
            workloads=st.lists(workloads, max_size=2),
            software_stacks=st.lists(stacks, max_size=2),
            properties=st.dictionaries(text, text, max_size=4),
            waivers=st.lists(waivers, max_size=3),
            teams=st.lists(teams, max_size=2),
            versions=st.just(VersionMatrix()),
            acceptance=st.just([]),
            # Captures have their own round trip (tests/test_asbuilt_store_cli.py).
            captures=st.just([]),
        )
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(design=designs())
def test_random_design_round_trips(tmp_path: Path, design: Design) -> None:
    """Whatever the dataclasses hold is read back exactly, or refused with one
    ProjectFileError when a value breaks the model's rules (a blank name, an unknown
    face, a dangling link: tests/test_store_untrusted.py).  Designs of valid values
    must come back exactly: test_store_untrusted.test_every_valid_design_round_trips."""
    # tmp_path is shared by every example, so an earlier example's file may be there:
    # a refused save must leave whatever is at the path exactly as it was.
    path = tmp_path / "random.dcwb"
    before = path.read_bytes() if path.exists() else None
    try:
        save_design(design, path)
    except ProjectFileError as exc:  # the writer applies the reader's text rules first
        assert "cannot save: " in str(exc)
        assert (path.read_bytes() if path.exists() else None) == before
        return
    try:
        back = open_design(path)
    except ProjectFileError:
        return
    assert back == design


def test_small_design_round_trips_in_order(tmp_path: Path) -> None:
    design = small_design()
    path = tmp_path / "small.dcwb"
    save_design(design, path)
    back = open_design(path)
    assert back == design
    # Spelled out, because a wrong order must fail loudly even if equality changed.
    assert [d.name for _, d in back.iter_devices()] == [d.name for _, d in design.iter_devices()]
    assert list(back.device_types) == list(design.device_types)
    assert list(back.properties) == ["customer", ""]
    assert back.workloads[1].model_config == {
        "layers": 32,
        "hidden": 4096,
        "moe": None,
        "tags": ["a", "ß"],
    }
    assert all(item.source_file == "design snapshot" for item in back.device_types.values())


def test_waivers_and_target_days_round_trip(tmp_path: Path) -> None:
    design = full_design()
    path = tmp_path / "full.dcwb"
    save_design(design, path)
    back = open_design(path)
    assert back == design
    assert [(w.rule, w.object_id, w.note, w.created_at) for w in back.waivers] == [
        ("RACK-POWER", "rack0", "signed off ✓\nby facilities", "2026-01-02T03:04:05+00:00"),
        ("WORKLOAD-DEADLINE", "w1", "", ""),
    ]
    assert [w.target_days for w in back.workloads] == [30.25, None]


def test_empty_design_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "empty.dcwb"
    save_design(Design(), path)
    assert open_design(path) == Design()


def test_file_is_stamped_with_application_id_and_version(tmp_path: Path) -> None:
    path = tmp_path / "stamped.dcwb"
    save_design(small_design(), path)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("SELECT count(*) FROM devices").fetchone()[0] == 6
        assert conn.execute("SELECT slug FROM catalog_snapshot ORDER BY seq").fetchall() == [
            (slug,) for slug in small_design().device_types
        ]
    finally:
        conn.close()


def test_saving_again_replaces_the_content(tmp_path: Path) -> None:
    path = tmp_path / "twice.dcwb"
    save_design(small_design("first"), path)
    second = small_design("second")
    ops.apply(second, ops.RemoveRack("rack1"))  # with its links and tier members
    save_design(second, path)
    assert open_design(path) == second
    assert sorted(p.name for p in tmp_path.iterdir()) == ["twice.dcwb"]


class _ConnectionWithoutDeserialize(sqlite3.Connection):
    """What sqlite3 offers on Python 3.10, which has no Connection.deserialize."""

    @property
    def deserialize(self):  # type: ignore[override]
        raise AttributeError("deserialize")


def test_python_310_path_loads_the_same_bytes(tmp_path: Path) -> None:
    from workbench.store.reader import _deserialize

    path = tmp_path / "small.dcwb"
    save_design(small_design(), path)
    conn = sqlite3.connect(":memory:", factory=_ConnectionWithoutDeserialize)
    assert not hasattr(conn, "deserialize")
    _deserialize(conn, path.read_bytes())
    assert conn.execute("SELECT name FROM devices ORDER BY seq").fetchall()[-1] == ("mgmt-1",)
    conn.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.dcwb"]


def test_items_built_in_code_without_raw_still_reopen(tmp_path: Path) -> None:
    """Templates and tests build CatalogItems directly (empty ``raw``); saving rebuilds
    a catalog mapping from the fields instead of storing ``{}``, which would not open."""
    from workbench.catalog.item import CatalogItem, Interface, PowerPort

    server = CatalogItem(
        slug="code-server",
        kind="server",
        manufacturer="Acme",
        model="X8",
        u_height=4,
        gpu="code-gpu",
        gpu_count=8,
        max_power_w=6000.0,
        typical_power_w=5000.0,
        weight=60.0,
        tflops={"bf16": 1.5},
        props={"host_ram_gb": 2048.0},
        power_ports=(PowerPort("psu1", "iec-60320-c20", maximum_draw=3000.0),),
        interfaces=(Interface("eth0", "100gbase-x-qsfp28"), Interface("bmc", "1000base-t", True)),
        sources={"max_power_w": "datasheet"},
    )
    gpu = CatalogItem(
        slug="code-gpu",
        kind="gpu",
        manufacturer="Acme",
        model="G1",
        max_power_w=700.0,
        typical_power_w=700.0,
        hbm_gb=80.0,
    )
    rack = CatalogItem(
        slug="code-rack", kind="rack", manufacturer="Acme", model="42U", u_height=42, role="rack"
    )
    design = one_rack_design(
        {"code-rack": rack, "code-server": server, "code-gpu": gpu},
        [Device("d", "n1", "code-server", position=1)],
        rack_type="code-rack",
        rack_name="K",
    )
    assert not server.raw
    path = tmp_path / "code.dcwb"
    save_design(design, path)
    assert open_design(path) == design
