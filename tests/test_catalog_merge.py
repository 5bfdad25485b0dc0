"""Importing over an existing item: a field-by-field diff that keeps what the new file
lacks (power, price, GPUs, sources) unless told to replace, and a power figure entered
by the user that records its source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.catalog import load_catalog, load_file, parse_item
from workbench.catalog.merge import KEPT, REPLACED, changed, diff_items, kept_fields, with_power
from workbench.catalog.netbox import power_source
from workbench.cli.main import main

NETBOX = Path(__file__).parent / "data" / "netbox"


@pytest.fixture(autouse=True)
def user_folder(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "user-catalog"
    monkeypatch.setenv("WORKBENCH_USER_CATALOG", str(folder))
    return folder


@pytest.mark.parametrize(
    ("name", "slug", "watts", "price"),
    [
        ("nvidia-qm9700-library.yaml", "nvidia-qm9700", 1200, 30000),
        ("nvidia-sn5600-library.yaml", "nvidia-sn5600", 2000, None),
    ],
)
def test_import_over_shipped_keeps_power_and_price(user_folder, capsys, name, slug, watts, price):
    shipped = load_catalog(include_user=False)[slug]
    assert main(["catalog", "import-netbox", "--json", str(NETBOX / name)]) == 0
    [record] = json.loads(capsys.readouterr().out)
    rows = {row["field"]: row for row in record["diff"]}
    assert rows["max_power_w"] == {
        "field": "max_power_w",
        "old": watts,
        "new": watts,
        "action": KEPT,
    }
    assert rows["unit_price"]["new"] == shipped.unit_price and rows["unit_price"]["action"] == KEPT
    assert rows["model"]["action"] == REPLACED or rows["model"]["action"] == "same"
    item = load_catalog()[slug]
    assert (item.max_power_w, item.unit_price) == (watts, shipped.unit_price)
    assert item.sources["max_power_w"] == shipped.sources["max_power_w"]
    assert record["power_source"] == "catalog" and price in (None, shipped.unit_price)


def test_replace_takes_the_file_alone(user_folder, capsys):
    source = NETBOX / "nvidia-qm9700-library.yaml"
    assert main(["catalog", "import-netbox", "--replace", str(source)]) == 0
    out = capsys.readouterr().out
    assert "max_power_w: 1200 -> unknown (replaced)" in out
    assert (user_folder / "nvidia-qm9700.yaml").read_bytes() == source.read_bytes()
    assert load_catalog()["nvidia-qm9700"].max_power_w is None


def test_derived_power_does_not_replace_a_stated_one():
    shipped = load_catalog(include_user=False)["nvidia-dgx-a100"]
    result = load_file(NETBOX / "nvidia-dgx-a100-library.yaml")
    [new] = result.items
    assert new.max_power_w == 1172 and power_source(new) == "allocated_draw"
    assert any("comments say 6,500 W" in w.message for w in result.warnings)
    kept = kept_fields(shipped, new.raw)
    assert kept["max_power_w"] == 6500 and kept["unit_price"] == 200000
    merged = parse_item(new.raw | kept)
    rows = {row.field: row for row in diff_items(shipped, merged, kept)}
    assert rows["max_power_w"].action == KEPT and merged.max_power_w == 6500
    assert all(row.action != "same" for row in changed(list(rows.values())))
    assert kept_fields(shipped, new.raw, replace=True) == {}


def test_a_power_figure_entered_by_the_user_records_its_source():
    [item] = load_file(NETBOX / "nvidia-sn5600-library.yaml").items
    assert power_source(item) == "unknown"
    mapping = with_power(item, 2200, "measured at the PDU, 2024-05")
    again = parse_item(mapping, "design snapshot")
    assert (again.max_power_w, again.kind) == (2200, "switch")
    assert again.sources["max_power_w"] == "user: measured at the PDU, 2024-05"
    assert power_source(again) == "user"
    assert item.raw.get("max_power_w") is None  # the old item is unchanged
    with pytest.raises(ValueError, match="above 0 W"):
        with_power(item, 0, "x")
