"""Declarative validation: what the library's schema accepts loads, what NetBox refuses
is refused with file:line, and the schema ships as package data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.catalog import load_catalog, load_file
from workbench.catalog.netbox_schema import (
    DEVICETYPE_COMMIT,
    devicetype_schema,
    schema_errors,
)
from workbench.catalog.yaml_source import parse_yaml_text

NETBOX = Path(__file__).parent / "data" / "netbox"
SCHEMA = Path(__file__).parents[1] / "workbench" / "catalog" / "schema"


def test_every_library_shaped_file_loads_and_every_rejected_one_is_refused():
    for path in sorted(NETBOX.glob("*.yaml")):
        assert load_file(path).errors == [], path
    assert len(list((NETBOX / "rejected").glob("*.yaml"))) == 3


@pytest.mark.parametrize(
    ("name", "line", "field", "words"),
    [
        ("missing-u-height.yaml", 3, "u_height", "required field is missing"),
        ("unknown-interface-type.yaml", 12, "interfaces[1].type", "not a NetBox interface type"),
        ("duplicate-interface-names.yaml", 13, "interfaces[2].name", "duplicate name 'eth0'"),
    ],
)
def test_what_netbox_refuses_is_reported_with_file_and_line(name, line, field, words):
    result = load_file(NETBOX / "rejected" / name)
    assert result.items == []
    [error] = result.errors
    assert (error.line, error.field) == (line, field) and words in error.message
    assert str(error).startswith(f"{error.file}:{line}: field '{field}': ")


def test_slug_with_underscore_loads():
    [item] = load_file(NETBOX / "asrockrack_1u4lw-x570.yaml").items
    assert item.slug == "asrockrack_1u4lw-x570"


def _errors(text: str) -> list[str]:
    data, lines = parse_yaml_text(text, "t.yaml")
    return [f"{e.line}:{e.field}:{e.message}" for e in schema_errors(data, lines, "t.yaml")]


HEAD = "manufacturer: A\nmodel: B\nslug: a-b\nu_height: 1\nis_full_depth: true\n"


def test_enumerations_limits_and_unknown_fields():
    assert _errors(HEAD) == []
    assert _errors(HEAD + "airflow: sideways\n") == [
        "6:airflow:'sideways' is not allowed; expected one of front-to-rear, rear-to-front, "
        "left-to-right, right-to-left, side-to-rear, passive, mixed"
    ]
    assert _errors(HEAD + "power-ports:\n  - name: p\n    type: iec-60320-c99\n")[0].startswith(
        "8:power-ports[0].type:'iec-60320-c99' is not a NetBox power port type"
    )
    assert _errors(HEAD + "maximum_power: 5\n") == [
        "6:maximum_power:unknown field: a NetBox device type has no such field, nor does the "
        "workbench"
    ]
    assert _errors(HEAD + "weight: 5\n") == [
        "1:weight_unit:required field is missing: NetBox needs it with weight"
    ]
    assert any("whole or half rack unit" in e for e in _errors(HEAD.replace("1\n", "1.25\n", 1)))
    assert any("multiple of 0.01" in e for e in _errors(HEAD + "weight: 1.005\nweight_unit: kg\n"))
    # 130.45 kg is a whole number of hundredths, whatever binary floating point says.
    assert _errors(HEAD + "weight: 130.45\nweight_unit: kg\n") == []


def test_workbench_entries_keep_their_documented_defaults():
    gpu = "manufacturer: A\nmodel: G\nslug: g\nkind: gpu\nmax_power_w: 700\n"
    assert _errors(gpu) == []  # no u_height, is_full_depth or weight_unit needed
    assert _errors(gpu + "tflops: {int8: 3}\n") == ["6:tflops.int8:'int8' is not allowed here"]


def test_shipped_catalog_passes_the_schema_and_loads_as_before():
    catalog = load_catalog(include_user=False)
    assert catalog.errors == [] and len(catalog) >= 50


def test_schema_files_cite_the_library_commit_and_ship_as_package_data():
    assert DEVICETYPE_COMMIT in devicetype_schema()["$comment"]
    for name in ("devicetype.json", "components.json"):
        assert (
            "netbox-community/devicetype-library"
            in json.loads((SCHEMA / name).read_text())["$comment"]
        )
    pyproject = (Path(__file__).parents[1] / "pyproject.toml").read_text()
    assert "catalog/schema/*.json" in pyproject and "jsonschema" in pyproject


LIBRARY = Path(__file__).parent / "data" / "netbox_library"


def test_netbox_current_types_and_an_empty_part_number_load():
    """Vertiv's VP7N32A0 has eaton-c39 outlets (NetBox's PowerOutletTypeChoices), and
    NetBox's own exports write ``part_number: ''``: both are files NetBox accepts."""
    result = load_file(LIBRARY / "Vertiv" / "VP7N32A0.yaml")
    assert not result.errors and result.items[0].kind == "pdu"
    assert _errors(HEAD + "part_number: ''\n") == []
    [item] = load_file(LIBRARY / "Mellanox" / "SN2010.yml").items
    assert item.kind == "switch"
