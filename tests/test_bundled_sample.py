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
