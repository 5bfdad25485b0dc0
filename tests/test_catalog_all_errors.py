"""One run reports every problem of a catalog file: each bad field of an entry, and
each bad entry of an ``items:`` file, as its own error with file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.catalog import (
    CatalogEntryErrors,
    CatalogError,
    load_catalog,
    load_file,
    parse_item,
)
from workbench.cli.main import main

THREE_BAD_FIELDS = """\
manufacturer: Example
model: Node One
slug: Bad Slug
kind: server
u_height: eight
max_power_w: 1500
weight: heavy
"""

ITEMS_TWO_BAD_ONE_GOOD = """\
items:
  - slug: Bad Optic
    manufacturer: A
    model: One
    kind: optic
    max_power_w: lots
  - {slug: good-optic, manufacturer: A, model: Two, kind: optic, max_power_w: 1}
  - slug: bad-cable
    manufacturer: A
    kind: cable
    weight: heavy
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def located(errors: list[CatalogError]) -> list[tuple[int | None, str | None]]:
    return [(error.line, error.field) for error in errors]


@pytest.fixture(autouse=True)
def user_folder(tmp_path, monkeypatch) -> Path:
    """The CLI must not read a real user catalog folder."""
    folder = tmp_path / "user-catalog"
    monkeypatch.setenv("WORKBENCH_USER_CATALOG", str(folder))
    return folder


def test_three_bad_fields_give_three_errors_with_lines_and_fields(tmp_path):
    write(tmp_path, "node.yaml", THREE_BAD_FIELDS)
    catalog = load_catalog([tmp_path])
    assert len(catalog) == 0
    assert located(catalog.errors) == [(3, "slug"), (5, "u_height"), (7, "weight")]
    texts = [str(error) for error in catalog.errors]
    assert texts[0].endswith(
        "node.yaml:3: field 'slug': 'Bad Slug' is not a valid slug: "
        "use lower-case letters, digits, hyphens and underscores"
    )
    assert texts[1].endswith("node.yaml:5: field 'u_height': expected a number, got 'eight'")
    assert texts[2].endswith("node.yaml:7: field 'weight': expected a number, got 'heavy'")
    assert all(error.file.endswith("node.yaml") for error in catalog.errors)


def test_strict_load_still_raises_the_first_error(tmp_path):
    write(tmp_path, "node.yaml", THREE_BAD_FIELDS)
    with pytest.raises(CatalogError) as caught:
        load_catalog([tmp_path], strict=True)
    assert (caught.value.line, caught.value.field) == (3, "slug")


def test_items_file_reports_every_bad_entry_and_loads_the_good_one(tmp_path):
    write(tmp_path, "optics.yaml", ITEMS_TWO_BAD_ONE_GOOD)
    catalog = load_catalog([tmp_path])
    assert list(catalog.items) == ["good-optic"]
    assert located(catalog.errors) == [
        (2, "slug"),
        (6, "max_power_w"),  # first entry: two bad fields
        (8, "model"),
        (11, "weight"),  # third entry: missing model (its start), bad weight
    ]
    result = load_file(tmp_path / "optics.yaml")
    assert not result.single and [item.slug for item in result.items] == ["good-optic"]
    assert located(result.errors) == located(catalog.errors)


def test_nested_problems_are_each_reported(tmp_path):
    text = (
        "manufacturer: A\nmodel: B\nslug: ok-slug\nkind: server\nmax_power_w: 900\n"
        "power-ports:\n  - name: psu1\n    type: iec-60320-c14\n    maximum_draw: lots\n"
        "  - allocated_draw: -1\n    type: iec-60320-c14\n"
        "tflops: {bf16: fast, fp99: 1}\n"
        "props: {cooling: water, host_ram_gb: many}\n"
    )
    write(tmp_path, "node.yaml", text)
    catalog = load_catalog([tmp_path])
    fields = [field for _, field in located(catalog.errors)]
    assert sorted(fields) == sorted(
        [
            "power-ports[0].maximum_draw",
            "power-ports[1].name",
            "power-ports[1].allocated_draw",
            "tflops.bf16",
            "tflops.fp99",
            "props.cooling",
            "props.host_ram_gb",
        ]
    )
    lines = [line for line, _ in located(catalog.errors)]
    assert lines == sorted(lines)  # in file order


def test_yaml_syntax_error_stays_one_error_per_file(tmp_path):
    write(
        tmp_path, "broken.yaml", "manufacturer: A\nmodel: [unclosed\nslug: Bad Slug\nu_height: x\n"
    )
    catalog = load_catalog([tmp_path])
    [error] = catalog.errors
    assert "YAML syntax error" in str(error)


def test_parse_item_raises_a_catalog_error_carrying_every_problem():
    mapping = {
        "manufacturer": "A",
        "model": "B",
        "slug": "Bad Slug",
        "u_height": "eight",
        "weight": "heavy",
    }
    with pytest.raises(CatalogError) as caught:
        parse_item(mapping, source_file="design snapshot")
    error = caught.value
    assert isinstance(error, CatalogEntryErrors)
    assert [e.field for e in error.errors] == ["slug", "u_height", "weight"]
    # It prints as its first problem, as parse_item's error always did.
    assert (error.file, error.line, error.field) == ("design snapshot", None, "slug")
    assert str(error) == str(error.errors[0])
    assert str(error).startswith("design snapshot: field 'slug': 'Bad Slug' is not a valid slug")


def test_one_bad_field_still_prints_exactly_as_before():
    with pytest.raises(CatalogError) as caught:
        parse_item({"manufacturer": "A", "model": "B", "slug": "ok", "u_height": "eight"})
    assert str(caught.value) == "<catalog entry>: field 'u_height': expected a number, got 'eight'"
    assert len(caught.value.errors) == 1


def test_derived_checks_do_not_repeat_a_field_already_reported():
    # A bad gpu_count is one error, not also "gpu_count is N but no gpu slug".
    with pytest.raises(CatalogEntryErrors) as caught:
        parse_item(
            {
                "manufacturer": "A",
                "model": "B",
                "slug": "ok",
                "gpu_count": -2,
                "typical_power_w": "x",
                "max_power_w": 5,
            }
        )
    assert sorted(e.field for e in caught.value.errors) == ["gpu_count", "typical_power_w"]


def test_a_huge_u_height_is_an_error_not_a_crash(tmp_path):
    write(tmp_path, "node.yaml", "manufacturer: A\nmodel: B\nslug: ok\nu_height: 1.0e+308\n")
    catalog = load_catalog([tmp_path])
    [error] = catalog.errors
    assert (error.line, error.field) == (4, "u_height")


def test_cli_validate_prints_every_error_and_counts_them(tmp_path, capsys):
    folder = tmp_path / "cat"
    write(folder, "node.yaml", THREE_BAD_FIELDS)
    assert main(["catalog", "validate", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "node.yaml:3: field 'slug': 'Bad Slug' is not a valid slug" in out
    assert "node.yaml:5: field 'u_height': expected a number, got 'eight'" in out
    assert "node.yaml:7: field 'weight': expected a number, got 'heavy'" in out
    assert out.count("error: ") == 3
    assert "0 items, 3 errors, 0 warnings" in out


def test_cli_validate_counts_errors_of_every_entry_of_an_items_file(tmp_path, capsys):
    folder = tmp_path / "cat"
    write(folder, "optics.yaml", ITEMS_TWO_BAD_ONE_GOOD)
    assert main(["catalog", "validate", str(folder)]) == 1
    out = capsys.readouterr().out
    assert out.count("error: ") == 4
    assert "1 item, 4 errors, 0 warnings" in out
