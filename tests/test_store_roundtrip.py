"""Save then open gives back an equal design: examples and a hypothesis search."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_designs import small_design, snapshot

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
    Workload,
)
from workbench.store import SCHEMA_VERSION, open_design, save_design
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


@st.composite
def designs(draw: st.DrawFn) -> Design:
    slugs = draw(st.lists(st.sampled_from(sorted(TYPES)), min_size=1, unique=True))
    slug = st.sampled_from(slugs)

    def device() -> Device:
        return Device(
            draw(text),
            draw(text),
            draw(slug),
            draw(opt_int),
            draw(text),
            draw(text),
            draw(text),
            draw(opt_text),
            draw(text),
            draw(text),
        )

    def rack() -> Rack:
        return Rack(
            draw(text),
            draw(text),
            draw(slug),
            draw(text),
            draw(real),
            [device() for _ in range(draw(st.integers(0, 4)))],
        )

    def row() -> Row:
        return Row(draw(text), draw(text), [rack() for _ in range(draw(st.integers(0, 3)))])

    sites = [
        Site(draw(text), draw(text), [row() for _ in range(draw(st.integers(0, 3)))])
        for _ in range(draw(st.integers(0, 2)))
    ]
    networks = draw(
        st.lists(st.builds(Network, text, text, text, text, real, int64, opt_int), max_size=3)
    )
    links = draw(
        st.lists(
            st.builds(Link, text, text, text, text, text, opt_text, opt_text, opt_real), max_size=4
        )
    )
    tiers = draw(
        st.lists(
            st.builds(StorageTier, text, text, text, text, st.lists(text, max_size=3)), max_size=2
        )
    )
    workloads = draw(
        st.lists(
            st.builds(
                Workload,
                text,
                text,
                text,
                text,
                opt_real,
                st.none() | st.dictionaries(text, json_values, max_size=4),
                real,
                text,
                real,
                text,
                int64,
                int64,
                int64,
                int64,
                int64,
                opt_int,
                opt_text,
                int64,
                int64,
                text,
            ),
            max_size=2,
        )
    )
    stacks = draw(
        st.lists(
            st.builds(SoftwareStack, text, text, st.dictionaries(text, text, max_size=4), int64),
            max_size=2,
        )
    )
    # Snapshot order is part of the design too: shuffle it.
    order = draw(st.permutations(slugs))
    return Design(
        name=draw(text),
        sites=sites,
        device_types={s: TYPES[s] for s in order},
        networks=networks,
        links=links,
        storage_tiers=tiers,
        workloads=workloads,
        software_stacks=stacks,
        properties=draw(st.dictionaries(text, text, max_size=4)),
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(design=designs())
def test_random_design_round_trips(tmp_path: Path, design: Design) -> None:
    path = tmp_path / "random.dcwb"
    save_design(design, path)
    assert open_design(path) == design


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
    second.sites[0].rows[0].racks.pop()
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
    design = Design(
        sites=[
            Site(
                "s",
                "S",
                [
                    Row(
                        "r",
                        "R",
                        [
                            Rack(
                                "k",
                                "K",
                                "code-rack",
                                devices=[Device("d", "n1", "code-server", position=1)],
                            )
                        ],
                    )
                ],
            )
        ],
        device_types={"code-rack": rack, "code-server": server, "code-gpu": gpu},
    )
    assert not server.raw
    path = tmp_path / "code.dcwb"
    save_design(design, path)
    assert open_design(path) == design
