"""``workbench catalog validate | import-netbox | list``: output, exit codes, and the
promise that importing never alters the user's source file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.cli.main import main

NETBOX = Path(__file__).parent / "data" / "netbox"
DELL = NETBOX / "dell-poweredge-xe9680.yaml"
ARISTA = NETBOX / "arista-dcs-7050sx3-48yc8.yaml"


@pytest.fixture(autouse=True)
def user_folder(tmp_path, monkeypatch) -> Path:
    """Every test gets its own, initially absent, user catalog folder."""
    folder = tmp_path / "user-catalog"
    monkeypatch.setenv("WORKBENCH_USER_CATALOG", str(folder))
    return folder


def test_validate_shipped_catalog_passes(capsys):
    assert main(["catalog", "validate"]) == 0
    out = capsys.readouterr().out
    assert " 0 errors, 0 warnings" in out


def test_validate_reports_errors_and_warnings_and_exits_1(tmp_path, capsys):
    folder = tmp_path / "cat"
    folder.mkdir()
    shutil.copy(ARISTA, folder)
    (folder / "bad.yaml").write_text(
        "manufacturer: A\nmodel: B\nslug: ok-slug\nu_height: eight\nis_full_depth: true\n"
    )
    assert main(["catalog", "validate", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "bad.yaml:4: field 'u_height': expected a number, got 'eight'" in out
    assert "warning: " in out and "power unknown: no allocated_draw or maximum_draw" in out
    assert "1 item, 1 error, 1 warning" in out


def test_validate_of_a_missing_folder_is_a_one_line_error(tmp_path, capsys):
    assert main(["catalog", "validate", str(tmp_path / "nope")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "catalog folder not found" in err


def test_import_copies_bytes_reports_and_leaves_the_source_alone(user_folder, capsys):
    sources = {path: path.read_bytes() for path in (DELL, ARISTA)}
    assert main(["catalog", "import-netbox", str(DELL), str(ARISTA)]) == 0
    out = capsys.readouterr().out
    assert "added dell-poweredge-xe9680 (server, kind inferred" in out
    assert "added arista-dcs-7050sx3-48yc8 (switch, kind inferred" in out
    assert "power unknown: no allocated_draw" in out and "is a supply rating" in out
    assert "imported 2 of 2 files" in out
    for path, data in sources.items():
        assert path.read_bytes() == data
    copied = user_folder / "dell-poweredge-xe9680.yaml"
    assert copied.read_bytes() == sources[DELL]
    assert sorted(p.name for p in user_folder.iterdir()) == [
        "arista-dcs-7050sx3-48yc8.yaml",
        "dell-poweredge-xe9680.yaml",
    ]  # no temporary files left behind
    # Now the user's catalog offers them.
    assert main(["catalog", "list", "--json", "--kind", "server"]) == 0
    slugs = [row["slug"] for row in json.loads(capsys.readouterr().out)]
    assert "dell-poweredge-xe9680" in slugs and "nvidia-dgx-h100" in slugs


def test_import_refuses_to_overwrite_a_different_file_without_force(user_folder, tmp_path, capsys):
    user_folder.mkdir()
    existing = user_folder / "dell-poweredge-xe9680.yaml"
    existing.write_text("# my edited copy\n" + DELL.read_text())
    mine = existing.read_bytes()
    assert main(["catalog", "import-netbox", str(DELL)]) == 1
    captured = capsys.readouterr()
    assert "exists and differs; use --force" in captured.err
    assert existing.read_bytes() == mine
    assert main(["catalog", "import-netbox", "--force", str(DELL)]) == 0
    assert existing.read_bytes() == DELL.read_bytes()
    # Importing the identical file again is fine and changes nothing.
    assert main(["catalog", "import-netbox", str(DELL)]) == 0
    assert "unchanged dell-poweredge-xe9680" in capsys.readouterr().out


def test_import_continues_past_a_bad_file_and_exits_non_zero(user_folder, tmp_path, capsys):
    bad = tmp_path / "broken.yaml"
    bad.write_text("manufacturer: A\nmodel: B\nslug: Not_A_Slug\n")
    before = bad.read_bytes()
    assert main(["catalog", "import-netbox", str(bad), str(ARISTA)]) == 1
    captured = capsys.readouterr()
    assert "broken.yaml:3: field 'slug'" in captured.err
    assert "not imported: " in captured.err and "broken.yaml" in captured.err
    assert "imported 1 of 2 files" in captured.out
    assert bad.read_bytes() == before
    assert [p.name for p in user_folder.iterdir()] == ["arista-dcs-7050sx3-48yc8.yaml"]


def test_import_rejects_a_list_file(tmp_path, capsys):
    listing = tmp_path / "optics.yaml"
    listing.write_text(
        "items:\n  - {slug: a-b, manufacturer: A, model: B, kind: optic, max_power_w: 1}\n"
    )
    assert main(["catalog", "import-netbox", "--dest", str(tmp_path / "dest"), str(listing)]) == 1
    assert "not a NetBox device type" in capsys.readouterr().err


def test_import_into_an_unwritable_destination_says_so(tmp_path, capsys):
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("I am a file\n")
    code = main(["catalog", "import-netbox", "--dest", str(blocker / "catalog"), str(DELL)])
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith("workbench: cannot create catalog folder") and err.count("\n") == 1
    assert blocker.read_text() == "I am a file\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into read-only folders")
def test_import_into_a_read_only_folder_says_so(tmp_path, capsys):
    dest = tmp_path / "ro"
    dest.mkdir()
    dest.chmod(0o500)
    try:
        assert main(["catalog", "import-netbox", "--dest", str(dest), str(DELL)]) == 1
        assert "cannot write to" in capsys.readouterr().err
    finally:
        dest.chmod(0o700)


def test_list_table_is_aligned_and_filtered(capsys):
    assert main(["catalog", "list", "--kind", "switch"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["SLUG", "KIND", "MANUFACTURER", "MODEL", "U_HEIGHT", "ROLE"]
    assert len(lines) == 6
    kind_column = lines[0].index("KIND")
    assert all(line[kind_column:].startswith("switch") for line in lines[1:])


def test_list_json_has_the_agreed_keys(tmp_path, capsys):
    folder = tmp_path / "cat"
    folder.mkdir()
    shutil.copy(DELL, folder)
    assert main(["catalog", "list", "--json", "--dir", str(folder)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows == [
        {
            "slug": "dell-poweredge-xe9680",
            "kind": "server",
            "manufacturer": "Dell",
            "model": "PowerEdge XE9680 H100",
            "u_height": 6.0,
            "role": "gpu-server",
            "gpu": "nvidia-h100-sxm5-80gb",
            "gpu_count": 8,
            "max_power_w": None,  # six 2,800 W supply ratings are no draw
            "typical_power_w": None,
            "unit_price": None,
            "currency": "USD",
            "power_source": "unknown",
        }
    ]


def test_console_script_lists_every_kind_as_json(user_folder):
    """End to end through a real process, as a user runs it."""
    env = dict(os.environ, WORKBENCH_USER_CATALOG=str(user_folder), QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-m", "workbench.cli.main", "catalog", "list", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    kinds = {row["kind"] for row in rows}
    assert kinds == {"gpu", "server", "switch", "nic", "cable", "optic", "rack", "pdu", "storage"}
    assert all({"slug", "kind", "manufacturer", "model", "u_height"} <= row.keys() for row in rows)
    bad = subprocess.run(
        [sys.executable, "-m", "workbench.cli.main", "catalog", "list", "--kind", "toaster"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
