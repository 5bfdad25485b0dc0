"""The sample design ships as a project file (cold start opens it instead of building
the template): it must be exactly what the template builds from the shipped catalog."""

from __future__ import annotations

from workbench.store import open_design
from workbench.templates import sample_design
from workbench.templates.bundled import SAMPLE_FILE, bundled_sample


def test_the_bundled_sample_is_what_the_template_builds() -> None:
    shipped = open_design(SAMPLE_FILE)
    built = sample_design()
    assert shipped == built, (
        f"{SAMPLE_FILE.name} has drifted from the template or the shipped catalog; "
        "write it again with: .venv/bin/python -m workbench.templates.bundled"
    )


def test_a_missing_sample_file_falls_back_to_the_template(monkeypatch, tmp_path) -> None:
    from workbench.templates import bundled

    monkeypatch.setattr(bundled, "SAMPLE_FILE", tmp_path / "gone.dcwb")
    assert bundled_sample() == sample_design()


def test_the_bundled_sample_is_saved_at_the_current_schema() -> None:
    """An older file still opens (it is migrated on every start), so equality alone
    misses this drift; the migration costs the start its sqlite_utils import and the
    upgrade steps."""
    import sqlite3

    from workbench.store import schema

    conn = sqlite3.connect(f"file:{SAMPLE_FILE}?mode=ro", uri=True)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()
    assert version == schema.SCHEMA_VERSION, (
        f"{SAMPLE_FILE.name} is saved at schema {version}, the store writes "
        f"{schema.SCHEMA_VERSION}; write it again with: "
        ".venv/bin/python -m workbench.templates.bundled"
    )


def test_the_window_starts_on_the_file_not_the_template(monkeypatch) -> None:
    """What starts is the shipped file: with the template unusable the window still
    gets the sample, so the fallback is not what quietly runs on every start."""
    from workbench.templates import builder
    from workbench.ui.shell.app import sample_or_empty

    def refuse(*_args, **_kwargs):
        raise AssertionError("the template was built although the sample file is there")

    monkeypatch.setattr(builder, "sample_design", refuse)
    design, failure = sample_or_empty()
    assert failure is None
    assert design == open_design(SAMPLE_FILE)
