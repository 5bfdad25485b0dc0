"""Catalog files from strangers: every limit of ``workbench.catalog.limits`` holds, a
hostile file costs one error naming its file and line, and nothing else breaks: the
rest of the folder, the window's catalog, ``report``, ``check`` and each other file of
one ``import-netbox`` run."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import threading
from pathlib import Path

import pytest
import yaml

from workbench.catalog import CatalogError, limits, load_catalog, load_file, parse_item, yaml_source
from workbench.catalog.errors import display_path
from workbench.cli.main import main

DATA = Path(__file__).parent / "data"
NETBOX = DATA / "netbox"
DELL = NETBOX / "dell-poweredge-xe9680.yaml"
ARISTA = NETBOX / "arista-dcs-7050sx3-48yc8.yaml"

HEAD = "manufacturer: Example\nmodel: Node\nslug: example-node\nu_height: 1\nmax_power_w: 100\n"

#: Nine nested aliases of nine: 9**9 = 387 million strings once expanded.
BILLION_LAUGHS = (
    "manufacturer: Example\nmodel: Bomb\nslug: example-bomb\nprops:\n"
    '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(
        f"  {chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n"
        for i in range(8)
    )
)
SELF_REFERENCE = HEAD + "props: {loop: &x [1, *x]}\n"


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    return path


def only_error(path: Path) -> CatalogError:
    """The one error of a file that must be refused, after checking it is one line."""
    result = load_file(path)
    assert result.items == [], "a refused file yields no item"
    assert len(result.errors) == 1, [str(e) for e in result.errors]
    error = result.errors[0]
    assert "\n" not in str(error) and error.file == display_path(path)
    return error


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(params=["libyaml", "pure-python"])
def both_parsers(request, monkeypatch):
    """Run a test with libyaml's parser and with PyYAML's own (the no-libyaml fallback)."""
    if request.param == "pure-python":
        monkeypatch.setattr(yaml_source, "_Loader", yaml.SafeLoader)
        monkeypatch.setattr(yaml_source, "_BYTE_OFFSETS", False)
    return request.param


# --- aliases -------------------------------------------------------------------------


def test_billion_laughs_is_refused_at_the_first_alias_fast(tmp_path, both_parsers):
    path = write(tmp_path, "bomb.yaml", BILLION_LAUGHS)
    error = only_error(path)  # its time: tests/benchmarks/bench_untrusted_inputs.py
    assert (error.line, error.field) == (6, "props.b[0]")  # the first alias
    assert "alias *a is not allowed" in error.message


def test_self_referencing_alias_is_refused(tmp_path, both_parsers):
    error = only_error(write(tmp_path, "loop.yaml", SELF_REFERENCE))
    assert (error.line, error.field) == (6, "props.loop[1]")
    assert "alias *x" in error.message


def test_even_a_harmless_alias_is_refused_but_an_unused_anchor_is_fine(tmp_path):
    error = only_error(write(tmp_path, "a.yaml", HEAD + "comments: &c hi\nairflow: *c\n"))
    assert (error.line, error.field) == (7, "airflow")
    [item] = load_file(write(tmp_path, "b.yaml", HEAD + "comments: &c hi\n")).items
    assert item.comments == "hi"


def test_merge_keys_are_refused(tmp_path):
    error = only_error(write(tmp_path, "m.yaml", HEAD + "<<: {airflow: front-to-rear}\n"))
    assert error.line == 6 and "merge keys" in error.message


# --- size ----------------------------------------------------------------------------


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "huge.yaml"
    with path.open("wb") as handle:  # sparse: 2 GiB on paper, nothing on disk
        handle.truncate(2 * 1024**3)
    read = []
    monkeypatch.setattr(yaml_source, "parse_yaml_text", lambda *a: read.append(a))
    error = only_error(path)
    assert read == []  # refused before a byte was parsed
    assert f"at most {limits.MAX_FILE_BYTES:,} bytes" in error.message
    assert "2,147,483,648 bytes" in error.message


def test_a_file_at_the_size_limit_is_read(tmp_path):
    filler = "# " + "x" * 78 + "\n"
    body = HEAD + filler * ((limits.MAX_FILE_BYTES - len(HEAD)) // len(filler))
    body += "#" * (limits.MAX_FILE_BYTES - len(body) - 1) + "\n"
    assert len(body) == limits.MAX_FILE_BYTES
    assert load_file(write(tmp_path, "full.yaml", body)).errors == []
    error = only_error(write(tmp_path, "over.yaml", body + "\n"))
    assert "file is 1,048,577 bytes" in error.message


def test_a_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    results = []
    reader = threading.Thread(target=lambda: results.append(load_file(fifo)), daemon=True)
    reader.start()
    reader.join(timeout=30)  # a blocked open never returns; a busy machine is only slow
    assert results, "load_file blocked on a FIFO"
    [error] = results[0].errors
    assert "not a plain file" in error.message


# --- depth, value count, text length -------------------------------------------------


@pytest.mark.parametrize("style", ["flow", "block"])
def test_nesting_depth_limit(tmp_path, both_parsers, style):
    def nested(depth: int) -> str:  # props is level 1 (under the top mapping, level 0)
        if style == "flow":
            return HEAD + "props: " + "[" * (depth - 1) + "]" * (depth - 1) + "\n"
        lines = ["props:"] + [" " * i + "-" for i in range(1, depth - 1)]
        return HEAD + "\n".join(lines) + " []\n"

    ok = load_file(write(tmp_path, "ok.yaml", nested(limits.MAX_NESTING_DEPTH)))
    assert ok.errors and "expected a mapping of names to values" in ok.errors[0].message
    error = only_error(write(tmp_path, "deep.yaml", nested(limits.MAX_NESTING_DEPTH + 1)))
    assert f"nested more than {limits.MAX_NESTING_DEPTH} deep" in error.message
    assert error.line == 6 if style == "flow" else error.line > 6
    assert error.field.startswith("props[0]") and len(error.field) < 130


def test_thousands_of_levels_are_refused_quickly(tmp_path, both_parsers):
    text = HEAD + "props: " + "[" * 5000 + "]" * 5000 + "\n"
    error = only_error(write(tmp_path, "deep.yaml", text))  # timed in bench_untrusted_inputs
    assert error.line == 6  # refused by libyaml's own cap of 1,000 or by ours


def test_value_count_limit(tmp_path):
    below = limits.MAX_VALUES_PER_FILE - 20  # HEAD and the list itself are values too
    # Under props: an unknown top-level field is refused by NetBox's schema.
    ok = load_file(
        write(tmp_path, "ok.yaml", HEAD + "props: {x: [" + ",".join(["0"] * below) + "]}\n")
    )
    assert ok.errors == [] and len(ok.items[0].raw["props"]["x"]) == below
    text = HEAD + "props: {x: [" + ",".join(["0"] * limits.MAX_VALUES_PER_FILE) + "]}\n"
    error = only_error(write(tmp_path, "dense.yaml", text))
    assert f"more than {limits.MAX_VALUES_PER_FILE:,} values" in error.message
    assert error.line == 6 and error.field.startswith("props.x[")


def test_text_and_field_name_length_limits(tmp_path):
    longest = "x" * limits.MAX_STRING_CHARS
    [item] = load_file(write(tmp_path, "ok.yaml", HEAD + f"comments: {longest}\n")).items
    assert item.comments == longest
    error = only_error(write(tmp_path, "long.yaml", HEAD + f"comments: '{longest}x'\n"))
    assert (error.line, error.field) == (6, "comments")
    assert f"text of {limits.MAX_STRING_CHARS + 1:,} characters" in error.message
    key = "k" * (limits.MAX_KEY_CHARS + 1)
    error = only_error(write(tmp_path, "key.yaml", HEAD + f"{key}: 1\n"))
    assert error.line == 6 and "field name of" in error.message and key not in str(error)


# --- numbers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "words"),
    [
        (".inf", "expected a finite number, got .inf"),
        ("-.Inf", "expected a finite number"),
        (".nan", "expected a finite number"),
        ("1.0e+400", "expected a finite number"),
        ("1" + "0" * 16, "is too large"),
        ("-2.0e+15", "is too large"),
        ("0x" + "f" * 20, "is too large"),
        ("9" * 5000, "unreadable value: a number written with 5,000 characters"),
        ("1" + "0" * 40, "unreadable value"),
    ],
)
def test_numbers_out_of_range_name_the_field_and_line(tmp_path, written, words):
    error = only_error(write(tmp_path, "n.yaml", HEAD + f"weight: {written}\n"))
    assert (error.line, error.field) == (6, "weight")
    assert words in error.message


def test_numbers_up_to_the_magnitude_limit_are_read_exactly(tmp_path):
    text = HEAD + "unit_price: 1000000000000000\nprops: {big: -1.0e+15}\n"
    [item] = load_file(write(tmp_path, "ok.yaml", text)).items
    assert item.unit_price == limits.MAX_NUMBER_MAGNITUDE
    assert json.loads(json.dumps(item.raw, allow_nan=False))["props"]["big"] == -1e15


def test_a_snapshot_with_huge_or_infinite_numbers_is_refused_too():
    entry = {"slug": "s-1", "manufacturer": "A", "model": "B", "max_power_w": 1e300}
    with pytest.raises(CatalogError, match="too large"):
        parse_item(entry, "design snapshot")
    with pytest.raises(CatalogError, match="finite"):
        parse_item(dict(entry, max_power_w=float("inf")), "design snapshot")


@pytest.mark.parametrize(
    ("line", "field", "words"),
    [
        ("u_height: 101", "u_height", "more than the 100 allowed"),
        ("u_height: 1000000000000", "u_height", "rack units is more than"),
        ("gpu: nvidia-h100-sxm\ngpu_count: 1025", "gpu_count", "more than the 1,024 allowed"),
        ("gpu: a" + "-b" * 60, "gpu", "at most 100"),
    ],
)
def test_item_figures_that_would_hang_the_views_are_refused(tmp_path, line, field, words):
    text = HEAD.replace("u_height: 1\n", "") + "kind: server\n" + line + "\n"
    result = load_file(write(tmp_path, "n.yaml", text))
    errors = [e for e in result.errors if e.field == field]
    assert errors and words in errors[0].message and errors[0].line is not None


def test_slug_length_limit(tmp_path):
    slug = "a" * limits.MAX_SLUG_CHARS
    assert load_file(write(tmp_path, "ok.yaml", HEAD.replace("example-node", slug))).items
    error = only_error(write(tmp_path, "long.yaml", HEAD.replace("example-node", slug + "b")))
    assert (error.line, error.field) == (3, "slug")
    assert f"at most {limits.MAX_SLUG_CHARS}" in error.message


# --- tags, types, documents, characters ----------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("!!python/object/apply:os.system ['echo hi']", "!!python/object/apply:os.system"),
        ("!!python/object:os.PathLike {}", "!!python/object:os.PathLike"),
        ("!foo bar", "!foo"),
        ("!foo {a: 1}", "!foo"),
        ("!!binary aGVsbG8=", "!!binary"),
        ("!!set {a: null}", "!!set"),
        ("!!omap [a: 1]", "!!omap"),
        ("!!seq {a: 1}", "!!seq"),
        ("!<tag:example.com,2024:thing> x", "tag:example.com,2024:thing"),
    ],
)
def test_tags_other_than_the_plain_ones_are_refused(tmp_path, both_parsers, value, shown):
    error = only_error(write(tmp_path, "t.yaml", HEAD + f"comments: {value}\n"))
    assert (error.line, error.field) == (6, "comments")
    assert f"the tag {shown} is not allowed" in error.message


def test_plain_tags_written_out_are_accepted(tmp_path):
    text = HEAD + "part_number: !!str 0123\ncomments: ! plain\nprops: !!map {n: !!int '7'}\n"
    [item] = load_file(write(tmp_path, "ok.yaml", text)).items
    assert (item.part_number, item.comments, item.props) == ("0123", "plain", {"n": 7})


def test_dates_are_read_as_the_text_written_so_snapshots_reparse_equal(tmp_path):
    text = HEAD + "comments: 2024-01-01\nprops: {since: !!timestamp 2024-02-30}\n"
    [item] = load_file(write(tmp_path, "d.yaml", text)).items
    assert (item.comments, item.props["since"]) == ("2024-01-01", "2024-02-30")
    assert parse_item(json.loads(json.dumps(item.raw))) == item


@pytest.mark.parametrize(
    ("value", "words"),
    [("!!bool maybe", "'maybe' is not a valid !!bool"), ("!!int twelve", "not a valid !!int")],
)
def test_a_value_that_does_not_fit_its_tag_is_an_error(tmp_path, value, words):
    error = only_error(write(tmp_path, "t.yaml", HEAD + f"weight: {value}\n"))
    assert (error.line, error.field) == (6, "weight") and words in error.message


@pytest.mark.parametrize(
    ("text", "line", "field", "words"),
    [
        ("- a list\n- of things\n", 1, None, "expected a device type"),
        (HEAD + "props: [1, 2]\n", 6, "props", "expected a mapping of names to values"),
        (HEAD + "interfaces: {eth0: x}\n", 6, "interfaces", "expected a list"),
        (HEAD + "interfaces: [eth0]\n", 6, "interfaces[0]", "expected a mapping"),
        (HEAD + "tflops: 5\n", 6, "tflops", "expected a mapping"),
        ("items: 3\n", 1, "items", "expected a list of entries"),
        ("items: [3]\n", 1, None, "must be a mapping"),
        (HEAD + "? [a, b]\n: 1\n", 6, None, "field names must be plain text"),
        (HEAD + "---\nslug: second\n", 6, None, "a second document"),
    ],
)
def test_wrong_types_and_shapes_name_the_line(tmp_path, text, line, field, words):
    result = load_file(write(tmp_path, "w.yaml", text))
    assert result.items == [] and result.errors
    error = result.errors[0]
    assert (error.line, error.field or None) == (line, field), str(error)
    assert words in error.message


def test_control_characters_are_refused_with_their_line(tmp_path, both_parsers):
    error = only_error(write(tmp_path, "c.yaml", HEAD.encode() + "comments: é\x00\n".encode()))
    assert error.line == 6 and "U+0000" in error.message


def test_bytes_that_are_not_utf8_are_refused_with_their_line(tmp_path):
    error = only_error(write(tmp_path, "latin1.yaml", HEAD.encode() + b"comments: caf\xe9\n"))
    assert error.line == 6 and "not UTF-8" in error.message


def test_odd_file_names_print_on_one_line(tmp_path):
    name = os.fsdecode(b"bad\xff\nname.yaml")
    path = write(tmp_path, name, BILLION_LAUGHS)
    error = only_error(path)
    text = str(error)
    text.encode("utf-8")  # printable: no lone surrogate left to crash print()
    assert "\n" not in text and "\\udcff\\nname.yaml" in text


# --- counts per file and per folder --------------------------------------------------


def test_items_per_file_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_ITEMS_PER_FILE", 3)
    entry = "  - {{slug: c-{0}, manufacturer: A, model: B, kind: cable}}\n"
    ok = load_file(
        write(tmp_path, "ok.yaml", "items:\n" + "".join(entry.format(i) for i in range(3)))
    )
    assert len(ok.items) == 3
    error = only_error(write(tmp_path, "many.yaml", "items:\n" + entry.format(9) * 4))
    assert (error.line, error.field) == (1, "items") and "at most 3" in error.message


def test_catalog_files_per_folder_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_CATALOG_FILES", 3)
    for index in range(5):
        write(tmp_path, f"sub{index % 2}/n{index}.yaml", HEAD.replace("node", f"node-{index}"))
    catalog = load_catalog([tmp_path])
    assert len(catalog) == 3
    [error] = catalog.errors
    assert "more than 3 YAML files" in error.message and error.file == display_path(tmp_path)


def test_hidden_folders_are_not_entered_and_folder_links_not_followed(tmp_path):
    write(tmp_path, "a.yaml", HEAD)
    write(tmp_path, ".git/objects/x.yaml", "broken: [")
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    catalog = load_catalog([tmp_path], strict=True)
    assert list(catalog.items) == ["example-node"]


# --- a bad file in the user's folder costs one error, never the application ---------


@pytest.fixture
def bombed_user_folder(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "user-catalog"
    write(folder, "bomb.yaml", BILLION_LAUGHS)
    write(folder, "loop.yaml", SELF_REFERENCE.replace("example-node", "example-loop"))
    write(folder, "good.yaml", HEAD.replace("example-node", "my-node"))
    monkeypatch.setenv("WORKBENCH_USER_CATALOG", str(folder))
    return folder


def test_user_folder_bombs_cost_one_error_each(bombed_user_folder):
    shipped = load_catalog(include_user=False)
    catalog = load_catalog()
    assert set(shipped.items) < set(catalog.items) and "my-node" in catalog
    assert sorted((Path(e.file).name, e.line) for e in catalog.errors) == [
        ("bomb.yaml", 6),
        ("loop.yaml", 6),
    ]


def test_the_window_catalog_loads_with_bombs_in_the_user_folder(bombed_user_folder):
    from workbench.ui.shell.app import load_catalog_reporting

    catalog, problems, _warnings = load_catalog_reporting()
    assert catalog is not None and "my-node" in catalog and "nvidia-dgx-h100" in catalog
    assert len(problems) == 2 and all("alias" in p for p in problems)


@pytest.mark.parametrize("command", ["report", "check"])
def test_report_and_check_work_with_bombs_in_the_user_folder(
    bombed_user_folder, tmp_path, capsys, command
):
    project = tmp_path / "p.dcwb"
    shutil.copy(DATA / "project_v4.dcwb", project)
    before = digest(project)
    code = main([command, str(project)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "MemoryError" not in err
    assert code == (0 if command == "report" else 1), err  # the sample fails its checks
    assert str(project) in out
    assert digest(project) == before
    # Skipped files are said once, on stderr (stdout stays clean for --json).
    warnings = [line for line in err.splitlines() if "catalog problem" in line]
    assert len(warnings) == 1 and "skipped 2 catalog problem(s) in 2 file(s)" in warnings[0]
    assert "alias" in warnings[0] and "catalog validate" in warnings[0]


def test_validate_reports_the_bomb_and_still_counts_the_rest(bombed_user_folder, capsys):
    assert main(["catalog", "validate"]) == 1
    out = capsys.readouterr().out
    assert "bomb.yaml:6: field 'props.b[0]': YAML alias *a is not allowed" in out
    assert out.count("error: ") == 2


# --- import-netbox: each file on its own --------------------------------------------


def test_import_good_bomb_good_imports_both_good_files(tmp_path, capsys):
    sources = tmp_path / "from-a-stranger"
    bomb = write(sources, "bomb.yaml", BILLION_LAUGHS)
    hashes = {path: digest(path) for path in (DELL, bomb, ARISTA)}
    dest = tmp_path / "user"
    code = main(
        ["catalog", "import-netbox", "--dest", str(dest), str(DELL), str(bomb), str(ARISTA)]
    )
    out, err = capsys.readouterr()
    assert code == 1
    assert "added dell-poweredge-xe9680" in out and "added arista-dcs-7050sx3-48yc8" in out
    assert "imported 2 of 3 files" in out
    assert f"error: {display_path(bomb)}:6: field 'props.b[0]': YAML alias" in err
    assert "Traceback" not in err
    assert sorted(p.name for p in dest.iterdir()) == [
        "arista-dcs-7050sx3-48yc8.yaml",
        "dell-poweredge-xe9680.yaml",
    ]  # nothing for the bomb, no temporary file left
    assert {path: digest(path) for path in hashes} == hashes


def test_import_refuses_an_oversized_file_and_a_pipe(tmp_path, capsys):
    big = tmp_path / "big.yaml"
    big.write_bytes(DELL.read_bytes() + b"#" * limits.MAX_FILE_BYTES)
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    dest = tmp_path / "user"
    code = main(["catalog", "import-netbox", "--dest", str(dest), str(big), str(fifo), str(ARISTA)])
    err = capsys.readouterr().err
    assert code == 1
    assert f"{display_path(big)}: file is" in err and "not a plain file" in err
    assert [p.name for p in dest.iterdir()] == ["arista-dcs-7050sx3-48yc8.yaml"]


def test_import_with_kind_of_a_bomb_copies_nothing(tmp_path, capsys):
    bomb = write(tmp_path, "bomb.yaml", SELF_REFERENCE)
    dest = tmp_path / "user"
    code = main(["catalog", "import-netbox", "--kind", "server", "--dest", str(dest), str(bomb)])
    assert code == 1
    assert "alias *x" in capsys.readouterr().err
    assert list(dest.iterdir()) == []


def test_import_into_a_folder_already_holding_a_bomb_still_works(tmp_path, capsys):
    dest = tmp_path / "user"
    write(dest, "bomb.yaml", BILLION_LAUGHS)
    assert main(["catalog", "import-netbox", "--dest", str(dest), str(ARISTA)]) == 0
    assert "added arista-dcs-7050sx3-48yc8" in capsys.readouterr().out
    assert (dest / "arista-dcs-7050sx3-48yc8.yaml").read_bytes() == ARISTA.read_bytes()


@pytest.mark.parametrize(
    ("field", "bad"),
    [("model", "DGX\\u202eH100"), ("manufacturer", "NVI\\nDIA"), ("part_number", "P\\x00N")],
)
def test_printed_names_follow_the_model_name_rule(tmp_path, field, bad):
    """Manufacturer, model and part number reach labels and BOM cells, so they follow
    the same rule as every name in the model (workbench/text_rules.py)."""
    text = HEAD.replace("example-node", "bad-name")
    text += f'{field}: "{bad}"\n' if field == "part_number" else ""
    if field != "part_number":
        text = re.sub(rf"^{field}: .*$", lambda _: f'{field}: "{bad}"', text, flags=re.M)
    write(tmp_path, "bad.yaml", text)
    catalog = load_catalog([tmp_path], include_user=False)
    assert "bad-name" not in catalog
    (error,) = [e for e in catalog.errors if e.field == field]
    assert Path(error.file).name == "bad.yaml" and error.line is not None
